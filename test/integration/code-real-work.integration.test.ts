// The code figures where developers really work (issue #30, docs/metrics.md §5), on real git repositories in temporary
// folders: a linked `git worktree`, a second clone of one bare remote, a path through a symbolic link, a
// clone under ~/build/, a commit rebased with `--committer-date-is-author-date`, a file with lone-CR line
// ends, a file name with a quote and a space, edits that reach the ledger after their commit was examined
// (Codex's apply_patch + git commit in one shell call), and a collector killed with SIGKILL mid-scan.
// The collector's side runs as the daemon runs it: callEdits over the agents' payloads, CodeTracker.record of
// the acknowledged batch, CodeTracker.scan. Expected agent lines are the lines the agent wrote that the commit
// adds; git's own numstat is the line-count oracle.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditRepos } from '../../collector/code/edit-repo.ts';
import { CODE_STATE_DIR } from '../../collector/code/state-dir.ts';
import { type CodeTouch, CodeTracker } from '../../collector/code/tracker.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireLandedCommit } from '../../common/wire.ts';
import { tempDir } from '../helpers/tmp.ts';
import { callEditsOf } from '../helpers/writes.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const HOUR = 3_600_000;
/** Watching starts at T0 (the first event); the commits come after. */
const T0 = Date.UTC(2026, 10, 2, 9);
const iso = (ms: number) => new Date(ms).toISOString();
const DEV = 'dev@example.com';

interface World {
  dir: string;
  home: string;
  origin: string;
  git(cwd: string, args: string[], at?: number, email?: string): string;
  clone(to: string): string;
}

function world(): World {
  const dir = tempDir();
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const origin = join(dir, 'origin.git');
  const git = (cwd: string, args: string[], at = T0, email = DEV) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH']!,
        HOME: home,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: email,
        GIT_AUTHOR_DATE: iso(at),
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: email,
        GIT_COMMITTER_DATE: iso(at),
      },
    });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const clone = (to: string) => {
    mkdirSync(join(to, '..'), { recursive: true });
    git(dir, ['clone', '--quiet', origin, to]);
    git(to, ['config', 'user.email', DEV]);
    git(to, ['config', 'user.name', 'Dev']);
    return to;
  };
  // The origin's first commit, by someone else, before any session.
  const seed = clone(join(dir, 'seed'));
  writeFileSync(join(seed, 'README.md'), '# Shop\n');
  git(seed, ['add', '.'], T0 - 24 * HOUR, 'other@example.com');
  git(seed, ['commit', '--quiet', '-m', 'seed'], T0 - 24 * HOUR, 'other@example.com');
  git(seed, ['push', '--quiet', 'origin', 'main'], T0 - 24 * HOUR, 'other@example.com');
  return { dir, home, origin, git, clone };
}

/** `n` distinct lines of code, tagged so two files never share one. */
const code = (tag: string, n: number) => `${Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i} * 7;`).join('\n')}\n`;

/** Claude Code's Write of a new file (written to the disk), as the collector turns its PostToolUse into ledger edits. */
function write(repos: EditRepos, path: string, content: string, ts: number, cwd: string, session = 's1'): CodeTouch {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  const edits = callEditsOf('claude', 'Write', { file_path: path, content }, { type: 'create' }, repos, cwd);
  return { agent: 'claude', sessionId: session, ts, cwd, edits: edits.files };
}

function collector(w: World): CodeTracker {
  return new CodeTracker(join(w.home, '.agentmeter'), log);
}

/** Commits and pushes everything of `clone` to origin/main, at `at`. */
function commitAndPush(w: World, clone: string, at: number, message = 'work'): string {
  w.git(clone, ['add', '-A'], at);
  w.git(clone, ['commit', '--quiet', '-m', message], at);
  w.git(clone, ['push', '--quiet', 'origin', 'HEAD:main'], at);
  return w.git(clone, ['rev-parse', 'HEAD']).trim();
}

const recordsOf = (tracker: CodeTracker, sha: string): WireLandedCommit[] => tracker.pending().filter((r) => r.commit === sha);

describe('one repository per git common folder and remote', () => {
  it('a commit made in a linked worktree is credited with the lines the agent wrote there, once', async () => {
    const w = world();
    const main = w.clone(join(w.home, 'src', 'shop'));
    const tree = join(w.home, 'src', 'shop-feature');
    w.git(main, ['worktree', 'add', '--quiet', '-b', 'feature', tree]);
    const repos = new EditRepos();
    const tracker = collector(w);
    // A session in the main clone first, then the agent writes 6 lines in the worktree.
    tracker.record([{ agent: 'claude', sessionId: 's0', ts: T0, cwd: main }], []);
    tracker.record([write(repos, join(tree, 'src', 'cart.ts'), code('cart', 6), T0 + HOUR, tree)], []);
    expect(tracker.watched).toHaveLength(1);
    const sha = commitAndPush(w, tree, T0 + 2 * HOUR);
    await tracker.scan(T0 + 3 * HOUR);
    expect(recordsOf(tracker, sha)).toMatchObject([{ lines_added: 6, agent_lines: 6, author: DEV }]);
  });

  it('a second clone of the same remote shares the ledger: lines written in one, committed in the other', async () => {
    const w = world();
    const first = w.clone(join(w.home, 'src', 'shop'));
    const second = w.clone(join(w.home, 'work', 'shop-again'));
    const repos = new EditRepos();
    const tracker = collector(w);
    const content = code('pay', 6);
    tracker.record([write(repos, join(first, 'pay.ts'), content, T0, first)], []);
    // A later session in the second clone; the developer copies the file there and pushes from it.
    tracker.record([{ agent: 'claude', sessionId: 's2', ts: T0 + HOUR, cwd: second }], []);
    expect(tracker.watched).toHaveLength(1);
    writeFileSync(join(second, 'pay.ts'), content);
    const sha = commitAndPush(w, second, T0 + 2 * HOUR);
    await tracker.scan(T0 + 3 * HOUR);
    expect(recordsOf(tracker, sha)).toMatchObject([{ lines_added: 6, agent_lines: 6 }]);
  });

  it('a path through a symbolic link and the real path are one repository (one ledger, one record)', async () => {
    const w = world();
    const real = w.clone(join(w.home, 'src', 'shop'));
    const link = join(w.home, 'shop-link');
    symlinkSync(real, link);
    const repos = new EditRepos();
    const tracker = collector(w);
    tracker.record(
      [write(repos, join(real, 'a.ts'), code('a', 6), T0, real), write(repos, join(link, 'b.ts'), code('b', 4), T0 + 60_000, link, 's2')],
      [],
    );
    expect(tracker.watched).toHaveLength(1);
    const sha = commitAndPush(w, real, T0 + HOUR);
    await tracker.scan(T0 + 2 * HOUR);
    const records = recordsOf(tracker, sha);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ lines_added: 10, agent_lines: 10 });
    // The ledger keeps each line's session: the record splits the agent lines by it.
    expect(records[0]!.by_session).toEqual([
      { agent: 'claude', session_id: 's1', lines: 6 },
      { agent: 'claude', session_id: 's2', lines: 4 },
    ]);
  });

  it('a clone under ~/build/ is not a build folder: exclusions match the path inside the work tree', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'build', 'shop'));
    const repos = new EditRepos();
    const tracker = collector(w);
    const touch = write(repos, join(clone, 'src', 'app.ts'), code('app', 20), T0, clone);
    expect(touch.edits).toHaveLength(1);
    // What ships for the edit counts it too.
    expect(
      callEditsOf('claude', 'Write', { file_path: join(clone, 'src', 'app.ts'), content: code('x', 20) }, {}, repos, clone).wire,
    ).toMatchObject([{ ext: 'ts', lines_added: 20 }]);
    // A build folder inside the work tree still is one.
    expect(write(repos, join(clone, 'build', 'out.ts'), code('out', 3), T0, clone).edits).toEqual([]);
    tracker.record([touch], []);
    const sha = commitAndPush(w, clone, T0 + HOUR);
    await tracker.scan(T0 + 2 * HOUR);
    expect(recordsOf(tracker, sha)).toMatchObject([{ lines_added: 20, agent_lines: 20 }]);
  });
});

describe('commits and their lines', () => {
  it('finds a commit behind one rebased with --committer-date-is-author-date (older than its parent)', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'src', 'shop'));
    const repos = new EditRepos();
    const tracker = collector(w);
    tracker.record([write(repos, join(clone, 'mine.ts'), code('mine', 5), T0 + HOUR, clone)], []);
    const mine = commitAndPush(w, clone, T0 + 2 * HOUR);
    // A colleague's branch, authored before watching started, rebased onto main keeping author dates as
    // committer dates: its commit is older than its parent (mine).
    const colleague = w.clone(join(w.dir, 'colleague'));
    w.git(colleague, ['config', 'user.email', 'other@example.com']);
    w.git(colleague, ['checkout', '--quiet', '-b', 'old', 'origin/main~1']);
    writeFileSync(join(colleague, 'theirs.ts'), code('theirs', 3));
    w.git(colleague, ['add', '-A'], T0 - 5 * HOUR, 'other@example.com');
    w.git(colleague, ['commit', '--quiet', '-m', 'old work'], T0 - 5 * HOUR, 'other@example.com');
    w.git(colleague, ['fetch', '--quiet', 'origin'], T0 + 3 * HOUR, 'other@example.com');
    w.git(colleague, ['rebase', '--quiet', '--committer-date-is-author-date', 'origin/main'], T0 + 3 * HOUR, 'other@example.com');
    w.git(colleague, ['push', '--quiet', 'origin', 'HEAD:main'], T0 + 3 * HOUR, 'other@example.com');
    const rebased = w.git(colleague, ['log', '-1', '--format=%ct %P']).trim().split(' ');
    expect(Number(rebased[0]) * 1000).toBeLessThan(T0);
    expect(rebased[1]).toBe(mine);
    // And a newer commit on top, by the colleague too.
    writeFileSync(join(colleague, 'later.ts'), code('later', 2));
    commitAndPush(w, colleague, T0 + 4 * HOUR);
    w.git(clone, ['fetch', '--quiet', 'origin'], T0 + 5 * HOUR);
    // The first scan happens only now: the walk meets the rebased commit before mine.
    await tracker.scan(T0 + 6 * HOUR);
    expect(recordsOf(tracker, mine)).toMatchObject([{ lines_added: 5, agent_lines: 5 }]);
  });

  it('splits lines on LF only: a file with lone-CR line ends counts as git counts it', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'src', 'shop'));
    const repos = new EditRepos();
    const tracker = collector(w);
    const content = 'const a = 1;\rconst b = 2;\rconst c = 3;\nconst d = 4;\n';
    tracker.record([write(repos, join(clone, 'cr.js'), content, T0, clone)], []);
    const sha = commitAndPush(w, clone, T0 + HOUR);
    const [added, deleted] = w
      .git(clone, ['diff', '--numstat', `${sha}~1`, sha])
      .trim()
      .split('\t')
      .map(Number);
    expect([added, deleted]).toEqual([2, 0]);
    await tracker.scan(T0 + 2 * HOUR);
    expect(recordsOf(tracker, sha)).toMatchObject([{ lines_added: 2, lines_deleted: 0, agent_lines: 2 }]);
  });

  it('credits a file whose name has a quote and a space', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'src', 'shop'));
    const repos = new EditRepos();
    const tracker = collector(w);
    tracker.record([write(repos, join(clone, 'src', 'say "hi" now.ts'), code('hi', 16), T0, clone)], []);
    tracker.record([write(repos, join(clone, "it's here.ts"), code('here', 4), T0, clone)], []);
    const sha = commitAndPush(w, clone, T0 + HOUR);
    await tracker.scan(T0 + 2 * HOUR);
    expect(recordsOf(tracker, sha)).toMatchObject([{ lines_added: 20, agent_lines: 20 }]);
  });

  it('examines a recent commit again when edits for its files arrive after it (apply_patch + git commit in one call)', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'src', 'shop'));
    const tracker = collector(w);
    tracker.record([{ agent: 'codex', sessionId: 'c1', ts: T0, cwd: clone }], []);
    // One shell call: the patch is applied and committed; the scan runs before the call's edits are in.
    const patch = `*** Begin Patch\n*** Add File: lib.py\n${code('lib', 7)
      .trimEnd()
      .split('\n')
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch`;
    writeFileSync(join(clone, 'lib.py'), code('lib', 7));
    const sha = commitAndPush(w, clone, T0 + 2 * HOUR);
    await tracker.scan(T0 + 2 * HOUR + 1000);
    expect(recordsOf(tracker, sha)).toMatchObject([{ agent_lines: 0 }]);
    tracker.acknowledge(tracker.pending().map((r) => r.id));
    const edits = callEditsOf(
      'codex',
      'Bash',
      { command: ['bash', '-lc', `apply_patch <<'EOF'\n${patch}\nEOF\ngit commit -am x`] },
      {},
      new EditRepos(),
      clone,
    );
    expect(edits.files).toHaveLength(1);
    tracker.record([{ agent: 'codex', sessionId: 'c1', ts: T0 + 2 * HOUR - 1000, cwd: clone, edits: edits.files }], []);
    expect(tracker.recheckDue).toBe(true);
    await tracker.scan(T0 + 2 * HOUR + 5000);
    // Sent again with its agent lines: the server keeps the record with the most.
    expect(recordsOf(tracker, sha)).toMatchObject([
      { lines_added: 7, agent_lines: 7, by_session: [{ agent: 'codex', session_id: 'c1', lines: 7 }] },
    ]);
    // Examined once more with nothing new: no record.
    tracker.acknowledge(tracker.pending().map((r) => r.id));
    await tracker.scan(T0 + 2 * HOUR + 9000);
    expect(recordsOf(tracker, sha)).toEqual([]);
  });
});

describe('a collector killed mid-scan', () => {
  it('loses no agent line: crediting and the record are one durable step per commit', async () => {
    const w = world();
    const clone = w.clone(join(w.home, 'src', 'shop'));
    const repos = new EditRepos();
    const tracker = collector(w);
    const N = 60;
    for (let i = 0; i < N; i++) {
      tracker.record([write(repos, join(clone, `f${i}.ts`), code(`f${i}x`, 3), T0 + i * 60_000, clone)], []);
      w.git(clone, ['add', '-A'], T0 + HOUR + i * 60_000);
      w.git(clone, ['commit', '--quiet', '-m', `c${i}`], T0 + HOUR + i * 60_000);
    }
    w.git(clone, ['push', '--quiet', 'origin', 'HEAD:main'], T0 + 2 * HOUR);
    // The scan runs in a child process, killed with SIGKILL after its third landed commit.
    const script = join(w.dir, 'scan.mts');
    writeFileSync(
      script,
      `import { CodeTracker } from ${JSON.stringify(join(process.cwd(), 'collector/code/tracker.ts'))};\n` +
        `import { createLogger } from ${JSON.stringify(join(process.cwd(), 'common/logger.ts'))};\n` +
        `const tracker = new CodeTracker(${JSON.stringify(join(w.home, '.agentmeter'))}, createLogger({ name: 'scan', level: 'info', destination: 1 }));\n` +
        `await tracker.scan(${T0 + 3 * HOUR});\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    let landed = 0;
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      landed = (out.match(/commit landed/g) ?? []).length;
      if (landed >= 3 && !child.killed) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal, `${out}\n${err}`).toBe('SIGKILL');
    expect(landed).toBeLessThan(N);
    // The next collector finishes the scan: every commit once, with all its agent lines.
    const again = collector(w);
    await again.scan(T0 + 4 * HOUR);
    const records = again.pending();
    expect(records).toHaveLength(N);
    expect(records.every((r) => r.agent_lines === 3 && r.lines_added === 3)).toBe(true);
    expect(readFileSync(join(w.home, '.agentmeter', CODE_STATE_DIR, 'pending.json'), 'utf8')).not.toContain('export const');
  }, 120_000);
});
