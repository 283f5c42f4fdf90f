// Keys with a scope (issue #20 item 4, docs/keys.md): a collector key only ingests, reads its own user's
// limits, usage and identity, and registers its machine; a personal key is minted only with a personal
// key and is revoked with it; a JWT or a dashboard session mints collector keys only, which last until
// revoked; keys from before migration 016 stay personal.
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { PublicKey } from '../../api/keys/schema.ts';
import { LIMITS_PATH, LimitStatus } from '../../api/limits/schema.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId } from '../../common/ids.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { turn } from '../helpers/records.ts';
import { bearer, JWT_SECRET, ndjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const DASH = { 'x-agentmeter-dashboard': '1' };
const MACHINE = '0123456789abcdef';
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer();
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(() => server.close());

type Headers = Record<string, string>;
const mint = (headers: Headers, userId: string, body: object) =>
  server.app.inject({ method: 'POST', url: `/api/v0/admin/users/${userId}/keys`, headers, payload: body });
const get = (headers: Headers, url: string) => server.app.inject({ method: 'GET', url, headers });
const ingest = (key: string, machine = MACHINE) =>
  server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'x-agentmeter-machine': machine },
    payload: ndjson([turn('2026-03-02')]),
  });
const revoke = (headers: Headers, keyId: string) => server.app.inject({ method: 'DELETE', url: `/api/v0/admin/keys/${keyId}`, headers });
const created = (res: { statusCode: number; body: string; json: () => unknown }) => {
  expect(res.statusCode, res.body).toBe(201);
  const body = res.json() as { apiKey: string; key: unknown };
  return { apiKey: body.apiKey, key: PublicKey.parse(body.key) };
};
const jwtFor = (userId: string, orgId: string, role: string, ttl = '2m') =>
  new SignJWT({ org_id: orgId, role })
    .setSubject(userId)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(ttl)
    .sign(new TextEncoder().encode(JWT_SECRET));
async function sessionOf(key: string): Promise<Headers> {
  const res = await server.app.inject({ method: 'POST', url: '/api/v0/auth/session', headers: DASH, payload: { credential: key } });
  expect(res.statusCode, res.body).toBe(201);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, ...DASH };
}
const forbiddenBody = (res: { statusCode: number; json: () => unknown }, detail: RegExp) => {
  expect(res.statusCode).toBe(403);
  expect(ErrorBodySchema.parse(res.json()).detail).toMatch(detail);
};

describe('minting', () => {
  it('with a JWT: collector keys only; the collector key outlives the token', async () => {
    const { id } = acme.users.member;
    const token = await jwtFor(id, acme.orgId, 'member');
    forbiddenBody(
      await mint(bearer(token), id, {}),
      /personal key needs a personal API key.*JWT mints collector keys for its own user only/,
    );
    forbiddenBody(await mint(bearer(token), id, { scope: 'personal' }), /personal API key/);
    const { apiKey, key } = created(await mint(bearer(token), id, { scope: 'collector', name: 'laptop' }));
    expect(key).toMatchObject({ scope: 'collector', userId: id, machineId: null });
    expect((await ingest(apiKey)).statusCode).toBe(200);
  });

  it('with a dashboard session: collector keys only, which survive sign-out', async () => {
    const session = await sessionOf(acme.users.manager.key);
    forbiddenBody(
      await mint(session, acme.users.manager.id, { scope: 'personal' }),
      /dashboard session mints collector keys for its own user only/,
    );
    // Not for a member: a key for someone else outlives the session, so only a personal API key mints it.
    forbiddenBody(
      await mint(session, acme.users.member.id, { scope: 'collector' }),
      /^Minting a key for someone else needs your own personal API key.*a dashboard session/,
    );
    const { apiKey, key } = created(await mint(session, acme.users.manager.id, { scope: 'collector' }));
    expect(key.scope).toBe('collector');
    const out = await server.app.inject({ method: 'DELETE', url: '/api/v0/auth/session', headers: session });
    expect(out.statusCode).toBe(204);
    expect((await get(session, '/api/v0/auth/me')).statusCode).toBe(401);
    expect((await ingest(apiKey)).statusCode).toBe(200);
  });

  it('with a collector key: nothing', async () => {
    const { id, key } = acme.users.owner;
    const { apiKey } = created(await mint(bearer(key), id, { scope: 'collector' }));
    for (const scope of ['collector', 'personal']) forbiddenBody(await mint(bearer(apiKey), id, { scope }), /collector key/);
  });

  it('with a personal key: both; the personal key is revoked with its minter, the collector key stays', async () => {
    const { id, key } = acme.users.member;
    const parent = created(await mint(bearer(key), id, { name: 'parent' }));
    expect(parent.key.scope).toBe('personal');
    const child = created(await mint(bearer(parent.apiKey), id, { scope: 'personal' }));
    const grandchild = created(await mint(bearer(child.apiKey), id, {}));
    const collector = created(await mint(bearer(parent.apiKey), id, { scope: 'collector' }));
    expect((await get(bearer(grandchild.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(200);
    expect((await revoke(bearer(key), parent.key.id)).json()).toMatchObject({ revoked: true });
    for (const k of [parent, child, grandchild]) expect((await get(bearer(k.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(401);
    expect((await ingest(collector.apiKey)).statusCode).toBe(200);
    // The user's own keys and another user's are untouched.
    expect((await get(bearer(key), '/api/v0/admin/whoami')).statusCode).toBe(200);
  });

  it("an invitation is revoked with the key that created its user; the key it is exchanged for is the user's own", async () => {
    const admin = created(await mint(bearer(acme.users.owner.key), acme.users.owner.id, { name: 'admin' }));
    const add = (email: string) =>
      server.app.inject({ method: 'POST', url: '/api/v0/admin/users', headers: bearer(admin.apiKey), payload: { email, role: 'member' } });
    const pending = (await add('pending@acme.example.com')).json() as { apiKey: string };
    const exchangedUser = (await add('exchanged@acme.example.com')).json() as { apiKey: string; user: { id: string } };
    const own = created(await mint(bearer(exchangedUser.apiKey), exchangedUser.user.id, {}));
    expect(own.key).toMatchObject({ kind: 'personal', scope: 'personal' });
    await revoke(bearer(acme.users.owner.key), admin.key.id);
    expect((await get(bearer(pending.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(401);
    expect((await get(bearer(own.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(200);
  });
});

describe('a collector key minted with a key someone else minted for you', () => {
  // Whoever minted a delegated key holds it too: a collector key it mints for its user ends with it, so it
  // never outlives the minter's key or the minter's access (docs/keys.md).
  it('is revoked with that key, minted through the API or through a dashboard session signed in with it', async () => {
    const manager = created(await mint(bearer(acme.users.manager.key), acme.users.manager.id, { name: 'manager-parent' }));
    const delegated = created(await mint(bearer(manager.apiKey), acme.users.member.id, { scope: 'personal' }));
    expect(delegated.key.kind).toBe('delegated');
    const byKey = created(await mint(bearer(delegated.apiKey), acme.users.member.id, { scope: 'collector' }));
    const bySession = created(await mint(await sessionOf(delegated.apiKey), 'me', { scope: 'collector' }));
    // The member's own, minted before: with their own key, and through a session signed in with it.
    const own = created(await mint(bearer(acme.users.member.key), acme.users.member.id, { scope: 'collector' }));
    const ownBySession = created(await mint(await sessionOf(acme.users.member.key), 'me', { scope: 'collector' }));
    for (const k of [byKey, bySession, own, ownBySession]) expect((await ingest(k.apiKey)).statusCode).toBe(200);
    expect((await revoke(bearer(acme.users.manager.key), manager.key.id)).json()).toMatchObject({ revoked: true });
    expect((await get(bearer(delegated.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(401);
    for (const k of [byKey, bySession]) expect((await ingest(k.apiKey)).statusCode).toBe(401);
    // The member's own collector keys are untouched.
    for (const k of [own, ownBySession]) expect((await ingest(k.apiKey)).statusCode).toBe(200);
  });

  it('is revoked when its minter is removed', async () => {
    const added = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(acme.users.owner.key),
        payload: { email: 'delegating-leaver@acme.example.com', role: 'manager' },
      })
    ).json() as { apiKey: string; user: { id: string } };
    const leaver = created(await mint(bearer(added.apiKey), added.user.id, {}));
    const delegated = created(await mint(bearer(leaver.apiKey), acme.users.guest.id, { scope: 'personal' }));
    const collector = created(await mint(bearer(delegated.apiKey), 'me', { scope: 'collector' }));
    expect((await ingest(collector.apiKey)).statusCode).toBe(200);
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/users/${added.user.id}`,
      headers: bearer(acme.users.owner.key),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await ingest(collector.apiKey)).statusCode).toBe(401);
    expect((await get(bearer(acme.users.guest.key), '/api/v0/admin/whoami')).statusCode).toBe(200);
  });

  it('minted with an invitation, is revoked with it when its creator’s key is revoked before the exchange', async () => {
    const admin = created(await mint(bearer(acme.users.owner.key), acme.users.owner.id, { name: 'inviting-admin' }));
    const added = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(admin.apiKey),
        payload: { email: 'never-exchanged@acme.example.com', role: 'member' },
      })
    ).json() as { apiKey: string; user: { id: string } };
    const collector = created(await mint(bearer(added.apiKey), added.user.id, { scope: 'collector' }));
    expect((await ingest(collector.apiKey)).statusCode).toBe(200);
    await revoke(bearer(acme.users.owner.key), admin.key.id);
    expect((await ingest(collector.apiKey)).statusCode).toBe(401);
  });
});

describe('adding a user', () => {
  it('needs a personal API key: the invitation a JWT or a session minted would outlive it', async () => {
    const add = (headers: Headers, email: string) =>
      server.app.inject({ method: 'POST', url: '/api/v0/admin/users', headers, payload: { email, role: 'owner' } });
    const { id } = acme.users.owner;
    forbiddenBody(await add(bearer(await jwtFor(id, acme.orgId, 'owner')), 'by-jwt@acme.example.com'), /invitation key.*personal API key/);
    forbiddenBody(await add(await sessionOf(acme.users.owner.key), 'by-session@acme.example.com'), /invitation key.*personal API key/);
    const listed = (await get(bearer(acme.users.owner.key), '/api/v0/admin/users')).json() as { users: { email: string }[] };
    expect(listed.users.map((u) => u.email)).not.toContain('by-jwt@acme.example.com');
    expect(listed.users.map((u) => u.email)).not.toContain('by-session@acme.example.com');
    expect((await add(bearer(acme.users.owner.key), 'by-key@acme.example.com')).statusCode).toBe(201);
  });
});

describe('exchanging an invitation', () => {
  it('an invitation mints nothing for others; its collector key stays after the exchange', async () => {
    const added = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(acme.users.owner.key),
        payload: { email: 'invited-manager@acme.example.com', role: 'manager' },
      })
    ).json() as { apiKey: string; user: { id: string } };
    forbiddenBody(await mint(bearer(added.apiKey), acme.users.member.id, { scope: 'personal' }), /an invitation key may not do it/);
    forbiddenBody(await mint(bearer(added.apiKey), acme.users.member.id, { scope: 'collector' }), /an invitation key may not do it/);
    const collector = created(await mint(bearer(added.apiKey), added.user.id, { scope: 'collector' }));
    const own = created(await mint(bearer(added.apiKey), added.user.id, {}));
    expect(own.key.kind).toBe('personal');
    expect((await get(bearer(added.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(401);
    expect((await get(bearer(own.apiKey), '/api/v0/admin/whoami')).statusCode).toBe(200);
    expect((await ingest(collector.apiKey)).statusCode).toBe(200);
  });
});

describe('removing a user', () => {
  it('revokes every key they minted for others, collector keys included; the members’ own keys stay', async () => {
    const added = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(acme.users.owner.key),
        payload: { email: 'leaver@acme.example.com', role: 'manager' },
      })
    ).json() as { apiKey: string; user: { id: string } };
    const leaver = created(await mint(bearer(added.apiKey), added.user.id, {}));
    const invitation = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(leaver.apiKey),
        payload: { email: 'invited-by-leaver@acme.example.com', role: 'member' },
      })
    ).json() as { apiKey: string };
    const forMember = created(await mint(bearer(leaver.apiKey), acme.users.member.id, { scope: 'personal' }));
    const collector = created(await mint(bearer(leaver.apiKey), acme.users.member.id, { scope: 'collector' }));
    for (const k of [invitation.apiKey, forMember.apiKey]) expect((await get(bearer(k), '/api/v0/admin/whoami')).statusCode).toBe(200);
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/users/${added.user.id}`,
      headers: bearer(acme.users.owner.key),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    for (const k of [leaver.apiKey, invitation.apiKey, forMember.apiKey])
      expect((await get(bearer(k), '/api/v0/admin/whoami')).statusCode).toBe(401);
    // A collector key a removed manager minted for a member is revoked with its minter (docs/keys.md).
    expect((await ingest(collector.apiKey)).statusCode).toBe(401);
    expect((await get(bearer(acme.users.member.key), '/api/v0/admin/whoami')).statusCode).toBe(200);
  });
});

describe('what a collector key may do', () => {
  let collectorKey: string;
  beforeAll(async () => {
    collectorKey = created(await mint(bearer(acme.users.manager.key), acme.users.manager.id, { scope: 'collector' })).apiKey;
  });

  it("ingests, and reads its own user's limits, usage and identity only, though its user is a manager", async () => {
    expect((await ingest(collectorKey)).statusCode).toBe(200);
    const limits = LimitStatus.parse((await get(bearer(collectorKey), LIMITS_PATH)).json());
    expect(limits.users.map((u) => u.userId)).toEqual([acme.users.manager.id]);
    const mine = await get(bearer(collectorKey), '/api/v0/usage/users/me?startDate=2026-03-01&endDate=2026-03-02');
    expect(mine.statusCode).toBe(200);
    const theirs = await get(bearer(collectorKey), `/api/v0/usage/users/${acme.users.member.id}?startDate=2026-03-01&endDate=2026-03-02`);
    expect(theirs.statusCode).toBe(404);
    expect((await get(bearer(collectorKey), '/api/v0/auth/me')).json()).toMatchObject({ userId: acme.users.manager.id });
  });

  it("reads its own user's limits only, whichever of its user's credentials asked first (the answer cache)", async () => {
    const ids = async (key: string) => LimitStatus.parse((await get(bearer(key), LIMITS_PATH)).json()).users.map((u) => u.userId);
    const everyone = await ids(acme.users.manager.key);
    expect(everyone.length).toBeGreaterThan(1);
    expect(await ids(collectorKey)).toEqual([acme.users.manager.id]);
    expect(await ids(acme.users.manager.key)).toEqual(everyone);
    expect(await ids(collectorKey)).toEqual([acme.users.manager.id]);
  });

  it('gets 403 with the error body everywhere else: analytics, admin, machines, sessions, sign-in', async () => {
    for (const url of [
      '/api/v1/analytics/users?startDate=2026-03-01&endDate=2026-03-02',
      '/api/v0/admin/users',
      '/api/v0/admin/whoami',
      '/api/v0/admin/batch/runs',
      '/api/v0/machines',
      '/api/v0/sessions',
      '/api/v0/organization/users',
    ]) {
      const res = await get(bearer(collectorKey), url);
      expect(res.statusCode, url).toBe(403);
      expect(ErrorBodySchema.parse(res.json()).detail, url).toContain('collector key');
    }
    // The same key with full scope reads analytics: the refusal is the scope, not the role.
    expect((await get(bearer(acme.users.manager.key), '/api/v1/analytics/users?startDate=2026-03-01&endDate=2026-03-02')).statusCode).toBe(
      200,
    );
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      headers: DASH,
      payload: { credential: collectorKey },
    });
    forbiddenBody(signIn, /collector key cannot sign in/);
  });
});

describe('the machines page', () => {
  it('lists collector keys under the machine they deliver from, per role and organization, and revokes them', async () => {
    const member = acme.users.member;
    const { apiKey, key } = created(await mint(bearer(member.key), member.id, { scope: 'collector', name: 'ana-laptop' }));
    const otherKey = created(await mint(bearer(other.users.member.key), other.users.member.id, { scope: 'collector' }));
    expect((await ingest(apiKey, 'fedcba9876543210')).statusCode).toBe(200);
    expect((await ingest(otherKey.apiKey, 'fedcba9876543210')).statusCode).toBe(200);
    const listed = async (headers: Headers) =>
      ((await get(headers, '/api/v0/machines/keys')).json() as { keys: unknown[] }).keys.map((k) => PublicKey.parse(k));
    await expect.poll(async () => (await listed(bearer(member.key))).find((k) => k.id === key.id)?.machineId).toBe('fedcba9876543210');
    // A member sees their own; the manager the organization's; nobody another organization's.
    expect((await listed(bearer(member.key))).every((k) => k.userId === member.id)).toBe(true);
    const byManager = await listed(await sessionOf(acme.users.manager.key));
    expect(byManager.some((k) => k.id === key.id)).toBe(true);
    expect(byManager.some((k) => k.id === otherKey.key.id)).toBe(false);
    expect(byManager.every((k) => k.scope === 'collector')).toBe(true);
    expect((await get(bearer(acme.users.guest.key), '/api/v0/machines/keys')).statusCode).toBe(403);
    // Revoked from the page (a dashboard session), the machine's next delivery is refused.
    const session = await sessionOf(acme.users.manager.key);
    expect((await revoke(session, key.id)).json()).toMatchObject({ revoked: true });
    expect((await ingest(apiKey, 'fedcba9876543210')).statusCode).toBe(401);
    expect((await listed(bearer(member.key))).find((k) => k.id === key.id)?.revokedAt).not.toBeNull();
    // Another organization's key id answers 404.
    expect((await revoke(session, otherKey.key.id)).statusCode).toBe(404);
  });
});

describe("the machines page's keys, by the admin keys route's rule", () => {
  it("shows a manager the collector keys of members, guests and their own, never an owner's or another manager's", async () => {
    const org = await server.seedOrg('Managed');
    const second = await server.services.accounts.createUser({
      orgId: org.orgId as OrgId,
      email: 'second@managed.example.com',
      role: 'manager',
    });
    const people = [
      org.users.owner,
      org.users.manager,
      org.users.member,
      org.users.guest,
      { id: second.id, key: (await server.services.accounts.createKey(second)).key },
    ];
    for (const person of people) created(await mint(bearer(person.key), person.id, { scope: 'collector', name: 'laptop' }));
    const ids = (res: { json: () => unknown }) =>
      (res.json() as { keys: unknown[] }).keys
        .map((k) => PublicKey.parse(k))
        .filter((k) => k.scope === 'collector')
        .map((k) => k.id)
        .sort();
    // What GET /api/v0/admin/users/{id}/keys lets the viewer list, person by person (403 for the others).
    const viaAdmin = async (viewer: { key: string }) => {
      const listed: string[] = [];
      for (const person of people) {
        const res = await get(bearer(viewer.key), `/api/v0/admin/users/${person.id}/keys`);
        if (res.statusCode === 200) listed.push(...ids(res));
        else expect(res.statusCode, res.body).toBe(403);
      }
      return listed.sort();
    };
    const viaMachines = async (viewer: { key: string }) => ids(await get(bearer(viewer.key), '/api/v0/machines/keys'));
    for (const viewer of [org.users.owner, org.users.manager, people[4]!, org.users.member])
      expect(await viaMachines(viewer), viewer.key.slice(0, 8)).toEqual(await viaAdmin(viewer));
    expect(await viaMachines(org.users.owner)).toHaveLength(5);
    // The manager: their own, the member's and the guest's.
    expect(await viaMachines(org.users.manager)).toHaveLength(3);
    // Another organization's manager lists none of them, and its admin keys route answers 404.
    const ours = await viaMachines(org.users.owner);
    expect((await viaMachines(other.users.manager)).filter((id) => ours.includes(id))).toEqual([]);
    for (const person of people)
      expect((await get(bearer(other.users.manager.key), `/api/v0/admin/users/${person.id}/keys`)).statusCode).toBe(404);
  });
});

describe('migration 016', () => {
  it('keeps every key from before it personal: each still does what it did', async () => {
    const path = join(tempDir(), 'old.duckdb');
    let db = await openDb(path);
    const accounts = new AccountStore(db);
    const org = await accounts.createOrg('Old');
    const owner = await accounts.createUser({ orgId: org.id, email: 'old@example.com', role: 'owner' });
    const operatorKey = (await accounts.createKey(owner)).key;
    const delegated = (await accounts.createKey(owner, 'laptop', { userId: 'usr_someone', credential: 'personal' })).key;
    // The database as it was before migration 016.
    await db.run('ALTER TABLE api_keys DROP COLUMN scope');
    await db.run('ALTER TABLE api_keys DROP COLUMN minted_with');
    await db.run('ALTER TABLE api_keys DROP COLUMN machine_id');
    await db.run('DELETE FROM schema_migrations WHERE version = 16');
    await db.close();
    db = await openDb(path);
    try {
      const upgraded = new AccountStore(db);
      expect(await upgraded.principalForKey(operatorKey)).toMatchObject({ scope: 'personal', credential: 'personal' });
      expect(await upgraded.principalForKey(delegated)).toMatchObject({ scope: 'personal', credential: 'delegated' });
      expect((await upgraded.listKeys(org.id, owner.id)).map((k) => [k.kind, k.scope, k.machine_id])).toEqual([
        ['personal', 'personal', null],
        ['delegated', 'personal', null],
      ]);
    } finally {
      await db.close();
    }
  });
});
