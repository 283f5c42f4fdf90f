// VS Code's Copilot agent and Cursor run the Claude Code hook too (~/.claude/settings.json is theirs to
// load). Their payloads, from the vendors' documented shapes (collector/agents/claude/fixtures/hosts/SOURCE.md),
// go through the hook our installer registered and the collector: none is counted as Claude Code; VS
// Code's are recorded as Copilot's (client vscode), Cursor's dropped with a reason that is counted, and a
// Claude Code event beside them still ships.
import { execSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeHookHost } from '../../collector/agents/claude/hosts.ts';
import { Collector } from '../../collector/daemon.ts';
import { loadState } from '../../collector/state.ts';
import { createLogger } from '../../common/logger.ts';
import { agentFixtures } from '../helpers/agent-fixtures.ts';
import { runCli } from '../helpers/processes.ts';
import { type RecordingServer, startRecordingServer } from '../helpers/recording-server.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = join(agentFixtures('claude'), 'hosts');
const log = createLogger({ name: 'test-hosts', level: 'silent' });
const lines = (file: string) =>
  readFileSync(join(FIXTURES, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown> });

let server: RecordingServer | undefined;
afterAll(() => server?.close());

async function recordingServer(): Promise<RecordingServer> {
  server = await startRecordingServer();
  return server;
}

describe('other hosts running the Claude Code hook', () => {
  it('tells each payload dialect apart, and Claude Code by its own', () => {
    for (const { payload } of lines('cursor.jsonl')) expect(claudeHookHost({ entrypoint: '' }, payload)?.host).toBe('cursor');
    for (const { payload } of lines('vscode-copilot.jsonl')) expect(claudeHookHost({ entrypoint: '' }, payload)?.host).toBe('copilot');
    const claude = { session_id: 's', hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_input: {}, tool_response: {} };
    expect(claudeHookHost({ entrypoint: 'cli' }, claude)).toBeUndefined();
    expect(claudeHookHost({ entrypoint: '' }, claude)).toBeUndefined();
    // VS Code's tool in Claude Code's field names is VS Code's only outside Claude Code's environment.
    const copied = lines('vscode-copilot.jsonl').at(-1)!.payload;
    expect(claudeHookHost({ entrypoint: 'cli' }, copied)).toBeUndefined();
    expect(claudeHookHost({ entrypoint: 'cli' }, { ...claude, hook_event_name: 'userPromptSubmitted' })?.host).toBe('other');
  });

  it('through the installed hook and the collector: never counted as Claude Code; Copilot recorded, Cursor dropped', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const agentmeterHome = join(home, '.agentmeter');
    const env = { HOME: home, AGENTMETER_HOME: agentmeterHome };
    const installed = runCli(['hooks', 'install', '--agent', 'claude'], env);
    expect(installed.status, installed.stderr).toBe(0);
    const hooks = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).hooks;
    const run = (event: string, payload: unknown, extra: Record<string, string> = {}) => {
      const command = hooks[event]
        .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
        .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
      execSync(command, {
        input: JSON.stringify(payload).replaceAll('/home/dev', home),
        env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: agentmeterHome, ...extra },
        shell: '/bin/sh',
      });
    };
    const cursor = lines('cursor.jsonl');
    const vscode = lines('vscode-copilot.jsonl');
    for (const { event, payload } of [...cursor, ...vscode]) run(event, payload);
    // Claude Code itself (it sets CLAUDE_CODE_ENTRYPOINT for its hooks).
    run(
      'UserPromptSubmit',
      { session_id: 'claude-1', cwd: home, hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
      { CLAUDE_CODE_ENTRYPOINT: 'cli' },
    );

    const ingest = await recordingServer();
    const collector = new Collector({ server: ingest.url, apiKey: 'am_test', agentmeterHome, home, log, maxAttempts: 1 });
    const result = await collector.drain();
    await collector.close();
    expect(result).toMatchObject({ shipped: 1 + vscode.length, quarantined: 0, dropped: cursor.length });
    expect(ingest.records.map((r) => [r.kind, r.kind === 'event' ? [r.agent, r.session_id, r.client] : r.id])).toEqual([
      ...vscode.map(() => ['event', ['copilot', '9f1c2d3e-vscode-session', 'vscode']]),
      ['event', ['claude', 'claude-1', 'terminal-ui']],
    ]);
    // Dropped files leave the spool like shipped ones; the reasons are counted in the state.
    expect(readdirSync(join(agentmeterHome, 'spool', 'new'))).toEqual([]);
    expect(readdirSync(join(agentmeterHome, 'spool', 'bad'))).toEqual([]);
    const dropped = loadState(agentmeterHome).state.dropped;
    const count = (host: RegExp) =>
      Object.entries(dropped)
        .filter(([reason]) => host.test(reason))
        .reduce((n, [, c]) => n + c, 0);
    expect(count(/^Cursor ran the Claude Code hook/)).toBe(cursor.length);
    expect(count(/^VS Code's Copilot agent ran the Claude Code hook/)).toBe(0);
    const status = runCli(['collect', 'status'], env);
    expect(status.stdout).toContain(`dropped: ${cursor.length} (Cursor ran the Claude Code hook`);
  });
});
