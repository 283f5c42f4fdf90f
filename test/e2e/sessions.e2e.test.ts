// Sessions end to end with real processes: a server, a computer registered with the CLI, the computer
// agent running a fake agent (a shell script that writes a Claude-style transcript and runs our hook as
// a real agent would), the collector shipping what the hook spooled, and the session read over HTTP.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFailed } from 'vitest';
import { MessagePage, Session } from '../../api/sessions/schema.ts';
import { openDb } from '../../common/db/duckdb.ts';
import {
  CLI,
  cliEnv,
  HOOK_SCRIPT,
  lastLine,
  runCliAsync,
  type ServerProcess,
  seedAccount,
  startServerProcess,
  waitFor,
} from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

// The fake agent: one agent session per run, one assistant message with known usage in its transcript,
// hooks for SessionStart, UserPromptSubmit and Stop, then it waits until the test releases the message
// (a file named after it; at most 60 s), its answer on stdout. Every start is logged, with the arguments
// (one a line) and the standard input it got (the message text, as `computer run` passes it by default).
const FAKE_AGENT = `#!/bin/sh
text=$(cat)
run="fake-$AGENTMETER_MESSAGE_ID"
echo "$AGENTMETER_MESSAGE_ID" >> "$FAKE_DIR/runs.log"
printf '%s\\n' "$@" > "$FAKE_DIR/argv-$AGENTMETER_MESSAGE_ID"
printf '%s' "$text" > "$FAKE_DIR/stdin-$AGENTMETER_MESSAGE_ID"
transcript="$FAKE_DIR/$run.jsonl"
printf '{"type":"assistant","timestamp":"%s","message":{"id":"m-%s","model":"claude-sonnet-4-5","usage":{"input_tokens":1200,"output_tokens":300,"cache_read_input_tokens":1000,"cache_creation_input_tokens":100},"content":[{"type":"text","text":"..."}]}}\\n' "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" "$run" >> "$transcript"
hook() { printf '{"hook_event_name":"%s","session_id":"%s","transcript_path":"%s","cwd":"%s"%s}' "$1" "$run" "$transcript" "$PWD" "$2" | sh "$FAKE_HOOK" claude $3; }
hook SessionStart ''
hook UserPromptSubmit ',"prompt":"(not shipped)"' prompt
i=0
while [ ! -e "$FAKE_DIR/release-$AGENTMETER_MESSAGE_ID" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
hook Stop ''
printf 'Answer to: %s (in %s, client %s)\\n' "$text" "$PWD" "$AGENTMETER_CLIENT"
`;

interface Machine {
  dir: string;
  env: Record<string, string>;
  fakeDir: string;
  repo: string;
}

/** Lets the fake agent finish the message. */
const release = (m: Machine, messageId: string) => writeFileSync(join(m.fakeDir, `release-${messageId}`), '');

function machine(): Machine {
  const dir = tempDir();
  const fakeDir = join(dir, 'fake');
  const repo = join(dir, 'repo');
  mkdirSync(fakeDir, { recursive: true });
  mkdirSync(repo);
  writeFileSync(join(dir, 'fake-agent.sh'), FAKE_AGENT);
  chmodSync(join(dir, 'fake-agent.sh'), 0o755);
  return {
    dir,
    fakeDir,
    repo,
    env: { HOME: dir, AGENTMETER_HOME: join(dir, 'am'), FAKE_DIR: fakeDir, FAKE_HOOK: HOOK_SCRIPT, LOG_LEVEL: 'info' },
  };
}

/** The computer agent in its own process group, so a "crash" can take its agent process down with it.
 * Sessions may run in the machine's repo folder (and below it) only. */
function startComputerAgent(m: Machine): ChildProcess & { log: () => string } {
  const child = spawn(
    process.execPath,
    [
      CLI,
      'computer',
      'run',
      '--agent-command',
      `sh ${join(m.dir, 'fake-agent.sh')}`,
      '--cwd',
      m.repo,
      '--allow-root',
      m.repo,
      '--poll-wait-ms',
      '5000',
    ],
    {
      env: cliEnv(m.env),
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  );
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  return Object.assign(child, { log: () => log });
}

const api = async (server: ServerProcess, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(new URL(path, server.url), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('sessions on a registered computer', () => {
  it('runs two messages through the fake agent: idle → pending → running → idle, answers stored, token usage as reported', {
    timeout: 180_000,
  }, async () => {
    const m = machine();
    const db = join(m.dir, 'server.duckdb');
    const { key } = await seedAccount(db, 'member', 'dev@example.com');
    const server = await startServerProcess(db);
    let agent: ReturnType<typeof startComputerAgent> | undefined;
    onTestFailed(() => console.error(`computer agent log:\n${agent?.log()}\nserver log:\n${server.stderr()}`));
    try {
      const registered = await runCliAsync(['computer', 'register', '--server', server.url, '--key', key, '--name', 'test box'], m.env);
      expect(registered.status, registered.stderr).toBe(0);
      const computerId = lastLine(registered.stdout);
      expect(computerId).toMatch(/^cmp_[0-9a-f]{16}$/);
      expect(readFileSync(join(m.env.AGENTMETER_HOME!, 'computer.json'), 'utf8')).toContain('amc_');
      expect((await api(server, key, 'GET', `/api/v0/computers/${computerId}`)).body).toMatchObject({
        status: 'provisioning',
        providerType: 'byom',
        name: 'test box',
      });

      agent = startComputerAgent(m);
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/computers/${computerId}`)).body.status === 'active',
        60_000,
        'the computer to be active',
      );

      const created = await api(server, key, 'POST', '/api/v0/sessions', { computerId, cwd: m.repo });
      expect(created.status).toBe(201);
      const sessionId = Session.parse(created.body).sessionId;
      expect(created.body.status).toBe('idle');

      // The first message is pending when sent; from then on, watch the status one request at a time (so
      // answers arrive in order) while the messages run.
      const first = await api(server, key, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: 'Explain the build' });
      expect(first.body.status).toBe('pending');
      const seen: string[] = ['idle', 'pending'];
      let watching = true;
      const watcher = (async () => {
        for (let last = false; !last; ) {
          last = !watching; // one more look after the run is over
          const r = await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`);
          if (r.body.status && seen.at(-1) !== r.body.status) seen.push(r.body.status);
          if (!last) await new Promise((done) => setTimeout(done, 100));
        }
      })();
      try {
        await waitFor(
          async () => (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.status === 'running',
          30_000,
          'the first message to run',
        );
        const second = await api(server, key, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: 'Now the tests' });
        expect(second.body.status).toBe('running'); // queued behind the running one
        release(m, second.body.messageId);
        await waitFor(() => seen.includes('running'), 30_000, 'the watcher to see the session running');
        release(m, first.body.messageId);
        await waitFor(
          async () => {
            const s = (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body;
            return s.status === 'idle' && s.messageCount === 4;
          },
          60_000,
          'both messages to finish',
        );
      } finally {
        watching = false;
        await watcher;
      }
      expect(seen.slice(0, 3)).toEqual(['idle', 'pending', 'running']);
      expect(seen.at(-1)).toBe('idle');

      const messages = MessagePage.parse((await api(server, key, 'GET', `/api/v0/sessions/${sessionId}/messages`)).body).messages;
      expect(messages.map((x) => [x.role, x.text])).toEqual([
        ['user', 'Explain the build'],
        ['assistant', `Answer to: Explain the build (in ${m.repo}, client web)\n`],
        ['user', 'Now the tests'],
        ['assistant', `Answer to: Now the tests (in ${m.repo}, client web)\n`],
      ]);

      // The collector on the computer ships what the hook spooled; the session's usage is then what the
      // fake agent wrote to its transcripts.
      const shipped = await runCliAsync(['collect', '--once', '--server', server.url, '--key', key], m.env);
      expect(shipped.status, shipped.stderr).toBe(0);
      const runs = readFileSync(join(m.fakeDir, 'runs.log'), 'utf8').trim().split('\n');
      expect(runs).toEqual([messages[0]!.messageId, messages[2]!.messageId]);
      const reported = runs.map((id) => JSON.parse(readFileSync(join(m.fakeDir, `fake-${id}.jsonl`), 'utf8')).message.usage);
      const sum = (field: string) => reported.reduce((total, u) => total + u[field], 0);
      const session = Session.parse((await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body);
      expect(session.sessionSettings.tokenUsage).toEqual({
        inputTokens: sum('input_tokens'),
        outputTokens: sum('output_tokens'),
        cacheReadTokens: sum('cache_read_input_tokens'),
        cacheCreationTokens: sum('cache_creation_input_tokens'),
        thinkingTokens: 0,
        // claude-sonnet-* is priced 1.2×: input + output + cache writes + a tenth of cache reads.
        serviceCredits: Math.round(
          1.2 * (sum('input_tokens') + sum('output_tokens') + sum('cache_creation_input_tokens') + sum('cache_read_input_tokens') / 10),
        ),
      });
      expect(session.sessionSettings.inclusiveTokenUsage).toEqual(session.sessionSettings.tokenUsage);
    } finally {
      if (agent && agent.exitCode === null) {
        agent.kill('SIGTERM');
        await new Promise((r) => agent!.once('exit', r));
      }
      await server.stop();
    }
    // The hook's events of those runs count as the web client.
    const conn = await openDb(db, { migrate: false });
    try {
      const rows = await conn.all<{ client: string; n: number }>(
        'SELECT client, count(*) AS n FROM events WHERE api_session_id IS NOT NULL GROUP BY client',
      );
      expect(rows).toEqual([{ client: 'web', n: 6 }]);
    } finally {
      await conn.close();
    }
  });

  it('the computer agent killed mid-message: the message fails once, never runs twice, and the session is idle and usable again', {
    timeout: 180_000,
  }, async () => {
    const m = machine();
    const db = join(m.dir, 'server.duckdb');
    const { key } = await seedAccount(db, 'member', 'dev@example.com');
    const server = await startServerProcess(db);
    let agent = undefined as ReturnType<typeof startComputerAgent> | undefined;
    onTestFailed(() => console.error(`computer agent log:\n${agent?.log()}\nserver log:\n${server.stderr()}`));
    try {
      const registered = await runCliAsync(['computer', 'register', '--server', server.url, '--key', key, '--name', 'flaky box'], m.env);
      const computerId = lastLine(registered.stdout);
      agent = startComputerAgent(m);
      const sessionId = (await api(server, key, 'POST', '/api/v0/sessions', { computerId, cwd: m.repo })).body.sessionId as string;
      const slow = (await api(server, key, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: 'a slow job' })).body
        .messageId as string;
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.status === 'running',
        60_000,
        'the slow message to run',
      );
      await waitFor(() => existsSync(join(m.fakeDir, 'runs.log')), 30_000, 'the fake agent to start');

      // The machine "crashes": the computer agent and the agent it started die together.
      process.kill(-agent.pid!, 'SIGKILL');
      await new Promise((r) => agent!.once('exit', r));
      expect((await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.status).toBe('running');

      // It comes back: the run it lost is failed, not run again, and the session is idle.
      agent = startComputerAgent(m);
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.status === 'idle',
        60_000,
        'the session to be idle again',
      );
      const afterCrash = MessagePage.parse((await api(server, key, 'GET', `/api/v0/sessions/${sessionId}/messages`)).body).messages;
      expect(afterCrash).toEqual([
        expect.objectContaining({ messageId: slow, status: 'failed', error: expect.stringContaining('restarted') }),
      ]);

      const next = (await api(server, key, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: 'a quick one' })).body
        .messageId as string;
      release(m, next);
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.messageCount === 3,
        60_000,
        'the next message to finish',
      );
      const runs = readFileSync(join(m.fakeDir, 'runs.log'), 'utf8').trim().split('\n');
      expect(runs).toEqual([slow, next]);
    } finally {
      if (agent && agent.exitCode === null) {
        agent.kill('SIGTERM');
        await new Promise((r) => agent!.once('exit', r));
      }
      await server.stop();
    }
  });

  it("the repro: a manager's key minted for a member cannot drive the member's computer, and the computer runs nothing outside its policy", {
    timeout: 180_000,
  }, async () => {
    const m = machine();
    const db = join(m.dir, 'server.duckdb');
    const { org, key } = await seedAccount(db, 'member', 'dev@example.com');
    const manager = (await seedAccount(db, 'manager', 'boss@example.com', org)).key;
    const server = await startServerProcess(db);
    let agent: ReturnType<typeof startComputerAgent> | undefined;
    onTestFailed(() => console.error(`computer agent log:\n${agent?.log()}\nserver log:\n${server.stderr()}`));
    try {
      const registered = await runCliAsync(['computer', 'register', '--server', server.url, '--key', key, '--name', 'dev box'], m.env);
      expect(registered.status, registered.stderr).toBe(0);
      const computerId = lastLine(registered.stdout);
      agent = startComputerAgent(m);
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/computers/${computerId}`)).body.status === 'active',
        60_000,
        'the computer to be active',
      );

      // The manager mints a key for the member: it is the member's for analytics, never for their computer.
      const memberId = (await api(server, key, 'GET', '/api/v0/admin/whoami')).body.userId as string;
      const minted = await api(server, manager, 'POST', `/api/v0/admin/users/${memberId}/keys`, {});
      expect(minted.status).toBe(201);
      const delegated = minted.body.apiKey as string;
      const refused = await api(server, delegated, 'POST', '/api/v0/sessions', { computerId, cwd: '/root' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ title: 'Forbidden', status: 403, detail: expect.stringContaining('minted by someone else') });

      // The member's own key: the server queues, the computer refuses what its owner did not allow.
      const linkOut = join(m.repo, 'escape');
      symlinkSync(m.dir, linkOut);
      mkdirSync(join(m.repo, 'sub'));
      const outside: Record<string, string> = {};
      for (const cwd of ['/root', `${m.repo}/../..`, 'sub/../..', linkOut]) {
        const created = await api(server, key, 'POST', '/api/v0/sessions', { computerId, cwd });
        expect(created.status).toBe(201);
        const sessionId = created.body.sessionId as string;
        expect((await api(server, delegated, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: 'x' })).status).toBe(403);
        await api(server, key, 'POST', `/api/v0/sessions/${sessionId}/messages`, { text: '--dangerously-skip-permissions' });
        outside[cwd] = sessionId;
      }
      for (const [cwd, sessionId] of Object.entries(outside)) {
        await waitFor(
          async () => (await api(server, key, 'GET', `/api/v0/sessions/${sessionId}`)).body.status === 'idle',
          60_000,
          `the message in ${cwd} to be refused`,
        );
        const [message] = MessagePage.parse((await api(server, key, 'GET', `/api/v0/sessions/${sessionId}/messages`)).body).messages;
        expect(message, cwd).toMatchObject({
          status: 'failed',
          error: expect.stringContaining(`is outside the folders this computer allows (${m.repo})`),
        });
      }
      expect(existsSync(join(m.fakeDir, 'runs.log'))).toBe(false); // the agent never ran

      // Inside the allowed folder it runs, and text that looks like a flag reaches the agent as text.
      const inside = (await api(server, key, 'POST', '/api/v0/sessions', { computerId, cwd: m.repo })).body.sessionId as string;
      const sent = await api(server, key, 'POST', `/api/v0/sessions/${inside}/messages`, { text: '--dangerously-skip-permissions' });
      release(m, sent.body.messageId);
      await waitFor(
        async () => (await api(server, key, 'GET', `/api/v0/sessions/${inside}`)).body.messageCount === 2,
        60_000,
        'the message to finish',
      );
      expect(readFileSync(join(m.fakeDir, `stdin-${sent.body.messageId}`), 'utf8')).toBe('--dangerously-skip-permissions');
      expect(readFileSync(join(m.fakeDir, `argv-${sent.body.messageId}`), 'utf8')).not.toContain('dangerously');
      const answer = MessagePage.parse((await api(server, key, 'GET', `/api/v0/sessions/${inside}/messages`)).body).messages[1];
      expect(answer?.text).toBe(`Answer to: --dangerously-skip-permissions (in ${m.repo}, client web)\n`);
    } finally {
      if (agent && agent.exitCode === null) {
        agent.kill('SIGTERM');
        await new Promise((r) => agent!.once('exit', r));
      }
      await server.stop();
    }
  });
});
