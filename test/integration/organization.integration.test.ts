import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { UserList } from '../../api/users/schema.ts';
import type { OrgId } from '../../common/ids.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer();
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  for (let i = 0; i < 7; i++)
    await server.services.accounts.createUser({
      orgId: acme.orgId as OrgId,
      email: `dev${i}@acme.example.com`,
      role: 'member',
      firstName: `Dev${i}`,
    });
});
afterAll(() => server.close());

const get = (key: string, query = '') =>
  server.app.inject({ method: 'GET', url: `/api/v0/organization/users${query}`, headers: bearer(key) });

describe('GET /api/v0/organization/users', () => {
  it('pages the whole organization in id order, no skip or repeat while users are added', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let added = false;
    for (;;) {
      const res = await get(acme.users.manager.key, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = UserList.parse(res.json());
      seen.push(...body.users.map((u) => u.id));
      if (!added) {
        await server.services.accounts.createUser({ orgId: acme.orgId as OrgId, email: 'late@acme.example.com', role: 'guest' });
        added = true;
      }
      if (!body.pagination.hasMore) break;
      cursor = body.pagination.nextCursor;
      expect(cursor).toBe(body.users.at(-1)!.id);
    }
    const before = (
      await server.db.all<{ id: string }>("SELECT id FROM users WHERE org_id = $org AND email <> 'late@acme.example.com' ORDER BY id", {
        org: acme.orgId,
      })
    ).map((r) => r.id);
    expect(before).toHaveLength(11); // 4 seeded roles + 7 developers
    // Everyone who existed when the walk began was seen exactly once; the late user at most once.
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen.filter((s) => s === id)).toHaveLength(1);
  });

  it('the reference shape; a member sees only themself; guests 403; bad limits 400; other orgs never listed', async () => {
    const first = UserList.parse((await get(acme.users.owner.key, '?limit=100')).json());
    const dev = first.users.find((u) => u.email === 'dev3@acme.example.com')!;
    expect(dev).toMatchObject({ firstName: 'Dev3', metadata: {} });
    expect(dev.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(first.users.some((u) => u.email.endsWith('other.example.com'))).toBe(false);
    const mine = UserList.parse((await get(acme.users.member.key)).json());
    expect(mine.users.map((u) => u.id)).toEqual([acme.users.member.id]);
    expect((await get(acme.users.guest.key)).statusCode).toBe(403);
    // A cursor that is no user id is refused, not read as "from the start" (abc) or "past the end" (zzz).
    for (const q of ['?limit=0', '?limit=101', '?limit=x', '?page=2', '?cursor=abc', '?cursor=zzz', '?cursor=usr_12']) {
      const res = await get(acme.users.owner.key, q);
      expect(res.statusCode, q).toBe(400);
      ErrorBodySchema.parse(res.json());
    }
    const theirs = UserList.parse((await get(other.users.owner.key, '?limit=100')).json());
    expect(theirs.users).toHaveLength(4);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/organization/users' })).statusCode).toBe(401);
  });
});
