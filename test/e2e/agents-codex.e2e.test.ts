// Codex CLI end to end, with real processes: `agentmeter hooks install --agent codex` into a temporary
// CODEX_HOME holding a user's own hooks.json and config.toml, the fixture payloads replayed through the
// installed command (the real hook script), `agentmeter collect --once` reading the rollouts, a real server
// and its batch, then the analytics API. Every figure is the hand-worked one of
// collector/agents/codex/fixtures/SOURCE.md. Uninstall gives back the user's hooks.json byte for byte.
import { execSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = agentFixtures('codex');
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const codexHome = join(home, '.codex');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am'), CODEX_HOME: codexHome };
const DAY = '2026-11-20';
let server: ServerProcess;
let member: string;
let manager: string;

async function api(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${manager}` } });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

/** Replays a fixture's hook calls through the command our installer registered, as Codex runs it. */
function replay(file: string): number {
  const hooks = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).hooks;
  const lines = readFileSync(join(FIXTURES, file), 'utf8').trim().split('\n');
  for (const line of lines) {
    const { time, payload } = JSON.parse(line.replaceAll('/home/dev', home)) as { time: string; payload: Record<string, unknown> };
    const command = hooks[payload['hook_event_name'] as string]
      .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
      .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
    execSync(command, {
      input: JSON.stringify(payload),
      env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: time },
      shell: '/bin/sh',
    });
  }
  return lines.length;
}

beforeAll(async () => {
  const day = join(codexHome, 'sessions', '2026', '11', '20');
  mkdirSync(day, { recursive: true });
  mkdirSync(join(home, 'src', 'shop'), { recursive: true });
  for (const name of [
    'rollout-2026-11-20T10-00-00-019aa1b2-7c3e-7d41-9b5e-3f2a6c8d9e01.jsonl',
    'rollout-2026-11-20T14-30-00-019aa1c4-0b6f-7a22-8e1d-5c7b9a0f1d22.jsonl',
  ])
    copyFileSync(join(FIXTURES, name), join(day, name));
  copyFileSync(join(FIXTURES, 'hooks.json'), join(codexHome, 'hooks.json'));
  writeFileSync(join(codexHome, 'config.toml'), readFileSync(join(FIXTURES, 'config.toml'), 'utf8').replaceAll('/home/dev', home));
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'boss@example.com', org));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('Codex CLI: install, hook, collector, server, analytics', () => {
  it('measures a Codex session and a codex exec run as worked out by hand', { timeout: 240_000 }, async () => {
    const userHooks = readFileSync(join(codexHome, 'hooks.json'), 'utf8');
    const config = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    // Codex's managed hooks are TOML requirements: --managed is refused with why, nothing written.
    const managed = runCli(['hooks', 'install', '--agent', 'codex', '--managed'], env);
    expect(managed.status).not.toBe(0);
    expect(managed.stderr).toContain('requirements.toml');
    const installed = runCli(['hooks', 'install', '--agent', 'codex'], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(join(codexHome, 'hooks.json'));
    expect(installed.stdout).toContain('/hooks');
    const status = runCli(['hooks', 'status', '--agent', 'codex'], env);
    expect(status.stdout).toContain('codex: installed');
    expect(status.stdout).toContain('installed, not yet trusted');

    const events = replay('hooks-interactive.jsonl') + replay('hooks-exec.jsonl');
    const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    // 20 events, 4 calls, 3 assistant messages; a second run finds nothing new.
    expect(shipped.stdout).toContain(`shipped ${events + 4 + 3}`);
    expect(runCli(['collect', '--once', '--server', server.url, '--key', member], env).stdout).toContain('shipped 0');
    expect(runCli(['collect', 'status'], env).stdout).toMatch(/quarantined: 0\n/);
    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);

    const q = `startDate=${DAY}&endDate=${DAY}`;
    const [tokens] = await api(`/api/v1/analytics/tokens?${q}`);
    expect(tokens).toMatchObject({
      input_tokens: 12000,
      output_tokens: 2000,
      cache_read_tokens: 28000,
      cache_write_tokens: 0,
      billable_tokens: 8400,
    });
    expect(tokens.by_model).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          model_id: 'gpt-5.5',
          model_tier: 'thinking',
          billable_tokens: 7600,
          input_tokens: 11000,
          output_tokens: 1800,
        }),
        expect.objectContaining({
          model_id: 'gpt-5.4-mini',
          model_tier: 'standard',
          billable_tokens: 800,
          input_tokens: 1000,
          output_tokens: 200,
        }),
      ]),
    );
    expect(tokens.by_model).toHaveLength(2);
    // Both models have a list price (docs/metrics.md §8; the dollars are worked by hand in money.integration).
    for (const m of tokens.by_model) expect(m.cost_usd).toBeGreaterThan(0);

    const [tools] = await api(`/api/v1/analytics/tools?${q}`);
    expect(tools.tool_calls).toBe(6);
    expect(tools.by_tool).toEqual(
      expect.arrayContaining([
        { tool: 'Bash', invocations: 4 },
        { tool: 'apply_patch', invocations: 1 },
        { tool: 'mcp__GitHub__search_issues', invocations: 1 },
      ]),
    );
    expect(tools.mcp_by_server).toEqual([{ server: 'github', invocations: 1 }]);
    expect(tools.mcp_users_with_mcp).toBe(1);
    expect(tools.skills_invocations).toBe(0);
    expect(tools.tool_autonomy_level_ratio).toEqual({ auto_high: 0, auto_medium: 1 / 6, auto_low: 3 / 6, manual: 2 / 6 });
    // Ours on every event (20), the user's ^Bash$ guard on the one Bash PreToolUse, their Stop hook twice.
    expect(tools.hooks_invocations).toBe(23);

    const [productivity] = await api(`/api/v1/analytics/productivity?${q}`);
    expect(productivity).toMatchObject({ files_created: 1, files_edited: 2, git_commits: 1, git_prs_created: 1 });
    expect(productivity.by_language).toEqual(
      expect.arrayContaining([
        { language: 'TypeScript', count: 1 },
        { language: 'Markdown', count: 1 },
        { language: 'Python', count: 1 },
      ]),
    );

    const [activity] = await api(`/api/v1/analytics/activity?${q}`);
    expect(activity).toMatchObject({ daily_active_users: 1, sessions: 2, user_messages: 2, messages: 5 });
    expect(activity.daily_active_users_by_client).toEqual({ 'terminal-ui': 1, web: 0, 'non-interactive-cli': 1, vscode: 0 });

    const removed = runCli(['hooks', 'uninstall', '--agent', 'codex'], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toBe(userHooks);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(config);
  });
});
