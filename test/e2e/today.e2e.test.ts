// Today so far with real processes: the installed hook run by a shell as the agent would, `agentmeter
// collect --once`, a server process on a real DuckDB file; the events and the transcript's usage are in
// GET /api/v1/analytics/today well within 60 s of reaching the server.
import { execSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TodayResponse } from '../../api/today/schema.ts';
import { LAPTOP_BUNDLE } from '../../scripts/build-laptop.mjs';
import * as p from '../helpers/payloads.ts';
import { runCliAsync, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
let server: ServerProcess;
let key: string;

function fire(payload: Record<string, unknown>): void {
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks[payload['hook_event_name'] as string]
    .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
    .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
  execSync(command, { input: JSON.stringify(payload), env: { PATH: process.env['PATH']!, HOME: home }, shell: '/bin/sh' });
}

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  ({ key } = await seedAccount(db, 'manager', 'lead@example.com'));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('today so far, end to end', () => {
  it('counts a prompt, a tool call and its usage within 60 s of the collector shipping them', async () => {
    expect((await runCliAsync(['hooks', 'install', '--agent', 'claude'], env)).status).toBe(0);
    const transcript = join(home, '.claude', 'projects', 'p', 't1.jsonl');
    mkdirSync(join(home, '.claude', 'projects', 'p'), { recursive: true });
    // 1000 input + 200 output of sonnet 4.5 (× 1.2): 1440 credits, dated now.
    writeFileSync(
      transcript,
      `${p.claudeAssistantLine({ id: 'msg_t1', requestId: 'req_t1', timestamp: new Date().toISOString(), input: 1000, output: 200, sessionId: 't1' })}\n`,
    );
    const c = { session_id: 't1', transcript_path: transcript, cwd: home, permission_mode: 'default' };
    fire(p.userPrompt('fix the build', c));
    fire(p.postToolUse('Bash', { command: 'npm test' }, { stdout: 'ok' }, c));
    const shipped = await runCliAsync(['collect', '--once', '--server', server.url, '--key', key], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    const shippedAt = Date.now();
    let data: TodayResponse['data'] | undefined;
    while (Date.now() - shippedAt < 60_000) {
      const res = await fetch(`${server.url}/api/v1/analytics/today`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      data = TodayResponse.parse(await res.json()).data;
      if (data.tools.tool_calls === 1 && data.tokens.billable_tokens > 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(Date.now() - shippedAt).toBeLessThan(60_000);
    expect(data).toMatchObject({
      date: new Date().toISOString().slice(0, 10),
      provisional: true,
      tokens: { billable_tokens: 1440, input_tokens: 1000, output_tokens: 200 },
      tools: { tool_calls: 1 },
      activity: { daily_active_users: 1, user_messages: 1, sessions: 1 },
    });
  });

  it("keeps the developer's own line from the collector's cache, shown with its age when the server is down", async () => {
    const statusFile = join(env.AGENTMETER_HOME, 'status.json');
    expect(statSync(statusFile).mode & 0o777).toBe(0o600);
    const laptop = (...args: string[]) => {
      const started = performance.now();
      const run = spawnSync(process.execPath, [LAPTOP_BUNDLE, ...args], { env: { PATH: process.env['PATH']!, ...env }, encoding: 'utf8' });
      return { ...run, ms: performance.now() - started };
    };
    const line = laptop('statusline');
    expect(line.status, line.stderr).toBe(0);
    expect(line.stdout).toBe('agentmeter 1,440 today · 1,440 this month\n');
    process.stderr.write(`statusline from the laptop bundle: ${line.ms.toFixed(0)} ms\n`);
    const me = laptop('me');
    expect(me.stdout).toContain('today (');
    expect(me.stdout).toContain('): 1,440 Standard Credits');
    expect(me.stdout).toContain('limit: none');

    // Claude Code's status line, offered without replacing one the user has.
    expect(laptop('hooks', 'install', '--agent', 'claude', '--statusline').stdout).toContain('status line set to `agentmeter statusline`');
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    expect(settings.statusLine).toEqual({ type: 'command', command: expect.stringMatching(/agentmeter\.mjs' statusline$/), padding: 0 });
    expect(execSync(settings.statusLine.command, { env: { PATH: process.env['PATH']!, HOME: home }, shell: '/bin/sh' }).toString()).toBe(
      line.stdout,
    );
    writeFileSync(
      join(home, '.claude', 'settings.json'),
      JSON.stringify({ ...settings, statusLine: { type: 'command', command: 'my-own-line' } }),
    );
    expect(laptop('hooks', 'install', '--agent', 'claude', '--statusline').stdout).toContain('you have a status line');
    expect(JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).statusLine.command).toBe('my-own-line');

    // The server goes away: the last figures stay, with their age once they are old.
    await server.stop();
    expect(laptop('statusline').stdout).toBe(line.stdout);
    const cached = JSON.parse(readFileSync(statusFile, 'utf8'));
    writeFileSync(statusFile, JSON.stringify({ ...cached, fetched_at: Date.now() - 10 * 60_000 }));
    expect(laptop('statusline').stdout).toBe('agentmeter 1,440 today · 1,440 this month (as of 10 min ago)\n');
    const offline = laptop('me', '--server', server.url, '--key', key);
    expect(offline.status).toBe(0);
    expect(offline.stdout).toContain('(the server did not answer: figures as of 10 min ago)');
  });
});
