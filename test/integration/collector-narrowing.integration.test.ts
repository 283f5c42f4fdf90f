// A batch the server refuses as a whole never blocks the records around it: the collector sends it again
// in halves, ships what ships, and quarantines only the record that fails alone, with the server's reason
// (collector/narrow.ts). Against a scripted server that refuses any request holding a poisoned record.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { createLogger } from '../../common/logger.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-collector', level: 'silent' });
const T = Date.UTC(2026, 2, 1, 12);
const POISON = 'PoisonTool';
/** No real waits between tries: the test waits on the drain, not on time. */
const backoff = { baseMs: 1, maxMs: 1 };

interface Scripted {
  url: string;
  /** Record count of every ingest request, in order. */
  requests: number[];
  /** Ids the server stored (answered 200 for). */
  stored: string[];
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

/**
 * Refuses, with `status`, any request that holds a record whose tool_name is POISON (or every request
 * when `all`); stores the others.
 */
async function scriptedServer(status: number, all = false): Promise<Scripted> {
  const scripted = { requests: [] as number[], stored: [] as string[] };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"title":"Not Found","detail":"x","status":404,"requestId":"r"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const records = gunzipSync(Buffer.concat(chunks))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; tool_name?: string });
      scripted.requests.push(records.length);
      if (all || records.some((r) => r.tool_name === POISON)) {
        const detail = 'the store refused this batch, nothing of it was stored: Invalid Input Error: no low surrogate in string';
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ title: 'Refused', detail, status, requestId: 'r' }));
        return;
      }
      scripted.stored.push(...records.map((r) => r.id));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: records.length, stored: records.length, duplicates: 0, rejected: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ...scripted };
}

/** n spool files; those at `poisoned` indexes carry the tool name the server refuses. */
function spool(agentmeterHome: string, n: number, poisoned: number[]): string[] {
  return Array.from({ length: n }, (_, i) =>
    writeSpoolFile(
      agentmeterHome,
      { session_id: 's1', cwd: '/w', hook_event_name: 'PreToolUse', tool_name: poisoned.includes(i) ? POISON : 'Read', tool_input: {} },
      {},
      T + i * 1000,
    ),
  );
}

const listing = (agentmeterHome: string, dir: string) => readdirSync(join(agentmeterHome, 'spool', dir)).sort();

function setup(n: number, poisoned: number[]) {
  const home = tempDir();
  const agentmeterHome = join(home, '.agentmeter');
  const names = spool(agentmeterHome, n, poisoned);
  return { home, agentmeterHome, names };
}

describe('a batch the server refuses is narrowed down to the record at fault', () => {
  it('422: the halves ship, the poisoned record alone goes to spool/bad/ with the server reason, later batches are not held up', async () => {
    const { home, agentmeterHome, names } = setup(40, [13]);
    const server = await scriptedServer(422);
    // Batches of 16: the poisoned record is in the first one, the pipelined batches behind it ship too.
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 16, backoff });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 39, quarantined: 1, leftAlone: 0 });
    expect(listing(agentmeterHome, 'new')).toEqual([]);
    expect(listing(agentmeterHome, 'bad')).toEqual([names[13], `${names[13]}.reason`]);
    const reason = readFileSync(join(agentmeterHome, 'spool', 'bad', `${names[13]}.reason`), 'utf8');
    expect(reason).toMatch(/^server rejected: server answered 422: the store refused this batch.*no low surrogate/);
    expect(reason).toContain('failed on its own');
    // Only the reason: nothing of the spool file's content.
    expect(reason).not.toContain(POISON);
    // Every good record stored exactly once; the poisoned one never.
    const storedNames = server.stored.map((id) => id.slice(id.indexOf('.') + 1));
    expect(storedNames.sort()).toEqual(names.filter((_, i) => i !== 13).sort());
    // 16 records, one bad: the whole, then halves down to it (8, 8, 4, 4, 2, 2, 1, 1): far from one a record.
    expect(server.requests.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(16)) + 2);
    expect(collector.currentState.totalShipped).toBe(39);
  });

  it('5xx: retried first, then narrowed; two poisoned records are both found once the rest of the batch was stored', async () => {
    const { home, agentmeterHome, names } = setup(16, [0, 1]);
    const server = await scriptedServer(500);
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 16, backoff });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 14, quarantined: 2, leftAlone: 0 });
    expect(listing(agentmeterHome, 'new')).toEqual([]);
    expect(listing(agentmeterHome, 'bad')).toEqual([names[0], `${names[0]}.reason`, names[1], `${names[1]}.reason`].sort());
    expect(readFileSync(join(agentmeterHome, 'spool', 'bad', `${names[1]}.reason`), 'utf8')).toMatch(/server answered 500/);
    expect(new Set(server.stored).size).toBe(14);
    // The whole batch was tried three times before it was split.
    expect(server.requests.slice(0, 3)).toEqual([16, 16, 16]);
  });

  it('a server that fails every request costs no record: nothing is quarantined, everything stays, and the requests stay few', async () => {
    const { home, agentmeterHome, names } = setup(64, []);
    const server = await scriptedServer(503, true);
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 64, backoff });
    const result = await collector.drain(6);
    await collector.close();
    expect(result.shipped).toBe(0);
    expect(result.quarantined).toBe(0);
    expect(result.error).toMatch(/503/);
    expect(listing(agentmeterHome, 'new')).toEqual([...names].sort());
    expect(existsSync(join(agentmeterHome, 'spool', 'bad')) ? listing(agentmeterHome, 'bad') : []).toEqual([]);
    // Six tries of the batch and two narrowings that gave up after a few blind requests each, not one
    // request per record.
    expect(server.requests.length).toBeLessThan(60);
  });

  it('a batch of one record answered 422 is quarantined at once', async () => {
    const { home, agentmeterHome, names } = setup(1, [0]);
    const server = await scriptedServer(422);
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, backoff });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 0, quarantined: 1, leftAlone: 0 });
    expect(listing(agentmeterHome, 'bad')).toEqual([names[0], `${names[0]}.reason`]);
    expect(server.requests).toEqual([1]);
  });
});

/**
 * Answers the first `busyFor` ingest requests with `status` (and `retryAfter` seconds when given), then
 * stores; any request of more than `maxRecords` records is answered 413.
 */
async function busyServer(status: number, busyFor: number, retryAfter?: string, maxRecords = Number.POSITIVE_INFINITY) {
  const seen = { requests: [] as number[], at: [] as number[], stored: [] as string[] };
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"title":"Not Found","detail":"x","status":404,"requestId":"r"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ids = gunzipSync(Buffer.concat(chunks))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);
      seen.requests.push(ids.length);
      seen.at.push(Date.now());
      const refuse = seen.requests.length <= busyFor ? status : ids.length > maxRecords ? 413 : 0;
      if (refuse) {
        res
          .writeHead(refuse, { 'content-type': 'application/json', ...(retryAfter && refuse !== 413 ? { 'retry-after': retryAfter } : {}) })
          .end(JSON.stringify({ title: 'Busy', detail: 'busy or too large', status: refuse, requestId: 'r' }));
        return;
      }
      seen.stored.push(...ids);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: ids.length, stored: ids.length, duplicates: 0, rejected: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ...seen };
}

describe('a busy server is waited for as told; a batch too large is sent in halves', () => {
  for (const status of [503, 429]) {
    it(`${status} with Retry-After: the collector waits that long and sends the same batch whole again, splitting and quarantining nothing`, async () => {
      const { home, agentmeterHome, names } = setup(16, []);
      const server = await busyServer(status, 3, '1');
      // Backoff of 1 ms: only the server's Retry-After can make the collector wait a second.
      const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 16, backoff });
      const result = await collector.drain();
      await collector.close();
      expect(result).toEqual({ shipped: 16, quarantined: 0, leftAlone: 0 });
      expect(server.requests).toEqual([16, 16, 16, 16]);
      expect(existsSync(join(agentmeterHome, 'spool', 'bad')) ? listing(agentmeterHome, 'bad') : []).toEqual([]);
      expect(server.stored.map((id) => id.slice(id.indexOf('.') + 1)).sort()).toEqual([...names].sort());
      for (let i = 1; i < server.at.length; i++) expect(server.at[i]! - server.at[i - 1]!).toBeGreaterThanOrEqual(900);
    });
  }

  it('413 (the batch inflates past the server cap): its halves ship, nothing is quarantined', async () => {
    const { home, agentmeterHome } = setup(16, []);
    const server = await busyServer(200, 0, undefined, 8);
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 16, backoff });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 16, quarantined: 0, leftAlone: 0 });
    expect(server.requests).toEqual([16, 8, 8]);
  });
});
