// The collector's pipelined drain against a scripted HTTP server: one batch in flight while the next is
// prepared, files removed only after their own batch is acknowledged, the prepared batch dropped when
// the one in flight fails, and the removal worker. In-process, so the server can fail on cue.

import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { MACHINE_HEADER } from '../../collector/shipper.ts';
import { ensureSpool, SpoolQueue, spoolCounts, spoolDirs, sweepTmp, TMP_MAX_AGE_MS } from '../../collector/spool.ts';
import { machineId } from '../../collector/state.ts';
import { Unlinker } from '../../collector/unlinker.ts';
import { createLogger } from '../../common/logger.ts';
import { runCliAsync } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-collector', level: 'silent' });
const T = Date.UTC(2026, 2, 1, 12);

interface Scripted {
  url: string;
  /** Record ids per request, in the order requests arrived (failed ones included). */
  requests: string[][];
  /** The machine header of each request. */
  machines: (string | undefined)[];
  /** Answer 503 to these request numbers (0-based). */
  failing: Set<number>;
  /** Answer 401 (the key refused) to these request numbers. */
  refusing: Set<number>;
  close: () => Promise<void>;
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

/** The developer's figures, answered at GET /api/v0/me/status (the status line's) when given. */
async function scriptedServer(onRequest?: (n: number) => void, statusAnswer?: object): Promise<Scripted> {
  const scripted = {
    requests: [] as string[][],
    machines: [] as (string | undefined)[],
    failing: new Set<number>(),
    refusing: new Set<number>(),
  };
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/api/v0/me/status' && statusAnswer) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(statusAnswer));
      return;
    }
    // The collector also asks for its credit-limit status; this server knows nothing of it.
    if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ title: 'Not Found', detail: 'not scripted', status: 404, requestId: 'r' }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = scripted.requests.length;
      const ids = gunzipSync(Buffer.concat(chunks))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);
      scripted.requests.push(ids);
      scripted.machines.push(req.headers[MACHINE_HEADER] as string | undefined);
      onRequest?.(n);
      if (scripted.refusing.has(n)) {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ title: 'Unauthorized', detail: 'scripted refusal', status: 401, requestId: 'r' }));
        return;
      }
      if (scripted.failing.has(n)) {
        res
          .writeHead(503, { 'content-type': 'application/json' })
          .end(JSON.stringify({ title: 'Unavailable', detail: 'scripted failure', status: 503, requestId: 'r' }));
        return;
      }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: ids.length, stored: ids.length, duplicates: 0, rejected: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, ...scripted, close: () => new Promise((r) => server.close(() => r())) };
}

function spool(agentmeterHome: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    writeSpoolFile(
      agentmeterHome,
      {
        session_id: `s${i % 3}`,
        cwd: '/w',
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_input: { file_path: `/w/f${i}.ts` },
        tool_response: {},
      },
      {},
      T + i * 1000,
    ),
  );
}

const pending = (agentmeterHome: string) => readdirSync(join(agentmeterHome, 'spool', 'new')).length;

describe('pipelined drain', () => {
  it('ships every file exactly once across many batches, and removes each file only after its batch was acknowledged', async () => {
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    const names = spool(agentmeterHome, 47);
    const seenAtRequest: number[] = [];
    const server = await scriptedServer(() => seenAtRequest.push(pending(agentmeterHome)));
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 10, maxAttempts: 1 });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 47, quarantined: 0, leftAlone: 0 });
    expect(server.requests.map((r) => r.length)).toEqual([10, 10, 10, 10, 7]);
    const ids = server.requests.flat();
    expect(new Set(ids).size).toBe(47);
    expect(ids).toHaveLength(47);
    // When batch k arrives, at most the files of batches before k-1 can be gone (k-1 may still be
    // unlinking): never one of batch k or later.
    for (const [k, left] of seenAtRequest.entries()) expect(left).toBeGreaterThanOrEqual(47 - 10 * k);
    expect(pending(agentmeterHome)).toBe(0);
    expect(collector.currentState.totalShipped).toBe(47);
    expect(names).toHaveLength(47);
    // Every batch names the machine, so the server's machines list can tell laptops apart.
    expect(server.machines).toEqual(Array(5).fill(machineId(agentmeterHome)));
  });

  it('a batch that fails for good drops the batch prepared behind it: acknowledged files are gone, the rest stay and ship next time', async () => {
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    spool(agentmeterHome, 30);
    const server = await scriptedServer();
    server.failing.add(1);
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 10, maxAttempts: 1 });
    const first = await collector.drain();
    expect(first.shipped).toBe(10);
    expect(first.error).toMatch(/503/);
    expect(server.requests).toHaveLength(2);
    expect(pending(agentmeterHome)).toBe(20);
    expect(collector.currentState.totalShipped).toBe(10);
    expect(collector.currentState.lastError).toMatch(/503/);

    const second = await collector.drain();
    await collector.close();
    expect(second).toEqual({ shipped: 20, quarantined: 0, leftAlone: 0 });
    expect(pending(agentmeterHome)).toBe(0);
    const delivered = [...server.requests[0]!, ...server.requests.slice(2).flat()];
    expect(new Set(delivered).size).toBe(30);
    expect(delivered).toHaveLength(30);
    expect(collector.currentState).toMatchObject({ totalShipped: 30, lastError: null });
  });
});

describe('a drain that cannot go on', () => {
  it('resolves with the error instead of rejecting when a quarantine cannot be written; nothing is lost and the next drain ships', async () => {
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    spool(agentmeterHome, 12);
    const malformed = writeSpoolFile(agentmeterHome, '{not json');
    const server = await scriptedServer();
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 5, maxAttempts: 1 });
    // A folder where the malformed event's .reason file goes: quarantining it fails. (A bad/ that is not
    // a folder is refused before the drain reads anything, see spool-safety.)
    const bad = join(agentmeterHome, 'spool', 'bad');
    const inTheWay = join(bad, `${malformed}.reason`);
    mkdirSync(join(inTheWay, 'x'), { recursive: true });
    const first = await collector.drain();
    expect(first.error).toMatch(/collector could not go on/);
    const shippedFirst = server.requests.flat().length;
    expect(pending(agentmeterHome)).toBe(13 - first.shipped);

    rmSync(inTheWay, { recursive: true });
    const second = await collector.drain();
    await collector.close();
    expect(second.error).toBeUndefined();
    expect(second.quarantined).toBe(1);
    expect(pending(agentmeterHome)).toBe(0);
    expect(readdirSync(bad).sort()).toHaveLength(2); // the event and its .reason
    // Every good event reached the server; those of a batch that was in flight may have come twice.
    expect(new Set(server.requests.flat()).size).toBe(12);
    expect(first.shipped + second.shipped).toBe(12);
    expect(shippedFirst).toBeGreaterThanOrEqual(first.shipped);
  });

  /**
   * Six spooled events, read in batches of five: the last file in the listing's order, the second batch, is
   * malformed and must be quarantined, and a folder in the way of its .reason file makes that fail while the
   * first batch is in flight.
   */
  async function secondBatchUnreadable() {
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    spool(agentmeterHome, 6);
    const newDir = join(agentmeterHome, 'spool', 'new');
    const last = readdirSync(newDir).sort().at(-1)!;
    writeFileSync(join(newDir, last), 'agentmeter-spool=1\nagent=claude\n\n{not json');
    const server = await scriptedServer();
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 5, maxAttempts: 1 });
    const inTheWay = join(agentmeterHome, 'spool', 'bad', `${last}.reason`);
    mkdirSync(join(inTheWay, 'x'), { recursive: true });
    return { server, collector, newDir, last, inTheWay };
  }

  it('acknowledges the batch in flight when reading the next one fails: its files go, its state is kept', async () => {
    const { server, collector, newDir, last, inTheWay } = await secondBatchUnreadable();
    const first = await collector.drain();
    expect(first.error).toMatch(/collector could not go on/);
    // The server stored the first batch: the drain waited for its answer and acknowledged it.
    expect(server.requests.map((r) => r.length)).toEqual([5]);
    expect(first.shipped).toBe(5);
    expect(collector.currentState.totalShipped).toBe(5);
    expect(readdirSync(newDir)).toEqual([last]);

    rmSync(inTheWay, { recursive: true });
    const second = await collector.drain();
    await collector.close();
    expect(second).toEqual({ shipped: 0, quarantined: 1, leftAlone: 0 });
    // Each good event reached the server once.
    expect(server.requests.flat()).toHaveLength(5);
  });

  it('says the key was refused when the batch in flight was refused while reading the next one failed', async () => {
    const { server, collector, newDir } = await secondBatchUnreadable();
    server.refusing.add(0);
    const first = await collector.drain();
    await collector.close();
    // run() ends on a refused key, with the refusal as its reason.
    expect(first.refused).toBe(true);
    expect(first.error).toMatch(/401/);
    expect(first.shipped).toBe(0);
    expect(readdirSync(newDir)).toHaveLength(6);
  });
});

describe('a drain whose status files cannot be written', () => {
  it('resolves, having shipped, when the status line figures or the limit files cannot be written', async () => {
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    spool(agentmeterHome, 3);
    const server = await scriptedServer(undefined, {
      date: '2026-03-01',
      month: '2026-03',
      today_credits: 1,
      month_credits: 2,
      limit: null,
      share: null,
      enforced: false,
    });
    const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, batchSize: 10, maxAttempts: 1 });
    // A folder where status.json's temporary file goes: writing it fails, as on a full disk.
    mkdirSync(join(agentmeterHome, `status.json.tmp-${process.pid}`, 'x'), { recursive: true });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 3, quarantined: 0, leftAlone: 0 });
    expect(pending(agentmeterHome)).toBe(0);
    // run() refreshes them every minute without waiting: that must not reject either.
    await expect(collector.refreshLimits()).resolves.toBeUndefined();
  });
});

describe('spool queue', () => {
  it('a refill leaves out files handed out and not finished', () => {
    const agentmeterHome = join(tempDir(), '.agentmeter');
    const dirs = spoolDirs(agentmeterHome);
    ensureSpool(dirs);
    const names = spool(agentmeterHome, 5).sort();
    const queue = new SpoolQueue(dirs);
    expect(queue.take(3)).toEqual(names.slice(0, 3));
    expect(queue.take(3)).toEqual(names.slice(3));
    // Listing used up: a refill must not hand out the five again while they are out.
    expect(queue.take(3)).toEqual([]);
    queue.finish(names.slice(0, 2));
    expect(queue.take(10)).toEqual(names.slice(0, 2));
    queue.reset();
    expect(queue.take(10)).toEqual(names);
  });
});

describe('unlink worker', () => {
  it('removes files, takes a missing one in stride, reports one it cannot remove, and lets the process exit when idle', async () => {
    const dir = tempDir();
    const files = Array.from({ length: 20 }, (_, i) => join(dir, `f${i}`));
    for (const f of files) writeFileSync(f, 'x');
    const unlinker = new Unlinker();
    await unlinker.remove([...files, join(dir, 'never-there')]);
    expect(files.some((f) => existsSync(f))).toBe(false);
    mkdirSync(join(dir, 'a-directory'));
    await expect(unlinker.remove([join(dir, 'a-directory')])).rejects.toThrow(/a-directory/);
    expect(existsSync(join(dir, 'a-directory'))).toBe(true);
    await unlinker.close();
  });
});

describe('tmp/ sweep', () => {
  it('removes only what a hook abandoned: an old file with one link, never a delivered twin or a fresh file', () => {
    const amHome = tempDir();
    const dirs = spoolDirs(amHome);
    ensureSpool(dirs);
    const delivered = writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's1' });
    writeFileSync(join(dirs.tmp, 'abandoned'), 'agentmeter-spool=1\n');
    writeFileSync(join(dirs.tmp, 'being-written'), 'agentmeter-spool=1\n');
    const old = Date.now() / 1000 - TMP_MAX_AGE_MS / 1000 - 60;
    for (const name of [delivered, 'abandoned']) utimesSync(join(dirs.tmp, name), old, old);
    expect(sweepTmp(dirs)).toBe(1);
    expect(readdirSync(dirs.tmp).sort()).toEqual(['being-written', delivered].sort());
    expect(readdirSync(dirs.new)).toEqual([delivered]);
    expect(spoolCounts(dirs)).toEqual({ pending: 1, leftAlone: 0, quarantined: 0, inProgress: 1, abandoned: 0 });
  });
});

describe('abandoned tmp/ files', () => {
  it('`collect status` and `doctor` name them as abandoned, with their age and when the sweep removes them', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const dirs = spoolDirs(amHome);
    ensureSpool(dirs);
    writeFileSync(join(dirs.tmp, 'cut-short'), 'agentmeter-spool=1\nagent=claude\n\n{"hook_event');
    writeFileSync(join(dirs.tmp, 'being-written'), 'agentmeter-spool=1\n');
    const lastWrite = Math.floor(Date.now() / 1000) - 5 * 3600;
    utimesSync(join(dirs.tmp, 'cut-short'), lastWrite, lastWrite);
    const removal = new Date((lastWrite + 36 * 3600) * 1000).toISOString();
    const env = { HOME: home, AGENTMETER_HOME: amHome };
    const status = await runCliAsync(['collect', 'status'], env);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain('being written: 1\n');
    expect(status.stdout).toContain(`abandoned: 1 abandoned file in ${dirs.tmp}`);
    expect(status.stdout).toMatch(/\(5\.0 h ago\)/);
    expect(status.stdout).toContain(`the oldest at ${removal} (in 31.0 h)`);
    const doctor = await runCliAsync(['doctor', '--json'], env);
    const report = JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    const check = report.checks.find((c) => c.name === 'spool tmp');
    expect(check?.ok).toBe(true);
    expect(check?.detail).toContain(`1 abandoned file in ${dirs.tmp}`);
    expect(check?.detail).toContain(`the oldest at ${removal}`);
  });
});
