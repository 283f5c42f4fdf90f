// Qwen Code end to end: `agentmeter hooks install --agent qwen` into a temporary HOME holding a user's real
// ~/.qwen/settings.json, the fixture payloads (collector/agents/qwen/fixtures) fired through the installed
// command by a shell as Qwen Code would, the chats read by `collect --once`, a real server and the batch;
// the analytics API's figures equal the hand-worked ones of the fixtures' SOURCE.md, and uninstall gives
// the settings file back byte for byte.
import { execSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = agentFixtures('qwen');
const DAY = '2026-11-10';
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
const settingsFile = join(home, '.qwen', 'settings.json');
let server: ServerProcess;
let member: string;
let manager: string;

async function api(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${manager}` } });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The fixture text with the fixtures' home (/home/dev) moved to the test's. */
const localized = (text: string) => text.replaceAll('/home/dev', home);

/** Runs the installed hook command of each payload's event, as Qwen Code runs it (sh -c, JSON on stdin). */
function fire(session: string, extraEnv: Record<string, string> = {}): number {
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const names = readdirSync(join(FIXTURES, 'payloads', session)).sort();
  for (const name of names) {
    const text = localized(readFileSync(join(FIXTURES, 'payloads', session, name), 'utf8'));
    const payload = JSON.parse(text) as { hook_event_name: string; timestamp: string };
    const command = settings.hooks[payload.hook_event_name]
      .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
      .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
    execSync(command, {
      input: text,
      env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: payload.timestamp, ...extraEnv },
      shell: '/bin/sh',
    });
  }
  return names.length;
}

function collect(): void {
  const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
  expect(shipped.status, shipped.stderr).toBe(0);
}

beforeAll(async () => {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'lead@example.com', org));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('Qwen Code: install → hook → collector → server → analytics → uninstall', () => {
  it('measures the fixture sessions exactly as worked out by hand', async () => {
    const original = readFileSync(join(FIXTURES, 'settings.json'), 'utf8');
    writeFileSync(settingsFile, original);
    const installed = runCli(['hooks', 'install', '--agent', 'qwen'], env);
    expect(installed.status, installed.stderr).toBe(0);
    const status = runCli(['hooks', 'status', '--agent', 'qwen'], env);
    expect(status.stdout).toContain(`qwen: installed in ${settingsFile}`);

    const chats = join(home, '.qwen', 'projects', '-home-dev-repo', 'chats');
    mkdirSync(chats, { recursive: true });
    for (const name of ['q1', 'q2', 'q3'])
      writeFileSync(join(chats, `${name}.jsonl`), readFileSync(join(FIXTURES, 'chats', `${name}.jsonl`)));

    // q1 ships first; its /branch copy q2 and the headless run q3 in a later batch, so the copied calls
    // reach the server a second time.
    let events = fire('q1');
    collect();
    events += fire('q2');
    events += fire('q3', { AGENTMETER_CLIENT: 'non-interactive-cli' });
    collect();
    expect(events).toBe(24);
    const pending = runCli(['collect', 'status'], env);
    expect(pending.stdout).toMatch(/pending: 0\n/);
    expect(pending.stdout).toMatch(/quarantined: 0\n/);

    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);

    const q = `startDate=${DAY}&endDate=${DAY}`;
    const tokens = (await api(`/api/v1/analytics/tokens?${q}`)).data;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({
      date: DAY,
      billable_tokens: 5970,
      input_tokens: 13000,
      output_tokens: 1270,
      cache_read_tokens: 20000,
      cache_write_tokens: 0,
    });
    const byModel = [...tokens[0].by_model].sort((a: { model_id: string }, b: { model_id: string }) =>
      a.model_id.localeCompare(b.model_id),
    );
    // Qwen's models have no list price: their dollars are null, never 0 (docs/metrics.md §8).
    expect(byModel).toEqual([
      {
        model_id: 'qwen3-coder-flash',
        model_tier: 'standard',
        billable_tokens: 266,
        input_tokens: 2000,
        output_tokens: 120,
        cost_usd: null,
      },
      {
        model_id: 'qwen3-coder-plus',
        model_tier: 'thinking',
        billable_tokens: 5200,
        input_tokens: 10000,
        output_tokens: 1100,
        cost_usd: null,
      },
      { model_id: 'qwen3-max', model_tier: 'standard', billable_tokens: 504, input_tokens: 1000, output_tokens: 50, cost_usd: null },
    ]);

    const tools = (await api(`/api/v1/analytics/tools?${q}`)).data[0];
    expect(tools.tool_calls).toBe(8);
    const byTool = Object.fromEntries(tools.by_tool.map((t: { tool: string; invocations: number }) => [t.tool, t.invocations]));
    expect(byTool).toEqual({ run_shell_command: 4, write_file: 1, edit: 1, mcp__GitHub__get_issue: 1, skill: 1 });
    expect(tools.mcp_by_server).toEqual([{ server: 'github', invocations: 1 }]);
    expect(tools.mcp_users_with_mcp).toBe(1);
    expect(tools.skills_invocations).toBe(1);
    expect(tools.skills_by_name).toEqual([{ name: 'pdf', count: 1 }]);
    expect(tools.slash_commands_invocations).toBe(0);
    // Ours on each of the 24 events, and the user's guard on the one run_shell_command PreToolUse.
    expect(tools.hooks_invocations).toBe(25);
    expect(tools.hooks_by_event).toContainEqual({
      event: 'PreToolUse',
      matcher: '^run_shell_command$',
      command: '$HOME/.qwen/hooks/guard.sh',
      count: 1,
    });
    // One user turn (the continuation and the headless prompt carry no submitted_prompt): 8 calls per turn.
    expect(tools.autonomy_ratio_avg).toBe(8);
    expect(tools.tool_autonomy_level_ratio).toEqual({ auto_high: 0.375, auto_medium: 0.125, auto_low: 0.375, manual: 0.125 });
    expect(tools.tool_calls_per_session_avg).toBeCloseTo(8 / 3, 2);
    expect(tools.user_turns_per_session_avg).toBeCloseTo(1 / 3, 2);

    const activity = (await api(`/api/v1/analytics/activity?${q}`)).data[0];
    expect(activity).toMatchObject({
      daily_active_users: 1,
      daily_active_users_by_client: { 'terminal-ui': 1, web: 0, 'non-interactive-cli': 1 },
      sessions: 3,
      user_messages: 1,
    });

    const productivity = (await api(`/api/v1/analytics/productivity?${q}`)).data[0];
    expect(productivity).toMatchObject({ files_created: 1, files_edited: 1, git_commits: 1, git_prs_created: 1 });
    const byExtension = Object.fromEntries(
      productivity.by_extension.map((e: { extension: string; count: number }) => [e.extension, e.count]),
    );
    expect(byExtension).toEqual({ ts: 1, md: 1 });
    const byLanguage = Object.fromEntries(productivity.by_language.map((e: { language: string; count: number }) => [e.language, e.count]));
    expect(byLanguage).toEqual({ TypeScript: 1, Markdown: 1 });

    const users = (await api(`/api/v1/analytics/users?${q}`)).data;
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      user_email: 'dev@example.com',
      tool_calls: 8,
      billable_tokens: 5970,
      primary_model: 'qwen3-coder-plus',
      primary_model_tier: 'thinking',
      sessions: 3,
      user_messages: 1,
      // a1–a4, b1, d1: the /branch copies of a1 and a2 are the same messages.
      assistant_messages: 6,
      mcp_calls: 1,
      skill_calls: 1,
    });

    // Nothing of the prompts, commands, file contents or answers reached the server's answers.
    const everything = JSON.stringify([tokens, tools, activity, productivity, users]);
    for (const secret of ['SECRET', 'secret message', 'secret answer', 'secret-project']) expect(everything).not.toContain(secret);

    const removed = runCli(['hooks', 'uninstall', '--agent', 'qwen'], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(settingsFile, 'utf8')).toBe(original);
  });
});
