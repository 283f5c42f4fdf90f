// The collector's side of the Impact figures (docs/metrics.md §5): after each acknowledged batch, the added
// lines of its edits go into the private ledger, under the model of the session's latest assistant
// message at or before the call, and the work trees its sessions ran in are watched; a scan then finds
// the commits that landed on each watched repository's default branch, credits their lines from the
// ledger, and keeps the commit records until the server acknowledges them. State lives in
// $AGENTMETER_HOME/impact (0700): repos.json (watched repositories), models.json, pending.json, ledger/.
import { join, relative, sep } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../../common/logger.ts';
import { ensurePrivateDir, writePrivateFile } from '../../common/private-files.ts';
import { AgentName, type WireLandedCommit, WireLandedCommit as WireLandedCommitSchema } from '../../common/wire.ts';
import { type CommitAdds, creditCommit } from './credit.ts';
import type { FileEdit } from './edit-lines.ts';
import { absolutePath, gitOutput, workTreeOf } from './git.ts';
import { commitLines, landedCandidates, repoFacts } from './landed.ts';
import { Ledger, readPrivate } from './ledger.ts';
import { fingerprint } from './lines.ts';

/** An event of a batch, as far as watching and the ledger need it. */
export interface ImpactTouch {
  agent: string;
  sessionId: string;
  ts: number;
  cwd?: string;
  edits?: FileEdit[];
}
/** A model seen in a session at a time (assistant messages and usage records of a batch). */
export interface ModelSeen {
  agent: string;
  sessionId: string;
  ts: number;
  model: string;
}

/** Commits already looked at are remembered this long (by committer time), and older ones not looked at. */
export const LOOKBACK_MS = 60 * 24 * 60 * 60 * 1000;
/** How often a repository's ledger is compacted at most. */
const COMPACT_EVERY_MS = 60 * 60 * 1000;
/** Sessions whose latest model is remembered. */
const MAX_SESSIONS = 5_000;

const RepoState = z.object({
  /** Watching started: the first event of a session in this work tree. */
  since: z.number(),
  /** Commit ids already looked at → committer time. */
  seen: z.record(z.string(), z.number()).default({}),
  compactedAt: z.number().default(0),
});
const ReposFile = z.object({
  version: z.literal(1),
  repos: z.record(z.string(), RepoState),
  /** Ledger lines dropped by the size cap, in all. */
  droppedLines: z.number().default(0),
});
type ReposFile = z.infer<typeof ReposFile>;
const ModelsFile = z.record(z.string(), z.object({ ts: z.number(), model: z.string() }));
type ModelsFile = z.infer<typeof ModelsFile>;

function loadJson<T>(path: string, schema: z.ZodType<T>, fallback: T): T {
  try {
    const text = readPrivate(path);
    if (text === '') return fallback;
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

/** Pure: the model of each touch: the latest model seen in its session at or before it, else the one remembered. */
export function modelAt(
  seen: readonly ModelSeen[],
  remembered: ModelsFile,
  touch: { agent: string; sessionId: string; ts: number },
): string {
  let best: { ts: number; model: string } | undefined;
  const key = `${touch.agent}\0${touch.sessionId}`;
  const before = remembered[key];
  if (before && before.ts <= touch.ts) best = before;
  for (const s of seen) {
    if (s.agent !== touch.agent || s.sessionId !== touch.sessionId || s.ts > touch.ts) continue;
    if (!best || s.ts >= best.ts) best = { ts: s.ts, model: s.model };
  }
  return best?.model ?? 'unknown';
}

/** What `collect status` shows, read from the files alone: no logger, nothing written. */
export function readImpactStatus(agentmeterHome: string): { watched: number; pending: number; droppedLines: number } {
  const dir = join(agentmeterHome, 'impact');
  const repos = loadJson(join(dir, 'repos.json'), ReposFile, { version: 1, repos: {}, droppedLines: 0 });
  const pending = loadJson(join(dir, 'pending.json'), z.array(WireLandedCommitSchema), []);
  return { watched: Object.keys(repos.repos).length, pending: pending.length, droppedLines: repos.droppedLines };
}

export interface ScanReport {
  repos: number;
  landed: number;
}

export class Impact {
  readonly dir: string;
  readonly ledger: Ledger;
  private repos: ReposFile;
  private models: ModelsFile;
  private pendingRecords: WireLandedCommit[];
  private readonly trees = new Map<string, string | null>();

  constructor(
    agentmeterHome: string,
    private readonly log: Logger,
  ) {
    this.dir = join(agentmeterHome, 'impact');
    this.ledger = new Ledger(this.dir);
    this.repos = loadJson(join(this.dir, 'repos.json'), ReposFile, { version: 1, repos: {}, droppedLines: 0 });
    this.models = loadJson(join(this.dir, 'models.json'), ModelsFile, {});
    this.pendingRecords = loadJson(join(this.dir, 'pending.json'), z.array(WireLandedCommitSchema), []);
  }

  private save(): void {
    ensurePrivateDir(this.dir);
    writePrivateFile(join(this.dir, 'repos.json'), JSON.stringify(this.repos));
    writePrivateFile(join(this.dir, 'models.json'), JSON.stringify(this.models));
    writePrivateFile(join(this.dir, 'pending.json'), JSON.stringify(this.pendingRecords));
  }

  /** The watched work trees (their roots). */
  get watched(): string[] {
    return Object.keys(this.repos.repos);
  }

  get droppedLines(): number {
    return this.repos.droppedLines;
  }

  private watch(root: string, ts: number): void {
    const known = this.repos.repos[root];
    if (known) {
      if (ts < known.since) known.since = ts;
      return;
    }
    this.repos.repos[root] = { since: ts, seen: {}, compactedAt: 0 };
    this.log.info({ repository: root, since: new Date(ts).toISOString() }, 'watching a repository for landed commits');
  }

  /** Takes an acknowledged batch: watched repositories, the ledger's new lines, the sessions' latest models. */
  record(touches: readonly ImpactTouch[], seen: readonly ModelSeen[]): number {
    const writes = new Map<string, Parameters<Ledger['append']>[1]>();
    for (const touch of touches) {
      if (touch.cwd) {
        const root = workTreeOf(touch.cwd, this.trees);
        if (root) this.watch(root, touch.ts);
      }
      if (!touch.edits?.length) continue;
      const model = modelAt(seen, this.models, touch);
      for (const edit of touch.edits) {
        const path = absolutePath(edit.path, touch.cwd);
        if (!path) continue;
        const root = workTreeOf(path, this.trees);
        if (!root) continue;
        this.watch(root, touch.ts);
        if (!edit.added.length) continue;
        const relPath = relative(root, path).split(sep).join('/');
        if (relPath.startsWith('..')) continue;
        const list = writes.get(root) ?? [];
        list.push({ relPath, fingerprints: edit.added.map(fingerprint), ts: touch.ts, agent: touch.agent, model });
        writes.set(root, list);
      }
    }
    let written = 0;
    for (const [root, list] of writes) written += this.ledger.append(root, list);
    for (const s of seen) {
      const key = `${s.agent}\0${s.sessionId}`;
      const before = this.models[key];
      if (!before || s.ts >= before.ts) this.models[key] = { ts: s.ts, model: s.model };
    }
    const keys = Object.keys(this.models);
    if (keys.length > MAX_SESSIONS) {
      keys.sort((a, b) => this.models[a]!.ts - this.models[b]!.ts);
      for (const key of keys.slice(0, keys.length - MAX_SESSIONS)) delete this.models[key];
    }
    this.save();
    return written;
  }

  /** Looks for newly landed commits in every watched repository; their records wait in pending(). */
  async scan(now = Date.now()): Promise<ScanReport> {
    if (this.watched.length === 0) return { repos: 0, landed: 0 };
    let landed = 0;
    for (const root of this.watched) {
      try {
        landed += await this.scanRepo(root, now);
      } catch (error) {
        this.log.warn({ repository: root, error: (error as Error).message }, 'landed commits: repository not read');
      }
    }
    this.save();
    return { repos: this.watched.length, landed };
  }

  private async scanRepo(root: string, now: number): Promise<number> {
    const state = this.repos.repos[root]!;
    if (now - state.compactedAt > COMPACT_EVERY_MS) {
      const compacted = this.ledger.compact(root, now);
      state.compactedAt = now;
      if (compacted.capped) {
        this.repos.droppedLines += compacted.capped;
        this.log.warn(
          { repository: root, dropped: compacted.capped, total: this.repos.droppedLines },
          'ledger over its cap: oldest lines dropped',
        );
      }
    }
    const facts = await repoFacts(root);
    if (!facts.ref || !facts.email || !facts.repo || !facts.repoId) return 0;
    const since = Math.max(state.since, now - LOOKBACK_MS);
    for (const [sha, ts] of Object.entries(state.seen)) if (ts < now - LOOKBACK_MS) delete state.seen[sha];
    const candidates = (await landedCandidates(root, facts.ref, facts.email, since)).filter((c) => state.seen[c.sha] === undefined);
    // Oldest first: an older commit takes the ledger lines it can before a newer one adding the same lines.
    candidates.sort((a, b) => a.ts - b.ts);
    let landed = 0;
    for (const commit of candidates) {
      const lines = await commitLines(root, commit);
      if (lines.unmatched)
        this.log.warn(
          { repository: root, commit: commit.sha, unmatched: lines.unmatched },
          'huge commit: lines past the cap counted, not matched',
        );
      const adds: CommitAdds = new Map();
      for (const [relPath, fps] of lines.adds)
        for (const fp of fps) {
          const key = this.ledger.lineKey(relPath, fp);
          adds.set(key, (adds.get(key) ?? 0) + 1);
        }
      const { index, credited } = this.ledger.lookup(root, new Set(adds.keys()));
      const credit = creditCommit(adds, index, commit.ts, (seq) => credited.has(seq));
      this.ledger.markCredited(root, credit.credited);
      const byAgent: WireLandedCommit['by_agent'] = [];
      for (const [agent, models] of credit.byAgentModel)
        for (const [model, n] of models)
          byAgent.push({ agent: AgentName.catch('unknown').parse(agent), model: model.slice(0, 256) || 'unknown', lines: n });
      this.pendingRecords.push({
        kind: 'commit',
        id: `${facts.repoId}:${commit.sha}`,
        repo_id: facts.repoId,
        repo: facts.repo.slice(0, 512),
        commit: commit.sha,
        ts: commit.ts,
        lines_added: lines.linesAdded,
        lines_deleted: lines.linesDeleted,
        agent_lines: credit.lines,
        by_agent: byAgent.slice(0, 100),
      });
      state.seen[commit.sha] = commit.ts;
      landed++;
      this.log.info({ repository: facts.repo, commit: commit.sha, lines: lines.linesAdded, agentLines: credit.lines }, 'commit landed');
    }
    return landed;
  }

  /** Landed-commit records not yet acknowledged by the server. */
  pending(): WireLandedCommit[] {
    return [...this.pendingRecords];
  }

  /** The server has these records (stored, repeated or rejected): they are not sent again. */
  acknowledge(ids: Iterable<string>): void {
    const done = new Set(ids);
    this.pendingRecords = this.pendingRecords.filter((r) => !done.has(r.id));
    this.save();
  }

  /** The git folders whose refs say when the default branch moves (fetch, push): what the running collector watches. */
  async refsToWatch(): Promise<string[]> {
    const out: string[] = [];
    for (const root of this.watched) {
      const common = (await gitOutput(root, ['rev-parse', '--path-format=absolute', '--git-common-dir']))?.[0];
      if (common) out.push(join(common, 'refs', 'remotes'), join(common, 'packed-refs'));
    }
    return out;
  }
}
