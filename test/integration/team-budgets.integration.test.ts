// Team budgets (docs/metrics.md §6 and §7): a budget of scope "team" counts the month's credits (today's
// included) of the team's members on each day, the teams below it included, as a team= filter does. Usage
// is worked out by hand with a member joining mid-month; an alert fires at a threshold and is delivered to
// a receiver; roles and another organization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertList, BudgetList, ThresholdEvent } from '../../api/budgets/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { INGEST_PATH, type WireRecord } from '../../common/wire.ts';
import { waitFor } from '../helpers/processes.ts';
import { usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const ALERTS = { allowPrivate: true, maxAttempts: 3, retryDelayMs: 50, settleMs: 20 };
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);
let receiverUrl: string;

async function post(key: string, records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
}
const put = (key: string, body: unknown) =>
  server.app.inject({ method: 'PUT', url: '/api/v0/organization/budgets', headers: bearer(key), payload: body as object });
const get = (key: string, url: string) => server.app.inject({ method: 'GET', url, headers: bearer(key) });
// claude-sonnet-4-5 costs 1.2 credits an input token.
const sonnet = (day: string, input: number, session: string) =>
  usage('claude-sonnet-4-5', `${day}T08:00:00Z`, { input_tokens: input }, false, session);

// Platform is the parent of Mobile. The member is in Platform all month; the manager joins Mobile on
// 03-10 (mid-month); the owner is in no team.
const ROSTER = [
  'email,team,parent,from,to',
  'member@acme.example.com,Platform,,,',
  'manager@acme.example.com,Mobile,Platform,2026-03-10,',
].join('\n');

beforeAll(async () => {
  receiverUrl = `${receiver.url}/hooks`;
  server = await testServer({ now: () => NOW, alerts: ALERTS });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  const roster = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(acme.users.owner.key), 'content-type': 'text/csv' },
    payload: ROSTER,
  });
  expect(roster.statusCode, roster.body).toBe(200);
  // Member: 03-02 100 tokens (120 credits), today 50 (60). Manager: 03-05 100 (120, before joining Mobile:
  // not the team's), 03-15 200 (240). Owner: 03-15 500 (600, no team).
  await post(acme.users.member.key, [sonnet('2026-03-02', 100, 'm1'), sonnet('2026-03-20', 50, 'm2')]);
  await post(acme.users.manager.key, [sonnet('2026-03-05', 100, 'g1'), sonnet('2026-03-15', 200, 'g2')]);
  await post(acme.users.owner.key, [sonnet('2026-03-15', 500, 'o1')]);
  // The days before today come from the batch's rows, today's from the live build.
  await server.services.runBatch({ trigger: 'cli', now: NOW, log: createLogger({ name: 'test', level: 'silent' }) });
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe('team budgets', () => {
  it('count the members of the team and the teams below it on each day, today included', async () => {
    const res = await put(acme.users.owner.key, {
      budgets: [
        {
          scope: 'team',
          team: 'platform',
          monthlyCredits: 800,
          thresholds: [50, 75],
          destinations: [{ type: 'webhook', url: receiverUrl }],
        },
        { scope: 'team', team: 'Mobile', monthlyCredits: 1000 },
        { scope: 'org', monthlyCredits: 100_000 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const list = BudgetList.parse(res.json());
    expect(list.budgets.map((b) => [b.scope, b.team, b.usage, b.percentage])).toEqual([
      // Platform: the member's 120 + 60, and Mobile's manager from 03-10: 240 (not 03-05's 120) = 420.
      ['team', 'Platform', 420, 52.5],
      // Mobile: the manager from 03-10: 240.
      ['team', 'Mobile', 240, 24],
      // The organization: 120 + 60 + 120 + 240 + 600 = 1140.
      ['org', undefined, 1140, 1.14],
    ]);
    const read = BudgetList.parse((await get(acme.users.manager.key, '/api/v0/organization/budgets')).json());
    expect(read.budgets[0]).toMatchObject({ scope: 'team', team: 'Platform', usage: 420 });
  });

  it('fire their alerts once per threshold, delivered with the team named', async () => {
    // 420 of 800 reached 50% when the list was put.
    await waitFor(() => received.length >= 1, 30_000, 'the 50% alert');
    const first = ThresholdEvent.parse(JSON.parse(received[0]!.body));
    expect(first).toMatchObject({
      budget: { scope: 'team', team: 'Platform', monthlyCredits: 800 },
      threshold: 50,
      usage: 420,
      limit: 800,
    });
    // The owner (no team) adds 600 credits: no team alert. The member adds 150 tokens (180): 600 = 75%.
    await post(acme.users.owner.key, [sonnet('2026-03-20', 500, 'o2')]);
    await post(acme.users.member.key, [sonnet('2026-03-20', 150, 'm3')]);
    await waitFor(() => received.length >= 2, 30_000, 'the 75% alert');
    expect(ThresholdEvent.parse(JSON.parse(received[1]!.body))).toMatchObject({ budget: { team: 'Platform' }, threshold: 75, usage: 600 });
    const alerts = AlertList.parse((await get(acme.users.manager.key, '/api/v0/organization/alerts')).json()).alerts;
    expect(alerts.map((a) => [a.budget.team, a.threshold])).toEqual([
      ['Platform', 75],
      ['Platform', 50],
    ]);
    expect(received).toHaveLength(2);
  });

  it("follow their team's rename by the directory, alerts of the month included", async () => {
    const token = (
      await server.app.inject({ method: 'POST', url: '/api/v0/admin/scim/tokens', headers: bearer(acme.users.owner.key), payload: {} })
    ).json().token as string;
    const scim = (method: 'GET' | 'PATCH', url: string, body?: unknown) =>
      server.app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: { ...bearer(token), 'content-type': 'application/scim+json' },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const before = BudgetList.parse((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json()).budgets;
    const platform = before.find((b) => b.team === 'Platform')!;
    const alertsBefore = await server.db.all("SELECT threshold FROM budget_alerts WHERE org_id = $org AND target = 'platform'", {
      org: acme.orgId,
    });
    const group = (await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Platform"')}`)).json().Resources[0];
    const renamed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Platform Eng' }],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const after = BudgetList.parse((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json()).budgets;
    expect(after.find((b) => b.scope === 'team' && b.team === 'Platform Eng')).toMatchObject({ usage: platform.usage });
    expect(after.some((b) => b.team === 'Platform')).toBe(false);
    expect(
      await server.db.all("SELECT threshold FROM budget_alerts WHERE org_id = $org AND target = 'platform eng'", { org: acme.orgId }),
    ).toEqual(alertsBefore);
    // And back, for the tests below.
    const back = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Platform' }],
    });
    expect(back.statusCode, back.body).toBe(200);
    const again = BudgetList.parse((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json()).budgets;
    expect(again.find((b) => b.team === 'Platform')).toMatchObject({ usage: platform.usage });
  });

  it('name a team of the organization; owners set them, managers read, others 403', async () => {
    const body = { budgets: [{ scope: 'team', team: 'Platform', monthlyCredits: 10 }] };
    for (const role of ['manager', 'member', 'guest'] as const) expect((await put(acme.users[role].key, body)).statusCode).toBe(403);
    for (const role of ['member', 'guest'] as const)
      expect((await get(acme.users[role].key, '/api/v0/organization/budgets')).statusCode).toBe(403);
    // Another organization has no team Platform, and sees none of acme's budgets.
    const refused = await put(other.users.owner.key, body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().detail).toMatch(/budgets\[0\]\.team: no team named "Platform"/);
    expect(BudgetList.parse((await get(other.users.owner.key, '/api/v0/organization/budgets')).json()).budgets).toEqual([]);
    const twice = await put(acme.users.owner.key, {
      budgets: [
        { scope: 'team', team: 'Platform', monthlyCredits: 10 },
        { scope: 'team', team: 'PLATFORM', monthlyCredits: 20 },
      ],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().detail).toMatch(/a second budget for the same team/);
  });

  it('go with their team when the directory deletes it: a new team of the name has none', async () => {
    const token = (
      await server.app.inject({ method: 'POST', url: '/api/v0/admin/scim/tokens', headers: bearer(acme.users.owner.key), payload: {} })
    ).json().token as string;
    const scim = (method: 'POST' | 'DELETE', url: string, body?: unknown) =>
      server.app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: { ...bearer(token), ...(body ? { 'content-type': 'application/scim+json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    // The owner joins today, with 600 credits of today's: a budget of 5 reaches 50% at once.
    const group = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Contractors',
      members: [{ value: acme.users.owner.id }],
    };
    const created = await scim('POST', '/Groups', group);
    expect(created.statusCode, created.body).toBe(201);
    const set = await put(acme.users.owner.key, {
      budgets: [
        { scope: 'team', team: 'Platform', monthlyCredits: 800 },
        { scope: 'team', team: 'Contractors', monthlyCredits: 5, thresholds: [50] },
      ],
    });
    expect(set.statusCode, set.body).toBe(200);
    const alertsOf = async () => AlertList.parse((await get(acme.users.owner.key, '/api/v0/organization/alerts')).json()).alerts;
    await waitFor(async () => (await alertsOf()).some((a) => a.budget.team === 'Contractors'), 30_000, "the Contractors' alert");
    const deleted = await scim('DELETE', `/Groups/${created.json().id}`);
    expect(deleted.statusCode, deleted.body).toBe(204);
    const teams = (list: unknown) => BudgetList.parse(list).budgets.map((b) => b.team);
    expect(teams((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json())).toEqual(['Platform']);
    // The same name again is another team: it starts without a budget, and its alerts afresh.
    expect((await scim('POST', '/Groups', group)).statusCode).toBe(201);
    expect(teams((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json())).toEqual(['Platform']);
    expect(await server.db.all("SELECT id FROM budget_alerts WHERE org_id = $org AND target = 'contractors'", { org: acme.orgId })).toEqual(
      [],
    );
    // The alert stays in the history.
    expect((await alertsOf()).filter((a) => a.budget.team === 'Contractors').map((a) => a.threshold)).toEqual([50]);
  });
});
