// Dollars on a day without usage (docs/metrics.md §4 and §8): every count of a day without activity is 0,
// and null is the cost of a model without a price, never of no usage. The range's total already says 0
// for no usage; each day's record must say the same.
//
// Hand-worked: one record of gpt-5-codex on D (1,000,000 input tokens at the org's $1 per million: $1.00);
// D+1 has nothing. /tokens D..D+1: $1.00 then $0; /today (nothing yet today): $0. The manager only ran a
// tool on D (an event, no usage): their per-user record of D costs $0 too. The guest used 1,000 tokens
// of qwen3-coder-plus (no price) on D+2 and ran a tool on D+3: the range D+2..D+3 of /tokens, and the
// guest's total on /users, stay null, not $0 (a quiet day adds no price to usage that has none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICING_PATH } from '../../api/pricing/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { call, usage } from '../helpers/records.ts';
import { getOk, postRecords, putOk, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D = '2026-03-03';

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

const get = (url: string) => getOk(server, org.users.owner.key, url);

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Quiet');
  await putOk(server, org.users.owner.key, PRICING_PATH, {
    model: 'gpt-5-codex',
    effectiveFrom: '2026-03-01',
    inputMtok: 1,
    outputMtok: 0,
  });
  const res = await postRecords(server, org.users.member.key, [
    { ...usage('gpt-5-codex', `${D}T10:00:00Z`, { input_tokens: 1_000_000 }), agent: 'codex' },
  ]);
  expect(res.statusCode, res.body).toBe(200);
  const events = await postRecords(server, org.users.manager.key, [call('Read', `${D}T11:00:00Z`)]);
  expect(events.statusCode, events.body).toBe(200);
  const guest = await postRecords(server, org.users.guest.key, [
    usage('qwen3-coder-plus', '2026-03-05T10:00:00Z', { input_tokens: 1000 }),
    call('Read', '2026-03-06T10:00:00Z'),
  ]);
  expect(guest.statusCode, guest.body).toBe(200);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });
});
afterAll(() => server.close());

describe('a day without usage', () => {
  it('costs $0 on /tokens, as its range total says', async () => {
    const body = await get(`/api/v1/analytics/tokens?startDate=${D}&endDate=2026-03-04`);
    expect(body.data.map((d: { date: string; cost_usd: number | null }) => [d.date, d.cost_usd])).toEqual([
      [D, 1],
      ['2026-03-04', 0],
    ]);
    expect(body.meta.totals).toMatchObject({ cost_usd: 1 });
  });

  it('costs $0 on the per-user record of someone who used no tokens that day', async () => {
    const body = await get(`/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    expect(Object.fromEntries(body.data.map((u: { user_id: string; cost_usd: number | null }) => [u.user_id, u.cost_usd]))).toEqual({
      [org.users.member.id]: 1,
      [org.users.manager.id]: 0,
    });
  });

  it('leaves a range whose only usage has no price at null, quiet days or not', async () => {
    const tokens = await get('/api/v1/analytics/tokens?startDate=2026-03-05&endDate=2026-03-06');
    expect(tokens.data.map((d: { cost_usd: number | null }) => d.cost_usd)).toEqual([null, 0]);
    expect(tokens.meta.totals.cost_usd).toBeNull();
    const users = await get('/api/v1/analytics/users?startDate=2026-03-05&endDate=2026-03-06');
    const guest = org.users.guest.id;
    expect(
      users.data.filter((r: { user_id: string }) => r.user_id === guest).map((r: { date: string; cost_usd: number | null }) => r.cost_usd),
    ).toEqual([null, 0]);
    expect(users.meta.people.find((p: { user_id: string }) => p.user_id === guest).cost_usd).toBeNull();
  });

  it('costs $0 on /today before any usage arrived', async () => {
    expect((await get('/api/v1/analytics/today')).data.tokens.cost_usd).toBe(0);
  });
});
