// Gemini CLI end to end, with real processes: `agentmeter hooks install --agent gemini` into a temporary
// HOME's realistic ~/.gemini/settings.json, the fixture payloads (collector/agents/gemini/fixtures) run through
// the installed command by a stand-in `gemini` process (the hook reads its arguments from /proc, as it
// would Gemini CLI's), `agentmeter collect --once` reading the fixture chats, a real server and its batch,
// and the analytics API's figures against the ones worked out by hand below. Uninstall then restores the
// settings file byte for byte.
import { execSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyGeminiChats, GEMINI_FIXTURES, geminiPayloads } from '../helpers/gemini-fixtures.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
const settingsFile = join(home, '.gemini', 'settings.json');
const cwd = join(home, 'app');
const chats = join(home, '.gemini', 'tmp', '9c1f0a6e3b5d7f2a', 'chats');
const fakeGemini = join(dir, 'bin', 'gemini');
const DAY = '2026-11-20';
let server: ServerProcess;
let member: string;
let manager: string;

async function analytics(path: string): Promise<any> {
  const res = await fetch(`${server.url}/api/v1/analytics/${path}`, { headers: { authorization: `Bearer ${manager}` } });
  const json = await res.json();
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The command our installer registered for a Gemini event, read back from the settings file. */
function installedCommand(event: string): string {
  const hooks = JSON.parse(readFileSync(settingsFile, 'utf8')).hooks;
  return hooks[event]
    .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
    .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command;
}

/** Gemini runs the hook command through a shell with the event on stdin; `args` are its own arguments. */
function fire(payload: Record<string, unknown>, args: string): void {
  execSync(`'${fakeGemini}' ${args}`, {
    input: JSON.stringify(payload),
    env: {
      PATH: process.env['PATH']!,
      HOME: home,
      AGENTMETER_EVENT_TIME: payload['timestamp'] as string,
      FAKE_GEMINI_HOOK: installedCommand(payload['hook_event_name'] as string),
    },
    shell: '/bin/sh',
  });
}

beforeAll(async () => {
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(chats, { recursive: true });
  mkdirSync(join(dir, 'bin'));
  writeFileSync(fakeGemini, '#!/bin/sh\n# Stands in for the gemini process.\nsh -c "$FAKE_GEMINI_HOOK"\nexit $?\n');
  chmodSync(fakeGemini, 0o755);
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'boss@example.com', org));
  server = await startServerProcess(db);
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

describe('Gemini CLI: install, hook, collector, server, analytics', () => {
  it('gives the figures worked out by hand, and uninstall restores the settings', { timeout: 240_000 }, async () => {
    // As Gemini CLI writes its settings: JSON.stringify with two spaces.
    const original = `${JSON.stringify(JSON.parse(readFileSync(join(GEMINI_FIXTURES, 'settings.json'), 'utf8')), null, 2)}\n`;
    writeFileSync(settingsFile, original);
    const installed = runCli(['hooks', 'install', '--agent', 'gemini'], env);
    expect(installed.status, installed.stderr).toBe(0);
    const st = runCli(['hooks', 'status', '--agent', 'gemini'], env);
    expect(st.stdout).toContain(`gemini: installed in ${settingsFile}`);
    expect(st.stdout).not.toContain('will not run');

    copyGeminiChats(chats, cwd);
    // Session a (5f3c9a1e…): interactive, started in auto_edit; session b (b7e4d2c1…): `gemini -y -p …`.
    for (const { name, payload } of geminiPayloads(cwd, chats)) {
      fire(payload, name.startsWith('a') ? '--approval-mode auto_edit -i start' : '-y -p fix');
    }
    const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    expect(runCli(['collect', 'status'], env).stdout).toMatch(/quarantined: 0\n/);
    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);

    const q = `startDate=${DAY}&endDate=${DAY}`;
    // Tokens (usage.ts): input less its cached part (+ tool-use prompt), output with thoughts.
    // 2.5 Pro: m1 4000 in / 750 out / 8000 cached, m2 (rewound, still paid) 2000 / 100 → 6000 / 850 / 8000;
    //   0.5 × (6000 + 850 + 8000 / 10) = 3825.
    // 2.5 Flash: m3 4050 / 200 / 1000, subagent s1 1000 / 100 → 5050 / 300 / 1000; 0.12 × (5350 + 100) = 654.
    // 3 Flash: g1 1000 / 250 / 2000; 0.2 × (1250 + 200) = 290.
    const tokens = (await analytics(`tokens?${q}`)).data[0];
    expect(tokens).toMatchObject({
      billable_tokens: 4769,
      input_tokens: 12050,
      output_tokens: 1400,
      cache_read_tokens: 11000,
      cache_write_tokens: 0,
    });
    const byModel = (await analytics(`tokens?${q}&group_by=model`)).data;
    expect(byModel.map((r: any) => [r.group_key, r.billable_tokens, r.input_tokens, r.output_tokens])).toEqual([
      ['gemini-2.5-flash', 654, 5050, 300],
      ['gemini-2.5-pro', 3825, 6000, 850],
      ['gemini-3-flash-preview', 290, 1000, 250],
    ]);

    // Tools: eight AfterTool events, one failed (a08); a's five at auto-low, b's three at auto-high.
    const tools = (await analytics(`tools?${q}`)).data[0];
    expect(tools).toMatchObject({
      tool_calls: 8,
      by_tool: [
        { tool: 'replace', invocations: 2 },
        { tool: 'run_shell_command', invocations: 2 },
        { tool: 'activate_skill', invocations: 1 },
        { tool: 'mcp_GitHub_create_pull_request', invocations: 1 },
        { tool: 'mcp__linear__create_issue', invocations: 1 },
        { tool: 'write_file', invocations: 1 },
      ],
      mcp_users_with_mcp: 1,
      mcp_by_server: [
        { server: 'github', invocations: 1 },
        { server: 'linear', invocations: 1 },
      ],
      skills_invocations: 1,
      skills_by_name: [{ name: 'pdf', count: 1 }],
      slash_commands_invocations: 1,
      slash_commands_by_name: [{ name: 'review', count: 1 }],
      // Ours on each of the 19 events, the user's SessionStart hook twice, their write_file scan once.
      hooks_invocations: 22,
      autonomy_ratio_avg: 4,
      tool_calls_per_session_avg: 4,
      user_turns_per_session_avg: 1,
      tool_autonomy_level_ratio: { auto_high: 0.375, auto_medium: 0, auto_low: 0.625, manual: 0 },
    });

    // Activity: one user on two clients; two prompts, five assistant messages (m1, m2, m3, s1, g1).
    const activity = (await analytics(`activity?${q}`)).data[0];
    expect(activity).toMatchObject({
      daily_active_users: 1,
      daily_active_users_by_client: { 'terminal-ui': 1, web: 0, 'non-interactive-cli': 1 },
      sessions: 2,
      user_messages: 2,
      messages: 7,
    });

    // Productivity: src/app.ts created, README.md edited (the failed replace touched nothing); a commit;
    // two pull requests (the MCP create_pull_request and `gh pr create`).
    const productivity = (await analytics(`productivity?${q}`)).data[0];
    expect(productivity).toMatchObject({
      files_created: 1,
      files_edited: 1,
      by_extension: [
        { extension: 'md', count: 1 },
        { extension: 'ts', count: 1 },
      ],
      by_language: [
        { language: 'Markdown', count: 1 },
        { language: 'TypeScript', count: 1 },
      ],
      git_commits: 1,
      git_prs_created: 2,
    });

    const removed = runCli(['hooks', 'uninstall', '--agent', 'gemini'], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(settingsFile, 'utf8')).toBe(original);
  });
});
