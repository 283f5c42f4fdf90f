// Batch runs scoped to their organization (issue #20 items 5 and 6): a run started through the API
// rebuilds the caller's organization alone, clears only its cached answers, is one at a time per
// organization, and its range is clamped to the days that can hold the organization's data; the runs
// list shows each organization its own runs, days and newest ingest time, never another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchReportAnswer, BatchRunList } from '../../api/batch/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { turn, usage } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const METRICS_TOKEN = 'metrics-token-that-is-at-least-32-characters';
const log = createLogger({ name: 't', level: 'silent' });
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const batch = (key: string, body: object = {}) =>
  server.app.inject({ method: 'POST', url: '/api/v0/admin/batch', headers: bearer(key), payload: body });
const runs = async (key: string) => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v0/admin/batch/runs?limit=50', headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return BatchRunList.parse(res.json()).runs;
};
const aggregateDays = async (org: string) =>
  (
    await server.db.all<{ day: string }>('SELECT DISTINCT CAST(day AS VARCHAR) AS day FROM agg_user_day WHERE org_id = $org ORDER BY day', {
      org,
    })
  ).map((r) => r.day);
const store = (
  org: { orgId: string; users: { member: { id: string } } },
  records: Parameters<TestServer['services']['ingest']['storeRecords']>[2],
) => server.services.ingest.storeRecords(org.orgId as OrgId, org.users.member.id as UserId, records);
const cacheHits = async () => {
  const res = await server.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
  return Number(/agentmeter_analytics_cache_lookups_total\{result="hit"\} (\d+)/.exec(res.body)?.[1]);
};

beforeAll(async () => {
  server = await testServer({ now: () => NOW, metricsToken: METRICS_TOKEN });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  await store(acme, [turn('2026-03-10'), usage('claude-sonnet-4-5', '2026-03-12', { input_tokens: 10 })]);
  await store(other, [turn('2026-02-01')]);
});
afterAll(() => server.close());

describe('POST /api/v0/admin/batch', () => {
  it("rebuilds the caller's organization alone, over a range clamped to its first record and yesterday", async () => {
    const res = await batch(acme.users.manager.key, { from: '2026-01-01', to: '2026-12-31' });
    expect(res.statusCode, res.body).toBe(200);
    // 2026-03-10 (acme's first record) to 2026-03-19 (yesterday): 10 days, though asked for 365.
    expect(BatchReportAnswer.parse(res.json())).toMatchObject({ mode: 'range', days: 10, firstDay: '2026-03-10', lastDay: '2026-03-19' });
    expect(await aggregateDays(acme.orgId)).toEqual(['2026-03-10', '2026-03-12']);
    expect(await aggregateDays(other.orgId)).toEqual([]);
    // Never before 2026-01-14, whatever the records say; nothing at all when no day is left.
    await store(acme, [turn('2026-01-02')]);
    const early = BatchReportAnswer.parse((await batch(acme.users.owner.key, { from: '2026-01-01', to: '2026-01-20' })).json());
    expect(early).toMatchObject({ days: 7, firstDay: '2026-01-14', lastDay: '2026-01-20' });
    const none = BatchReportAnswer.parse((await batch(acme.users.owner.key, { from: '2025-06-01', to: '2025-06-30' })).json());
    expect(none).toMatchObject({ days: 0, firstDay: null, lastDay: null });
  });

  it("an incremental run rebuilds only the caller's organization, and leaves the others' new records to the next run of all", async () => {
    const res = await batch(other.users.owner.key);
    expect(res.statusCode, res.body).toBe(200);
    expect(await aggregateDays(other.orgId)).toContain('2026-02-01');
    const acmeBefore = await aggregateDays(acme.orgId);
    expect(acmeBefore).not.toContain('2026-01-02');
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    expect(await aggregateDays(acme.orgId)).toContain('2026-01-02');
  });

  it('one queued or running per organization: the second answers 409 with the error body; another organization is not held up', async () => {
    const [a, b, c] = await Promise.all([batch(acme.users.owner.key), batch(acme.users.manager.key), batch(other.users.manager.key)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    const refused = a.statusCode === 409 ? a : b;
    expect(ErrorBodySchema.parse(refused.json())).toMatchObject({ status: 409, title: 'Conflict' });
    expect(c.statusCode).toBe(200);
    // Free again once it finished.
    expect((await batch(acme.users.owner.key)).statusCode).toBe(200);
  });

  it("clears only the caller's organization's cached answers", async () => {
    const url = '/api/v1/analytics/users?startDate=2026-03-01&endDate=2026-03-19';
    const ask = async (key: string) => expect((await server.app.inject({ method: 'GET', url, headers: bearer(key) })).statusCode).toBe(200);
    await ask(acme.users.manager.key);
    await ask(other.users.manager.key);
    const before = await cacheHits();
    expect((await batch(acme.users.manager.key)).statusCode).toBe(200);
    await ask(other.users.manager.key); // still cached: a hit
    expect(await cacheHits()).toBe(before + 1);
    await ask(acme.users.manager.key); // cleared by its own batch: built again
    expect(await cacheHits()).toBe(before + 1);
  });
});

describe('GET /api/v0/admin/batch/runs', () => {
  it('shows each organization its own runs and the runs of all, with its own days and newest ingest time only', async () => {
    // Other receives a record after acme's last: the newest ingest of all is other's.
    await store(acme, [turn('2026-03-15')]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store(other, [turn('2026-03-16')]);
    const all = await server.services.runBatch({ trigger: 'schedule', log, now: NOW });
    // An erasure in the other organization, and a range batch of its own.
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/users/${other.users.member.id}?erase=true`,
      headers: bearer(other.users.owner.key),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await batch(other.users.manager.key, { from: '2026-02-01', to: '2026-02-10' })).statusCode).toBe(200);

    const mine = await runs(acme.users.manager.key);
    const theirs = await runs(other.users.manager.key);
    const ids = (list: typeof mine) => new Set(list.map((r) => r.id));
    // The run of all is in both lists, each with its own figures.
    const acmeView = mine.find((r) => r.id === all.runId)!;
    const otherView = theirs.find((r) => r.id === all.runId)!;
    expect(acmeView.trigger).toBe('schedule');
    const newest = async (org: string) =>
      (
        await server.db.all<{ t: string }>(
          "SELECT strftime(max(received_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS t FROM events WHERE org_id = $org",
          {
            org,
          },
        )
      )[0]!.t;
    expect(acmeView.watermark).toBe(await newest(acme.orgId));
    expect(otherView.watermark).not.toBe(acmeView.watermark);
    const daysOf = async (org: string) =>
      (
        await server.db.all<{ n: number }>('SELECT days_rebuilt AS n FROM batch_run_orgs WHERE run_id = $run AND org_id = $org', {
          run: all.runId,
          org,
        })
      )[0]!.n;
    expect(acmeView.daysRebuilt).toBe(await daysOf(acme.orgId));
    expect(otherView.daysRebuilt).toBe(await daysOf(other.orgId));
    // Not the run's count over all organizations (its distinct days).
    expect(acmeView.daysRebuilt).toBeGreaterThan(0);
    // The other organization's erasure and API runs are not in acme's list, and acme's not in theirs.
    const otherOnly = theirs.filter((r) => r.trigger === 'erase' || r.trigger === 'api').map((r) => r.id);
    expect(otherOnly.length).toBeGreaterThanOrEqual(3);
    for (const id of otherOnly) expect(ids(mine).has(id)).toBe(false);
    const acmeOnly = mine.filter((r) => r.trigger === 'api').map((r) => r.id);
    expect(acmeOnly.length).toBeGreaterThanOrEqual(3);
    for (const id of acmeOnly) expect(ids(theirs).has(id)).toBe(false);
    // Members and guests are refused; a run is never shown with another organization's days.
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/v0/admin/batch/runs', headers: bearer(acme.users.member.key) })).statusCode,
    ).toBe(403);
  });
});
