// The month-end forecast (docs/metrics.md §9) on a fixed clock: 2026-03-20 09:00 UTC, 11 days left after
// today, the last 7 complete days 03-13 to 03-19. Usage of claude-opus-4-5 at its list price, $5 per million
// input tokens (200k input = $1, and 2 × 200k = 400k Standard Credits at opus's multiplier of 2):
//   03-02 $2 · 03-13 $1 · 03-14 none · 03-15 $2 · 03-16 $1 · 03-17 $1 · 03-18 $3 · 03-19 $1 · today $1
//   month to date $12; the 7 days sum to $9 (mean 9/7), lowest $0, highest $3
//   forecast 12 + 11 × 9/7 = $26.142857… → 26.1429; low 12 + 11 × 0 = $12; high 12 + 11 × 3 = $45
//   credits: ×400000: 4,800,000; 4,800,000 + 11 × 3,600,000/7 = 10,457,142.9 → 10,457,143; 4,800,000; 18,000,000
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertList } from '../../api/budgets/schema.ts';
import { FORECAST_PATH, ForecastAnswer } from '../../api/forecast/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { usage, type WireRecord } from '../helpers/records.ts';
import { bearer, postRecords, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const log = createLogger({ name: 'test', level: 'silent' });
let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const dollars = (day: string, usd: number): WireRecord[] =>
  Array.from({ length: usd }, () => usage('claude-opus-4-5-20251101', `${day}T10:00:00Z`, { input_tokens: 200_000 }));

/** Posts records as a collector does, with `key`; the batch must be stored. */
async function ingest(on: TestServer, key: string, records: WireRecord[]): Promise<void> {
  const res = await postRecords(on, key, records);
  expect(res.statusCode, res.body).toBe(200);
}

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Forecast');
  other = await server.seedOrg('Elsewhere');
  const records = [
    ...dollars('2026-03-02', 2),
    ...dollars('2026-03-13', 1),
    ...dollars('2026-03-15', 2),
    ...dollars('2026-03-16', 1),
    ...dollars('2026-03-17', 1),
    ...dollars('2026-03-18', 3),
    ...dollars('2026-03-19', 1),
    ...dollars('2026-03-20', 1),
  ];
  await ingest(server, org.users.member.key, records);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
  const budgets = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/budgets',
    headers: bearer(org.users.owner.key),
    payload: {
      budgets: [
        { scope: 'org', monthlyUsd: 20 },
        { scope: 'user', email: 'member@forecast.example.com', monthlyCredits: 20_000_000 },
      ],
    },
  });
  expect(budgets.statusCode, budgets.body).toBe(200);
});
afterAll(() => server.close());

describe('the month-end forecast', () => {
  it('month to date plus the last 7 days’ mean, low and high, times the days left', async () => {
    const res = await server.app.inject({ method: 'GET', url: FORECAST_PATH, headers: bearer(org.users.manager.key) });
    expect(res.statusCode, res.body).toBe(200);
    const f = ForecastAnswer.parse(res.json());
    expect(f).toMatchObject({ date: '2026-03-20', month: '2026-03', days_left: 11, window: { from: '2026-03-13', to: '2026-03-19' } });
    expect(f.organization).toEqual({
      usd: { month_to_date: 12, forecast: 26.1429, low: 12, high: 45 },
      credits: { month_to_date: 4_800_000, forecast: 10_457_143, low: 4_800_000, high: 18_000_000 },
      budget: { unit: 'usd', limit: 20, at_risk: true },
    });
    // The member is all the usage: the same figures, against a credit budget it stays under.
    expect(f.users).toEqual([
      { email: 'member@forecast.example.com', ...f.organization, budget: { unit: 'credits', limit: 20_000_000, at_risk: false } },
    ]);
    expect(f.teams).toEqual([]);
  });

  it('owners and managers only; another organization sees its own (nothing)', async () => {
    expect((await server.app.inject({ method: 'GET', url: FORECAST_PATH, headers: bearer(org.users.member.key) })).statusCode).toBe(403);
    const theirs = ForecastAnswer.parse(
      (await server.app.inject({ method: 'GET', url: FORECAST_PATH, headers: bearer(other.users.owner.key) })).json(),
    );
    expect(theirs.organization.usd).toEqual({ month_to_date: 0, forecast: 0, low: 0, high: 0 });
    expect(theirs.users).toEqual([]);
  });
});

// On the 1st, before the batch has built yesterday: the last 7 days are last month's, and the 31st is in
// the live figures only. $1 a day 03-25 to 03-30 (the batch ran at 03-31 00:15), then $3 on 03-31.
// Clock 2026-04-01 00:10: month to date $0, 29 days left, the 7 days sum to $9 (mean 9/7), lowest $1,
// highest $3: forecast 29 × 9/7 = $37.2857; low $29; high $87. Credits ×400,000: 14,914,286; 11,600,000;
// 34,800,000. Without the 31st the mean would be 6/7 and the lowest $0.
describe('the forecast on the first day of a month', () => {
  it('counts the last day of the month before, which only the live figures have yet', async () => {
    const first = await testServer({ now: () => new Date('2026-04-01T00:10:00Z') });
    try {
      const o = await first.seedOrg('Monthstart');
      const send = (records: WireRecord[]) => ingest(first, o.users.member.key, records);
      await send(['25', '26', '27', '28', '29', '30'].flatMap((d) => dollars(`2026-03-${d}`, 1)));
      await first.services.runBatch({ trigger: 'cli', log, now: new Date('2026-03-31T00:15:00Z') });
      await send(dollars('2026-03-31', 3));
      const res = await first.app.inject({ method: 'GET', url: FORECAST_PATH, headers: bearer(o.users.owner.key) });
      expect(res.statusCode, res.body).toBe(200);
      const f = ForecastAnswer.parse(res.json());
      expect(f).toMatchObject({ date: '2026-04-01', days_left: 29, window: { from: '2026-03-25', to: '2026-03-31' } });
      expect(f.organization).toMatchObject({
        usd: { month_to_date: 0, forecast: 37.2857, low: 29, high: 87 },
        credits: { month_to_date: 0, forecast: 14_914_286, low: 11_600_000, high: 34_800_000 },
      });
    } finally {
      await first.close();
    }
  });
});

// The anomaly check on the 1st (docs/metrics.md §9) looks at yesterday and today, and yesterday is last
// month's, in the live figures only until the batch builds it. $2 a day 03-20 to 03-30 (the batch ran at
// 03-31 00:15), then $25 on 03-31: above 3 × the median day of $2 (11 days with usage in the 28 before) and
// the $20 floor, one anomaly of 03-31. Without the live figures' 03-31 it would count $0 and none would fire.
describe('the anomaly check on the first day of a month', () => {
  it('finds the last day of the month before, which only the live figures have yet', async () => {
    const first = await testServer({
      now: () => new Date('2026-04-01T00:10:00Z'),
      alerts: { allowPrivate: true, maxAttempts: 1, retryDelayMs: 50, settleMs: 20, anomalyIntervalMs: 50 },
    });
    try {
      const o = await first.seedOrg('Monthend');
      const send = (records: WireRecord[]) => ingest(first, o.users.member.key, records);
      const days = Array.from({ length: 11 }, (_, i) => `2026-03-${String(20 + i).padStart(2, '0')}`);
      await send(days.flatMap((d) => dollars(d, 2)));
      await first.services.runBatch({ trigger: 'cli', log, now: new Date('2026-03-31T00:15:00Z') });
      await send(dollars('2026-03-31', 25));
      await first.services.alerts.idle();
      await new Promise((r) => setTimeout(r, 150));
      await first.services.alerts.evaluate(o.orgId);
      await first.services.alerts.idle();
      const res = await first.app.inject({ method: 'GET', url: '/api/v0/organization/alerts', headers: bearer(o.users.owner.key) });
      expect(res.statusCode, res.body).toBe(200);
      const anomalies = AlertList.parse(res.json()).anomalies;
      expect(anomalies.map((a) => [a.scope, a.email, a.day, a.cost_usd, a.median_usd])).toEqual([
        ['user', 'member@monthend.example.com', '2026-03-31', 25, 2],
      ]);
    } finally {
      await first.close();
    }
  });
});
