// The whole event path with real processes: `agentmeter hooks install` into a temporary HOME, the
// installed command run by a shell as the agent would, `agentmeter collect --once`, a real server on a
// random port and a real DuckDB file. Every event must be on the server exactly once.
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import * as p from '../helpers/payloads.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const amHome = join(home, 'am');
const env = { HOME: home, AGENTMETER_HOME: amHome };
let server: ServerProcess;
let key: string;
let org: string;

/** The command our installer registered for an event, read back from the agent's settings file. */
function installedCommand(settingsFile: string, event: string, topLevel = false): string {
  const json = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const hooks = topLevel ? json : json.hooks;
  const entry = hooks[event]
    .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
    .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh'));
  return entry.command as string;
}

function fire(settingsFile: string, payload: Record<string, unknown>, extraEnv: Record<string, string> = {}): void {
  const command = installedCommand(settingsFile, payload['hook_event_name'] as string);
  execSync(command, { input: JSON.stringify(payload), env: { PATH: process.env['PATH']!, HOME: home, ...extraEnv }, shell: '/bin/sh' });
}

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  ({ key, org } = await seedAccount(db, 'member', 'dev@example.com'));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('hook → spool → collector → server', () => {
  it('installs, spools, ships, and stores every event exactly once with its usage', async () => {
    for (const agent of ['claude', 'droid']) {
      const installed = runCli(['hooks', 'install', '--agent', agent], env);
      expect(installed.status, installed.stderr).toBe(0);
    }
    const claudeSettings = join(home, '.claude', 'settings.json');
    const droidSettings = join(home, '.factory', 'hooks.json');

    // A Claude Code session with a transcript; a message that streamed over three lines.
    const transcript = join(home, '.claude', 'projects', 'p', 'c1.jsonl');
    mkdirSync(join(home, '.claude', 'projects', 'p'), { recursive: true });
    writeFileSync(
      transcript,
      `${[
        p.claudeAssistantLine({
          id: 'msg_1',
          timestamp: '2026-03-02T09:00:01Z',
          input: 1200,
          output: 3,
          cacheRead: 5000,
          thinking: true,
          sessionId: 'c1',
        }),
        p.claudeAssistantLine({
          id: 'msg_1',
          timestamp: '2026-03-02T09:00:05Z',
          input: 1200,
          output: 480,
          cacheRead: 5000,
          sessionId: 'c1',
        }),
        p.claudeAssistantLine({
          id: 'msg_2',
          timestamp: '2026-03-02T09:01:00Z',
          input: 300,
          output: 90,
          cacheWrite: 700,
          sessionId: 'c1',
          sidechain: true,
        }),
      ].join('\n')}\n`,
    );
    const c = { session_id: 'c1', transcript_path: transcript, cwd: join(home, 'repo'), permission_mode: 'acceptEdits' };
    const claudeEvents = [
      p.sessionStart(c),
      p.userPrompt('/review the secret-project plan', c),
      p.preToolUse('Bash', { command: 'git commit -m "secret message"' }, c),
      p.postToolUse('Bash', { command: 'git commit -m "secret message"' }, { stdout: 'ok' }, c),
      p.postToolUse('Write', { file_path: '/repo/src/app.ts', content: 'SECRET CONTENT' }, { type: 'create' }, c),
      p.postToolUse('mcp__GitHub__create_pull_request', { title: 'x' }, { ok: true }, c),
      p.stop(c),
      p.sessionEnd('other', c),
    ];
    for (const e of claudeEvents) fire(claudeSettings, e, { CLAUDE_CODE_ENTRYPOINT: 'cli' });

    // A Droid session: cumulative tokenUsage in its settings file.
    const sessions = join(home, '.factory', 'sessions', '-repo');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(
      join(sessions, 'd1.settings.json'),
      JSON.stringify({
        model: 'gpt-5-codex',
        tokenUsage: { inputTokens: 900, outputTokens: 120, cacheCreationTokens: 0, cacheReadTokens: 300, thinkingTokens: 15 },
      }),
    );
    writeFileSync(
      join(sessions, 'd1.jsonl'),
      `${JSON.stringify({ type: 'message', id: 'dm1', timestamp: '2026-03-02T10:00:00Z', message: { role: 'assistant' } })}\n`,
    );
    const d = { session_id: 'd1', transcript_path: join(sessions, 'd1.jsonl'), cwd: join(home, 'repo'), permission_mode: 'auto-medium' };
    const droidEvents = [p.sessionStart(d), p.postToolUse('Create', { file_path: '/repo/Makefile' }, {}, d), p.stop(d)];
    for (const e of droidEvents) fire(droidSettings, e, { AGENTMETER_CLIENT: 'non-interactive-cli' });

    const shipped = runCli(['collect', '--once', '--server', server.url, '--key', key], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    expect(shipped.stdout).toContain('shipped');
    // Running it again ships nothing new and still succeeds.
    const again = runCli(['collect', '--once', '--server', server.url, '--key', key], env);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('shipped 0');
    const status = runCli(['collect', 'status'], env);
    expect(status.stdout).toMatch(/pending: 0\n/);
    expect(status.stdout).toMatch(/quarantined: 0\n/);

    await server.stop();
    const conn = await openDb(db, { migrate: false });
    try {
      const events = await conn.all<{
        id: string;
        event: string;
        agent: string;
        user_id: string;
        org_id: string;
        client: string;
        autonomy: string;
        tool_name: string | null;
        git_commit: boolean | null;
        pr_created: boolean | null;
        slash_command: string | null;
        files: unknown[] | null;
        hooks: unknown[] | null;
        mcp_server: string | null;
      }>('SELECT * EXCLUDE (received_at, ts) FROM events ORDER BY agent, ts, id');
      expect(events).toHaveLength(claudeEvents.length + droidEvents.length);
      expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
      expect(new Set(events.map((e) => e.org_id))).toEqual(new Set([org]));
      const claude = events.filter((e) => e.agent === 'claude');
      expect(claude.map((e) => e.event).sort()).toEqual(claudeEvents.map((e) => e['hook_event_name'] as string).sort());
      expect(claude.every((e) => e.client === 'terminal-ui' && e.autonomy === 'auto-low')).toBe(true);
      expect(claude.find((e) => e.event === 'UserPromptSubmit')!.slash_command).toBe('review');
      expect(claude.filter((e) => e.git_commit).length).toBe(1);
      expect(claude.filter((e) => e.pr_created).length).toBe(1);
      expect(claude.find((e) => e.mcp_server)!.mcp_server).toBe('GitHub');
      expect(claude.find((e) => e.files)!.files).toEqual([{ ext: 'ts', name: null, op: 'create' }]);
      // Our own hook is among the hooks that ran for each event.
      expect(claude.find((e) => e.event === 'Stop')!.hooks![0]).toMatchObject({
        event: 'Stop',
        matcher: '',
        command: "AGENTMETER_HOME='~/am' '~/am/bin/agentmeter-hook.sh' claude",
      });
      const droid = events.filter((e) => e.agent === 'droid');
      expect(droid.every((e) => e.client === 'non-interactive-cli' && e.autonomy === 'auto-medium')).toBe(true);
      expect(droid.find((e) => e.files)!.files).toEqual([{ ext: '', name: 'Makefile', op: 'create' }]);

      const usage = await conn.all(
        'SELECT id, agent, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, thinking_tokens, thinking FROM usage ORDER BY id',
      );
      expect(usage).toEqual([
        {
          id: 'cc:c1:msg_1',
          agent: 'claude',
          model: 'claude-sonnet-4-5-20250929',
          input_tokens: 1200,
          output_tokens: 480,
          cache_read_tokens: 5000,
          cache_write_tokens: 0,
          thinking_tokens: 0,
          thinking: true,
        },
        {
          id: 'cc:c1:msg_2',
          agent: 'claude',
          model: 'claude-sonnet-4-5-20250929',
          input_tokens: 300,
          output_tokens: 90,
          cache_read_tokens: 0,
          cache_write_tokens: 700,
          thinking_tokens: 0,
          thinking: false,
        },
        {
          id: 'droid:d1:after:start',
          agent: 'droid',
          model: 'gpt-5-codex',
          input_tokens: 900,
          output_tokens: 120,
          cache_read_tokens: 300,
          cache_write_tokens: 0,
          thinking_tokens: 15,
          thinking: true,
        },
      ]);
      const messages = await conn.all<{ id: string }>('SELECT id FROM assistant_messages ORDER BY id');
      expect(messages.map((m) => m.id)).toEqual(['cc:c1:msg_1', 'cc:c1:msg_2', 'droid:d1:dm1']);

      // Prompts, commands, file contents and tool output never left the machine.
      const everything = JSON.stringify([
        events,
        await conn.all('SELECT * FROM usage'),
        await conn.all('SELECT * FROM assistant_messages'),
      ]);
      for (const secret of ['secret-project', 'secret message', 'SECRET CONTENT', 'secret answer text'])
        expect(everything).not.toContain(secret);
    } finally {
      await conn.close();
    }
  });
});
