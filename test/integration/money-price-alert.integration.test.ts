// A price change that carries a budget in dollars past a threshold (docs/metrics.md §7 and §8): an alert
// fires when usage first reaches the threshold, and an organization's own price computes the dollars of
// its days again, so the alert is due then, not at the next record that happens to arrive.
//
// Hand-worked: 1,000,000 input tokens of model-x on 03-03 at the org's $1 per million: $1.00 of a $2.00
// budget (50%, under its 75% threshold). model-x set to $2 per million from 03-01: $2.00, 100%: the 75%
// alert fires, with nothing else arriving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICING_PATH } from '../../api/pricing/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { usage } from '../helpers/records.ts';
import { bearer, postRecords, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

async function send(method: 'PUT' | 'GET', url: string, payload?: Record<string, unknown>) {
  const res = await server.app.inject({ method, url, headers: bearer(org.users.owner.key), ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const thresholds = async () =>
  ((await send('GET', '/api/v0/organization/alerts')).alerts as { threshold: number }[]).map((a) => a.threshold);

beforeAll(async () => {
  server = await testServer({ now: () => NOW, alerts: { allowPrivate: true, settleMs: 20 } });
  org = await server.seedOrg('Priced');
  await send('PUT', PRICING_PATH, { model: 'model-x', effectiveFrom: '2026-03-01', inputMtok: 1, outputMtok: 0 });
  const res = await postRecords(server, org.users.member.key, [usage('model-x', '2026-03-03T10:00:00Z', { input_tokens: 1_000_000 })]);
  expect(res.statusCode, res.body).toBe(200);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });
  const budgets = await send('PUT', '/api/v0/organization/budgets', { budgets: [{ scope: 'org', monthlyUsd: 2, thresholds: [75] }] });
  expect(budgets.budgets[0]).toMatchObject({ usage: 1, percentage: 50 });
  await server.services.alerts.evaluate(org.orgId);
  expect(await thresholds()).toEqual([]);
});
afterAll(() => server.close());

describe('a price change', () => {
  it('fires the dollar budget alert it makes due, with no record arriving', async () => {
    await send('PUT', PRICING_PATH, { model: 'model-x', effectiveFrom: '2026-03-01', inputMtok: 2, outputMtok: 0 });
    expect((await send('GET', '/api/v0/organization/budgets')).budgets[0]).toMatchObject({ usage: 2, percentage: 100 });
    await expect.poll(thresholds, { timeout: 10_000 }).toEqual([75]);
  });
});
