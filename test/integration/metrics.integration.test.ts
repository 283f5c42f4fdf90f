// GET /metrics: off (404) without a token, its own bearer token when on (API keys never grant it), and
// figures that match what the test did: ingest counts by outcome and reason class, latency by route
// pattern, batch runs, analytics cache lookups, database size. Two servers in one process keep their own.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { reasonClass } from '../../api/metrics/metrics.ts';
import { createLogger } from '../../common/logger.ts';
import { ev } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const TOKEN = 'a-metrics-token-that-is-long-enough-0123';
const NOW = new Date('2026-03-20T09:00:00Z');
let on: TestServer;
let off: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  [on, off] = await Promise.all([testServer({ metricsToken: TOKEN, now: () => NOW }), testServer({ now: () => NOW })]);
  org = await on.seedOrg('Metrics');
});
afterAll(async () => {
  await on.close();
  await off.close();
});

const scrape = async (server: TestServer = on) => {
  const res = await server.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return res.body;
};

/** The value of one sample, e.g. value(text, 'agentmeter_ingest_records_total', {outcome: 'stored'}). */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('answers 404 with the error body when no token was given to the server', async () => {
    const res = await off.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(404);
    expect(ErrorBodySchema.parse(res.json()).status).toBe(404);
  });

  it('answers 401 without its token, with a wrong one, and with an API key, even an owner’s', async () => {
    for (const headers of [
      {},
      { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { authorization: `Bearer ${TOKEN}x` },
      bearer(org.users.owner.key),
    ]) {
      const res = await on.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(ErrorBodySchema.parse(res.json()).detail).toContain('metrics token');
      expect(res.body).not.toContain('agentmeter_');
    }
  });

  it('counts ingested records and batches by outcome, and rejected records by reason class', async () => {
    const good = Array.from({ length: 5 }, (_, i) => ev('Stop', '2026-03-02', { id: `m-${i}` }));
    const lines = `${good.map((r) => JSON.stringify(r)).join('\n')}\n{not json\n${JSON.stringify({ ...good[0], id: 'm-bad', ts: 'yesterday' })}\n`;
    const post = (payload: string, key?: string) =>
      on.app.inject({
        method: 'POST',
        url: '/api/v1/ingest/events',
        headers: { ...(key ? bearer(key) : {}), 'content-type': 'application/x-ndjson' },
        payload,
      });
    expect((await post(lines, org.users.member.key)).json()).toMatchObject({ received: 7, stored: 5 });
    // An encoding the server does not take: the whole batch refused.
    const brotli = await on.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/x-ndjson', 'content-encoding': 'br' },
      payload: gzipNdjson(good),
    });
    expect(brotli.statusCode).toBe(415);
    // The same five again: duplicates. Then one refused outright (no credential).
    expect((await post(lines, org.users.member.key)).json()).toMatchObject({ stored: 0, duplicates: 5 });
    expect((await post(lines)).statusCode).toBe(401);

    const text = await scrape();
    expect(value(text, 'agentmeter_ingest_records_total', { outcome: 'stored' })).toBe(5);
    expect(value(text, 'agentmeter_ingest_records_total', { outcome: 'duplicate' })).toBe(5);
    expect(value(text, 'agentmeter_ingest_records_total', { outcome: 'rejected' })).toBe(4);
    expect(value(text, 'agentmeter_ingest_batches_total', { outcome: 'accepted' })).toBe(2);
    expect(value(text, 'agentmeter_ingest_batches_total', { outcome: 'rejected' })).toBe(2);
    expect(value(text, 'agentmeter_ingest_rejected_records_total', { reason: 'not_json' })).toBe(2);
    expect(value(text, 'agentmeter_ingest_rejected_records_total', { reason: 'invalid_field' })).toBe(2);
    // The store's transactions: the first batch's; the second's fast path rolled back at the stored ids,
    // then its careful one.
    expect(value(text, 'agentmeter_ingest_transactions_total', { shape: 'single', outcome: 'committed' })).toBe(2);
    expect(value(text, 'agentmeter_ingest_transactions_total', { shape: 'single', outcome: 'rolled_back' })).toBe(1);
    expect(value(text, 'agentmeter_ingest_transactions_total', { shape: 'group', outcome: 'rolled_back' })).toBe(0);
    // The other server of this process counted nothing of it.
    expect(value(await scrapeOther(), 'agentmeter_ingest_records_total', { outcome: 'stored' })).toBe(0);
  });

  it('times requests by route pattern and status class, never by raw URL', async () => {
    for (const id of ['ses_one', 'ses_two']) {
      expect(
        (await on.app.inject({ method: 'GET', url: `/api/v0/sessions/${id}`, headers: bearer(org.users.member.key) })).statusCode,
      ).toBe(404);
    }
    const text = await scrape();
    expect(
      value(text, 'agentmeter_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v0/sessions/:sessionId',
        status_class: '4xx',
      }),
    ).toBe(2);
    expect(text).not.toContain('ses_one');
    expect(
      value(text, 'agentmeter_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/api/v1/ingest/events',
        status_class: '2xx',
      }),
    ).toBe(2);
  });

  it('records batch runs and analytics cache lookups', async () => {
    const before = Date.now() / 1000;
    await on.services.runBatch({ trigger: 'cli', log: createLogger({ name: 't', level: 'silent' }), now: NOW });
    const url = '/api/v1/analytics/activity?startDate=2026-03-01&endDate=2026-03-02';
    for (let i = 0; i < 3; i++) {
      expect((await on.app.inject({ method: 'GET', url, headers: bearer(org.users.manager.key) })).statusCode).toBe(200);
    }
    const text = await scrape();
    expect(value(text, 'agentmeter_batch_duration_seconds_count', { outcome: 'success' })).toBe(1);
    expect(value(text, 'agentmeter_batch_last_success_timestamp_seconds')).toBeGreaterThanOrEqual(Math.floor(before));
    expect(value(text, 'agentmeter_analytics_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(value(text, 'agentmeter_analytics_cache_lookups_total', { result: 'hit' })).toBe(2);
    // A second scrape does not count the lookups again.
    expect(value(await scrape(), 'agentmeter_analytics_cache_lookups_total', { result: 'hit' })).toBe(2);
  });

  it('reads the database size (file and WAL) at scrape', async () => {
    const text = await scrape();
    const db = value(text, 'agentmeter_database_bytes', { file: 'db' })!;
    expect(db).toBeGreaterThan(0);
    expect(db).toBe(statSync(on.db.path).size);
    expect(value(text, 'agentmeter_database_bytes', { file: 'wal' })).toBeGreaterThanOrEqual(0);
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('reasonClass', () => {
  it.each([
    ['not JSON (Unexpected token): {x', 'not_json'],
    ['kind: Invalid input', 'unknown_kind'],
    ['(root): Invalid input: expected object', 'not_an_object'],
    ['ts: Invalid input: expected number, received string', 'invalid_field'],
  ])('%s → %s', (reason, expected) => expect(reasonClass(reason)).toBe(expected));
});

async function scrapeOther(): Promise<string> {
  // The second server has metrics off; its registry is its own. Build a third with metrics on to see that
  // a fresh registry starts from nothing even after the first counted.
  const third = await testServer({ metricsToken: TOKEN });
  try {
    return await scrape(third);
  } finally {
    await third.close();
  }
}
