// Usage too small for a Standard Credit (docs/metrics.md §3: credits round per day and model) of a model
// without a dollar price (§8: never priced at zero silently): the day's /tokens record says null, and so
// must the range's total, not $0 for "no credits, so no usage".
//
// Hand-worked: on 2026-03-05 the member's call of qwen3-coder-plus (no dollar price; 1 input token of it
// counts 1 credit that day) read 4 tokens from the cache and nothing else: 0.1 × 4 = 0.4 rounds to 0 credits; the day's cost_usd is null (a usage row, none priced). /tokens of
// 03-05 alone: meta.totals {billable_tokens: 0, cost_usd: null} (it said $0).

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { call, usage } from '../helpers/records.ts';
import { getOk, postRecords, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D = '2026-03-05';

const dbPath = join(tempDir(), 'tiny-unpriced.duckdb');
let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

const get = (url: string) => getOk(server, org.users.owner.key, url);

beforeAll(async () => {
  server = await testServer({ now: () => NOW, dbPath });
  org = await server.seedOrg('Tiny');
  const res = await postRecords(server, org.users.member.key, [
    { ...usage('qwen3-coder-plus', `${D}T10:00:00Z`, { input_tokens: 0, output_tokens: 0, cache_read_tokens: 4 }), agent: 'qwen' },
  ]);
  expect(res.statusCode, res.body).toBe(200);
  const tool = await postRecords(server, org.users.manager.key, [call('Read', `${D}T11:00:00Z`)]);
  expect(tool.statusCode, tool.body).toBe(200);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });
});
afterAll(() => server.close());

describe('usage under one Standard Credit of a model without a price', () => {
  it('leaves the range total of /tokens null, as its day says', async () => {
    const body = await get(`/api/v1/analytics/tokens?startDate=${D}&endDate=${D}`);
    expect(body.data.map((d: { billable_tokens: number; cost_usd: number | null }) => [d.billable_tokens, d.cost_usd])).toEqual([
      [0, null],
    ]);
    expect(body.meta.unpriced_models).toEqual(['qwen3-coder-plus']);
    expect(body.meta.totals).toMatchObject({ billable_tokens: 0, cost_usd: null });
  });

  it("leaves the person's day and range on /users null, as /tokens says, while a quiet day is $0", async () => {
    const body = await get(`/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    const row = (id: string) => body.data.find((r: { user_id: string }) => r.user_id === id);
    const person = (id: string) => body.meta.people.find((p: { user_id: string }) => p.user_id === id);
    expect(row(org.users.member.id)).toMatchObject({ billable_tokens: 0, cost_usd: null });
    expect(person(org.users.member.id)).toMatchObject({ billable_tokens: 0, cost_usd: null });
    // The manager only ran a tool that day: no usage, $0.
    expect(row(org.users.manager.id)).toMatchObject({ billable_tokens: 0, cost_usd: 0 });
    expect(person(org.users.manager.id)).toMatchObject({ cost_usd: 0 });
  });

  it('migration 118: the rows built before give a day without usage $0 and keep usage without a price null', async () => {
    // As the batch wrote them before: NULL for both.
    await server.db.run('UPDATE agg_user_day SET cost_usd = NULL WHERE org_id = $org', { org: org.orgId });
    await server.db.run('DELETE FROM schema_migrations WHERE version = 118');
    // An upgraded server: it applies the migration as it opens the database, and loads the rows after.
    await server.close();
    server = await testServer({ now: () => NOW, dbPath });
    expect(await server.db.all('SELECT name FROM schema_migrations WHERE version = 118')).toEqual([
      { name: '118_user_day_quiet_cost.sql' },
    ]);
    const body = await get(`/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    const cost = (id: string) => body.data.find((r: { user_id: string }) => r.user_id === id).cost_usd;
    expect(cost(org.users.member.id)).toBeNull();
    expect(cost(org.users.manager.id)).toBe(0);
  });
});
