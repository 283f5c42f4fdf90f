// At-least-once delivery under failure, with real processes: the collector killed with SIGKILL in the
// middle of shipping, and a server that is down while hooks keep spooling.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFailed } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { CLI, cliEnv, freePort, HOOK_SCRIPT, runCli, seedAccount, startServerProcess, waitFor } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

async function countEvents(db: string): Promise<{ total: number; distinct: number }> {
  const conn = await openDb(db, { migrate: false });
  try {
    const [row] = await conn.all<{ total: number; distinct: number }>(
      'SELECT count(*) AS total, count(DISTINCT id) AS "distinct" FROM events',
    );
    return row!;
  } finally {
    await conn.close();
  }
}

const pending = (amHome: string) => readdirSync(join(amHome, 'spool', 'new')).length;

describe('delivery under failure', () => {
  it('kill -9 of the collector mid-ship, then a restart: every event on the server exactly once', async () => {
    const dir = tempDir();
    const db = join(dir, 'a.duckdb');
    const amHome = join(dir, 'am');
    const { key } = await seedAccount(db);
    // Thirty batches, a third of a second of shipping even at the bench's fastest: the poll below (every
    // 50 ms) kills the collector after the first few, with most of the events still in the spool.
    const total = 6_000;
    for (let i = 0; i < total; i++)
      writeSpoolFile(amHome, { hook_event_name: 'PostToolUse', session_id: `s${i % 50}`, tool_name: 'Read', tool_response: {} });
    const server = await startServerProcess(db);
    try {
      const env = cliEnv({ HOME: dir, AGENTMETER_HOME: amHome });
      const collector = spawn(process.execPath, [CLI, 'collect', '--server', server.url, '--key', key, '--batch-size', '200'], {
        env,
        stdio: 'ignore',
      });
      // Kill it while batches are still going out: some shipped, most not.
      await waitFor(() => pending(amHome) < total - 400, 60_000, 'first batches shipped');
      collector.kill('SIGKILL');
      await new Promise((r) => collector.once('exit', r));
      const left = pending(amHome);
      expect(left).toBeGreaterThan(0);
      const restart = runCli(['collect', '--once', '--server', server.url, '--key', key], { HOME: dir, AGENTMETER_HOME: amHome });
      expect(restart.status, restart.stderr).toBe(0);
      expect(pending(amHome)).toBe(0);
    } finally {
      await server.stop();
    }
    expect(await countEvents(db)).toEqual({ total, distinct: total });
  });

  // Eight process start-ups: on a loaded CI machine this takes far longer than alone, so it gets room, and a
  // failure says which step it was in and how long each step before it took.
  it('server down: hooks keep spooling, the collector retries, everything arrives once the server is back', {
    timeout: 180_000,
  }, async () => {
    const steps: string[] = [];
    let stepStarted = Date.now();
    const step = (name: string) => {
      const now = Date.now();
      steps.push(`${name} (previous step ${now - stepStarted} ms)`);
      stepStarted = now;
    };
    onTestFailed(() => console.error(`steps reached:\n  ${steps.join('\n  ')}\ncollector log:\n${log}`));
    let log = '';
    step('seed');
    const dir = tempDir();
    const db = join(dir, 'b.duckdb');
    const amHome = join(dir, 'am');
    const { key } = await seedAccount(db);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const hook = (i: number) =>
      spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
        input: Buffer.from(JSON.stringify({ hook_event_name: 'Stop', session_id: 's', n: i })),
        env: { PATH: process.env['PATH']!, AGENTMETER_HOME: amHome },
      });

    // Up, then down: events spooled while it is down wait for it.
    step('first server');
    const first = await startServerProcess(db, port);
    for (let i = 0; i < 10; i++) hook(i);
    step('collect --once');
    expect(runCli(['collect', '--once', '--server', url, '--key', key], { HOME: dir, AGENTMETER_HOME: amHome }).status).toBe(0);
    step('first server stop');
    await first.stop();

    const env = cliEnv({ HOME: dir, AGENTMETER_HOME: amHome, LOG_LEVEL: 'info' });
    const collector = spawn(
      process.execPath,
      [CLI, 'collect', '--server', url, '--key', key, '--max-age-ms', '200', '--retry-max-ms', '1000'],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    collector.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    try {
      step('hooks while down');
      for (let i = 10; i < 60; i++) expect(hook(i).status).toBe(0);
      step('a failed attempt');
      await waitFor(() => log.includes('ship failed, retrying'), 60_000, 'a failed attempt');
      expect(pending(amHome)).toBe(50);
      step('second server');
      const second = await startServerProcess(db, port);
      try {
        step('drain');
        await waitFor(() => pending(amHome) === 0, 60_000, 'the spool to drain');
      } finally {
        step('collector stop');
        collector.kill('SIGTERM');
        // It exits on SIGTERM: waited for as an event (the test's own timeout bounds it), not raced against 20 s.
        if (collector.exitCode === null && collector.signalCode === null) await new Promise((r) => collector.once('exit', r));
        expect(collector.exitCode, 'the collector exits on SIGTERM, in order').toBe(0);
        step('second server stop');
        await second.stop();
      }
    } finally {
      if (collector.exitCode === null) collector.kill('SIGKILL');
    }
    expect(await countEvents(db)).toEqual({ total: 60, distinct: 60 });
  });

  it('collect --once exits non-zero when the server cannot be reached, and keeps the events', () => {
    const dir = tempDir();
    const amHome = join(dir, 'am');
    writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's' });
    const result = runCli(['collect', '--once', '--server', 'http://127.0.0.1:9', '--key', 'am_x', '--retry-max-ms', '50'], {
      HOME: dir,
      AGENTMETER_HOME: amHome,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('not shipped');
    expect(pending(amHome)).toBe(1);
    expect(runCli(['collect', 'status'], { HOME: dir, AGENTMETER_HOME: amHome }).stdout).toContain('last error: server unreachable');
  });
});
