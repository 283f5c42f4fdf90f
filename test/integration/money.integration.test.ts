// Dollars (docs/metrics.md §8): records of the five agents posted as their collectors ship them, the real
// batch, and /tokens (records, group_by=model and agent), /users and /today with cost_usd; the
// organization's own dated prices over HTTP (owners only, nothing of another organization). Every figure
// is worked out by hand from the list prices of @pydantic/genai-prices, US dollars per million tokens:
//   claude-sonnet-4-5   input 3, output 15, cache read 0.30, 5-min write 3.75, 1-hour write 6 (≤ 200k input)
//   gpt-5 (gpt-5-codex) input 1.25, output 10, cache read 0.125
//   gemini-2.5-pro      input 1.25, output 10, cache read 0.125; above 200k input in the request 2.50, 15, 0.25
//   claude-opus-4-1     input 15, output 75, cache read 1.50, 5-min write 18.75
//   qwen3-coder-plus    no list price (Alibaba's models are not in the table): null until the org sets one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetList } from '../../api/budgets/schema.ts';
import { PRICING_PATH, type PriceList } from '../../api/pricing/schema.ts';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoIdentity } from '../../common/repo-id.ts';
import type { AgentName } from '../../common/wire.ts';
import { runCliAsync } from '../helpers/processes.ts';
import { ev, usage, type WireRecord } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D = '2026-03-03';
const log = createLogger({ name: 'test', level: 'silent' });

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
const people: Record<'a' | 'b' | 'c', { id: string; key: string }> = {} as never;

const by = <R extends WireRecord>(agent: AgentName, record: R): R => ({ ...record, agent });

async function post(key: string, records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function get(path: string, key = org.users.manager.key) {
  const res = await server.app.inject({ method: 'GET', url: path, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[]; meta: Record<string, unknown> };
}

const tokens = (query = '') => get(`/api/v1/analytics/tokens?startDate=${D}&endDate=${D}${query}`);

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Money');
  other = await server.seedOrg('Other');
  for (const who of ['a', 'b', 'c'] as const) {
    const user = await server.services.accounts.createUser({
      orgId: org.orgId as OrgId,
      email: `${who}@money.example.com`,
      role: 'member',
    });
    people[who] = { id: user.id, key: (await server.services.accounts.createKey(user)).key };
  }
  // A: Claude Code, sonnet: 1000 × 3 + 2000 × 15 + 100000 × 0.30 + 20000 × 3.75 (5-min) + 4000 × 6 (1-hour)
  //    = 0.003 + 0.03 + 0.03 + 0.075 + 0.024 = $0.162 (the request's input, 125000, is under 200k).
  //    Codex CLI, gpt-5-codex: 10000 × 1.25 + 3000 × 10 + 40000 × 0.125 = 0.0125 + 0.03 + 0.005 = $0.0475.
  await post(people.a.key, [
    by('claude', {
      ...usage('claude-sonnet-4-5-20250929', D, {
        input_tokens: 1000,
        output_tokens: 2000,
        cache_read_tokens: 100_000,
        cache_write_tokens: 24_000,
      }),
      cache_write_1h_tokens: 4000,
    }),
    by('codex', usage('gpt-5-codex', D, { input_tokens: 10_000, output_tokens: 3000, cache_read_tokens: 40_000 }, true, 'a2')),
  ]);
  // B: Gemini CLI, two requests of gemini-2.5-pro priced each by its own size:
  //    150000 + 60000 cached = 210000 > 200k: 150000 × 2.50 + 60000 × 0.25 + 4000 × 15 = 0.375 + 0.015 + 0.06 = $0.45;
  //    100000 + 60000 = 160000: 100000 × 1.25 + 60000 × 0.125 + 4000 × 10 = 0.125 + 0.0075 + 0.04 = $0.1725.
  //    Together $0.6225 (priced on the day's sum, 370000 > 200k, they would be $0.90).
  await post(people.b.key, [
    by('gemini', usage('gemini-2.5-pro', D, { input_tokens: 150_000, output_tokens: 4000, cache_read_tokens: 60_000 }, false, 'b1')),
    by('gemini', usage('gemini-2.5-pro', D, { input_tokens: 100_000, output_tokens: 4000, cache_read_tokens: 60_000 }, false, 'b1')),
  ]);
  // C: Droid, claude-opus-4-1: 2000 × 15 + 1000 × 75 + 40000 × 1.50 + 8000 × 18.75 = 0.03 + 0.075 + 0.06 + 0.15 = $0.315.
  //    Qwen Code, qwen3-coder-plus: no price, cost null.
  await post(people.c.key, [
    by(
      'droid',
      usage(
        'claude-opus-4-1-20250805',
        D,
        { input_tokens: 2000, output_tokens: 1000, cache_read_tokens: 40_000, cache_write_tokens: 8000 },
        false,
        'c1',
      ),
    ),
    by('qwen', usage('qwen3-coder-plus', D, { input_tokens: 2000, output_tokens: 1000, cache_read_tokens: 40_000 }, false, 'c2')),
  ]);
  const report = await server.services.runBatch({ trigger: 'cli', log, now: NOW });
  expect(report.unpricedUsdModels).toEqual(['qwen3-coder-plus']);
});
afterAll(() => server.close());

describe('dollars on /tokens', () => {
  it('the day: $0.162 + $0.0475 + $0.6225 + $0.315 = $1.147, the unpriced model named and null', async () => {
    const body = await tokens();
    expect(body.meta['unpriced_models']).toEqual(['qwen3-coder-plus']);
    const day = body.data[0] as {
      cost_usd: number;
      by_model: { model_id: string; cost_usd: number | null }[];
      by_user: { user_id: string; cost_usd: number | null }[];
    };
    expect(day.cost_usd).toBe(1.147);
    expect(Object.fromEntries(day.by_model.map((m) => [m.model_id, m.cost_usd]))).toEqual({
      'claude-sonnet-4-5-20250929': 0.162,
      'gpt-5-codex': 0.0475,
      'gemini-2.5-pro': 0.6225,
      'claude-opus-4-1-20250805': 0.315,
      'qwen3-coder-plus': null,
    });
    expect(Object.fromEntries(day.by_user.map((u) => [u.user_id, u.cost_usd]))).toEqual({
      [people.a.id]: 0.2095,
      [people.b.id]: 0.6225,
      [people.c.id]: 0.315,
    });
  });

  it('group_by=agent and group_by=model carry cost_usd', async () => {
    const agents = await tokens('&group_by=agent');
    expect(Object.fromEntries(agents.data.map((r) => [r['group_key'], r['cost_usd']]))).toEqual({
      claude: 0.162,
      codex: 0.0475,
      droid: 0.315,
      gemini: 0.6225,
      qwen: null,
    });
    const models = await tokens('&group_by=model');
    expect(models.data.find((r) => r['group_key'] === 'qwen3-coder-plus')?.['cost_usd']).toBeNull();
    expect(models.meta['unpriced_models']).toEqual(['qwen3-coder-plus']);
  });

  it('the per-user record has the user’s dollars', async () => {
    const users = await get(`/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    expect(Object.fromEntries(users.data.map((u) => [u['user_id'], u['cost_usd']]))).toEqual({
      [people.a.id]: 0.2095,
      [people.b.id]: 0.6225,
      [people.c.id]: 0.315,
    });
  });

  it('/today prices what arrived today: sonnet 1000 × 3 + 1000 × 15 = $0.018', async () => {
    await post(people.a.key, [
      by('claude', usage('claude-sonnet-4-5-20250929', '2026-03-20T08:00:00Z', { input_tokens: 1000, output_tokens: 1000 }, false, 't1')),
    ]);
    const today = await server.app.inject({ method: 'GET', url: '/api/v1/analytics/today', headers: bearer(org.users.manager.key) });
    expect(today.statusCode, today.body).toBe(200);
    const body = today.json() as { data: { tokens: { cost_usd: number } }; meta: { unpriced_models: string[] } };
    expect(body.data.tokens.cost_usd).toBe(0.018);
    expect(body.meta.unpriced_models).toEqual([]);
  });
});

describe('a budget in dollars', () => {
  it('counts the month’s dollars and fires in dollars: $1.147 + $0.018 = $1.165 of $2 passes 50%, not 75%', async () => {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/budgets',
      headers: bearer(org.users.owner.key),
      payload: { budgets: [{ scope: 'org', monthlyUsd: 2, thresholds: [50, 75] }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().budgets[0]).toMatchObject({ unit: 'usd', monthlyUsd: 2, usage: 1.165, percentage: 58.25 });
    await server.services.alerts.evaluate(org.orgId);
    const alerts = (await get('/api/v0/organization/alerts')) as unknown as { alerts: Record<string, unknown>[] };
    expect(alerts.alerts.map((a) => [a['threshold'], a['unit'], a['usage'], a['limit']])).toEqual([[50, 'usd', 1.165, 2]]);
    const both = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/budgets',
      headers: bearer(org.users.owner.key),
      payload: { budgets: [{ scope: 'org', monthlyUsd: 2, monthlyCredits: 10 }] },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().detail).toMatch(/either monthlyCredits or monthlyUsd/);
  });
});

describe("the organization's own prices", () => {
  const put = (key: string, body: unknown) =>
    server.app.inject({ method: 'PUT', url: PRICING_PATH, headers: bearer(key), payload: body as Record<string, unknown> });

  it('only owners set them; managers read them; members neither', async () => {
    const entry = { model: 'qwen3-coder-plus', effectiveFrom: '2026-03-01', inputMtok: 1, outputMtok: 5 };
    expect((await put(org.users.manager.key, entry)).statusCode).toBe(403);
    expect((await put(people.a.key, entry)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: PRICING_PATH, headers: bearer(people.a.key) })).statusCode).toBe(403);
    const bad = await put(org.users.owner.key, { ...entry, effectiveFrom: '2026-02-30' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/effectiveFrom/);
  });

  it('a price for the unpriced model prices its past days at once: 2000 × 1 + 1000 × 5 + 40000 × 0.10 = $0.011', async () => {
    const res = await put(org.users.owner.key, {
      model: 'qwen3-coder-plus',
      effectiveFrom: '2026-03-01',
      inputMtok: 1,
      outputMtok: 5,
      cacheReadMtok: 0.1,
      note: 'Model Studio contract',
    });
    expect(res.statusCode, res.body).toBe(200);
    // From the price's day, narrowed to the organization's first record (D), to yesterday.
    expect(res.json().rebuilt).toEqual({ from: D, to: '2026-03-19' });
    const body = await tokens();
    expect(body.meta['unpriced_models']).toEqual([]);
    const day = body.data[0] as { cost_usd: number; by_model: { model_id: string; cost_usd: number | null }[] };
    expect(day.by_model.find((m) => m.model_id === 'qwen3-coder-plus')?.cost_usd).toBe(0.011);
    expect(day.cost_usd).toBe(1.158);
  });

  it('an own price wins over the list price from its day on, not before', async () => {
    // gpt-5* at $2 input from the day after D: D keeps the list price; from D, it applies.
    expect(
      (await put(org.users.owner.key, { model: 'gpt-5*', effectiveFrom: '2026-03-04', inputMtok: 2, outputMtok: 10 })).statusCode,
    ).toBe(200);
    expect((await tokens('&group_by=agent')).data.find((r) => r['group_key'] === 'codex')?.['cost_usd']).toBe(0.0475);
    // From D: 10000 × 2 + 3000 × 10 + 40000 × 2 (no cache-read price given: the input price) = 0.02 + 0.03 + 0.08 = $0.13.
    expect((await put(org.users.owner.key, { model: 'gpt-5*', effectiveFrom: D, inputMtok: 2, outputMtok: 10 })).statusCode).toBe(200);
    expect((await tokens('&group_by=agent')).data.find((r) => r['group_key'] === 'codex')?.['cost_usd']).toBe(0.13);
    const list = await get(PRICING_PATH);
    expect(
      (list as unknown as { prices: { model: string; effectiveFrom: string }[] }).prices.map((p) => `${p.model}@${p.effectiveFrom}`),
    ).toEqual([`gpt-5*@${D}`, 'gpt-5*@2026-03-04', 'qwen3-coder-plus@2026-03-01']);
  });

  it('another organization sees none of them and cannot remove them (404)', async () => {
    const theirs = (await get(PRICING_PATH, other.users.owner.key)) as unknown as { prices: unknown[] };
    expect(theirs.prices).toEqual([]);
    const del = await server.app.inject({
      method: 'DELETE',
      url: `${PRICING_PATH}?model=qwen3-coder-plus&effectiveFrom=2026-03-01`,
      headers: bearer(other.users.owner.key),
    });
    expect(del.statusCode).toBe(404);
  });

  it('removing a price puts the list price (or none) back', async () => {
    const del = await server.app.inject({
      method: 'DELETE',
      url: `${PRICING_PATH}?model=${encodeURIComponent('gpt-5*')}&effectiveFrom=${D}`,
      headers: bearer(org.users.owner.key),
    });
    expect(del.statusCode, del.body).toBe(200);
    expect((await tokens('&group_by=agent')).data.find((r) => r['group_key'] === 'codex')?.['cost_usd']).toBe(0.0475);
  });
});

describe('the CLI: agentmeter pricing and agentmeter budgets, through a running server', () => {
  let address: string;
  beforeAll(async () => {
    address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  const cli = (args: string[], key = org.users.owner.key) => runCliAsync([...args, '--server', address, '--key', key]);

  it('pricing set and list: the price applies and is listed', async () => {
    const set = await cli([
      'pricing',
      'set',
      'glm-4.6',
      '--from',
      '2026-03-01',
      '--input',
      '0.6',
      '--output',
      '2.2',
      '--note',
      'Z.ai list',
    ]);
    expect(set.stderr).toBe('');
    expect(set.status).toBe(0);
    expect(set.stdout).toContain('glm-4.6\tfrom 2026-03-01\tinput $0.6\toutput $2.2');
    const list = await cli(['pricing', 'list', '--json'], org.users.manager.key);
    expect(list.status).toBe(0);
    expect((JSON.parse(list.stdout) as PriceList).prices.map((p) => p.model)).toContain('glm-4.6');
    const refused = await cli(['pricing', 'set', 'x', '--from', '2026-03-01', '--input', '1', '--output', '1'], org.users.manager.key);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('403');
  });

  it('budgets set adds or replaces one budget and keeps the others; remove takes one away', async () => {
    const team = await cli([
      'budgets',
      'set',
      '--scope',
      'user',
      '--email',
      'b@money.example.com',
      '--credits',
      '5000',
      '--thresholds',
      '80,100',
    ]);
    expect(team.stderr).toBe('');
    const set = await cli(['budgets', 'set', '--usd', '3', '--thresholds', '90']);
    expect(set.status).toBe(0);
    // The organization's $2 budget of the earlier test is replaced; B's stays. The month so far: $1.158 + the
    // price changes' effects (codex back at list), here only read back.
    const list = JSON.parse((await cli(['budgets', 'list', '--json'], org.users.manager.key)).stdout) as BudgetList;
    expect(list.budgets.map((b) => [b.scope, b.unit, b.monthlyUsd ?? b.monthlyCredits, b.thresholds])).toEqual([
      ['org', 'usd', 3, [90]],
      ['user', 'credits', 5000, [80, 100]],
    ]);
    expect(set.stdout).toMatch(/^organization: \$[\d.]+ of \$3 in 2026-03 \([\d.]+%\), alerts at 90%/m);
    const removed = await cli(['budgets', 'remove', '--scope', 'user', '--email', 'B@money.example.com']);
    expect(removed.status).toBe(0);
    expect(removed.stdout).not.toContain('b@money.example.com');
    const none = await cli(['budgets', 'remove', '--scope', 'team', '--team', 'nobody']);
    expect(none.status).not.toBe(0);
    expect(none.stderr).toContain('404');
    const neither = await cli(['budgets', 'set', '--scope', 'org']);
    expect(neither.stderr).toContain('either --usd N or --credits N');
  });

  it('budgets set without --slack or --webhook keeps the budget’s destinations; --no-destinations removes them', async () => {
    // A public address written as an IP: the address guard needs no name resolved.
    const hook = 'https://93.184.216.34/hooks/agentmeter-secret-path';
    const first = await cli(['budgets', 'set', '--usd', '3', '--webhook', hook, '--secret', 'a-secret-of-16-chars-or-more']);
    expect(first.status, first.stderr).toBe(0);
    const destinations = async () =>
      (JSON.parse((await cli(['budgets', 'list', '--json'])).stdout) as BudgetList).budgets.find((b) => b.scope === 'org')!.destinations;
    const shown = await destinations();
    expect(shown).toMatchObject([{ type: 'webhook', url: 'https://93.184.216.34/…' }]);
    const changed = await cli(['budgets', 'set', '--usd', '4', '--thresholds', '75,100']);
    expect(changed.status, changed.stderr).toBe(0);
    // The same destination, its secret kept.
    expect(await destinations()).toEqual(shown);
    const stored = await server.db.all<{ destinations: string }>(
      "SELECT CAST(destinations AS VARCHAR) AS destinations FROM budgets WHERE scope = 'org' AND org_id = $org",
      { org: org.orgId },
    );
    expect(stored[0]!.destinations).not.toContain('agentmeter-secret-path');
    // A new secret alone would leave the old one in use: refused, nothing changed.
    const secretAlone = await cli(['budgets', 'set', '--usd', '5', '--secret', 'another-secret-of-16-chars']);
    expect(secretAlone.status).not.toBe(0);
    expect(secretAlone.stderr).toContain('--secret is the secret of the --webhook URLs given with it');
    expect(await destinations()).toEqual(shown);
    const silenced = await cli(['budgets', 'set', '--usd', '4', '--no-destinations']);
    expect(silenced.status, silenced.stderr).toBe(0);
    expect(await destinations()).toEqual([]);
  });
});

describe('spend by repository (group_by=repo)', () => {
  it('tokens, credits and dollars by the repository of each session’s working directory; sessions in none in no row', async () => {
    const D2 = '2026-03-05';
    const shop = repoIdentity('https://github.com/acme/shop.git');
    const api = repoIdentity('git@github.com:acme/api.git');
    // Shop: sonnet 1000 × 3 + 1000 × 15 = $0.018, 1.2 × 2000 = 2400 credits. Api: gpt-5-codex at the
    // organization's own gpt-5* price from 2026-03-04 (set above: $2 input, $10 output): 10000 × 2 + 1000 × 10 =
    // $0.03, 0.5 × 11000 = 5500 credits (a session whose first event came the day before).
    // r3's session has no repository (outside a work tree): in no row.
    await post(people.a.key, [
      ev('UserPromptSubmit', D2, { session_id: 'r1', repo: shop.repo, repo_id: shop.repoId }),
      by('claude', usage('claude-sonnet-4-5-20250929', D2, { input_tokens: 1000, output_tokens: 1000 }, false, 'r1')),
      by('codex', ev('UserPromptSubmit', '2026-03-04', { session_id: 'r2', repo: api.repo, repo_id: api.repoId })),
      by('codex', usage('gpt-5-codex', D2, { input_tokens: 10_000, output_tokens: 1000 }, false, 'r2')),
      ev('UserPromptSubmit', D2, { session_id: 'r3' }),
      by('claude', usage('claude-sonnet-4-5-20250929', D2, { input_tokens: 5000 }, false, 'r3')),
    ]);
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    const body = await get(`/api/v1/analytics/tokens?startDate=${D2}&endDate=${D2}&group_by=repo`);
    expect(body.data).toEqual([
      { date: D2, group_key: 'github.com/acme/api', billable_tokens: 5500, input_tokens: 10_000, output_tokens: 1000, cost_usd: 0.03 },
      { date: D2, group_key: 'github.com/acme/shop', billable_tokens: 2400, input_tokens: 1000, output_tokens: 1000, cost_usd: 0.018 },
    ]);
    // The same host/path as /code's group_by=repo names repositories by.
    expect(shop.repo).toBe('github.com/acme/shop');
    const elsewhere = await server.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/tokens?startDate=${D2}&endDate=${D2}&group_by=repo`,
      headers: bearer(other.users.manager.key),
    });
    expect(elsewhere.json().data).toEqual([]);
  });
});
