// Credentials that cannot outlive their source (issue 28, items 2, 7, 8): only a personal API key mints a
// SCIM token, a computer's token or a key for someone else; a SCIM token ends with the key that minted it
// and with its minter; a directory rename of an owner waits for an owner's confirmation; no path leaves an
// organization without an active owner, two deactivations at once included; a deactivated user's keys
// refuse, and keys a removed or deactivated person minted for others end with them.
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { holdRename } from '../../api/scim/renames.ts';
import { SCIM } from '../../api/scim/schema.ts';
import { adminBackend } from '../../cli/admin-backend.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { call as recordCall } from '../helpers/records.ts';
import { bearer, gzipNdjson, JWT_SECRET, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
type Headers = Record<string, string>;
const DASH = { 'x-agentmeter-dashboard': '1' };

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: unknown) =>
  server.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
const scim = (token: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
  server.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': 'application/scim+json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
const deactivate = (token: string, userId: string) =>
  scim(token, 'PATCH', `/Users/${userId}`, { schemas: [SCIM.patch], Operations: [{ op: 'replace', path: 'active', value: false }] });
const mintScim = (headers: Headers) => inject('POST', '/api/v0/admin/scim/tokens', headers, {});
const mintKey = (headers: Headers, userId: string, scope: 'personal' | 'collector') =>
  inject('POST', `/api/v0/admin/users/${userId}/keys`, headers, { scope });
const whoami = (key: string) => inject('GET', '/api/v0/admin/whoami', bearer(key));
const ingest = (key: string) =>
  inject(
    'POST',
    '/api/v1/ingest/events',
    { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    gzipNdjson([recordCall('Edit', '2026-03-03', { session_id: `s${Math.random()}` })]),
  );
const refused = (res: { statusCode: number; body: string }, status: number, detail: RegExp) => {
  expect(res.statusCode, res.body).toBe(status);
  expect(ErrorBodySchema.parse(JSON.parse(res.body)).detail).toMatch(detail);
};
const jwtFor = (userId: string, orgId: string, role: string) =>
  new SignJWT({ org_id: orgId, role })
    .setSubject(userId)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('2m')
    .sign(new TextEncoder().encode(JWT_SECRET));
async function sessionOf(key: string): Promise<Headers> {
  const res = await inject('POST', '/api/v0/auth/session', DASH, { credential: key });
  expect(res.statusCode, res.body).toBe(201);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, ...DASH };
}
/** A second owner with a personal key (the operator's), for the last-owner rules. */
async function addOwner(org: Org, email: string): Promise<{ id: string; key: string }> {
  const user = await server.services.accounts.createUser({ orgId: org.orgId as never, email, role: 'owner' });
  return { id: user.id, key: (await server.services.accounts.createKey(user)).key };
}
async function scimToken(org: Org): Promise<string> {
  const res = await mintScim(bearer(org.users.owner.key));
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token as string;
}

beforeAll(async () => {
  server = await testServer({ decodeWorkers: 0 });
});
afterAll(() => server.close());

describe('only a personal API key mints what outlives it', () => {
  it('a SCIM token: a dashboard session, a JWT and a key someone else minted get 403 saying why', async () => {
    const org = await server.seedOrg('Mint');
    const owner = org.users.owner;
    refused(await mintScim(await sessionOf(owner.key)), 403, /^Minting a SCIM token needs your own personal API key.*a dashboard session/);
    refused(await mintScim(bearer(await jwtFor(owner.id, org.orgId, 'owner'))), 403, /^Minting a SCIM token needs.*a JWT/);
    const other = await addOwner(org, 'second-owner@mint.example.com');
    const delegated = (await mintKey(bearer(other.key), owner.id, 'personal')).json().apiKey as string;
    refused(await mintScim(bearer(delegated)), 403, /a key someone else minted for you/);
    expect((await mintScim(bearer(owner.key))).statusCode).toBe(201);
    expect(
      (await server.db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM scim_tokens WHERE org_id = $o', { o: org.orgId }))[0]!.n,
    ).toBe(1);
  });

  it('a SCIM token is revoked with the key that minted it, and with its minter', async () => {
    const org = await server.seedOrg('Revoke');
    const owner = org.users.owner;
    const minted = (await mintKey(bearer(owner.key), owner.id, 'personal')).json() as { apiKey: string; key: { id: string } };
    const token = (await mintScim(bearer(minted.apiKey))).json().token as string;
    expect((await scim(token, 'GET', '/Users')).statusCode).toBe(200);
    expect((await inject('DELETE', `/api/v0/admin/keys/${minted.key.id}`, bearer(owner.key))).statusCode).toBe(200);
    expect((await scim(token, 'GET', '/Users')).statusCode).toBe(401);

    const leaving = await addOwner(org, 'leaving-owner@revoke.example.com');
    const theirs = (await mintScim(bearer(leaving.key))).json().token as string;
    expect((await scim(theirs, 'GET', '/Users')).statusCode).toBe(200);
    expect((await inject('DELETE', `/api/v0/admin/users/${leaving.id}`, bearer(owner.key))).statusCode).toBe(200);
    expect((await scim(theirs, 'GET', '/Users')).statusCode).toBe(401);
  });

  it("a computer's token: a dashboard session registers no computer", async () => {
    const org = await server.seedOrg('Computers');
    refused(
      await inject('POST', '/api/v0/computers', await sessionOf(org.users.member.key), { name: 'laptop' }),
      403,
      /^Registering a computer needs your own personal API key.*a dashboard session/,
    );
    expect((await inject('POST', '/api/v0/computers', bearer(org.users.member.key), { name: 'laptop' })).statusCode).toBe(201);
  });

  it("a computer's token is revoked with the key that registered it; one registered with another key stays", async () => {
    const org = await server.seedOrg('Computer keys');
    const { member } = org.users;
    const second = (await mintKey(bearer(member.key), member.id, 'personal')).json() as { apiKey: string; key: { id: string } };
    const register = async (key: string, name: string) => {
      const res = await inject('POST', '/api/v0/computers', bearer(key), { name });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { computer: { id: string }; token: string };
    };
    const hello = (computer: { computer: { id: string }; token: string }) =>
      inject('POST', `/api/v0/computers/${computer.computer.id}/agent/hello`, bearer(computer.token), {
        checks: [{ name: 'agent', ok: true }],
        agentCommand: 'droid exec',
      });
    const withSecond = await register(second.apiKey, 'box');
    const withFirst = await register(member.key, 'laptop');
    expect((await hello(withSecond)).statusCode).toBe(200);

    expect((await inject('DELETE', `/api/v0/admin/keys/${second.key.id}`, bearer(member.key))).statusCode).toBe(200);
    expect((await whoami(second.apiKey)).statusCode).toBe(401);
    refused(await hello(withSecond), 401, /./);
    expect((await hello(withFirst)).statusCode).toBe(200);
  });

  it("a key for someone else: a manager's session or JWT gets 403, the manager's personal key mints it", async () => {
    const org = await server.seedOrg('Others');
    const { manager, member } = org.users;
    refused(await mintKey(await sessionOf(manager.key), member.id, 'collector'), 403, /^Minting a key for someone else.*dashboard session/);
    refused(await mintKey(bearer(await jwtFor(manager.id, org.orgId, 'manager')), member.id, 'collector'), 403, /a JWT/);
    expect((await mintKey(bearer(manager.key), member.id, 'collector')).statusCode).toBe(201);
    // For themselves, the session still enrolls a machine (the dashboard's Machines page).
    expect((await mintKey(await sessionOf(manager.key), manager.id, 'collector')).statusCode).toBe(201);
  });
});

describe("a directory's rename of an owner", () => {
  it('is held and refused until an owner confirms it with a personal API key; a member is renamed at once', async () => {
    const org = await server.seedOrg('Rename');
    const token = await scimToken(org);
    const owner = org.users.owner;
    const ownerEmail = (await server.services.accounts.getUser(org.orgId, owner.id))!.email;
    const rename = (id: string, to: string) =>
      scim(token, 'PATCH', `/Users/${id}`, { schemas: [SCIM.patch], Operations: [{ op: 'replace', path: 'userName', value: to }] });

    const held = await rename(owner.id, 'attacker@evil.example.com');
    expect(held.statusCode, held.body).toBe(403);
    expect(held.json()).toMatchObject({ scimType: 'mutability' });
    expect(held.json().detail).toContain(`agentmeter users confirm-rename ${owner.id}`);
    expect((await server.services.accounts.getUser(org.orgId, owner.id))!.email).toBe(ownerEmail);
    const listed = await inject('GET', '/api/v0/admin/scim/pending-renames', bearer(owner.key));
    expect(listed.json().renames).toMatchObject([{ userId: owner.id, from: ownerEmail, to: 'attacker@evil.example.com' }]);

    const confirm = (headers: Headers) => inject('POST', `/api/v0/admin/users/${owner.id}/confirm-rename`, headers);
    refused(await confirm(await sessionOf(owner.key)), 403, /^Confirming a directory rename of an owner needs your own personal API key/);
    refused(await confirm(bearer(await jwtFor(owner.id, org.orgId, 'owner'))), 403, /a JWT/);
    refused(await confirm(bearer(org.users.manager.key)), 403, /owner/);
    const done = await confirm(bearer(owner.key));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().rename).toMatchObject({ from: ownerEmail, to: 'attacker@evil.example.com' });
    expect((await server.services.accounts.getUser(org.orgId, owner.id))!.email).toBe('attacker@evil.example.com');
    // The directory's next sync finds the name already changed; nothing is held any more.
    expect((await rename(owner.id, 'attacker@evil.example.com')).statusCode).toBe(200);
    refused(await confirm(bearer(owner.key)), 404, /no directory rename/);

    const member = await rename(org.users.member.id, 'member-renamed@rename.example.com');
    expect(member.statusCode, member.body).toBe(200);
    expect(member.json().userName).toBe('member-renamed@rename.example.com');
  });
});

describe('users confirm-rename on the database file', () => {
  it('applies the held rename as the operator; a user with none held is told so', async () => {
    const path = join(tempDir(), 'renames.duckdb');
    const db = await openDb(path);
    const accounts = new AccountStore(db);
    const org = await accounts.createOrg('File');
    const owner = await accounts.createUser({ orgId: org.id, email: 'owner@file.example.com', role: 'owner' });
    await holdRename(db, org.id, owner.id, 'Owner.New@file.example.com');
    await db.close();
    const backend = await adminBackend({ db: path });
    try {
      expect(await backend.confirmRename({ org: org.id, user: 'owner@file.example.com' })).toMatchObject({
        userId: owner.id,
        from: 'owner@file.example.com',
        to: 'owner.new@file.example.com',
      });
      await expect(backend.confirmRename({ org: org.id, user: owner.id })).rejects.toThrow(/no directory rename/);
    } finally {
      await backend.close();
    }
  });
});

describe('the last active owner', () => {
  it('two directory deactivations at once: one passes, the other is refused; an active owner remains', async () => {
    for (let round = 0; round < 3; round++) {
      const org = await server.seedOrg(`Race${round}`);
      const token = await scimToken(org);
      const second = await addOwner(org, `second${round}@race.example.com`);
      const answers = await Promise.all([deactivate(token, org.users.owner.id), deactivate(token, second.id)]);
      expect(answers.map((a) => a.statusCode).sort(), answers.map((a) => a.body).join('\n')).toEqual([200, 409]);
      expect(answers.find((a) => a.statusCode === 409)!.json().detail).toContain('last owner of the organization still active');
      const active = await server.db.all<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM users u LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id
         WHERE u.org_id = $o AND u.role = 'owner' AND coalesce(s.active, true)`,
        { o: org.orgId },
      );
      expect(active[0]!.n).toBe(1);
    }
  });

  it('two directory deletions at once leave an owner too', async () => {
    const org = await server.seedOrg('DeleteRace');
    const token = await scimToken(org);
    const second = await addOwner(org, 'second@deleterace.example.com');
    const answers = await Promise.all([
      scim(token, 'DELETE', `/Users/${org.users.owner.id}`),
      scim(token, 'DELETE', `/Users/${second.id}`),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([204, 409]);
  });

  it('removal through the API does not count an owner the directory deactivated', async () => {
    const org = await server.seedOrg('Removal');
    const token = await scimToken(org);
    const second = await addOwner(org, 'second@removal.example.com');
    expect((await deactivate(token, org.users.owner.id)).statusCode).toBe(200);
    refused(
      await inject('DELETE', `/api/v0/admin/users/${second.id}`, bearer(second.key)),
      409,
      /last owner of the organization still active/,
    );
    expect(await server.services.accounts.getUser(org.orgId, second.id)).toBeDefined();
  });
});

describe('deactivation and removal reach every credential', () => {
  it('a key minted for a deactivated user refuses while they stay deactivated; the server mints none', async () => {
    const org = await server.seedOrg('Deactivated');
    const token = await scimToken(org);
    const { member } = org.users;
    expect((await deactivate(token, member.id)).statusCode).toBe(200);
    refused(await mintKey(bearer(org.users.owner.key), member.id, 'collector'), 409, /deactivated by the organization directory/);
    // The operator's key (on the database file) is minted, and refused at use.
    const user = (await server.services.accounts.getUser(org.orgId, member.id))!;
    const { key } = await server.services.accounts.createKey(user);
    refused(await whoami(key), 401, /deactivated by the organization directory/);
    refused(await ingest(key), 401, /deactivated/);
    const on = await scim(token, 'PATCH', `/Users/${member.id}`, { Operations: [{ op: 'replace', path: 'active', value: true }] });
    expect(on.statusCode).toBe(200);
    expect((await whoami(key)).statusCode).toBe(200);
  });

  it('collector keys a manager minted for members stop with the manager’s deactivation; the members’ own keys stay', async () => {
    const org = await server.seedOrg('Minter');
    const token = await scimToken(org);
    const { manager, member } = org.users;
    const enrolled = (await mintKey(bearer(manager.key), member.id, 'collector')).json().apiKey as string;
    const own = (await mintKey(bearer(member.key), member.id, 'collector')).json().apiKey as string;
    expect((await ingest(enrolled)).statusCode).toBe(200);
    expect((await deactivate(token, manager.id)).statusCode).toBe(200);
    expect((await ingest(enrolled)).statusCode).toBe(401);
    expect((await ingest(own)).statusCode).toBe(200);
    expect((await whoami(member.key)).statusCode).toBe(200);
  });
});
