// A continued Claude Code session is not new usage (docs/metrics.md §1): its transcript begins with copies of the
// earlier session's lines (same message.id and requestId, one of them with a new, later timestamp on the
// next day). Both sessions go through the real hook, `collect --once` and a real server; the batch runs in
// the server. The copied calls count once, on the day and in the session of their earliest line: the day's
// tokens, credits and assistant messages, and the first session's tokenUsage, are what they were before
// the continued session arrived.
import { execSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../api/sessions/schema.ts';
import * as p from '../helpers/payloads.ts';
import { runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
const projects = join(home, '.claude', 'projects', 'p');
let server: ServerProcess;
let member: string;
let manager: string;

async function api(key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBeLessThan(300);
  return json;
}

/** Runs the installed Claude Code hook with each payload, as the agent would. */
function fire(payloads: Record<string, unknown>[], extraEnv: Record<string, string> = {}): void {
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  for (const payload of payloads) {
    const command = settings.hooks[payload['hook_event_name'] as string]
      .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
      .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
    execSync(command, { input: JSON.stringify(payload), env: { PATH: process.env['PATH']!, HOME: home, ...extraEnv }, shell: '/bin/sh' });
  }
}

/** A Claude Code session: its transcript written, its hooks fired, then shipped. */
function session(id: string, lines: string[], extraEnv: Record<string, string>): void {
  const transcript = join(projects, `${id}.jsonl`);
  writeFileSync(transcript, `${lines.join('\n')}\n`);
  const c = { session_id: id, transcript_path: transcript, cwd: join(home, 'repo'), permission_mode: 'default' };
  fire([p.sessionStart(c), p.userPrompt('go on', c), p.stop(c)], { CLAUDE_CODE_ENTRYPOINT: 'cli', ...extraEnv });
  const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
  expect(shipped.status, shipped.stderr).toBe(0);
}

function batch(): void {
  const ran = runCli(['batch', '--server', server.url, '--key', manager]);
  expect(ran.status, ran.stderr).toBe(0);
}

/** The figures of one day: tokens (with credits) and assistant messages. */
async function day(date: string) {
  const q = `startDate=${date}&endDate=${date}`;
  const tokens = (await api(manager, 'GET', `/api/v1/analytics/tokens?${q}`)).data[0];
  const users = (await api(manager, 'GET', `/api/v1/analytics/users?${q}`)).data;
  return {
    billable: tokens.billable_tokens,
    input: tokens.input_tokens,
    output: tokens.output_tokens,
    cacheRead: tokens.cache_read_tokens,
    cacheWrite: tokens.cache_write_tokens,
    assistantMessages: users.reduce((n: number, u: { assistant_messages: number }) => n + u.assistant_messages, 0),
  };
}

const usageOf = async (sessionId: string) =>
  Session.parse(await api(member, 'GET', `/api/v0/sessions/${sessionId}`)).sessionSettings.tokenUsage;

beforeAll(async () => {
  mkdirSync(projects, { recursive: true });
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'boss@example.com', org));
  server = await startServerProcess(db);
  expect(runCli(['hooks', 'install', '--agent', 'claude'], env).status).toBe(0);
});
afterAll(async () => {
  await server?.stop();
});

describe('a continued session', () => {
  it('counts the calls it copies once, on the earliest day and in the first session', { timeout: 180_000 }, async () => {
    // Two API sessions on a registered computer, so each agent session's tokenUsage can be read.
    const computer = await api(member, 'POST', '/api/v0/computers', {
      name: 'laptop',
      hostname: 'dev-box',
      remoteUser: 'dev',
      hostId: '4b0d7c3e-2a8e-4d8c-9a41-0d0c0a3f1b11',
    });
    const first = (await api(member, 'POST', '/api/v0/sessions', { computerId: computer.computer.id })).sessionId as string;
    const second = (await api(member, 'POST', '/api/v0/sessions', { computerId: computer.computer.id })).sessionId as string;

    // The first session, on 2026-03-02: call a1 streamed over two lines, call a2 late in the day.
    const a1 = [
      p.claudeAssistantLine({
        id: 'msg_a1',
        requestId: 'req_a1',
        timestamp: '2026-03-02T09:00:00Z',
        input: 1000,
        output: 3,
        cacheRead: 5000,
        cacheWrite: 200,
        sessionId: 'c1',
      }),
      p.claudeAssistantLine({
        id: 'msg_a1',
        requestId: 'req_a1',
        timestamp: '2026-03-02T09:00:04Z',
        input: 1000,
        output: 400,
        cacheRead: 5000,
        cacheWrite: 200,
        sessionId: 'c1',
      }),
    ];
    const a2 = (timestamp: string, sessionId: string) =>
      p.claudeAssistantLine({ id: 'msg_a2', requestId: 'req_a2', timestamp, input: 300, output: 120, cacheWrite: 100, sessionId });
    session('c1', [p.claudeUserLine('first', '2026-03-02T08:59:59Z'), ...a1, a2('2026-03-02T23:50:00Z', 'c1')], {
      AGENTMETER_SESSION_ID: first,
      AGENTMETER_MESSAGE_ID: 'run-1',
    });
    // 2026-03-02: input 1000 + 300, output 400 + 120, cache read 5000, cache write 200 + 100;
    // sonnet 1.2 × (1300 + 520 + 300 + 5000 / 10) = 3144 credits; two assistant messages.
    const firstDay = { billable: 3144, input: 1300, output: 520, cacheRead: 5000, cacheWrite: 300, assistantMessages: 2 };
    const firstUsage = {
      inputTokens: 1300,
      outputTokens: 520,
      cacheCreationTokens: 300,
      cacheReadTokens: 5000,
      thinkingTokens: 0,
      serviceCredits: 3144,
    };
    expect(await usageOf(first)).toEqual(firstUsage);
    batch();
    expect(await day('2026-03-02')).toEqual(firstDay);

    // The continued session copies a1 as it was and a2 with a timestamp on the next day, then makes two
    // calls of its own on 2026-03-03.
    session(
      'c2',
      [
        ...a1.map((line) => line.replace('"sessionId":"c1"', '"sessionId":"c2"')),
        a2('2026-03-03T08:00:00Z', 'c2'),
        p.claudeUserLine('continue', '2026-03-03T08:00:30Z'),
        p.claudeAssistantLine({
          id: 'msg_b1',
          requestId: 'req_b1',
          timestamp: '2026-03-03T08:01:00Z',
          input: 50,
          output: 60,
          sessionId: 'c2',
        }),
        p.claudeAssistantLine({
          id: 'msg_b2',
          requestId: 'req_b2',
          timestamp: '2026-03-03T08:02:00Z',
          input: 70,
          output: 80,
          cacheRead: 1000,
          sessionId: 'c2',
        }),
      ],
      { AGENTMETER_SESSION_ID: second, AGENTMETER_MESSAGE_ID: 'run-2' },
    );
    expect(await usageOf(first)).toEqual(firstUsage);
    // The second session: b1 and b2 only; 1.2 × (120 + 140 + 1000 / 10) = 432 credits.
    const secondUsage = {
      inputTokens: 120,
      outputTokens: 140,
      cacheCreationTokens: 0,
      cacheReadTokens: 1000,
      thinkingTokens: 0,
      serviceCredits: 432,
    };
    expect(await usageOf(second)).toEqual(secondUsage);
    batch();
    expect(await day('2026-03-02')).toEqual(firstDay);
    expect(await day('2026-03-03')).toEqual({
      billable: 432,
      input: 120,
      output: 140,
      cacheRead: 1000,
      cacheWrite: 0,
      assistantMessages: 2,
    });
  });
});
