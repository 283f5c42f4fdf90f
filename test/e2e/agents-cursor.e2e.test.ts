// Cursor end to end: `agentmeter hooks install --all-found` (what install.sh runs) into a temporary HOME that
// has ~/.cursor (with the user's own hooks.json) and ~/.claude; Cursor's payloads
// (collector/agents/cursor/fixtures, SOURCE.md there) fired through the installed commands by a shell as
// Cursor runs them, each answering the JSON Cursor needs; the same events also through the Claude Code hook,
// as Cursor runs it when its third-party hooks are on; `collect --once`, a real server and the batch. The
// API's figures equal the hand-worked ones of SOURCE.md, counted once and as Cursor's, never Claude Code's;
// its tokens are "not reported"; the lines it wrote land in a real git repository credited to Cursor and
// the model its events name; the doctor checks the hook; uninstall gives hooks.json back byte for byte.
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../cli/doctor/checks.ts';
import { ROOT, runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = join(ROOT, 'collector', 'agents', 'cursor', 'fixtures');
const DAY = '2026-11-10';
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const agentmeterHome = join(home, '.agentmeter');
const env = { HOME: home, AGENTMETER_HOME: agentmeterHome };
const cursorHooks = join(home, '.cursor', 'hooks.json');
const claudeSettings = join(home, '.claude', 'settings.json');
const origin = join(dir, 'origin.git');
const work = join(home, 'src', 'shop');
let server: ServerProcess;
let member: string;
let manager: string;

/** Cursor's names of the Claude Code events it runs a Claude Code hook for (cursor.com/docs/reference/third-party-hooks). */
const CLAUDE_EVENT: Record<string, string> = {
  sessionStart: 'SessionStart',
  beforeSubmitPrompt: 'UserPromptSubmit',
  postToolUse: 'PostToolUse',
  stop: 'Stop',
  sessionEnd: 'SessionEnd',
};

const session = readFileSync(join(FIXTURES, 'session.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line.replaceAll('/home/dev', home)) as { time: string; payload: Record<string, unknown> });

async function api(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${manager}` } });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

function git(cwd: string, args: string[], when = `${DAY}T10:00:00Z`): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH']!,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
      GIT_COMMITTER_DATE: when,
    },
  });
}

/** Our command for an event in a settings file: Cursor's flat entries, or Claude Code's groups. */
function ours(file: string, event: string): string {
  const entries = JSON.parse(readFileSync(file, 'utf8')).hooks[event] as Record<string, unknown>[];
  const handlers = entries.flatMap((e) => (Array.isArray(e['hooks']) ? (e['hooks'] as Record<string, unknown>[]) : [e]));
  return handlers.find((h) => String(h['command']).includes('agentmeter-hook.sh'))!['command'] as string;
}

/** Runs a command as Cursor does (a shell, the payload on stdin); its stdout. */
function run(command: string, payload: Record<string, unknown>, time: string): string {
  return execSync(command, {
    input: JSON.stringify(payload),
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: agentmeterHome, AGENTMETER_EVENT_TIME: time, CURSOR_VERSION: '2.1.46' },
    shell: '/bin/sh',
    encoding: 'utf8',
  });
}

function collect(): void {
  const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
  expect(shipped.status, shipped.stderr).toBe(0);
}

beforeAll(async () => {
  mkdirSync(join(home, '.cursor'), { recursive: true });
  mkdirSync(join(home, '.claude'), { recursive: true });
  // The origin, with the cart module as it was before the session; the developer's clone is the workspace.
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const seed = join(dir, 'seed');
  execFileSync('git', ['clone', '--quiet', origin, seed], { env: { PATH: process.env['PATH']!, HOME: home } });
  mkdirSync(join(seed, 'src'));
  writeFileSync(join(seed, 'src', 'cart.ts'), 'const total = 0;\n');
  git(seed, ['add', '.'], `${DAY}T08:00:00Z`);
  git(seed, ['commit', '--quiet', '-m', 'seed'], `${DAY}T08:00:00Z`);
  git(seed, ['push', '--quiet', 'origin', 'main'], `${DAY}T08:00:00Z`);
  execFileSync('git', ['clone', '--quiet', origin, work], { env: { PATH: process.env['PATH']!, HOME: home } });
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'lead@example.com', org));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('Cursor: install → hook → collector → server → analytics → uninstall', () => {
  it('measures the fixture session as worked out by hand, once and as Cursor', { timeout: 240_000 }, async () => {
    const original = readFileSync(join(FIXTURES, 'hooks.json'), 'utf8');
    writeFileSync(cursorHooks, original);
    const installed = runCli(['hooks', 'install', '--all-found'], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(runCli(['hooks', 'status', '--agent', 'cursor'], env).stdout).toContain(`cursor: installed in ${cursorHooks}`);
    const doctor = DoctorReport.parse(JSON.parse(runCli(['doctor', '--json'], env).stdout));
    expect(doctor.checks.find((c) => c.name === 'hook: cursor')).toMatchObject({ ok: true });

    let dropped = 0;
    for (const { time, payload } of session) {
      const event = payload['hook_event_name'] as string;
      // What Cursor's agent does to the files before its after-event: the edit.
      if (event === 'afterFileEdit') {
        const path = payload['file_path'] as string;
        const [edit] = payload['edits'] as { old_string: string; new_string: string }[];
        mkdirSync(join(work, 'src'), { recursive: true });
        const before = edit!.old_string === '' ? '' : readFileSync(path, 'utf8');
        writeFileSync(path, edit!.old_string === '' ? edit!.new_string : before.replace(edit!.old_string, edit!.new_string));
      }
      const answer = run(ours(cursorHooks, event), payload, time);
      expect(JSON.parse(answer), event).toEqual(event === 'beforeSubmitPrompt' ? { continue: true } : {});
      // Cursor with third-party hooks on runs the Claude Code hook too, with the same payload.
      const claudeEvent = CLAUDE_EVENT[event];
      if (claudeEvent) {
        run(ours(claudeSettings, claudeEvent), payload, time);
        dropped++;
      }
    }
    expect(dropped).toBe(13);
    collect();
    const status = runCli(['collect', 'status'], env).stdout;
    expect(status).toMatch(/pending: 0\n/);
    expect(status).toMatch(/quarantined: 0\n/);
    expect(status).toContain(`dropped: ${dropped} (Cursor ran the Claude Code hook`);

    // The developer commits what Cursor wrote on main and pushes: the lines land.
    git(work, ['add', 'src']);
    git(work, ['commit', '--quiet', '-m', 'Tax']);
    git(work, ['push', '--quiet', 'origin', 'main']);
    collect();
    collect();
    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);

    const q = `startDate=${DAY}&endDate=${DAY}`;
    const tools = (await api(`/api/v1/analytics/tools?${q}`)).data[0];
    expect(tools.tool_calls).toBe(8);
    const byTool = Object.fromEntries(tools.by_tool.map((t: { tool: string; invocations: number }) => [t.tool, t.invocations]));
    expect(byTool).toEqual({ Shell: 4, Read: 1, Write: 2, 'MCP:get_issue': 1 });
    expect(tools.mcp_by_server).toEqual([{ server: 'unknown', invocations: 1 }]);
    expect(tools.slash_commands_by_name).toEqual([{ name: 'review', count: 1 }]);
    // Ours on each of the 16 events; the user's formatter on the two afterFileEdit, their shell audit on
    // the three successful Shell calls (matcher Shell), their stop audit on the two stops.
    expect(tools.hooks_invocations).toBe(23);
    expect(tools.hooks_by_event).toContainEqual({ event: 'postToolUse', matcher: 'Shell', command: './hooks/audit-shell.sh', count: 3 });
    expect(tools.hooks_by_event).toContainEqual({ event: 'stop', matcher: '', command: './hooks/audit.sh', count: 2 });
    expect(tools.tool_autonomy_level_ratio).toEqual({ auto_high: 0, auto_medium: 0, auto_low: 0, manual: 1 });
    expect((await api(`/api/v1/analytics/tools?${q}&group_by=agent`)).data).toEqual([{ date: DAY, group_key: 'cursor', tool_calls: 8 }]);

    const activity = (await api(`/api/v1/analytics/activity?${q}`)).data[0];
    expect(activity).toMatchObject({ daily_active_users: 1, sessions: 1, user_messages: 2, messages: 2 });
    expect((await api(`/api/v1/analytics/activity?${q}&group_by=agent`)).data).toEqual([
      { date: DAY, group_key: 'cursor', daily_active_users: 1 },
    ]);

    const productivity = (await api(`/api/v1/analytics/productivity?${q}`)).data[0];
    expect(productivity).toMatchObject({ files_created: 1, files_edited: 1, git_commits: 1, git_prs_created: 1 });
    expect(productivity.by_extension).toEqual([{ extension: 'ts', count: 2 }]);

    const code = (await api(`/api/v1/analytics/code?${q}`)).data[0];
    expect(code.edits).toMatchObject({
      lines_added: 6,
      lines_deleted: 0,
      by_agent: [{ agent: 'cursor', lines_added: 6, lines_deleted: 0 }],
    });
    // The commit added the six lines Cursor wrote (cart.ts +2, tax.ts +4 and a blank one): all Cursor's,
    // under the model its events named.
    expect(code.landed).toMatchObject({
      commits: 1,
      commits_with_agent_lines: 1,
      lines_added: 6,
      agent_lines_added: 6,
      agent_share: 1,
      by_agent: [{ agent: 'cursor', lines: 6 }],
      by_model: [{ model_id: 'claude-4.5-sonnet', lines: 6 }],
    });

    // Tokens: not reported, never zero.
    const tokens = await api(`/api/v1/analytics/tokens?${q}&group_by=agent`);
    expect(tokens.data).toEqual([]);
    expect(tokens.meta.tokens_not_reported).toEqual(['cursor']);
    expect((await api(`/api/v1/analytics/tokens?${q}`)).meta.tokens_not_reported).toEqual(['cursor']);

    // Nothing of the prompts, outputs or file contents reached the server's answers.
    expect(JSON.stringify([tools, activity, productivity, code])).not.toMatch(/SECRET|const tax|rate = 0\.2/);

    const removed = runCli(['hooks', 'uninstall', '--agent', 'cursor'], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(cursorHooks, 'utf8')).toBe(original);
  });
});
