import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { ENFORCEMENT_PATH, LIMITS_PATH, LimitStatus, LimitsUpdate } from '../../api/limits/schema.ts';
import { USERS_PATH } from '../../api/users/schema.ts';
import { limitMessage } from '../../collector/limits.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { usage } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  // The member used 1.2 × 1000 = 1200 credits on 03-10 and 2 × 100 = 200 on 02-27 (last month: not counted).
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.member.id as UserId, [
    usage('claude-sonnet-4-5', '2026-03-10', { input_tokens: 1000 }),
    usage('claude-opus-4-1', '2026-02-27', { input_tokens: 100 }),
  ]);
  await server.services.runBatch({
    trigger: 'cli',
    log: createLogger({ name: 't', level: 'silent' }),
    now: NOW,
    from: '2026-02-01',
    to: '2026-03-19',
  });
});
afterAll(() => server.close());

const put = (key: string, body: unknown, path = LIMITS_PATH) =>
  server.app.inject({ method: 'PUT', url: path, headers: bearer(key), payload: body as object });
const get = (key: string) => server.app.inject({ method: 'GET', url: LIMITS_PATH, headers: bearer(key) });

describe('credit limits', () => {
  it('updates per user, never all-or-nothing: unknown, other-org, negative and duplicate entries are errors', async () => {
    const res = await put(acme.users.manager.key, {
      users: [
        { email: 'member@acme.example.com', limit: 1000 },
        { email: 'GUEST@acme.example.com', limit: 0 },
        { email: 'nobody@acme.example.com', limit: 5 },
        { email: 'member@other.example.com', limit: 5 },
        { email: 'owner@acme.example.com', limit: -1 },
        { email: 'manager@acme.example.com', limit: 10 },
        { email: 'manager@acme.example.com', limit: 20 },
        { email: 'not-an-email', limit: 1 },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = LimitsUpdate.parse(res.json());
    expect(body.updated).toEqual([
      { email: 'member@acme.example.com', limit: 1000 },
      { email: 'guest@acme.example.com', limit: 0 },
    ]);
    expect(body.errors).toEqual([
      { email: 'nobody@acme.example.com', error: 'no user with this email in the organization' },
      { email: 'member@other.example.com', error: 'no user with this email in the organization' },
      { email: 'owner@acme.example.com', error: 'limit must be a whole number of credits, 0 or more' },
      { email: 'manager@acme.example.com', error: 'this email appears more than once in the request' },
      { email: 'manager@acme.example.com', error: 'this email appears more than once in the request' },
      { email: 'not-an-email', error: expect.stringContaining('email') },
    ]);
  });

  it('reports each limit and the credits used this calendar month, from the aggregates', async () => {
    const status = LimitStatus.parse((await get(acme.users.owner.key)).json());
    expect(status).toMatchObject({ month: '2026-03', enforced: false, userId: acme.users.owner.id });
    const member = status.users.find((u) => u.email === 'member@acme.example.com')!;
    expect(member).toEqual({ userId: acme.users.member.id, email: 'member@acme.example.com', limit: 1000, used: 1200, over: true });
    expect(status.users.find((u) => u.email === 'owner@acme.example.com')).toMatchObject({ limit: null, used: 0, over: false });
    expect(status.users.some((u) => u.email.endsWith('other.example.com'))).toBe(false);
    // A member sees only themself: what the collector needs.
    const mine = LimitStatus.parse((await get(acme.users.member.key)).json());
    expect(mine.users.map((u) => u.userId)).toEqual([acme.users.member.id]);
    expect(limitMessage(mine)).toBeUndefined(); // not enforced yet
    expect((await put(acme.users.owner.key, { enabled: true }, ENFORCEMENT_PATH)).statusCode).toBe(200);
    const enforced = LimitStatus.parse((await get(acme.users.member.key)).json());
    expect(limitMessage(enforced)).toContain('you have used 1200 of your 1000 Standard Credits for 2026-03');
    expect(LimitStatus.parse((await get(other.users.member.key)).json()).enforced).toBe(false);
  });

  it('a manager sets limits (0 included) only for members and guests; an owner for anyone', async () => {
    const res = await put(acme.users.manager.key, {
      users: [
        { email: 'owner@acme.example.com', limit: 0 },
        { email: 'manager@acme.example.com', limit: 0 },
        { email: 'guest@acme.example.com', limit: 0 },
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(LimitsUpdate.parse(res.json())).toEqual({
      updated: [{ email: 'guest@acme.example.com', limit: 0 }],
      errors: [
        { email: 'owner@acme.example.com', error: 'a manager can set credit limits only for members and guests' },
        { email: 'manager@acme.example.com', error: 'a manager can set credit limits only for members and guests' },
      ],
    });
    const status = LimitStatus.parse((await get(acme.users.owner.key)).json());
    expect(status.users.find((u) => u.email === 'owner@acme.example.com')?.limit).toBeNull();
    expect(status.users.find((u) => u.email === 'manager@acme.example.com')?.limit).toBeNull();
    const byOwner = LimitsUpdate.parse(
      (await put(acme.users.owner.key, { users: [{ email: 'manager@acme.example.com', limit: 5 }] })).json(),
    );
    expect(byOwner).toEqual({ updated: [{ email: 'manager@acme.example.com', limit: 5 }], errors: [] });
  });

  it("everyone's entries are kept until a change, and a user added (by an owner or by the directory) is one", async () => {
    const emails = async () => LimitStatus.parse((await get(acme.users.manager.key)).json()).users.map((u) => u.email);
    const before = await emails();
    expect(before).not.toContain('newcomer@acme.example.com');
    const added = await server.app.inject({
      method: 'POST',
      url: USERS_PATH,
      headers: bearer(acme.users.owner.key),
      payload: { email: 'newcomer@acme.example.com', role: 'member' },
    });
    expect(added.statusCode).toBe(201);
    expect(await emails()).toEqual([...before, 'newcomer@acme.example.com'].sort());
    // SCIM and OIDC sign-in add people through the same store, without a route of the users feature.
    await server.services.accounts.createUser({ orgId: acme.orgId as OrgId, email: 'provisioned@acme.example.com', role: 'member' });
    expect(await emails()).toContain('provisioned@acme.example.com');
  });

  it('roles and bad bodies', async () => {
    expect((await put(acme.users.member.key, { users: [{ email: 'member@acme.example.com', limit: 1 }] })).statusCode).toBe(403);
    expect((await put(acme.users.manager.key, { enabled: false }, ENFORCEMENT_PATH)).statusCode).toBe(403);
    expect((await get(acme.users.guest.key)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: LIMITS_PATH })).statusCode).toBe(401);
    for (const body of [
      {},
      { users: [] },
      { users: Array.from({ length: 101 }, (_, i) => ({ email: `u${i}@x.com`, limit: 1 })) },
      { users: [], extra: 1 },
    ]) {
      const res = await put(acme.users.owner.key, body);
      expect(res.statusCode).toBe(400);
      ErrorBodySchema.parse(res.json());
    }
    expect((await put(acme.users.owner.key, { enabled: 'yes' }, ENFORCEMENT_PATH)).statusCode).toBe(400);
  });
});
