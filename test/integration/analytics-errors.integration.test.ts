// Every 400 case of docs/metrics.md §4, the auth matrix (owner, manager, member, guest, none, other org),
// and the documented error body with the request id of the log line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { ev } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.member.id as UserId, [
    ev('Stop', '2026-03-02'),
    ev('Stop', '2026-03-02'),
  ]);
  await server.services.ingest.storeRecords(other.orgId as OrgId, other.users.member.id as UserId, [ev('Stop', '2026-03-02')]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 't', level: 'silent' }), now: NOW });
});
afterAll(() => server.close());

const request = (path: string, key?: string) => server.app.inject({ method: 'GET', url: path, headers: key ? bearer(key) : {} });

describe('analytics parameter errors → 400 with the error body', () => {
  const cases: [string, string, string][] = [
    ['tokens', 'endDate=2026-03-02', 'startDate is required'],
    ['tokens', 'startDate=2026-03-02', 'endDate is required'],
    ['tokens', 'startDate=2026-3-2&endDate=2026-03-02', 'not a valid date'],
    ['tools', 'startDate=2026-02-30&endDate=2026-03-02', 'not a valid date'],
    ['activity', 'startDate=2026-03-02&endDate=yesterday', 'not a valid date'],
    ['activity', 'startDate=2026-03-05&endDate=2026-03-02', 'after endDate'],
    ['productivity', 'startDate=2026-03-02&endDate=2026-03-20', 'before today'],
    ['productivity', 'startDate=2026-03-02&endDate=2026-04-01', 'before today'],
    ['users', 'startDate=2026-01-13&endDate=2026-03-02', '2026-01-14 or later'],
    ['tokens', 'startDate=2026-01-14&endDate=2027-01-15', 'before today'],
    ['tokens', 'startDate=2026-01-14&endDate=2026-03-02&group_by=user', 'group_by "user" is not supported'],
    ['tools', 'startDate=2026-01-14&endDate=2026-03-02&group_by=model', 'group_by "model" is not supported'],
    [
      'productivity',
      'startDate=2026-01-14&endDate=2026-03-02&group_by=client',
      'group_by "client" is not supported here; use "agent" or "tool_name" or "language" or "team"',
    ],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&limit=0', 'limit must be a whole number from 1 to 100'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&limit=101', 'limit must be'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&limit=ten', 'limit must be'],
    ['tokens', 'startDate=2026-03-01&endDate=2026-03-02&limit=5', 'unknown query parameter "limit"'],
    // A cursor that is not a user id: before every id it gave the first page again, after them an empty one.
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&cursor=abc', 'cursor must be a user id'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&cursor=zzz', 'cursor must be a user id'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&cursor=usr_0123', 'cursor must be a user id'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&cursor=org_0123456789abcdef', 'cursor must be a user id'],
    ['users', 'startDate=2026-03-01&endDate=2026-03-02&cursor=', 'cursor must be a user id'],
    ['tokens', 'startDate=2026-03-01&startDate=2026-03-02&endDate=2026-03-02', 'more than once'],
  ];
  it.each(cases)('%s?%s', async (endpoint, query, detail) => {
    const res = await request(`/api/v1/analytics/${endpoint}?${query}`, acme.users.manager.key);
    expect(res.statusCode).toBe(400);
    const body = ErrorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(body.detail).toContain(detail);
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });

  it('a span over 366 days is refused; 366 days is fine', async () => {
    const spanNow = new Date('2027-06-01T00:00:00Z');
    const s = await testServer({ now: () => spanNow });
    const o = await s.seedOrg('Span');
    const over = await s.app.inject({
      method: 'GET',
      url: '/api/v1/analytics/tokens?startDate=2026-01-14&endDate=2027-01-15',
      headers: bearer(o.users.owner.key),
    });
    expect(over.statusCode).toBe(400);
    expect(over.json().detail).toContain('spans 367 days');
    const ok = await s.app.inject({
      method: 'GET',
      url: '/api/v1/analytics/tokens?startDate=2026-01-14&endDate=2027-01-14',
      headers: bearer(o.users.owner.key),
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toHaveLength(366);
    await s.close();
  });
});

describe('analytics auth matrix', () => {
  const path = '/api/v1/analytics/activity?startDate=2026-03-02&endDate=2026-03-02';
  it('owner and manager read their own organization only', async () => {
    for (const role of ['owner', 'manager'] as const) {
      const res = await request(path, acme.users[role].key);
      expect(res.statusCode).toBe(200);
      expect(res.json().meta.org_id).toBe(acme.orgId);
      expect(res.json().data[0].daily_active_users).toBe(1);
    }
    const theirs = await request(path, other.users.manager.key);
    expect(theirs.json().meta.org_id).toBe(other.orgId);
    expect(theirs.json().data[0].daily_active_users).toBe(1);
    const users = await request('/api/v1/analytics/users?startDate=2026-03-02&endDate=2026-03-02', other.users.manager.key);
    expect(users.json().data.map((r: { user_id: string }) => r.user_id)).toEqual([other.users.member.id]);
  });
  it('members and guests get 403; no or a bad credential gets 401', async () => {
    for (const endpoint of ['tokens', 'tools', 'activity', 'productivity', 'users']) {
      const url = `/api/v1/analytics/${endpoint}?startDate=2026-03-02&endDate=2026-03-02`;
      for (const role of ['member', 'guest'] as const) {
        const res = await request(url, acme.users[role].key);
        expect(res.statusCode).toBe(403);
        expect(ErrorBodySchema.parse(res.json()).detail).toContain('owner or manager');
      }
      expect((await request(url)).statusCode).toBe(401);
      expect((await request(url, 'am_forged')).statusCode).toBe(401);
    }
  });
  it('a cursor from another organization reveals nothing', async () => {
    const res = await request(
      `/api/v1/analytics/users?startDate=2026-03-02&endDate=2026-03-02&cursor=${other.users.member.id}`,
      acme.users.manager.key,
    );
    expect(res.statusCode).toBe(200);
    for (const row of res.json().data as { user_id: string }[]) expect(row.user_id > other.users.member.id).toBe(true);
    expect(JSON.stringify(res.json())).not.toContain(other.orgId);
  });
});

describe('batch through the server', () => {
  it('managers may run it; members may not', async () => {
    const ok = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/batch',
      headers: bearer(acme.users.manager.key),
      payload: { from: '2026-03-01', to: '2026-03-02' },
    });
    expect(ok.statusCode).toBe(200);
    // Clamped to the organization's days that can hold data: its first record is on 03-02.
    expect(ok.json()).toMatchObject({ mode: 'range', days: 1, firstDay: '2026-03-02', lastDay: '2026-03-02' });
    const refused = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/batch',
      headers: bearer(acme.users.member.key),
      payload: {},
    });
    expect(refused.statusCode).toBe(403);
    const bad = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/batch',
      headers: bearer(acme.users.owner.key),
      payload: { from: 'March' },
    });
    expect(bad.statusCode).toBe(400);
  });
});
