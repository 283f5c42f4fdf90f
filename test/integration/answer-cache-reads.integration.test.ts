// The forecast, the budgets' usage, adoption, one person's usage, the landed commits, the teams listing,
// the price list and the readiness reports through the one answer cache (api/answers/): a second request
// is a hit, and each change they read drops them: a budget set, records that arrive, a roster upload (the
// teams revision in the key), a price, a report uploaded, and for adoption the clock's next minute (its
// windows end at now). Nothing is shared between askers: "me" is each one's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgId } from '../../common/ids.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { turn, usage } from '../helpers/records.ts';
import { bearer, ndjson, type TestServer, testServer } from '../helpers/server.ts';

const METRICS_TOKEN = 'metrics-token-for-the-answer-cache-test';
let clock = new Date('2026-11-27T12:00:00Z');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;

const cacheHits = async () => {
  const res = await server.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
  return Number(/agentmeter_analytics_cache_lookups_total\{result="hit"\} (\d+)/.exec(res.body)?.[1]);
};
const get = async (url: string, key = acme.users.owner.key) => {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
/** The answer, and whether the cache served it. */
const ask = async (url: string, key = acme.users.owner.key) => {
  const before = await cacheHits();
  const body = await get(url, key);
  return { body, hit: (await cacheHits()) === before + 1 };
};
const ship = async (key: string, records: unknown[]) => {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
    payload: ndjson(records),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
};
const setBudget = async (budget: Record<string, unknown>) => {
  const res = await server.app.inject({
    method: 'PATCH',
    url: '/api/v0/organization/budgets',
    headers: bearer(acme.users.owner.key),
    payload: { budget },
  });
  expect(res.statusCode, res.body).toBe(200);
};
const uploadRoster = async (lines: string[]) => {
  const res = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(acme.users.owner.key), 'content-type': 'text/csv' },
    payload: `${['email,team,parent,from,to', ...lines].join('\n')}\n`,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
};

beforeAll(async () => {
  server = await testServer({ now: () => clock, metricsToken: METRICS_TOKEN });
  acme = await server.seedOrg('Acme');
});
afterAll(() => server.close());

const FORECAST = '/api/v0/organization/forecast';
const BUDGETS = '/api/v0/organization/budgets';
const ADOPTION = '/api/v0/organization/adoption';

describe('the forecast and the budgets through the answer cache', () => {
  it('a second request is a hit; setting a budget drops both', async () => {
    const first = await ask(FORECAST);
    expect(first.hit).toBe(false);
    expect(first.body.organization.budget).toBeNull();
    expect(await ask(FORECAST)).toEqual({ body: first.body, hit: true });
    const budgets = await ask(BUDGETS);
    expect(budgets.body.budgets).toEqual([]);
    expect((await ask(BUDGETS)).hit).toBe(true);

    await setBudget({ scope: 'org', monthlyCredits: 1000 });
    const after = await ask(FORECAST);
    expect(after.hit).toBe(false);
    expect(after.body.organization.budget).toEqual({ unit: 'credits', limit: 1000, at_risk: false });
    const listed = await ask(BUDGETS);
    expect(listed.hit).toBe(false);
    expect(listed.body.budgets.map((b: { scope: string; usage: number }) => [b.scope, b.usage])).toEqual([['org', 0]]);
  });

  it('records that arrive drop them: the month to date counts them at once', async () => {
    expect((await ask(FORECAST)).hit).toBe(true);
    // 1000 input tokens of Sonnet today: 1.2 × 1000 = 1200 Standard Credits.
    await ship(acme.users.member.key, [
      turn('2026-11-27T11:00:00Z'),
      usage('claude-sonnet-4-5', '2026-11-27T11:00:01Z', { input_tokens: 1000 }),
    ]);
    const after = await ask(FORECAST);
    expect(after.hit).toBe(false);
    expect(after.body.organization.credits.month_to_date).toBe(1200);
    expect((await ask(BUDGETS)).body.budgets[0].usage).toBe(1200);
  });

  it('a roster upload drops them: a team budget counts its members from then on', async () => {
    await uploadRoster(['member@acme.example.com,Platform,,,']);
    await setBudget({ scope: 'team', team: 'Platform', monthlyCredits: 5000 });
    const before = await ask(FORECAST);
    expect(before.body.teams.map((t: { team: string; credits: { month_to_date: number } }) => [t.team, t.credits.month_to_date])).toEqual([
      ['Platform', 1200],
    ]);
    expect((await ask(FORECAST)).hit).toBe(true);
    // The member leaves Platform: the same URL is a new key, built anew.
    await uploadRoster(['manager@acme.example.com,Platform,,,']);
    const after = await ask(FORECAST);
    expect(after.hit).toBe(false);
    expect(after.body.teams[0].credits.month_to_date).toBe(0);
  });
});

describe('adoption through the answer cache', () => {
  it('a second request is a hit; an event, a roster upload and the next minute each build it anew', async () => {
    const first = await ask(ADOPTION);
    expect(first.body.totals.activated).toBe(1);
    expect(await ask(ADOPTION)).toEqual({ body: first.body, hit: true });

    await ship(acme.users.manager.key, [turn('2026-11-27T11:30:00Z')]);
    const evented = await ask(ADOPTION);
    expect(evented.hit).toBe(false);
    expect(evented.body.totals.activated).toBe(2);

    expect(evented.body.byTeam.find((t: { team: string }) => t.team === 'Platform')).toMatchObject({ people: 1, activated: 1 });
    await uploadRoster(['manager@acme.example.com,Platform,,,', 'owner@acme.example.com,Platform,,,']);
    const rostered = await ask(ADOPTION);
    expect(rostered.hit).toBe(false);
    expect(rostered.body.byTeam.find((t: { team: string }) => t.team === 'Platform')).toMatchObject({ people: 2, activated: 1 });

    expect((await ask(ADOPTION)).hit).toBe(true);
    clock = new Date('2026-11-27T12:01:00Z');
    const later = await ask(ADOPTION);
    expect(later.hit).toBe(false);
    expect(later.body.asOf).toBe('2026-11-27T12:01:00.000Z');
  });
});

describe("one person's usage and the landed commits through the answer cache", () => {
  it('a second request is a hit, and "me" is each asker\'s own', async () => {
    const url = '/api/v0/usage/users/me?startDate=2026-11-01&endDate=2026-11-26';
    const owner = await ask(url);
    expect(owner.body.meta.user_email).toBe('owner@acme.example.com');
    expect((await ask(url)).hit).toBe(true);
    const member = await ask(url, acme.users.member.key);
    expect(member.hit).toBe(false);
    expect(member.body.meta.user_email).toBe('member@acme.example.com');
  });

  it('the commit list is a hit until records arrive', async () => {
    const url = '/api/v0/code/commits?startDate=2026-11-01&endDate=2026-11-27';
    expect((await ask(url)).body.data).toEqual([]);
    expect((await ask(url)).hit).toBe(true);
    await ship(acme.users.member.key, [turn('2026-11-27T11:40:00Z')]);
    expect((await ask(url)).hit).toBe(false);
  });
});

describe('the teams, the prices and the readiness reports through the answer cache', () => {
  const send = async (method: 'PUT' | 'POST', url: string, payload: object) => {
    const res = await server.app.inject({ method, url, headers: bearer(acme.users.owner.key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };

  it('the teams listing is a hit until the roster changes', async () => {
    const url = '/api/v0/organization/teams';
    const before = await ask(url);
    expect((await ask(url)).hit).toBe(true);
    await uploadRoster(['member@acme.example.com,Mobile,,,']);
    const after = await ask(url);
    expect(after.hit).toBe(false);
    expect(after.body.teams.map((t: { name: string }) => t.name)).toEqual(
      [...before.body.teams.map((t: { name: string }) => t.name), 'Mobile'].sort(),
    );
  });

  it('the price list is a hit until a price is set', async () => {
    const url = '/api/v0/organization/pricing';
    expect((await ask(url)).body.prices).toEqual([]);
    expect((await ask(url)).hit).toBe(true);
    await send('PUT', url, { model: 'local-llm', effectiveFrom: '2026-11-01', inputMtok: 1, outputMtok: 2 });
    const after = await ask(url);
    expect(after.hit).toBe(false);
    expect(after.body.prices.map((p: { model: string }) => p.model)).toEqual(['local-llm']);
  });

  it('the readiness list is a hit until a report is uploaded', async () => {
    const url = '/api/organization/agent-readiness-reports';
    expect((await ask(url)).body).toEqual({ reports: [], summaries: [] });
    expect((await ask(url)).hit).toBe(true);
    await send('POST', url, {
      repoUrl: 'https://github.com/acme/web-app',
      apps: { '.': { description: 'The web app' } },
      report: { lint_config: { numerator: 1, denominator: 1, rationale: 'eslint.config.js' } },
    });
    const after = await ask(url);
    expect(after.hit).toBe(false);
    expect(after.body.summaries).toMatchObject([{ criteria: 1, met: 1, score: 1 }]);
  });
});

describe("one's own limit and status line through the answer cache", () => {
  const LIMITS = '/api/v0/organization/usage/limits/users';
  it("a second request is a hit; a limit set, records that arrive or (for everyone's limits) a person added build it anew", async () => {
    const key = acme.users.member.key;
    const limits = await ask(LIMITS, key);
    expect(limits.body.users.map((u: { email: string }) => u.email)).toEqual(['member@acme.example.com']);
    expect((await ask(LIMITS, key)).hit).toBe(true);
    const status = await ask('/api/v0/me/status', key);
    expect((await ask('/api/v0/me/status', key)).hit).toBe(true);

    const set = await server.app.inject({
      method: 'PUT',
      url: LIMITS,
      headers: bearer(acme.users.owner.key),
      payload: { users: [{ email: 'member@acme.example.com', limit: 5000 }] },
    });
    expect(set.statusCode, set.body).toBe(200);
    const limited = await ask(LIMITS, key);
    expect(limited.hit).toBe(false);
    expect(limited.body.users[0].limit).toBe(5000);
    const statusAfter = await ask('/api/v0/me/status', key);
    expect(statusAfter.hit).toBe(false);
    expect(statusAfter.body.limit).toBe(5000);

    // 100 input tokens of Sonnet: 120 more credits this month.
    await ship(key, [usage('claude-sonnet-4-5', '2026-11-27T11:50:00Z', { input_tokens: 100 })]);
    const used = await ask('/api/v0/me/status', key);
    expect(used.hit).toBe(false);
    expect(used.body.month_credits).toBe(status.body.month_credits + 120);

    // Everyone's (an owner's personal key): kept too, and a person added is listed at once.
    expect((await ask(LIMITS)).hit).toBe(false);
    expect((await ask(LIMITS)).hit).toBe(true);
    await server.services.accounts.createUser({ orgId: acme.orgId as OrgId, email: 'newcomer@acme.example.com', role: 'member' });
    const everyone = await ask(LIMITS);
    expect(everyone.hit).toBe(false);
    expect(everyone.body.users.map((u: { email: string }) => u.email)).toContain('newcomer@acme.example.com');
  });
});
