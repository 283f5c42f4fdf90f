// Budgets and alerts: the list and its month usage, each threshold fired once (several in one step; none
// again after more usage or a restart), signed webhooks checked by a receiver, an unreachable destination
// retried then kept as undelivered, and destinations on private addresses refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertList, BudgetList, ThresholdEvent } from '../../api/budgets/schema.ts';
import { BudgetStore } from '../../api/budgets/store.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { INGEST_PATH, type WireRecord } from '../../common/wire.ts';
import { waitFor } from '../helpers/processes.ts';
import { usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const SECRET = 'whsec-0123456789abcdef';
const ALERTS = { allowPrivate: true, maxAttempts: 3, retryDelayMs: 50, settleMs: 20 };
const dbPath = join(tempDir(), 'budgets.duckdb');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const received: Delivery[] = [];
const receiver = webhookReceiverForTests(received);

/**
 * What docs/budgets.md tells a receiver to do with X-Agentmeter-Signature-V1: recompute the HMAC of
 * "<t>.<body>", compare in constant time, and refuse a t more than 5 minutes away from its own clock.
 */
function receiverAccepts(header: string | undefined, body: string, nowSeconds: number): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts['t']);
  if (!Number.isInteger(t) || !parts['v1'] || Math.abs(nowSeconds - t) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex'));
  const given = Buffer.from(parts['v1']);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
let receiverUrl: string;
let closedUrl: string;

async function post(key: string, records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
}
const put = (key: string, body: unknown, on = server) =>
  on.app.inject({ method: 'PUT', url: '/api/v0/organization/budgets', headers: bearer(key), payload: body as object });
/** The organization's budget of 1,000 credits with these destinations, put by the owner. */
const putOrgBudget = (destinations: unknown[]) =>
  put(acme.users.owner.key, { budgets: [{ scope: 'org', monthlyCredits: 1000, destinations }] });
const get = (key: string, url: string) => server.app.inject({ method: 'GET', url, headers: bearer(key) });
const alerts = async () => AlertList.parse((await get(acme.users.manager.key, '/api/v0/organization/alerts')).json()).alerts;

beforeAll(async () => {
  receiverUrl = `${receiver.url}/hooks/agentmeter`;
  // A port nothing listens on: taken, then let go.
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/gone`;
  await new Promise((r) => closed.close(r));
  server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(async () => {
  await server.close();
});

describe('budgets', () => {
  it('are set by owners only, read by managers and owners, and never cross organizations', async () => {
    const body = {
      budgets: [{ scope: 'org', monthlyCredits: 1000, destinations: [{ type: 'webhook', url: receiverUrl, secret: SECRET }] }],
    };
    for (const role of ['manager', 'member', 'guest'] as const) expect((await put(acme.users[role].key, body)).statusCode, role).toBe(403);
    for (const role of ['member', 'guest'] as const)
      expect((await get(acme.users[role].key, '/api/v0/organization/budgets')).statusCode).toBe(403);
    expect((await get(acme.users.member.key, '/api/v0/organization/alerts')).statusCode).toBe(403);
    const res = await put(acme.users.owner.key, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(SECRET);
    const list = BudgetList.parse(res.json());
    expect(list).toEqual({
      month: '2026-03',
      budgets: [
        {
          scope: 'org',
          monthlyCredits: 1000,
          unit: 'credits',
          thresholds: [50, 75, 90, 100],
          destinations: [{ type: 'webhook', url: `${new URL(receiverUrl).origin}/…`, secret: 'set' }],
          usage: 0,
          percentage: 0,
        },
      ],
    });
    expect(BudgetList.parse((await get(other.users.owner.key, '/api/v0/organization/budgets')).json()).budgets).toEqual([]);
  });

  it('shows a destination as its scheme and host only, to managers and owners (the CLI and the dashboard print the answer)', async () => {
    const token = 'receiver-token-0123456789';
    // The secret in the path: Discord's /api/webhooks/<id>/<token>, Slack's /services/T…/B…/<secret>.
    const discordToken = 'dIsCoRdToKeN-0123456789abcdefghijklmnopqrstuvwxyz';
    const slackSecret = 'sLaCkSeCrEt0123456789abc';
    const res = await putOrgBudget([
      { type: 'webhook', url: `${receiverUrl}?token=${token}` },
      { type: 'slack', url: `${receiverUrl}/T000/B000/XXXX` },
      { type: 'webhook', url: `${new URL(receiverUrl).origin}/api/webhooks/1234567890/${discordToken}` },
      { type: 'slack', url: `${new URL(receiverUrl).origin}/services/T0AAAA/B0BBBB/${slackSecret}` },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const origin = new URL(receiverUrl).origin;
    for (const answer of [res, await get(acme.users.manager.key, '/api/v0/organization/budgets')]) {
      for (const secret of [token, 'XXXX', discordToken, '1234567890', slackSecret, 'T0AAAA', 'hooks/agentmeter'])
        expect(answer.body).not.toContain(secret);
      expect(BudgetList.parse(answer.json()).budgets[0]!.destinations.map((d) => d.url)).toEqual([
        `${origin}/…`,
        `${origin}/…`,
        `${origin}/…`,
        `${origin}/…`,
      ]);
    }
    // Back to two of them, the list put back below.
    const twoOfThem = await putOrgBudget([
      { type: 'webhook', url: `${receiverUrl}?token=${token}` },
      { type: 'slack', url: `${receiverUrl}/T000/B000/XXXX` },
    ]);
    // Put back as answered (masked), the destinations keep the URLs stored.
    const answered = BudgetList.parse(twoOfThem.json()).budgets[0]!;
    const putBack = await putOrgBudget(answered.destinations.map(({ type, url }) => ({ type, url })));
    expect(putBack.statusCode, putBack.body).toBe(200);
    const store = new BudgetStore(server.db);
    const stored = store.seal.open((await store.list(acme.orgId))[0]!.destinations).map((d) => d.url);
    expect(stored).toEqual([`${receiverUrl}?token=${token}`, `${receiverUrl}/T000/B000/XXXX`]);
    // Two of a kind that show alike (two Slack channels, two webhooks differing in their masked query and
    // secret) stay two when put back as answered.
    const alike = [
      { type: 'slack', url: `${receiverUrl}/T000/B000/AAAA` },
      { type: 'slack', url: `${receiverUrl}/T000/B111/BBBB` },
      { type: 'webhook', url: `${receiverUrl}?token=aaa`, secret: 'secret-of-the-first-hook' },
      { type: 'webhook', url: `${receiverUrl}?token=bbb`, secret: 'secret-of-the-second-hook' },
    ];
    const two = await putOrgBudget(alike);
    expect(two.statusCode, two.body).toBe(200);
    const shownTwo = BudgetList.parse(two.json()).budgets[0]!.destinations.map(({ type, url }) => ({ type, url }));
    expect((await putOrgBudget(shownTwo)).statusCode).toBe(200);
    expect(store.seal.open((await store.list(acme.orgId))[0]!.destinations)).toEqual(alike);
    // One of two that show alike put back as shown: which was kept cannot be told, so nothing changes.
    const oneOfTwo = await putOrgBudget([shownTwo[1]!, shownTwo[2]!, shownTwo[3]!]);
    expect(oneOfTwo.statusCode).toBe(400);
    expect(oneOfTwo.json().detail).toMatch(/2 stored destinations show as .* give the full URL of each one to keep/);
    expect(store.seal.open((await store.list(acme.orgId))[0]!.destinations)).toEqual(alike);
    // Named in full, the one kept is the one named.
    const keptOne = await putOrgBudget([alike[1]!, shownTwo[2]!, shownTwo[3]!]);
    expect(keptOne.statusCode, keptOne.body).toBe(200);
    expect(store.seal.open((await store.list(acme.orgId))[0]!.destinations)).toEqual(alike.slice(1));
    // Back to the list the alert tests below expect.
    const back = await putOrgBudget([{ type: 'webhook', url: receiverUrl, secret: SECRET }]);
    expect(back.statusCode).toBe(200);
  });

  it('refuses unknown teams, unknown users and repeated budgets with a clear 400', async () => {
    const cases: [unknown, RegExp][] = [
      [{ scope: 'team', team: 'platform', monthlyCredits: 10 }, /no team named "platform"/],
      [{ scope: 'user', email: 'member@other.example.com', monthlyCredits: 10 }, /no user with this email/],
      [{ scope: 'user', monthlyCredits: 10 }, /email/],
      [{ scope: 'org', monthlyCredits: 0 }, /monthlyCredits/],
      [{ scope: 'org', monthlyCredits: 10, thresholds: [50, 50] }, /repeat/],
      [{ scope: 'org', monthlyCredits: 10, destinations: [{ type: 'webhook', url: 'ftp://x.example.com/' }] }, /http or https/],
      [{ scope: 'org', monthlyCredits: 10, destinations: [{ type: 'webhook', url: 'https://discord.com/…' }] }, /as shown .*full URL/],
    ];
    for (const [budget, detail] of cases) {
      const res = await put(acme.users.owner.key, { budgets: [budget] });
      expect(res.statusCode, JSON.stringify(budget)).toBe(400);
      expect(res.json()).toMatchObject({ status: 400, detail: expect.stringMatching(detail), requestId: expect.any(String) });
    }
    const twice = await put(acme.users.owner.key, {
      budgets: [
        { scope: 'org', monthlyCredits: 1 },
        { scope: 'org', monthlyCredits: 2 },
      ],
    });
    expect(twice.statusCode).toBe(400);
    // The list as it was.
    expect(BudgetList.parse((await get(acme.users.owner.key, '/api/v0/organization/budgets')).json()).budgets).toHaveLength(1);
  });

  it('refuses destinations on loopback, private and link-local addresses without --allow-private-webhooks', async () => {
    const strict = await testServer({ now: () => NOW });
    try {
      const org = await strict.seedOrg('Strict');
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://10.0.0.8/x',
        'http://169.254.169.254/latest',
        'http://[::1]:8080/x',
        'https://localhost/x',
        'http://192.168.1.1/',
      ]) {
        const res = await put(
          org.users.owner.key,
          { budgets: [{ scope: 'org', monthlyCredits: 5, destinations: [{ type: 'slack', url }] }] },
          strict,
        );
        expect(res.statusCode, url).toBe(400);
        expect(res.json().detail).toMatch(/private, loopback or link-local address/);
      }
    } finally {
      await strict.close();
    }
  });
});

describe('alerts', () => {
  it('fires every threshold crossed in one step, once each, signed, within seconds', async () => {
    // The member: 1000 input tokens of sonnet 4.5 (× 1.2) = 1200 credits: 120% of 1000 at once.
    const started = Date.now();
    await post(acme.users.member.key, [usage('claude-sonnet-4-5', '2026-03-20T09:00:00Z', { input_tokens: 1000 })]);
    await waitFor(() => received.length >= 4, 30_000, 'four alerts');
    expect(Date.now() - started).toBeLessThan(60_000);
    const events = received.map((r) => {
      // The signature of before stays for one release; the timestamped one is what a receiver checks.
      expect(r.headers['x-agentmeter-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
      const v1 = r.headers['x-agentmeter-signature-v1'] as string;
      expect(v1).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const t = Number(/^t=(\d+)/.exec(v1)![1]);
      expect(receiverAccepts(v1, r.body, t + 60)).toBe(true);
      // Replayed 5 minutes and a second later, it is refused; a t moved forward breaks the signature.
      expect(receiverAccepts(v1, r.body, t + 301)).toBe(false);
      expect(receiverAccepts(v1.replace(`t=${t}`, `t=${t + 301}`), r.body, t + 301)).toBe(false);
      expect(receiverAccepts(v1, `${r.body} `, t)).toBe(false);
      const e = ThresholdEvent.parse(JSON.parse(r.body));
      expect(r.headers['x-agentmeter-event-id']).toBe(e.id);
      return e;
    });
    expect(events.map((e) => e.threshold).sort((a, b) => a - b)).toEqual([50, 75, 90, 100]);
    for (const e of events)
      expect(e).toMatchObject({
        type: 'budget.threshold',
        org_id: acme.orgId,
        budget: { scope: 'org', monthlyCredits: 1000 },
        usage: 1200,
        limit: 1000,
        month: '2026-03',
      });
    await server.services.alerts.idle();
    const list = await alerts();
    expect(list).toHaveLength(4);
    for (const a of list)
      expect(a.deliveries).toEqual([
        { type: 'webhook', state: 'delivered', attempts: 1, last_error: null, delivered_at: expect.any(String) },
      ]);
    const budgets = BudgetList.parse((await get(acme.users.manager.key, '/api/v0/organization/budgets')).json()).budgets;
    expect(budgets[0]).toMatchObject({ usage: 1200, percentage: 120 });
  });

  it('fires none again after more usage, a list put again, or a restart', async () => {
    await post(acme.users.member.key, [usage('claude-sonnet-4-5', '2026-03-20T09:10:00Z', { input_tokens: 500 })]);
    // Put again without the secret: the URL keeps it.
    const again = await putOrgBudget([{ type: 'webhook', url: receiverUrl }]);
    expect(BudgetList.parse(again.json()).budgets[0]!.destinations[0]).toEqual({
      type: 'webhook',
      url: `${new URL(receiverUrl).origin}/…`,
      secret: 'set',
    });
    await new Promise((r) => setTimeout(r, 200));
    await server.services.alerts.idle();
    expect(received).toHaveLength(4);
    await server.close();
    server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
    await server.services.alerts.idle();
    await post(acme.users.member.key, [usage('claude-sonnet-4-5', '2026-03-20T09:20:00Z', { input_tokens: 500 })]);
    await new Promise((r) => setTimeout(r, 200));
    await server.services.alerts.idle();
    expect(received).toHaveLength(4);
    expect(await alerts()).toHaveLength(4);
  });

  it('sends after a restart an alert that was stored but not yet sent when the server stopped', async () => {
    await server.close();
    const db = await openDb(dbPath);
    const store = new BudgetStore(db);
    const id = await store.fire(
      {
        scope: 'org',
        target: 'org',
        team: null,
        userId: null,
        email: null,
        monthlyCredits: 1000,
        monthlyUsd: null,
        thresholds: [150],
        destinations: store.seal.seal([{ type: 'webhook', url: receiverUrl, secret: SECRET }]),
      },
      {
        org_id: acme.orgId,
        budget: { scope: 'org', monthlyCredits: 1000 },
        threshold: 150,
        unit: 'credits',
        usage: 1700,
        limit: 1000,
        month: '2026-03',
        fired_at: NOW.toISOString(),
      },
    );
    await db.close();
    server = await testServer({ now: () => NOW, alerts: ALERTS, dbPath });
    await waitFor(() => received.some((r) => r.headers['x-agentmeter-event-id'] === id), 30_000, 'the stored alert');
    expect(received).toHaveLength(5);
    const last = received.at(-1)!;
    expect(last.headers['x-agentmeter-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(last.body).digest('hex')}`);
    expect(ThresholdEvent.parse(JSON.parse(last.body))).toMatchObject({ id, threshold: 150, fired_at: NOW.toISOString() });
  });

  it('retries an unreachable destination, then keeps the alert as undelivered; the server is unharmed', async () => {
    const res = await put(acme.users.owner.key, {
      budgets: [
        { scope: 'org', monthlyCredits: 1000, destinations: [{ type: 'webhook', url: receiverUrl }] },
        {
          scope: 'user',
          email: 'Manager@acme.example.com',
          monthlyCredits: 100,
          thresholds: [100],
          destinations: [{ type: 'slack', url: closedUrl }],
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(BudgetList.parse(res.json()).budgets[1]).toMatchObject({ scope: 'user', email: 'manager@acme.example.com', usage: 0 });
    // The manager: 500 output tokens of opus 4.1 (× 2) = 1000 credits, 1000% of 100.
    await post(acme.users.manager.key, [usage('claude-opus-4-1', '2026-03-20T09:30:00Z', { output_tokens: 500 })]);
    await waitFor(
      async () => (await alerts()).some((a) => a.budget.scope === 'user' && a.deliveries[0]!.state === 'undelivered'),
      30_000,
      'undelivered',
    );
    const mine = (await alerts()).filter((a) => a.budget.scope === 'user');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      threshold: 100,
      usage: 1000,
      limit: 100,
      budget: { scope: 'user', email: 'manager@acme.example.com', monthlyCredits: 100 },
    });
    expect(mine[0]!.deliveries).toEqual([
      { type: 'slack', state: 'undelivered', attempts: 3, last_error: expect.stringMatching(/ECONNREFUSED/), delivered_at: null },
    ]);
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // Other organizations see none of it.
    expect(AlertList.parse((await get(other.users.owner.key, '/api/v0/organization/alerts')).json()).alerts).toEqual([]);
  });
});
