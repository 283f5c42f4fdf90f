// Timeouts on real sockets: a request whose body never comes is closed (Fastify's requestTimeout, and
// the ingest route's shorter body deadline), a refused credential (401/403) gets no kept-alive connection
// to hold on to, and on SIGTERM the server closes what is still in flight after its grace period instead
// of waiting for the clients; while it drains, answers end their connection.
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-timeouts', level: 'silent' });

let running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.close()));
  running = [];
});

async function serve(options: Partial<Parameters<typeof startServer>[0]> = {}) {
  const db = await openDb(join(tempDir(), 'timeouts.duckdb'));
  const server = await startServer({
    db,
    log,
    host: '127.0.0.1',
    port: 0,
    handleSignals: false,
    batchAt: null,
    decodeWorkers: 0,
    ...options,
  });
  running.push(server);
  const org = await server.services.accounts.createOrg('Timeouts');
  const key = async (role: 'owner' | 'member') =>
    (
      await server.services.accounts.createKey(
        await server.services.accounts.createUser({ orgId: org.id, email: `${role}@t.example.com`, role }),
      )
    ).key;
  return { server, port: Number(new URL(server.url).port), owner: await key('owner'), member: await key('member') };
}

interface Raw {
  socket: Socket;
  received: () => string;
  /** Resolves with the milliseconds from connect to the connection's close. */
  closed: Promise<number>;
}

/** Opens a connection and writes `head` (a request's start line and headers, perhaps part of a body). */
function raw(port: number, head: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - started)));
    socket.once('connect', () => {
      socket.write(head);
      resolve({ socket, received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: still open after ${ms} ms`)), ms))]);

const post = (path: string, key: string, length: number, type = 'application/json') =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;

describe('timeouts', () => {
  it('a request whose body never arrives is answered 408 and closed after the request timeout', async () => {
    const { port, owner } = await serve({ requestTimeoutMs: 1000, connectionsCheckMs: 200 });
    const client = await raw(port, post('/api/v0/admin/users', owner, 200));
    const ms = await within(client.closed, 10_000, 'request timeout');
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it('an ingest request whose body does not arrive within the body deadline is answered 408 and closed', async () => {
    // The request timeout (60 s) is not what closes it: the ingest route's own deadline is.
    const { port, member } = await serve({ ingestLimits: { bodyDeadlineMs: 500 } });
    const client = await raw(port, post('/api/v1/ingest/events', member, 5000, 'application/x-ndjson'));
    client.socket.write('{"kind":');
    const ms = await within(client.closed, 10_000, 'ingest body deadline');
    expect(ms).toBeGreaterThanOrEqual(400);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received()).toContain('body not received within 0.5 s');
  });

  it('401: the connection is closed after the answer, even while the client dribbles its body', async () => {
    const { port } = await serve();
    const client = await raw(port, `${post('/api/v1/ingest/events', 'am_not_a_key', 1000, 'application/x-ndjson')}x`);
    const dribble = setInterval(() => client.socket.writable && client.socket.write('x'), 100);
    try {
      await within(client.closed, 5000, 'after a 401');
    } finally {
      clearInterval(dribble);
    }
    expect(client.received()).toMatch(/^HTTP\/1\.1 401/);
    expect(client.received().toLowerCase()).toContain('connection: close');
  });

  it('403: a kept-alive GET gets its answer and then the connection is closed', async () => {
    const { port, member } = await serve();
    const client = await raw(port, `GET /api/v0/admin/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${member}\r\n\r\n`);
    await within(client.closed, 5000, 'after a 403');
    expect(client.received()).toMatch(/^HTTP\/1\.1 403/);
  });

  it('on SIGTERM, a request still in flight is closed after the grace period and the server exits', async () => {
    const db = join(tempDir(), 'sigterm.duckdb');
    const { key } = await seedAccount(db, 'member');
    const server = await startServerProcess(db, undefined, {}, ['--no-batch', '--shutdown-grace', '1']);
    // Headers and part of a body, then nothing: the ingest body deadline (30 s) is far away.
    const client = await raw(server.port, `${post('/api/v1/ingest/events', key, 5000, 'application/x-ndjson')}{"kind":`);
    await new Promise((r) => setTimeout(r, 300));
    const stopped = Date.now();
    const code = await within(server.stop(), 20_000, 'server exit after SIGTERM');
    expect(code).toBe(0);
    // Grace (1 s), then the database is checkpointed and closed: far less than the 90 s systemd waits.
    expect(Date.now() - stopped).toBeLessThan(15_000);
    await within(client.closed, 2000, 'client connection');
  });

  it('while draining at shutdown an answer carries Connection: close, so a kept-alive client does not hold the exit', async () => {
    const { server, port, member } = await serve();
    running = running.filter((s) => s !== server);
    // A request in progress when the shutdown begins: headers and one byte of its body.
    const client = await raw(port, `${post('/api/v1/ingest/events', member, 4, 'application/x-ndjson')}\n`);
    await new Promise((r) => setTimeout(r, 100));
    const closing = server.close();
    await new Promise((r) => setTimeout(r, 100));
    client.socket.write('\n\n\n');
    // The client keeps its end open: only the server ending the connection lets close() finish within
    // the grace period (10 s) rather than at its end.
    await within(client.closed, 5000, 'kept-alive connection after the answer');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(client.received().toLowerCase()).toContain('connection: close');
    await within(closing, 5000, 'server close');
  });
});
