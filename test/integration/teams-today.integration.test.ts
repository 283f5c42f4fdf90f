// team= on GET /api/v1/analytics/today (docs/metrics.md §6 and §7): today's records over the members on today
// of a team and the teams below it, by the daily rules, with the weekly and monthly active users counting
// today's members active in the window. Hand-worked figures; the minimum team size, the 400s, roles and
// another organization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TodayResponse } from '../../api/today/schema.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { INGEST_PATH, type WireRecord } from '../../common/wire.ts';
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
async function today(key: string, query: string, status = 200) {
  const res = await server.app.inject({ method: 'GET', url: `/api/v1/analytics/today?${query}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(status);
  return status === 200 ? TodayResponse.parse(res.json()).data : (res.json() as { detail: string });
}
const putSettings = (minTeamSize: number) =>
  server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams/settings',
    headers: bearer(acme.users.owner.key),
    payload: { minTeamSize },
  });

// Platform is the parent of Mobile. The member is in Platform; the manager joins Mobile today; the owner
// left Mobile yesterday; the guest is in no team.
const ROSTER = [
  'email,team,parent,from,to',
  'member@acme.example.com,Platform,,,',
  'manager@acme.example.com,Mobile,Platform,2026-03-20,',
  'owner@acme.example.com,Mobile,Platform,,2026-03-19',
].join('\n');

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  const roster = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(acme.users.owner.key), 'content-type': 'text/csv' },
    payload: ROSTER,
  });
  expect(roster.statusCode, roster.body).toBe(200);
  // Earlier this week (the batch's rows): the member on 03-16 and the owner on 03-19 were active.
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.member.id as UserId, [
    turn('2026-03-16', { session_id: 'm0' }),
  ]);
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.owner.id as UserId, [turn('2026-03-19', { session_id: 'o0' })]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 't', level: 'silent' }), now: NOW });
  // Today: the member one turn, a Bash call and 1000 sonnet tokens (1200 credits); the manager one turn,
  // a Read and 500 (600); the owner one turn, a Read and 100 (120).
  await post(acme.users.member.key, [
    turn('2026-03-20T09:00:00Z', { session_id: 'm1' }),
    call('Bash', '2026-03-20T09:01:00Z', { session_id: 'm1' }),
    usage('claude-sonnet-4-5', '2026-03-20T09:02:00Z', { input_tokens: 1000 }, false, 'm1'),
  ]);
  await post(acme.users.manager.key, [
    turn('2026-03-20T09:10:00Z', { session_id: 'g1' }),
    call('Read', '2026-03-20T09:11:00Z', { session_id: 'g1' }),
    usage('claude-sonnet-4-5', '2026-03-20T09:12:00Z', { input_tokens: 500 }, false, 'g1'),
  ]);
  await post(acme.users.owner.key, [
    turn('2026-03-20T09:20:00Z', { session_id: 'o1' }),
    call('Read', '2026-03-20T09:21:00Z', { session_id: 'o1' }),
    usage('claude-sonnet-4-5', '2026-03-20T09:22:00Z', { input_tokens: 100 }, false, 'o1'),
  ]);
}, 60_000);
afterAll(() => server.close());

type Today = TodayResponse['data'];

describe('team= on /today', () => {
  it("counts today's members of the team and the teams below it", async () => {
    const whole = (await today(acme.users.manager.key, '')) as Today;
    expect([whole.tokens.billable_tokens, whole.tools.tool_calls, whole.activity.daily_active_users]).toEqual([1920, 3, 3]);
    // Platform today: the member and Mobile's manager (the owner left Mobile yesterday).
    const platform = (await today(acme.users.manager.key, 'team=platform')) as Today;
    expect(platform.tokens).toMatchObject({ billable_tokens: 1800, input_tokens: 1500 });
    expect(platform.tokens.by_user.map((u) => [u.user_email, u.billable_tokens])).toEqual([
      ['member@acme.example.com', 1200],
      ['manager@acme.example.com', 600],
    ]);
    expect(platform.tools.tool_calls).toBe(2);
    // WAU and MAU: today's members active in the window: the member and the manager; not the owner, who
    // was active yesterday but is no member today.
    expect(platform.activity).toMatchObject({ daily_active_users: 2, weekly_active_users: 2, monthly_active_users: 2, sessions: 2 });
    expect(platform.as_of).toBe('2026-03-20T09:12:00.000Z');
    const mobile = (await today(acme.users.owner.key, 'team=Mobile')) as Today;
    expect([mobile.tokens.billable_tokens, mobile.tools.tool_calls, mobile.activity.daily_active_users]).toEqual([600, 1, 1]);
  });

  it('a team below the minimum size today is 403; unknown teams and parameters 400', async () => {
    expect((await putSettings(2)).statusCode).toBe(200);
    try {
      expect(((await today(acme.users.owner.key, 'team=Mobile', 403)) as { detail: string }).detail).toMatch(/minimum team size \(2\)/);
      expect(((await today(acme.users.owner.key, 'team=Platform')) as Today).tokens.billable_tokens).toBe(1800);
    } finally {
      expect((await putSettings(1)).statusCode).toBe(200);
    }
    expect(((await today(acme.users.owner.key, 'team=Nope', 400)) as { detail: string }).detail).toMatch(/not a team/);
    await today(acme.users.owner.key, 'team=', 400);
    await today(acme.users.owner.key, 'team=Mobile&team=Platform', 400);
    await today(acme.users.owner.key, 'group_by=team', 400);
  });

  it('owners and managers; a member and a guest get 403; another organization has no such team', async () => {
    await today(acme.users.member.key, 'team=Platform', 403);
    await today(acme.users.guest.key, 'team=Platform', 403);
    // A member without team= still gets their own figures.
    expect(((await today(acme.users.member.key, '')) as Today).tokens.billable_tokens).toBe(1200);
    await today(other.users.owner.key, 'team=Platform', 400);
  });
});
