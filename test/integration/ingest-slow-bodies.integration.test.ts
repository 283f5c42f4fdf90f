// Slow bodies cannot hold every organization's ingest (issue 28, item 1): on real sockets against a real
// server, senders that dribble their bodies a few bytes at a time are answered 408 and closed once a
// window passes without the minimum, which frees their places; and one organization's senders never
// take every place, so another organization's batch is stored meanwhile.
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestLimits } from '../../api/ingest/limits.ts';
import { type RunningServer, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { call } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-slow-bodies', level: 'silent' });
let running: RunningServer[] = [];
const dribbles: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const d of dribbles.splice(0)) clearInterval(d);
  await Promise.all(running.map((s) => s.close()));
  running = [];
});

async function serve(ingestLimits: Partial<IngestLimits>) {
  const db = await openDb(join(tempDir(), 'slow.duckdb'));
  const server = await startServer({
    db,
    log,
    host: '127.0.0.1',
    port: 0,
    handleSignals: false,
    batchAt: null,
    decodeWorkers: 0,
    ingestLimits,
  });
  running.push(server);
  const accounts = server.services.accounts;
  const keyIn = async (orgId: Parameters<typeof accounts.createUser>[0]['orgId'], email: string) =>
    (await accounts.createKey(await accounts.createUser({ orgId, email, role: 'member' }))).key;
  const slow = await accounts.createOrg('Slow');
  const other = await accounts.createOrg('Other');
  return {
    port: Number(new URL(server.url).port),
    url: server.url,
    slowKeys: [await keyIn(slow.id, 'a@slow.example.com'), await keyIn(slow.id, 'b@slow.example.com')],
    otherKey: await keyIn(other.id, 'dev@other.example.com'),
  };
}

interface Dribbler {
  received: () => string;
  closed: Promise<void>;
}

/** Sends an ingest request's headers, then its declared body one byte every 100 ms. */
function dribble(port: number, key: string): Promise<Dribbler> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.once('connect', () => {
      socket.write(
        `POST /api/v1/ingest/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n`,
      );
      const timer = setInterval(() => socket.writable && socket.write('\n'), 100);
      dribbles.push(timer);
      void closed.then(() => clearInterval(timer));
      resolve({ received: () => data, closed });
    });
    socket.once('error', reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms))]);

const batch = (n: number, prefix: string) =>
  gzipSync(`${Array.from({ length: n }, (_, i) => JSON.stringify({ ...call('Read', '2026-03-02'), id: `${prefix}.${i}` })).join('\n')}\n`);

const ingest = (url: string, key: string, body: Buffer) =>
  fetch(`${url}/api/v1/ingest/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    body,
  });

describe('slow bodies', { timeout: 60_000 }, () => {
  it('eight dribbling senders of one organization: another organization ingests meanwhile, and the senders get 408', async () => {
    // The body must bring 1 KiB every 500 ms; the senders bring 5 bytes.
    const { port, url, slowKeys, otherKey } = await serve({ bodyRateWindowMs: 500, minBodyBytesPerWindow: 1024 });
    const senders: Dribbler[] = [];
    for (const key of slowKeys)
      for (let i = 0; i < 4; i++) {
        senders.push(await dribble(port, key));
        await new Promise((r) => setTimeout(r, 30));
      }
    // Every place the organization may have is held (6 of 8): another organization's batch is stored.
    const other = await ingest(url, otherKey, batch(5, 'other'));
    expect(other.status, await other.clone().text()).toBe(200);
    expect(((await other.json()) as { stored: number }).stored).toBe(5);

    await within(Promise.all(senders.map((s) => s.closed)), 20_000, 'every dribbling sender closed');
    const statuses = senders.map((s) => /^HTTP\/1\.1 (\d{3})/.exec(s.received())?.[1]).sort();
    // Six were admitted and answered 408 once a window passed without the minimum; two were refused at
    // once by the organization's cap (429), never by the server's.
    expect(statuses).toEqual(['408', '408', '408', '408', '408', '408', '429', '429']);
    const slow = senders.find((s) => s.received().startsWith('HTTP/1.1 408'))!.received();
    expect(slow.toLowerCase()).toContain('connection: close');
    expect(slow).toContain('body arriving too slowly');
    expect(senders.find((s) => s.received().startsWith('HTTP/1.1 429'))!.received()).toContain(
      'this organization already has 6 ingest requests in progress',
    );

    // Their places are free again: the slow organization's own batch is stored.
    const after = await ingest(url, slowKeys[0]!, batch(3, 'slow'));
    expect(after.status).toBe(200);
  });

  it('a body that arrives at the minimum rate or faster is stored', async () => {
    const { url, otherKey } = await serve({ bodyRateWindowMs: 500, minBodyBytesPerWindow: 1024 });
    const res = await ingest(url, otherKey, batch(2000, 'big'));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { stored: number }).stored).toBe(2000);
  });
});
