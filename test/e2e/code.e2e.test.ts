// The code figures end to end with real git (docs/metrics.md §5): a bare origin, a clone, Claude Code and Codex editing
// through the real hook, a person changing some agent lines and adding others, commits on a branch, a
// squash merge onto the origin's default branch authored by the developer, a fetch, a direct commit pushed
// to main; `agentmeter collect --once`, a real server and its batch. The API's figures equal the
// hand-worked ones of test/fixtures/code/EXPECTED.md. Also: no line of the code reaches the server (every
// stored text and the logs are searched), and the repository is left exactly as it was.
import { execFileSync, execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import * as p from '../helpers/payloads.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const codexHome = join(home, '.codex');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am'), CODEX_HOME: codexHome };
const origin = join(dir, 'origin.git');
const work = join(home, 'src', 'shop');
const D = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const at = (time: string) => `${D}T${time}Z`;
let server: ServerProcess;
let member: string;
let manager: string;
const logs: string[] = [];

/** Lines no byte of which may reach the server. */
const DISTINCTIVE = ['running total', 'toFixed(2)', 'Run npm test.', 'total(items: number[])', 'Cart helpers', 'sum += item'];

const CART =
  'export function total(items: number[]): number {\n  let sum = 0;\n  for (const item of items) sum += item;\n\n  return sum;\n}\n';
const FORMAT = 'export function money(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n';

function git(cwd: string, args: string[], when = '09:00:00', email = 'dev@example.com'): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH']!,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: email,
      GIT_AUTHOR_DATE: at(when),
      GIT_COMMITTER_NAME: email === 'dev@example.com' ? 'Dev' : 'Other',
      GIT_COMMITTER_EMAIL: email,
      GIT_COMMITTER_DATE: at(when),
    },
  });
}

function installed(settingsFile: string, event: string): string {
  const json = JSON.parse(readFileSync(settingsFile, 'utf8'));
  return json.hooks[event]
    .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
    .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
}

function fire(settingsFile: string, payload: Record<string, unknown>, time: string): void {
  execSync(installed(settingsFile, payload['hook_event_name'] as string), {
    input: JSON.stringify(payload),
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: at(time), CODEX_HOME: codexHome },
    shell: '/bin/sh',
  });
}

function collect(): string {
  const run = runCli(['collect', '--once', '--server', server.url, '--key', member], { ...env, LOG_LEVEL: 'info' });
  logs.push(run.stdout, run.stderr);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

/** Everything about the repository that agentmeter must leave alone: every file of .git (with its time), the work tree, refs and config. */
function snapshot(root: string): string {
  const entries: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const stat = lstatSync(full);
      const rel = relative(root, full);
      if (stat.isDirectory()) {
        entries.push(`${rel}/ ${stat.mode}`);
        walk(full);
      } else
        entries.push(`${rel} ${stat.mode} ${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  walk(root);
  return entries.join('\n');
}

beforeAll(async () => {
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(join(home, 'src'), { recursive: true });
  // The origin, seeded by someone else before this developer's sessions.
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const seed = join(dir, 'seed');
  execFileSync('git', ['clone', '--quiet', origin, seed], { env: { PATH: process.env['PATH']!, HOME: home } });
  writeFileSync(join(seed, 'README.md'), '# Shop\n');
  git(seed, ['add', '.'], '08:00:00', 'other@example.com');
  git(seed, ['commit', '--quiet', '-m', 'seed'], '08:00:00', 'other@example.com');
  git(seed, ['push', '--quiet', 'origin', 'main'], '08:00:00', 'other@example.com');
  execFileSync('git', ['clone', '--quiet', origin, work], { env: { PATH: process.env['PATH']!, HOME: home } });
  git(work, ['config', 'user.email', 'dev@example.com']);
  git(work, ['config', 'user.name', 'Dev']);
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'boss@example.com', org));
  server = await startServerProcess(db, undefined, { LOG_LEVEL: 'info' });
});
afterAll(async () => {
  await server?.stop();
});

describe('Code the agents wrote: edit to landed, with real git', () => {
  it('measures the agents’ share of what landed as worked out by hand, shipping no line of code', { timeout: 240_000 }, async () => {
    for (const agent of ['claude', 'codex']) expect(runCli(['hooks', 'install', '--agent', agent], env).status).toBe(0);
    const claudeSettings = join(home, '.claude', 'settings.json');
    const codexHooks = join(codexHome, 'hooks.json');

    // Claude Code: a transcript with a sonnet message before the Write and an opus one before the README edit.
    const transcript = join(home, '.claude', 'projects', 'shop', 'c1.jsonl');
    mkdirSync(join(home, '.claude', 'projects', 'shop'), { recursive: true });
    writeFileSync(
      transcript,
      `${[
        p.claudeAssistantLine({ id: 'msg_1', model: 'claude-sonnet-4-5', timestamp: at('09:00:00'), output: 10, sessionId: 'c1' }),
        p.claudeAssistantLine({ id: 'msg_2', model: 'claude-opus-4-1', timestamp: at('12:30:00'), output: 10, sessionId: 'c1' }),
      ].join('\n')}\n`,
    );
    const c = { session_id: 'c1', transcript_path: transcript, cwd: work, permission_mode: 'acceptEdits' };
    fire(claudeSettings, p.sessionStart(c), '09:00:00');
    mkdirSync(join(work, 'src'));
    writeFileSync(join(work, 'src', 'cart.ts'), CART);
    fire(
      claudeSettings,
      p.postToolUse(
        'Write',
        { file_path: join(work, 'src', 'cart.ts'), content: CART },
        { type: 'create', filePath: join(work, 'src', 'cart.ts'), content: CART, structuredPatch: [] },
        c,
      ),
      '09:01:00',
    );
    // Codex: apply_patch with a path relative to the session's cwd.
    writeFileSync(join(work, 'src', 'format.ts'), FORMAT);
    const patch = `*** Begin Patch\n*** Add File: src/format.ts\n${FORMAT.trimEnd()
      .split('\n')
      .map((l) => `+${l}`)
      .join('\n')}\n*** End Patch\n`;
    const x = { session_id: 'x1', transcript_path: join(codexHome, 'none.jsonl'), cwd: work, permission_mode: 'acceptEdits' };
    fire(
      codexHooks,
      p.postToolUse('apply_patch', { command: patch }, 'Success. Updated the following files:\nA src/format.ts\n', x),
      '09:05:00',
    );
    expect(collect()).toContain('shipped');

    // The person: changes one agent line, adds another of their own and a lock file; commits on a branch.
    git(work, ['checkout', '--quiet', '-b', 'feature']);
    writeFileSync(join(work, 'src', 'cart.ts'), `// Cart helpers\n${CART.replace('let sum = 0;', 'let sum = 0; // running total')}`);
    writeFileSync(join(work, 'package-lock.json'), '{\n  "lockfileVersion": 3\n}\n');
    git(work, ['add', 'src'], '11:00:00');
    git(work, ['commit', '--quiet', '-m', 'cart'], '11:00:00');
    git(work, ['add', 'package-lock.json'], '11:30:00');
    git(work, ['commit', '--quiet', '-m', 'lock'], '11:30:00');
    git(work, ['push', '--quiet', 'origin', 'feature'], '11:30:00');
    // The hosting side squash-merges the branch onto main, authored by the developer; the developer fetches.
    const host = join(dir, 'host');
    execFileSync('git', ['clone', '--quiet', origin, host], { env: { PATH: process.env['PATH']!, HOME: home } });
    git(host, ['merge', '--quiet', '--squash', 'origin/feature'], '12:00:00');
    git(host, ['commit', '--quiet', '-m', 'Cart (#1)'], '12:00:00');
    git(host, ['push', '--quiet', 'origin', 'main'], '12:00:00');
    git(work, ['fetch', '--quiet', 'origin'], '12:00:00');
    // Claude Code adds two README lines on main; the developer commits and pushes them.
    git(work, ['checkout', '--quiet', 'main'], '12:30:00');
    git(work, ['merge', '--quiet', '--ff-only', 'origin/main'], '12:30:00');
    writeFileSync(join(work, 'README.md'), '# Shop\n## Usage\nRun npm test.\n');
    fire(
      claudeSettings,
      p.postToolUse(
        'Edit',
        { file_path: join(work, 'README.md'), old_string: '# Shop', new_string: '# Shop\n## Usage\nRun npm test.' },
        {
          filePath: join(work, 'README.md'),
          structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 3, lines: [' # Shop', '+## Usage', '+Run npm test.'] }],
        },
        c,
      ),
      '12:31:00',
    );
    git(work, ['commit', '--quiet', '-am', 'usage'], '13:00:00');
    git(work, ['push', '--quiet', 'origin', 'main'], '13:00:00');

    // The collector looks, reading git only: the repository is left exactly as it was.
    const before = snapshot(work);
    collect();
    expect(collect()).toContain('shipped 0');
    expect(snapshot(work)).toBe(before);
    expect(git(work, ['config', '--list', '--local'])).not.toMatch(/^agentmeter|hookspath/im);
    expect(readdirSync(join(work, '.git', 'hooks')).every((name) => name.endsWith('.sample'))).toBe(true);
    const status = runCli(['collect', 'status'], env).stdout;
    expect(status).toMatch(/quarantined: 0\n/);
    expect(status).toContain('code: watching 1 repositories; 0 landed commits waiting to ship; 0 ledger lines dropped by the size cap');

    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);
    const res = await fetch(`${server.url}/api/v1/analytics/code?startDate=${D}&endDate=${D}`, {
      headers: { authorization: `Bearer ${manager}` },
    });
    const body = (await res.json()) as { data: { edits: Record<string, unknown>; landed: Record<string, unknown> }[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const [day] = body.data;
    // EXPECTED.md: edits 5 + 3 + 2; landed 9 + 2 lines with 7 + 2 agent lines.
    expect(day!.edits).toMatchObject({
      lines_added: 10,
      lines_deleted: 0,
      by_agent: [
        { agent: 'claude', lines_added: 7, lines_deleted: 0 },
        { agent: 'codex', lines_added: 3, lines_deleted: 0 },
      ],
    });
    // cost_usd (docs/metrics.md §8): c1's calls, 10 output tokens of sonnet-4-5 ($15 a million) and 10 of
    // opus-4-1 ($75), $0.00015 + $0.00075, all of its credited lines landed this day; x1 has no usage: $0.
    expect(day!.landed).toEqual({
      commits: 2,
      commits_with_agent_lines: 2,
      cost_usd: 0.0009,
      lines_added: 11,
      lines_deleted: 0,
      agent_lines_added: 9,
      agent_share: 0.8182,
      by_agent: [
        { agent: 'claude', lines: 6 },
        { agent: 'codex', lines: 3 },
      ],
      by_model: [
        { model_id: 'claude-sonnet-4-5', lines: 4 },
        { model_id: 'unknown', lines: 3 },
        { model_id: 'claude-opus-4-1', lines: 2 },
      ],
    });
    const commits = (await (
      await fetch(`${server.url}/api/v0/code/commits?startDate=${D}&endDate=${D}`, { headers: { authorization: `Bearer ${member}` } })
    ).json()) as { data: { repo: string; lines_added: number; agent_lines: number }[] };
    // The origin is a local folder: the repository is named local:<id>, never by its path.
    const repo = commits.data[0]?.repo;
    expect(repo).toMatch(/^local:[0-9a-f]{16}$/);
    expect(commits.data.map((c) => [c.repo, c.lines_added, c.agent_lines])).toEqual([
      [repo, 2, 2],
      [repo, 9, 7],
    ]);
    // EXPECTED.md: every edit was in the clone, so the repository's row has all 10 edit lines.
    const byRepo = (await (
      await fetch(`${server.url}/api/v1/analytics/code?startDate=${D}&endDate=${D}&group_by=repo`, {
        headers: { authorization: `Bearer ${manager}` },
      })
    ).json()) as { data: unknown[] };
    expect(byRepo.data).toEqual([{ date: D, group_key: repo, edit_lines_added: 10, landed_lines_added: 11, landed_agent_lines: 9 }]);

    // No line of the code reached the server: every text the database stores, and every log line.
    await server.stop();
    const conn = await openDb(db, { migrate: false });
    try {
      const tables = await conn.all<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'");
      let stored = '';
      for (const { table_name } of tables)
        stored += JSON.stringify(await conn.all(`SELECT * FROM "${table_name}"`), (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
      expect(stored).toContain('claude-sonnet-4-5');
      for (const line of DISTINCTIVE) expect(stored).not.toContain(line);
      expect(stored).not.toContain(join(dir, 'origin'));
      expect(stored).not.toContain(work);
    } finally {
      await conn.close();
    }
    const allLogs = [...logs, server.stderr()].join('\n');
    expect(allLogs).toContain('commit landed');
    for (const line of DISTINCTIVE) expect(allLogs).not.toContain(line);
  });
});
