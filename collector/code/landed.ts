// Which commits of a watched repository landed, and their lines (docs/metrics.md §5 "Landed"): reachable from
// the remote's default branch as this machine's own fetches and pushes show it (origin/HEAD, else
// origin/main, else origin/master), authored by one of the user's addresses, committed at or after
// watching started. Found by reachability (the commits of the ref not reachable from the tip walked last),
// never by a `--since` walk, which stops at a commit whose committer time is older than its parent's. A commit's lines are the non-blank lines `git diff <first parent> <commit>` adds and
// removes outside excluded files (a root commit: against the empty tree; a merge commit: none).
import { repoIdentity } from '../../common/repo-id.ts';
import { isExcludedPath, type LinguistRule, parseLinguistRules } from './exclude.ts';
import { FORKING_GIT, type GitRunner, gitOutput } from './git.ts';
import { fingerprint, isBlank } from './lines.ts';

/** Added lines of one commit matched against the ledger at most; beyond, lines are counted only (logged). */
export const MAX_MATCHED_LINES = 50_000;

const DEFAULT_BRANCHES = ['refs/remotes/origin/HEAD', 'refs/remotes/origin/main', 'refs/remotes/origin/master'];

export interface RepoFacts {
  /** The ref commits land on, or undefined when the repository has none of the three. */
  ref: string | undefined;
  email: string | undefined;
  /** The remote's normalized host/path (`local:<id>` for a local path) and its id; undefined without an origin. */
  repo: string | undefined;
  repoId: string | undefined;
}

export async function repoFacts(root: string, git: GitRunner = FORKING_GIT): Promise<RepoFacts> {
  let ref: string | undefined;
  for (const candidate of DEFAULT_BRANCHES) {
    const out = await gitOutput(root, ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], git);
    if (out?.[0]) {
      ref = candidate;
      break;
    }
  }
  const email = (await gitOutput(root, ['config', '--get', 'user.email'], git))?.[0]?.trim();
  const url = (await gitOutput(root, ['config', '--get', 'remote.origin.url'], git))?.[0]?.trim();
  const identity = url ? repoIdentity(url) : undefined;
  return { ref, email: email || undefined, repo: identity?.repo, repoId: identity?.repoId };
}

export interface CandidateCommit {
  sha: string;
  /** Committer time, epoch ms. */
  ts: number;
  parents: string[];
  /** The author's address, lower case. */
  author: string;
}

/**
 * The commits reachable from `ref` (and not from `from`, the tip walked before, when given) authored by
 * one of `addresses` (lower case) and committed at or after `since`, newest first. Every reachable commit
 * is looked at: committer times are filtered here, not by git's walk.
 */
export async function landedCandidates(
  root: string,
  ref: string,
  addresses: ReadonlySet<string>,
  since: number,
  from?: string,
  timeoutMs?: number,
  git: GitRunner = FORKING_GIT,
): Promise<CandidateCommit[]> {
  const out: CandidateCommit[] = [];
  const code = await git.lines(
    root,
    ['log', '--format=%H%x09%ct%x09%ae%x09%P', ref, ...(from ? ['--not', from] : []), '--'],
    (line) => {
      const [sha, ct, rawAuthor, parents] = line.split('\t');
      const author = rawAuthor?.toLowerCase();
      if (!sha || !ct || !author || !addresses.has(author)) return;
      const ts = Number(ct) * 1000;
      if (ts < since) return;
      out.push({ sha, ts, author, parents: parents ? parents.split(' ').filter(Boolean) : [] });
    },
    timeoutMs,
  );
  return code === 0 ? out : [];
}

/** What a commit adds and removes: counts of every non-blank line, fingerprints of the first MAX_MATCHED_LINES added. */
export interface CommitLines {
  linesAdded: number;
  linesDeleted: number;
  /** relPath → fingerprints of its added lines (duplicates kept). */
  adds: Map<string, string[]>;
  /** Added lines past the matching cap (counted, not matched). */
  unmatched: number;
}

/** Pure, fed line by line: the lines of a `git diff-tree -p` output outside excluded files. */
export class DiffCounter {
  private file: string | undefined;
  private oldFile: string | undefined;
  private excluded = true;
  private inHunk = false;
  private matched = 0;
  readonly result: CommitLines = { linesAdded: 0, linesDeleted: 0, adds: new Map(), unmatched: 0 };

  constructor(
    private readonly rules: readonly LinguistRule[],
    private readonly cap = MAX_MATCHED_LINES,
  ) {}

  feed(line: string): void {
    if (line.startsWith('diff --git ')) {
      this.inHunk = false;
      this.file = undefined;
      this.oldFile = undefined;
      this.excluded = true;
      return;
    }
    if (!this.inHunk) {
      if (line.startsWith('--- ')) {
        const path = unquote(line.slice(4));
        this.oldFile = path === '/dev/null' ? undefined : path.replace(/^a\//, '');
      } else if (line.startsWith('+++ ')) {
        const path = unquote(line.slice(4));
        // A deleted file has no new side: its removed lines count under its old name.
        this.file = path === '/dev/null' ? undefined : path.replace(/^b\//, '');
        const named = this.file ?? this.oldFile;
        this.excluded = named === undefined || isExcludedPath(named, this.rules);
      }
      if (line.startsWith('@@')) this.inHunk = true;
      return;
    }
    if (line.startsWith('@@')) return;
    if (this.excluded) return;
    const body = line.slice(1);
    if (line[0] === '+') {
      if (isBlank(body)) return;
      this.result.linesAdded++;
      if (this.file === undefined) return;
      if (this.matched >= this.cap) {
        this.result.unmatched++;
        return;
      }
      this.matched++;
      const list = this.result.adds.get(this.file);
      if (list) list.push(fingerprint(body));
      else this.result.adds.set(this.file, [fingerprint(body)]);
    } else if (line[0] === '-') {
      if (!isBlank(body)) this.result.linesDeleted++;
    }
  }
}

/** Pure: a diff header's path, with git's C-style quoting undone (quotePath is off, but a tab or quote is still quoted). */
export function unquote(raw: string): string {
  // git ends a ---/+++ name holding a space with a tab (for GNU patch), after the quotes when it quotes.
  const path = raw.replace(/\t$/, '');
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const inner = path.slice(1, -1);
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c));
      continue;
    }
    const next = inner[++i]!;
    if (/[0-7]/.test(next)) {
      bytes.push(Number.parseInt(inner.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The lines a commit adds and removes against its first parent (root: the empty tree; merge: none). */
export async function commitLines(
  root: string,
  commit: CandidateCommit,
  cap = MAX_MATCHED_LINES,
  git: GitRunner = FORKING_GIT,
): Promise<CommitLines> {
  if (commit.parents.length > 1) return { linesAdded: 0, linesDeleted: 0, adds: new Map(), unmatched: 0 };
  const attributes = await gitOutput(root, ['show', `${commit.sha}:.gitattributes`], git);
  const counter = new DiffCounter(attributes ? parseLinguistRules(attributes.join('\n')) : [], cap);
  await git.lines(
    root,
    [
      'diff-tree',
      '-p',
      '-U0',
      '--root',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      '--no-renames',
      '--no-commit-id',
      commit.sha,
      '--',
    ],
    (line) => counter.feed(line),
    60_000,
  );
  return counter.result;
}
