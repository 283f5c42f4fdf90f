// GET /api/v1/analytics/today: the daily records of the current UTC day, by the batch's own rules, over
// what has arrived; members see their own; guests 403; nothing crosses organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MeStatus } from '../../api/me/schema.ts';
import { TodayResponse } from '../../api/today/schema.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { INGEST_PATH, type WireRecord } from '../../common/wire.ts';
import { buildStepTargets } from '../../pipeline/batch.ts';
import { call, turn, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

async function post(key: string, records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
}

const today = async (key: string) => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/analytics/today', headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return TodayResponse.parse(res.json());
};

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  // Yesterday (built by the batch): the owner was active and used 2 × 100 = 200 credits of opus.
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.owner.id as UserId, [
    turn('2026-03-19', { session_id: 'o1' }),
    usage('claude-opus-4-1', '2026-03-19', { input_tokens: 100 }, false, 'o1'),
  ]);
  await server.services.runBatch({
    trigger: 'cli',
    log: createLogger({ name: 't', level: 'silent' }),
    now: NOW,
    from: '2026-03-01',
    to: '2026-03-19',
  });
});
afterAll(() => server.close());

describe('today so far', () => {
  it('counts what arrived today by the daily rules; the month is in the live figures', async () => {
    // The member: one turn, two tool calls (one MCP), 1000 input tokens of sonnet (× 1.2 = 1200).
    await post(acme.users.member.key, [
      turn('2026-03-20T09:00:00Z', { session_id: 'm1' }),
      call('Bash', '2026-03-20T09:01:00Z', { session_id: 'm1' }),
      call('mcp__GitHub__create_issue', '2026-03-20T09:02:00Z', { session_id: 'm1' }),
      usage('claude-sonnet-4-5', '2026-03-20T09:03:00Z', { input_tokens: 1000 }, false, 'm1'),
    ]);
    // The manager: one turn in another session, 500 output tokens of opus (× 2 = 1000).
    await post(acme.users.manager.key, [
      turn('2026-03-20T09:30:00Z', { session_id: 'g1' }),
      usage('claude-opus-4-1', '2026-03-20T09:31:00Z', { output_tokens: 500 }, false, 'g1'),
    ]);
    const body = await today(acme.users.manager.key);
    // The analytics envelope's meta (service-api.md): the day asked for is the range, as on the daily endpoints.
    expect(body.meta).toEqual({ org_id: acme.orgId, start_date: '2026-03-20', end_date: '2026-03-20', unpriced_models: [] });
    const d = body.data;
    expect(d).toMatchObject({ date: '2026-03-20', provisional: true, as_of: '2026-03-20T09:31:00.000Z' });
    // No edit and no landed commit today: the code record of the day, zeros.
    expect(d.code).toMatchObject({ date: '2026-03-20', edits: { lines_added: 0 }, landed: { commits: 0, agent_share: 0 } });
    expect(d.tokens).toMatchObject({ date: '2026-03-20', billable_tokens: 2200, input_tokens: 1000, output_tokens: 500 });
    expect(d.tokens.by_user.map((u) => [u.user_email, u.billable_tokens])).toEqual([
      ['member@acme.example.com', 1200],
      ['manager@acme.example.com', 1000],
    ]);
    expect(d.tools).toMatchObject({ tool_calls: 2, mcp_users_with_mcp: 1, mcp_by_server: [{ server: 'github', invocations: 1 }] });
    // DAU 2 today; WAU and MAU also count the owner, active yesterday (the batch's row).
    expect(d.activity).toMatchObject({
      daily_active_users: 2,
      weekly_active_users: 3,
      monthly_active_users: 3,
      sessions: 2,
      user_messages: 2,
    });
    expect(d.productivity).toMatchObject({ date: '2026-03-20', files_created: 0 });
    // The month so far: yesterday's 200 from the batch and today's 2200.
    const figures = await server.services.live.figures({ orgId: acme.orgId });
    expect(figures.month.credits).toBe(2400);
    expect(figures.month.byUser.get(acme.users.owner.id)).toBe(200);
    // A credits build (the tokens step alone, for budgets and limits) agrees, built on its own.
    server.services.live.clear();
    const credits = await server.services.live.figures({ orgId: acme.orgId }, 'credits');
    expect(credits.kind).toBe('credits');
    expect([credits.month.credits, credits.month.byUser.get(acme.users.member.id)]).toEqual([2400, 1200]);
  });

  it('shows a record within seconds of its arrival', async () => {
    const before = (await today(acme.users.owner.key)).data.tools.tool_calls;
    await post(acme.users.member.key, [call('Read', '2026-03-20T09:40:00Z', { session_id: 'm1' })]);
    expect((await today(acme.users.owner.key)).data.tools.tool_calls).toBe(before + 1);
  });

  it("gives a member their own figures only, a guest 403 and another organization nothing of Acme's", async () => {
    const mine = (await today(acme.users.member.key)).data;
    expect(mine.tokens.billable_tokens).toBe(1200);
    expect(mine.tokens.by_user.map((u) => u.user_email)).toEqual(['member@acme.example.com']);
    expect(mine.activity).toMatchObject({ daily_active_users: 1, weekly_active_users: 1 });
    expect(mine.tools.tool_calls).toBe(3);
    const guest = await server.app.inject({ method: 'GET', url: '/api/v1/analytics/today', headers: bearer(acme.users.guest.key) });
    expect(guest.statusCode).toBe(403);
    expect(guest.json()).toMatchObject({ status: 403, requestId: expect.any(String) });
    const theirs = (await today(other.users.owner.key)).data;
    expect(theirs).toMatchObject({ as_of: null, tokens: { billable_tokens: 0, by_user: [] }, tools: { tool_calls: 0 } });
    expect(theirs.activity.daily_active_users).toBe(0);
    expect((await server.app.inject({ method: 'GET', url: '/api/v1/analytics/today' })).statusCode).toBe(401);
  });

  it("answers each person's own status: today, the month, the limit and its share", async () => {
    const status = async (key: string) => {
      const res = await server.app.inject({ method: 'GET', url: '/api/v0/me/status', headers: bearer(key) });
      expect(res.statusCode, res.body).toBe(200);
      return MeStatus.parse(res.json());
    };
    // The owner: 200 credits yesterday, none today, no limit.
    expect(await status(acme.users.owner.key)).toEqual({
      date: '2026-03-20',
      month: '2026-03',
      today_credits: 0,
      month_credits: 200,
      limit: null,
      share: null,
      enforced: false,
    });
    // The member: 1200 today; a credit limit of 1000 and an own budget of 1500: the limit is 1000.
    const limits = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/usage/limits/users',
      headers: bearer(acme.users.owner.key),
      payload: { users: [{ email: 'member@acme.example.com', limit: 1000 }] },
    });
    expect(limits.statusCode).toBe(200);
    const budgets = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/budgets',
      headers: bearer(acme.users.owner.key),
      payload: { budgets: [{ scope: 'user', email: 'member@acme.example.com', monthlyCredits: 1500 }] },
    });
    expect(budgets.statusCode, budgets.body).toBe(200);
    expect(await status(acme.users.member.key)).toMatchObject({ today_credits: 1200, month_credits: 1200, limit: 1000, share: 120 });
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/me/status', headers: bearer(acme.users.guest.key) })).statusCode).toBe(
      403,
    );
    expect(await status(other.users.member.key)).toMatchObject({ today_credits: 0, month_credits: 0, limit: null });
  });

  it("leaves every table the batch writes as the batch left it: no row of today, yesterday's intact", async () => {
    for (const table of buildStepTargets()) {
      const [row] = await server.db.all<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE day = DATE '2026-03-20'`);
      expect(row!.n, table).toBe(0);
    }
    // The member's builds rebuilt 2026-03-19 too (records since the last batch) over the member's rows
    // only: the batch's own rows of that day still have the owner's.
    const [day] = await server.db.all<{ dau: number; credits: number }>(
      "SELECT (SELECT daily_active_users FROM agg_org_day WHERE day = DATE '2026-03-19') AS dau, (SELECT sum(billable_tokens) FROM agg_tokens_day WHERE day = DATE '2026-03-19') AS credits",
    );
    expect(day).toEqual({ dau: 1, credits: 200 });
  });
});
