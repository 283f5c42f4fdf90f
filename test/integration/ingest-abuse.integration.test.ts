// One key holder cannot exhaust the server's memory or stall another organization's ingest (issue 20,
// item 1): gzip bombs and records naming thousands of files, one at a time and several at once, against
// a real server process, are answered 413/429/503 quickly, the server's memory stays within a bound, and
// another organization's batches sent meanwhile are stored within a second. Then the admission limits
// one by one, on real sockets: per user, whichever of their keys (429), over all users (503), both with
// Retry-After.
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { runBombs } from '../../bench/bombs.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

/** The bound this test holds the server to: peak resident memory over the memory before the bombs. */
const MAX_GROWTH_MB = 320;

describe('ingest bombs against a real server process', () => {
  it('are refused quickly, within a memory bound, while another organization is stored within a second', async () => {
    const db = join(tempDir(), 'bombs.duckdb');
    const first = await seedAccount(db, 'member', 'a0@attacker.example.com');
    const attackerKeys = [first.key];
    for (let i = 1; i < 4; i++) attackerKeys.push((await seedAccount(db, 'member', `a${i}@attacker.example.com`, first.org)).key);
    const victim = await seedAccount(db, 'member', 'dev@victim.example.com');
    const server = await startServerProcess(db, undefined, {}, ['--no-batch']);
    try {
      const figures = await runBombs({
        url: server.url,
        pid: server.child.pid!,
        attackerKeys,
        victimKey: victim.key,
        sizes: { newlineMiB: 64, fileRecords: 1000, concurrent: 4 },
      });
      // Inflating stops at the cap: the 64 MiB of newlines and the 26 MB of records are never decoded.
      expect(figures.newlineBomb).toMatchObject({ status: 413, detail: expect.stringContaining('inflates to more than') });
      expect(figures.filesBomb).toMatchObject({ status: 413 });
      expect(figures.newlineBomb.ms).toBeLessThan(5000);
      expect(figures.filesBomb.ms).toBeLessThan(5000);
      for (const answer of figures.concurrent.answers) {
        expect([413, 429, 503]).toContain(answer.status);
        if (answer.status !== 413) expect(answer.retryAfter).toMatch(/^\d+$/);
      }
      expect(figures.concurrent.slowestMs).toBeLessThan(10_000);
      // Every batch of the other organization was stored, none waited a second.
      expect(figures.otherOrg.batches).toBeGreaterThan(0);
      expect(figures.otherOrg.stored).toBe(figures.otherOrg.batches);
      expect(figures.otherOrg.slowestMs).toBeLessThan(1000);
      if (figures.peakGrowthMB !== undefined) expect(figures.peakGrowthMB).toBeLessThan(MAX_GROWTH_MB);
    } finally {
      await server.stop();
    }
  });
});

const log = createLogger({ name: 'test-ingest-abuse', level: 'silent' });
let running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.close()));
  running = [];
});

/** Starts an ingest request and stops after its headers and a few bytes: it holds its admission. */
function holdRequest(port: number, key: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /api/v1/ingest/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/x-ndjson\r\nContent-Length: 1000\r\n\r\n{`,
      );
      // The server reads the headers and admits the request before it waits for the body.
      setTimeout(() => resolve(socket), 300);
    });
    socket.on('error', () => undefined);
  });
}

describe('ingest admission', () => {
  it('429 past the per-user limit (whichever key), 503 past the limit over all users, both with Retry-After; a request done frees its place', async () => {
    const db = await openDb(join(tempDir(), 'admission.duckdb'));
    const server = await startServer({
      db,
      log,
      host: '127.0.0.1',
      port: 0,
      handleSignals: false,
      batchAt: null,
      decodeWorkers: 0,
      ingestLimits: { maxInFlightPerUser: 1, maxInFlight: 2, retryAfterSeconds: 3 },
    });
    running.push(server);
    const port = Number(new URL(server.url).port);
    const org = await server.services.accounts.createOrg('Admission');
    const keys = await Promise.all(
      ['a', 'b', 'c'].map(
        async (name) =>
          (
            await server.services.accounts.createKey(
              await server.services.accounts.createUser({ orgId: org.id, email: `${name}@admission.example.com`, role: 'member' }),
            )
          ).key,
      ),
    );
    const body = gzipSync(
      `${JSON.stringify({ kind: 'event', id: 'adm-1', agent: 'claude', event: 'Stop', ts: Date.UTC(2026, 2, 1), session_id: 's', client: 'terminal-ui', autonomy: 'manual' })}\n`,
    );
    const post = (key: string) =>
      fetch(`${server.url}/api/v1/ingest/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        body,
      });
    const held = [await holdRequest(port, keys[0]!)];
    const perKey = await post(keys[0]!);
    expect(perKey.status).toBe(429);
    expect(perKey.headers.get('retry-after')).toBe('3');
    expect(((await perKey.json()) as { detail: string }).detail).toContain('already has 1 ingest requests in progress');
    // Another key of the same user counts with the first: minting keys buys no more places.
    const a = await server.services.accounts.findUserByEmail(org.id, 'a@admission.example.com');
    const secondKey = (await server.services.accounts.createKey(a!, 'second', 'operator', { scope: 'collector' })).key;
    const sameUser = await post(secondKey);
    expect(sameUser.status).toBe(429);
    await sameUser.text();
    held.push(await holdRequest(port, keys[1]!));
    const overall = await post(keys[2]!);
    expect(overall.status).toBe(503);
    expect(overall.headers.get('retry-after')).toBe('3');
    await overall.text();
    // A held request that goes away frees its place.
    const gone = new Promise((r) => held[0]!.once('close', r));
    held[0]!.destroy();
    await gone;
    await new Promise((r) => setTimeout(r, 100));
    const admitted = await post(keys[0]!);
    expect(admitted.status).toBe(200);
    await admitted.text();
    held[1]!.destroy();
  });
});
