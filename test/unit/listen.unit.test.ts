// The port `serve` and `demo` hold while their database opens, and what a failed start says (cli/listen.ts).
import { chmodSync, mkdirSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reservePort, serveOnFreePort, startProblem } from '../../cli/listen.ts';
import { UserError } from '../../common/errors.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('reservePort', () => {
  it('a client connecting meanwhile is turned away at once, and letting go of the port does not wait for it', async () => {
    const held = await reservePort('127.0.0.1', 0);
    const client = connect(held.port, '127.0.0.1');
    client.on('error', () => undefined); // a reset is what a turned-away client sees
    await new Promise((resolve) => client.once('close', resolve));
    await held.release();
    // The port is free again for the real server.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(held.port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  it('a port in use is a UserError in words a person can act on', async () => {
    const held = await reservePort('127.0.0.1', 0);
    try {
      const error = await reservePort('127.0.0.1', held.port).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toBe(
        `port ${held.port} on 127.0.0.1 is in use (another agentmeter server, or another program): stop it or choose another --port`,
      );
    } finally {
      await held.release();
    }
  });
});

describe('a start that cannot write a file', () => {
  it('names the path, not the privileged ports of a listen (issue 28, item 15)', async () => {
    // What mkdir says in a read-only database folder (the ingest store's temporary folder beside the database).
    const path = join(tempDir(), 'db', 'agentmeter.duckdb.ingest');
    const denied = Object.assign(new Error(`EACCES: permission denied, mkdir '${path}'`), {
      code: 'EACCES',
      errno: -13,
      syscall: 'mkdir',
      path,
    });
    const error = await serveOnFreePort({ dbPath: join(tempDir(), 'db', 'agentmeter.duckdb'), host: '127.0.0.1', port: 0 }, () =>
      Promise.reject(denied),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toBe(
      `cannot write ${path}: permission denied (the database's folder must be writable by the user running the server)`,
    );
  });

  it('a listen refused for privileges still says so', () => {
    const refused = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES', syscall: 'listen' });
    expect(startProblem(refused, '0.0.0.0', 80)).toMatch(/^not allowed to listen on 0\.0\.0\.0:80 \(ports below 1024/);
  });

  it.skipIf(process.getuid?.() === 0)('a real read-only folder names the database path', async () => {
    const folder = join(tempDir(), 'ro');
    mkdirSync(folder);
    chmodSync(folder, 0o555);
    try {
      const error = await serveOnFreePort({ dbPath: join(folder, 'agentmeter.duckdb'), host: '127.0.0.1', port: 0 }, () =>
        Promise.reject(new Error('not reached')),
      ).catch((e: unknown) => e);
      expect((error as Error).message).toContain(join(folder, 'agentmeter.duckdb'));
      expect((error as Error).message).not.toMatch(/ports below 1024/);
    } finally {
      chmodSync(folder, 0o755);
    }
  });
});
