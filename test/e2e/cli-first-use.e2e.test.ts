// What a new user meets first (issue 11, item 7): --version, output into a pipe that closes early, a
// busy port, and the LICENSE. The CLI runs as a subprocess, as a user would run it.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CREDENTIALS_REFUSED } from '../../common/errors.ts';
import { CLI, cliEnv, ROOT, runCli, runCliAsync, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; license: string };

describe('agentmeter for a new user', { timeout: 120_000 }, () => {
  it('--version prints the version of package.json', () => {
    const run = runCli(['--version']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(pkg.version);
  });

  it('the LICENSE matches package.json: MIT, the agentmeter authors, 2026', () => {
    expect(pkg.license).toBe('MIT');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license.split('\n')[0]).toBe('MIT License');
    expect(license).toContain('Copyright (c) 2026 the agentmeter authors');
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it('output into a pipe whose reader has closed ends quietly (hooks install --dry-run | head)', async () => {
    const home = tempDir();
    const child = spawn(process.execPath, [CLI, 'hooks', 'install', '--agent', 'claude', '--dry-run'], {
      env: cliEnv({ HOME: home, AGENTMETER_HOME: join(home, '.agentmeter') }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the command writes its first line: every write meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });
});

describe('collect and a key the server refuses', { timeout: 120_000 }, () => {
  /** A server that refuses every request with `status`; it kills the collector if it ever asks twice. */
  async function refusingServer(status: number) {
    const requests: string[] = [];
    let onSecond: () => void = () => undefined;
    const server = createHttpServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      if (requests.filter((r) => r.includes('/ingest/')).length > 1) onSecond();
      req.resume();
      req.on('end', () => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ title: 'Unauthorized', detail: 'API key missing or invalid', status, requestId: 'r' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      requests,
      close: () => new Promise((r) => server.close(r)),
      retried: (fn: () => void) => (onSecond = fn),
    };
  }

  const spoolOne = () => {
    const dir = tempDir();
    const amHome = join(dir, 'am');
    writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's1' });
    return { env: { HOME: dir, AGENTMETER_HOME: amHome }, pending: () => readdirSync(join(amHome, 'spool', 'new')).length };
  };

  for (const status of [401, 403]) {
    it(`collect --once: a ${status} is not retried; one clear line, exit 78, the event stays spooled`, async () => {
      const server = await refusingServer(status);
      const { env, pending } = spoolOne();
      try {
        const run = await runCliAsync(['collect', '--once', '--server', server.url, '--key', 'am_wrong', '--retry-max-ms', '1'], env);
        expect(run.status).toBe(EXIT_CREDENTIALS_REFUSED);
        expect(server.requests.filter((r) => r.includes('/ingest/'))).toHaveLength(1);
        // The log line (JSON, for a service's journal) and one line for the person; no stack trace.
        const said = run.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('agentmeter: '));
        expect(said, run.stderr).toHaveLength(1);
        expect(said[0]).toContain(`(${status}: API key missing or invalid)`);
        expect(said[0]).toContain(status === 401 ? 'the server refused the API key' : 'use a key of your own user');
        expect(run.stderr).not.toMatch(/\n\s+at /);
        expect(pending()).toBe(1);
      } finally {
        await server.close();
      }
    });
  }

  it('the collector daemon stops at a 401 with a clear message and exit 78 (its service does not restart it), instead of retrying forever', async () => {
    const server = await refusingServer(401);
    const { env, pending } = spoolOne();
    const child = spawn(process.execPath, [CLI, 'collect', '--server', server.url, '--key', 'am_wrong', '--retry-max-ms', '1'], {
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Without the fix the daemon retries: the second request ends it, so the test fails on the count.
    server.retried(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(server.requests.filter((r) => r.includes('/ingest/'))).toHaveLength(1);
      expect(status).toBe(EXIT_CREDENTIALS_REFUSED);
      expect(stderr).toContain('agentmeter: collector stopped: the server refused the API key (401');
      expect(stderr).toContain('AGENTMETER_API_KEY');
      expect(pending()).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe('serve and demo on a busy port', { timeout: 120_000 }, () => {
  it('one line on stderr, exit 1, and nothing created: no database file, no data folder, no sample data', async () => {
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    const dir = tempDir();
    try {
      const db = join(dir, 'new.duckdb');
      const demoDb = join(dir, 'data', 'demo.duckdb');
      const [serve, demo] = await Promise.all([
        runCliAsync(['serve', '--db', db, '--port', String(port)]),
        runCliAsync(['demo', '--db', demoDb, '--port', String(port)], { HOME: dir, AGENTMETER_HOME: join(dir, 'am') }),
      ]);
      for (const [name, run] of [
        ['serve', serve],
        ['demo', demo],
      ] as const) {
        expect(run.status, name).toBe(1);
        expect(run.stderr, name).toBe(
          `agentmeter: port ${port} on 127.0.0.1 is in use (another agentmeter server, or another program): stop it or choose another --port\n`,
        );
        expect(run.stdout, name).toBe('');
      }
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});

describe('users list and users remove from the CLI', { timeout: 300_000 }, () => {
  it('with --db and through the running server: list, remove (owners only, never the last owner), --erase', async () => {
    const db = join(tempDir(), 'users.duckdb');
    const { org, key: ownerKey } = await seedAccount(db, 'owner', 'ana@example.com');
    await seedAccount(db, 'member', 'bo@example.com', org);
    await seedAccount(db, 'member', 'cy@example.com', org);

    const listed = runCli(['users', 'list', '--db', db, '--org', org, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const users = JSON.parse(listed.stdout) as { id: string; email: string; role: string; activeKeys: number }[];
    expect(users.map((u) => [u.email, u.role, u.activeKeys])).toEqual([
      ['ana@example.com', 'owner', 1],
      ['bo@example.com', 'member', 1],
      ['cy@example.com', 'member', 1],
    ]);
    const lastOwner = runCli(['users', 'remove', 'ana@example.com', '--db', db, '--org', org]);
    expect(lastOwner.status).toBe(1);
    expect(lastOwner.stderr).toContain('last owner');
    const removed = runCli(['users', 'remove', 'bo@example.com', '--erase', '--db', db, '--org', org]);
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`removed ${users[1]!.id}: 1 API key and 0 computers revoked`);
    expect(removed.stdout).toContain('erased 0 hook events');

    const server = await startServerProcess(db);
    try {
      const env = { AGENTMETER_SERVER: server.url, AGENTMETER_API_KEY: ownerKey };
      const remote = await runCliAsync(['users', 'list'], env);
      expect(remote.status, remote.stderr).toBe(0);
      expect(remote.stdout).toContain('ana@example.com\towner\t1 active key');
      expect(remote.stdout).not.toContain('bo@example.com');
      const gone = await runCliAsync(['users', 'remove', users[2]!.id], env);
      expect(gone.status, gone.stderr).toBe(0);
      expect(gone.stdout).toBe(`removed ${users[2]!.id}: 1 API key and 0 computers revoked\n`);
      const again = await runCliAsync(['users', 'remove', users[2]!.id], env);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('server answered 404');
    } finally {
      await server.stop();
    }
  });
});
