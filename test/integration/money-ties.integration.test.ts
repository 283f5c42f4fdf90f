// The organization's own prices when two entries tie (docs/metrics.md §8; api/pricing): the latest start
// on or before the day wins, then the longest pattern. Two patterns of the same length from the same day
// must give the same dollars whatever order they were set in: the owner sees only the list (sorted by
// model), so the same list must always price history the same.
//
// Hand-worked: one record of gpt-5-codex on D, 1,000,000 input tokens, in each of two organizations with
// the same two entries, set in opposite orders. Both "gpt-5-*" ($1 per million) and "*-codex" ($3 per
// million) match it, are 7 characters long and start on 2026-03-01. The tie goes to the pattern that
// sorts first ("*-codex" < "gpt-5-*"): $3.00 in both organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICING_PATH } from '../../api/pricing/schema.ts';
import { usage } from '../helpers/records.ts';
import { getOk, postRecords, putOk, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D = '2026-03-03';
const CHEAP = { model: 'gpt-5-*', effectiveFrom: '2026-03-01', inputMtok: 1, outputMtok: 0 };
const DEAR = { model: '*-codex', effectiveFrom: '2026-03-01', inputMtok: 3, outputMtok: 0 };

type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let server: TestServer;
let one: Org;
let two: Org;

async function put(org: Org, body: Record<string, unknown>) {
  const answer = await putOk(server, org.users.owner.key, PRICING_PATH, body);
  return answer.prices.map((p: { model: string; effectiveFrom: string; inputMtok: number }) => [p.model, p.effectiveFrom, p.inputMtok]);
}

async function dayCost(org: Org): Promise<number | null> {
  return (await getOk(server, org.users.owner.key, `/api/v1/analytics/tokens?startDate=${D}&endDate=${D}`)).data[0].cost_usd;
}

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  one = await server.seedOrg('One');
  two = await server.seedOrg('Two');
  for (const org of [one, two]) {
    const res = await postRecords(server, org.users.member.key, [
      { ...usage('gpt-5-codex', `${D}T10:00:00Z`, { input_tokens: 1_000_000 }), agent: 'codex' },
    ]);
    expect(res.statusCode, res.body).toBe(200);
  }
});
afterAll(() => server.close());

describe('two patterns of the same length from the same day', () => {
  it('the one that sorts first wins, whatever order they were set in: $3.00 in both organizations', async () => {
    await put(one, CHEAP);
    const listOne = await put(one, DEAR);
    await put(two, DEAR);
    const listTwo = await put(two, CHEAP);
    expect(listOne).toEqual(listTwo);
    expect([await dayCost(one), await dayCost(two)]).toEqual([3, 3]);
  });
});
