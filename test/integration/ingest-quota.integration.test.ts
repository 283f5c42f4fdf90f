// The per-user ingest quota (issue 28, item 10): records and bytes of records a user may send per window,
// over all their keys, answered 429 with Retry-After once passed; another user is not held by it; and the
// collector waits as long as Retry-After says, then ships everything. A real server on a real socket, with
// a small quota over a short window so that a test can pass it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import type { IngestLimits } from '../../api/ingest/limits.ts';
import { type RunningServer, startServer } from '../../api/server.ts';
import { Collector } from '../../collector/daemon.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { call, usage } from '../helpers/records.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-quota', level: 'silent' });
let running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.close()));
  running = [];
});

async function serve(ingestLimits: Partial<IngestLimits>) {
  const db = await openDb(join(tempDir(), 'quota.duckdb'));
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
  const org = await server.services.accounts.createOrg('Quota');
  const anaUser = await server.services.accounts.createUser({ orgId: org.id, email: 'ana@q.example.com', role: 'member' });
  const boUser = await server.services.accounts.createUser({ orgId: org.id, email: 'bo@q.example.com', role: 'member' });
  const key = async (user: typeof anaUser) => (await server.services.accounts.createKey(user)).key;
  return { server, ana: await key(anaUser), bo: await key(boUser), anaSecondKey: () => key(anaUser) };
}

let sequence = 0;
const batch = (n: number) =>
  gzipSync(`${Array.from({ length: n }, () => JSON.stringify({ ...call('Read', '2026-03-02'), id: `q.${++sequence}` })).join('\n')}\n`);
const post = (url: string, key: string, body: Buffer) =>
  fetch(`${url}/api/v1/ingest/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    body,
  });

describe('the per-user ingest quota', () => {
  it('records past the quota are a 429 with Retry-After for that user alone, over all their keys', async () => {
    // 10 records per 2 s: 5 a second drain from a user's count.
    const { server, ana, bo, anaSecondKey } = await serve({ maxRecordsPerWindow: 10, quotaWindowMs: 2000 });
    // Admitted while under the quota, even past it: the batch is counted once decoded.
    expect((await post(server.url, ana, batch(20))).status).toBe(200);
    const refused = await post(server.url, ana, batch(1));
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    // Until the count (20, drained at 5 a second) is under 10 again: about 2 s.
    expect(retryAfter).toBeLessThanOrEqual(3);
    const body = ErrorBodySchema.parse(await refused.json());
    expect(body.detail).toMatch(/more than their ingest quota \(10 records and \d+ bytes of records per 2 s, over all their keys\)/);
    // A second key of the same user counts against the same quota.
    expect((await post(server.url, await anaSecondKey(), batch(1))).status).toBe(429);
    // Another user of the organization is not held by it.
    expect((await post(server.url, bo, batch(10))).status).toBe(200);
  });

  it('bytes past the quota are a 429 too', async () => {
    const { server, ana } = await serve({ maxRecordsPerWindow: 0, maxBytesPerWindow: 2000, quotaWindowMs: 2000 });
    expect((await post(server.url, ana, batch(20))).status).toBe(200);
    const refused = await post(server.url, ana, batch(1));
    expect(refused.status).toBe(429);
    expect(ErrorBodySchema.parse(await refused.json()).detail).toContain('2000 bytes of records per 2 s');
  });

  it('usage and edit-decision records count in the bytes too', async () => {
    const records = (kind: 'usage' | 'decision') =>
      gzipSync(
        `${Array.from({ length: 20 }, () =>
          JSON.stringify(
            kind === 'usage'
              ? { ...usage('claude-sonnet-4-5', '2026-03-02', { input_tokens: 10 }), id: `q.${++sequence}` }
              : {
                  kind: 'decision',
                  id: `q.${++sequence}`,
                  agent: 'claude',
                  session_id: 's1',
                  ts: Date.parse('2026-03-02T10:00:00Z'),
                  decision: 'accept',
                  count: 1,
                  tool_name: 'Edit',
                  language: 'TypeScript',
                },
          ),
        ).join('\n')}\n`,
      );
    for (const kind of ['usage', 'decision'] as const) {
      const { server, ana } = await serve({ maxRecordsPerWindow: 0, maxBytesPerWindow: 2000, quotaWindowMs: 2000 });
      expect((await post(server.url, ana, records(kind))).status, kind).toBe(200);
      expect((await post(server.url, ana, records(kind))).status, kind).toBe(429);
    }
  });

  it('OpenTelemetry records count against the same quota, and ingested records against theirs', async () => {
    /** Codex's approvals of `n` edits as one OTLP/JSON logs request. */
    const approvals = (n: number) =>
      JSON.stringify({
        resourceLogs: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex_cli_rs' } }] },
            scopeLogs: [
              {
                logRecords: Array.from({ length: n }, () => ({
                  eventName: 'codex.tool_decision',
                  timeUnixNano: String(BigInt(Date.parse('2026-03-02T10:00:00Z')) * 1_000_000n + BigInt(++sequence)),
                  attributes: [
                    { key: 'conversation.id', value: { stringValue: 'c-1' } },
                    { key: 'decision', value: { stringValue: 'approved' } },
                    { key: 'tool_name', value: { stringValue: 'apply_patch' } },
                  ],
                })),
              },
            ],
          },
        ],
      });
    const otlp = (url: string, key: string, n: number) =>
      fetch(`${url}/v1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: approvals(n),
      });

    const first = await serve({ maxRecordsPerWindow: 10, quotaWindowMs: 60_000 });
    expect((await otlp(first.server.url, first.ana, 20)).status).toBe(200);
    const refused = await otlp(first.server.url, first.ana, 1);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await post(first.server.url, first.ana, batch(1))).status).toBe(429);
    expect((await otlp(first.server.url, first.bo, 1)).status).toBe(200);

    const second = await serve({ maxRecordsPerWindow: 10, quotaWindowMs: 60_000 });
    expect((await post(second.server.url, second.ana, batch(20))).status).toBe(200);
    expect((await otlp(second.server.url, second.ana, 1)).status).toBe(429);
  });

  it('the collector waits as long as Retry-After says, then ships every event', async () => {
    const { server, ana } = await serve({ maxRecordsPerWindow: 10, quotaWindowMs: 2000 });
    const home = tempDir();
    const agentmeterHome = join(home, '.agentmeter');
    for (let i = 0; i < 30; i++)
      writeSpoolFile(agentmeterHome, {
        hook_event_name: 'PostToolUse',
        session_id: 's1',
        tool_name: 'Read',
        tool_input: {},
        tool_response: {},
      });
    const logFile = join(tempDir(), 'collector.log');
    const collectorLog = createLogger({ name: 'test-collector', level: 'warn', destination: logFile });
    // Its own backoff is 1 ms: any wait of a second is the server's Retry-After.
    const collector = new Collector({
      server: server.url,
      apiKey: ana,
      agentmeterHome,
      home,
      log: collectorLog,
      batchSize: 10,
      maxAttempts: 20,
      backoff: { baseMs: 1, maxMs: 1 },
    });
    const result = await collector.drain();
    await collector.close();
    expect(result).toEqual({ shipped: 30, quarantined: 0, leftAlone: 0 });
    const retries = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; busy?: boolean; retryInMs?: number; error?: string })
      .filter((line) => line.msg === 'ship failed, retrying');
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      expect(retry.busy).toBe(true);
      expect(retry.error).toMatch(/429/);
      // Whole seconds, as Retry-After gives them: the collector's own backoff is 1 ms.
      expect(retry.retryInMs! % 1000).toBe(0);
      expect(retry.retryInMs).toBeGreaterThanOrEqual(1000);
    }
  });
});
