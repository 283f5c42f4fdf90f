// SCIM 2.0 provisioning end to end through the routes: owners mint and revoke the directory's token; the
// token works only on /scim/v2 and an API key never does; Users list/filter/page/create/get/replace/patch/
// delete with SCIM error bodies; deactivation revokes keys, computers' tokens and dashboard sessions at
// once and keeps usage; one organization's token sees nothing of another's.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../api/auth/authenticator.ts';
import { SCIM } from '../../api/scim/schema.ts';
import { call as recordCall, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, JWT_SECRET, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let acme: Org;
let globex: Org;
let acmeToken: string;
let globexToken: string;
/** The server's clock: group membership changes apply from its UTC day. */
let clock = new Date('2026-04-01T09:00:00Z');

const scim = (
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  contentType = 'application/scim+json',
) =>
  server.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
const mint = (key: string, name?: string) =>
  server.app.inject({ method: 'POST', url: '/api/v0/admin/scim/tokens', headers: bearer(key), payload: name ? { name } : {} });

const expectScimError = (
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  scimType?: string,
) => {
  expect(res.statusCode).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/scim\+json/);
  const body = res.json() as Record<string, unknown>;
  expect(body.schemas).toEqual([SCIM.error]);
  expect(body.status).toBe(String(status));
  expect(typeof body.detail).toBe('string');
  if (scimType) expect(body.scimType).toBe(scimType);
  return body;
};

beforeAll(async () => {
  server = await testServer({ decodeWorkers: 0, now: () => clock });
  acme = await server.seedOrg('Acme');
  globex = await server.seedOrg('Globex');
  const a = await mint(acme.users.owner.key, 'okta');
  expect(a.statusCode, a.body).toBe(201);
  acmeToken = a.json().token;
  globexToken = (await mint(globex.users.owner.key)).json().token;
});
afterAll(() => server.close());

describe('SCIM tokens', () => {
  it('only owners mint, list and revoke them; the token is shown once and listed by prefix', async () => {
    for (const role of ['manager', 'member', 'guest'] as const) {
      expect((await mint(acme.users[role].key)).statusCode, role).toBe(403);
      const list = await server.app.inject({ method: 'GET', url: '/api/v0/admin/scim/tokens', headers: bearer(acme.users[role].key) });
      expect(list.statusCode, role).toBe(403);
    }
    const list = await server.app.inject({ method: 'GET', url: '/api/v0/admin/scim/tokens', headers: bearer(acme.users.owner.key) });
    expect(list.statusCode).toBe(200);
    const tokens = list.json().tokens as { id: string; prefix: string; name: string | null }[];
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.name).toBe('okta');
    expect(acmeToken.startsWith(tokens[0]!.prefix)).toBe(true);
    expect(list.body).not.toContain(acmeToken);
    // The database holds its hash, never the token.
    const rows = await server.db.all<{ hash: string }>('SELECT hash FROM scim_tokens');
    expect(rows.some((r) => r.hash === acmeToken)).toBe(false);
  });

  it('a revoked token is refused at once; another organization cannot revoke or see a token', async () => {
    const created = (await mint(acme.users.owner.key, 'temp')).json() as { token: string; scimToken: { id: string } };
    expect((await scim(created.token, 'GET', '/Users')).statusCode).toBe(200);
    const foreign = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/scim/tokens/${created.scimToken.id}`,
      headers: bearer(globex.users.owner.key),
    });
    expect(foreign.statusCode).toBe(404);
    const globexList = await server.app.inject({
      method: 'GET',
      url: '/api/v0/admin/scim/tokens',
      headers: bearer(globex.users.owner.key),
    });
    expect(globexList.body).not.toContain(created.scimToken.id);
    for (const role of ['manager', 'member', 'guest'] as const) {
      const refused = await server.app.inject({
        method: 'DELETE',
        url: `/api/v0/admin/scim/tokens/${created.scimToken.id}`,
        headers: bearer(acme.users[role].key),
      });
      expect(refused.statusCode, role).toBe(403);
    }
    const revoked = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/scim/tokens/${created.scimToken.id}`,
      headers: bearer(acme.users.owner.key),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked).toBe(true);
    expectScimError(await scim(created.token, 'GET', '/Users'), 401);
  });

  it('an API key is not a SCIM token, and a SCIM token is not an API key', async () => {
    for (const role of ['owner', 'manager', 'member', 'guest'] as const)
      expectScimError(await scim(acme.users[role].key, 'GET', '/Users'), 401);
    expectScimError(await scim('', 'GET', '/Users'), 401);
    for (const url of ['/api/v0/admin/whoami', '/api/v0/admin/users', '/api/v0/admin/scim/tokens', '/api/v0/auth/me']) {
      const res = await server.app.inject({ method: 'GET', url, headers: bearer(acmeToken) });
      expect(res.statusCode, url).toBe(401);
    }
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      headers: { 'x-agentmeter-dashboard': '1' },
      payload: { credential: acmeToken },
    });
    expect(signIn.statusCode).toBe(401);
  });
});

describe('SCIM discovery', () => {
  it('describes the service, its resource types and schemas', async () => {
    const config = await scim(acmeToken, 'GET', '/ServiceProviderConfig');
    expect(config.statusCode).toBe(200);
    expect(String(config.headers['content-type'])).toMatch(/^application\/scim\+json/);
    expect(config.json()).toMatchObject({ schemas: [SCIM.serviceProviderConfig], patch: { supported: true }, filter: { supported: true } });
    const types = (await scim(acmeToken, 'GET', '/ResourceTypes')).json();
    expect(types.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
    const schemas = (await scim(acmeToken, 'GET', '/Schemas')).json();
    expect(schemas.Resources.map((r: { id: string }) => r.id)).toEqual([SCIM.user, SCIM.group]);
    expectScimError(await scim(acmeToken, 'GET', '/Nothing'), 404);
  });
});

describe('SCIM Users', () => {
  it('an existing agentmeter user is the same SCIM user: the filter finds them and create answers 409 uniqueness', async () => {
    const found = await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('userName eq "Member@Acme.example.com"')}`);
    expect(found.statusCode).toBe(200);
    const list = found.json();
    expect(list).toMatchObject({ schemas: [SCIM.list], totalResults: 1, startIndex: 1, itemsPerPage: 1 });
    expect(list.Resources[0]).toMatchObject({ id: acme.users.member.id, userName: 'member@acme.example.com', active: true });
    const conflict = await scim(acmeToken, 'POST', '/Users', { schemas: [SCIM.user], userName: 'member@acme.example.com' });
    expectScimError(conflict, 409, 'uniqueness');
    const none = (await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@acme.example.com"')}`)).json();
    expect(none).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it('creates a member with no key, from an application/scim+json or application/json body', async () => {
    const res = await scim(acmeToken, 'POST', '/Users', {
      schemas: [SCIM.user],
      userName: 'Dana@Acme.example.com',
      externalId: 'ext-dana',
      name: { givenName: 'Dana', familyName: 'Scully' },
      emails: [{ primary: true, value: 'dana@acme.example.com', type: 'work' }],
      active: true,
      password: 'never-kept',
    });
    expect(res.statusCode, res.body).toBe(201);
    const dana = res.json();
    expect(dana).toMatchObject({ userName: 'dana@acme.example.com', externalId: 'ext-dana', active: true, name: { givenName: 'Dana' } });
    expect(res.headers.location).toMatch(new RegExp(`/scim/v2/Users/${dana.id}$`));
    const user = await server.services.accounts.getUser(acme.orgId, dana.id);
    expect(user?.role).toBe('member');
    expect(await server.services.accounts.listKeys(acme.orgId, dana.id)).toEqual([]);
    const viaJson = await scim(acmeToken, 'POST', '/Users', { userName: 'eli@acme.example.com' }, 'application/json');
    expect(viaJson.statusCode).toBe(201);
    expect((await scim(acmeToken, 'GET', `/Users/${dana.id}`)).json().externalId).toBe('ext-dana');
  });

  it('pages with startIndex and count over a stable order', async () => {
    const all = (await scim(acmeToken, 'GET', '/Users?count=200')).json();
    expect(all.totalResults).toBeGreaterThanOrEqual(6);
    const ids = all.Resources.map((r: { id: string }) => r.id);
    const page = (await scim(acmeToken, 'GET', '/Users?startIndex=2&count=2')).json();
    expect(page).toMatchObject({ totalResults: all.totalResults, startIndex: 2, itemsPerPage: 2 });
    expect(page.Resources.map((r: { id: string }) => r.id)).toEqual(ids.slice(1, 3));
    const empty = (await scim(acmeToken, 'GET', '/Users?count=0')).json();
    expect(empty).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 0, Resources: [] });
  });

  it('refuses bad input with SCIM error bodies', async () => {
    expectScimError(await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('userName co "a"')}`), 400, 'invalidFilter');
    expectScimError(await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('title eq "a"')}`), 400, 'invalidFilter');
    expectScimError(await scim(acmeToken, 'POST', '/Users', '{"userName": '), 400, 'invalidSyntax');
    expectScimError(await scim(acmeToken, 'POST', '/Users', { userName: 'not-an-email' }), 400, 'invalidValue');
    expectScimError(await scim(acmeToken, 'GET', '/Users/usr_0000000000000000'), 404);
    expectScimError(await scim(acmeToken, 'GET', '/Users/whatever'), 404);
    const dana = (await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('userName eq "dana@acme.example.com"')}`)).json()
      .Resources[0];
    expectScimError(
      await scim(acmeToken, 'PATCH', `/Users/${dana.id}`, { schemas: [SCIM.patch], Operations: [{ op: 'move', path: 'active' }] }),
      400,
    );
    expectScimError(
      await scim(acmeToken, 'PATCH', `/Users/${dana.id}`, {
        schemas: [SCIM.patch],
        Operations: [{ op: 'Replace', path: 'active', value: 'maybe' }],
      }),
      400,
      'invalidValue',
    );
    expectScimError(
      await scim(acmeToken, 'PATCH', `/Users/${dana.id}`, {
        Operations: [{ op: 'replace', path: 'userName', value: 'member@acme.example.com' }],
      }),
      409,
      'uniqueness',
    );
  });

  it('replaces (PUT) and patches (Entra "Replace" with dotted paths and Okta no-path values)', async () => {
    const created = (await scim(acmeToken, 'POST', '/Users', { userName: 'fox@acme.example.com', name: { givenName: 'F' } })).json();
    const put = await scim(acmeToken, 'PUT', `/Users/${created.id}`, {
      schemas: [SCIM.user],
      userName: 'fox@acme.example.com',
      externalId: 'x1',
      displayName: 'Fox M',
      name: { givenName: 'Fox', familyName: 'Mulder' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({
      externalId: 'x1',
      displayName: 'Fox M',
      name: { givenName: 'Fox', familyName: 'Mulder' },
      active: true,
    });
    const entra = await scim(acmeToken, 'PATCH', `/Users/${created.id}`, {
      schemas: [SCIM.patch],
      Operations: [
        { op: 'Replace', path: 'name.givenName', value: 'Foxy' },
        { op: 'Add', path: 'title', value: 'Agent' },
        { op: 'Remove', path: 'externalId' },
      ],
    });
    expect(entra.statusCode, entra.body).toBe(200);
    expect(entra.json()).toMatchObject({ name: { givenName: 'Foxy', familyName: 'Mulder' } });
    expect(entra.json().externalId).toBeUndefined();
    const okta = await scim(acmeToken, 'PATCH', `/Users/${created.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'replace', value: { 'name.familyName': 'M.', displayName: 'FM', userName: 'fox.m@acme.example.com' } }],
    });
    expect(okta.statusCode, okta.body).toBe(200);
    expect(okta.json()).toMatchObject({ userName: 'fox.m@acme.example.com', displayName: 'FM', name: { familyName: 'M.' } });
    expect((await server.services.accounts.getUser(acme.orgId, created.id))?.email).toBe('fox.m@acme.example.com');
  });

  it('active "False" revokes keys, computer tokens and dashboard sessions at once; usage stays; "True" reactivates', async () => {
    const created = (await scim(acmeToken, 'POST', '/Users', { userName: 'gil@acme.example.com' })).json();
    const user = (await server.services.accounts.getUser(acme.orgId, created.id))!;
    const { key } = await server.services.accounts.createKey(user);
    const ingest = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipNdjson([
        recordCall('Edit', '2026-03-02', { session_id: 'g1' }),
        usage('claude-sonnet-4-5', '2026-03-02', { input_tokens: 10, output_tokens: 2 }),
      ]),
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    const computer = await server.app.inject({
      method: 'POST',
      url: '/api/v0/computers',
      headers: bearer(key),
      payload: { name: 'laptop' },
    });
    expect(computer.statusCode, computer.body).toBe(201);
    const { token: computerToken, computer: info } = computer.json() as { token: string; computer: { id: string } };
    const hello = () =>
      server.app.inject({
        method: 'POST',
        url: `/api/v0/computers/${info.id}/agent/hello`,
        headers: bearer(computerToken),
        payload: { checks: [{ name: 'agent', ok: true }], agentCommand: 'droid' },
      });
    expect((await hello()).statusCode).toBe(200);
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      headers: { 'x-agentmeter-dashboard': '1' },
      payload: { credential: key },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    const me = () => server.app.inject({ method: 'GET', url: '/api/v0/auth/me', headers: { cookie } });
    expect((await me()).statusCode).toBe(200);
    const jwt = await new SignJWT({ org_id: acme.orgId, role: 'member' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(created.id)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JWT_SECRET));
    const whoamiByJwt = () => server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(jwt) });
    expect((await whoamiByJwt()).statusCode).toBe(200);

    const off = await scim(acmeToken, 'PATCH', `/Users/${created.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().active).toBe(false);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(key) })).statusCode).toBe(401);
    expect((await hello()).statusCode).toBe(401);
    expect((await me()).statusCode).toBe(401);
    // A JWT signed for the person ends with the deactivation too, before its exp.
    const refused = await whoamiByJwt();
    expect(refused.statusCode).toBe(401);
    expect(refused.json().detail).toMatch(/deactivated by the organization directory/);
    const events = await server.db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM events WHERE user_id = $u', { u: created.id });
    expect(events[0]!.n).toBe(1);
    const filtered = (await scim(acmeToken, 'GET', `/Users?filter=${encodeURIComponent('userName eq "gil@acme.example.com"')}`)).json();
    expect(filtered.Resources[0].active).toBe(false);

    const on = await scim(acmeToken, 'PATCH', `/Users/${created.id}`, { Operations: [{ op: 'replace', value: { active: 'True' } }] });
    expect(on.json().active).toBe(true);
    // Reactivation gives no credential back: an owner mints a key, or the person signs in with the identity provider.
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(key) })).statusCode).toBe(401);
  });

  it('DELETE removes the user (credentials revoked, usage kept); the last active owner stays', async () => {
    const created = (await scim(acmeToken, 'POST', '/Users', { userName: 'hal@acme.example.com' })).json();
    const user = (await server.services.accounts.getUser(acme.orgId, created.id))!;
    const { key } = await server.services.accounts.createKey(user);
    await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipNdjson([recordCall('Edit', '2026-03-03', { session_id: 'h1' })]),
    });
    const res = await scim(acmeToken, 'DELETE', `/Users/${created.id}`);
    expect(res.statusCode).toBe(204);
    expectScimError(await scim(acmeToken, 'GET', `/Users/${created.id}`), 404);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(key) })).statusCode).toBe(401);
    const events = await server.db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM events WHERE user_id = $u', { u: created.id });
    expect(events[0]!.n).toBe(1);
    expectScimError(await scim(acmeToken, 'DELETE', `/Users/${acme.users.owner.id}`), 409);
    expectScimError(
      await scim(acmeToken, 'PATCH', `/Users/${acme.users.owner.id}`, { Operations: [{ op: 'replace', path: 'active', value: false }] }),
      409,
    );
  });

  it("one organization's token sees nothing of another's", async () => {
    const list = (await scim(globexToken, 'GET', '/Users?count=200')).json();
    expect(list.totalResults).toBe(4);
    expect(JSON.stringify(list)).not.toContain('acme');
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const body =
        method === 'PUT'
          ? { userName: 'member@acme.example.com' }
          : method === 'PATCH'
            ? { Operations: [{ op: 'replace', path: 'active', value: false }] }
            : undefined;
      expectScimError(await scim(globexToken, method, `/Users/${acme.users.member.id}`, body), 404);
    }
    const filter = (await scim(globexToken, 'GET', `/Users?filter=${encodeURIComponent('userName eq "member@acme.example.com"')}`)).json();
    expect(filter.totalResults).toBe(0);
    // Creating the same e-mail in the other organization is a different person.
    expect((await scim(globexToken, 'POST', '/Users', { userName: 'member@acme.example.com' })).statusCode).toBe(201);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(acme.users.member.key) })).statusCode,
    ).toBe(200);
  });
});

describe('SCIM Groups', () => {
  const memberships = (teamId: string) =>
    server.db.all<{ user_id: string; first: string; last: string | null }>(
      `SELECT user_id, CAST(first_day AS VARCHAR) AS first, CAST(last_day AS VARCHAR) AS last FROM team_members
       WHERE team_id = $team ORDER BY user_id, first_day`,
      { team: teamId },
    );
  const byFirst = (rows: { user_id: string; first: string; last: string | null }[], user: string) =>
    rows.filter((r) => r.user_id === user).map((r) => [r.first, r.last]);

  it('a group is the team of the same name: create, displayName filter (any case), 409 uniqueness', async () => {
    clock = new Date('2026-04-01T09:00:00Z');
    const res = await scim(acmeToken, 'POST', '/Groups', {
      schemas: [SCIM.group],
      displayName: 'Platform',
      members: [{ value: acme.users.member.id }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const group = res.json();
    expect(group).toMatchObject({
      schemas: [SCIM.group],
      displayName: 'Platform',
      members: [{ value: acme.users.member.id, display: 'member@acme.example.com' }],
    });
    expect(group.id).toMatch(/^team_/);
    expect(byFirst(await memberships(group.id), acme.users.member.id)).toEqual([['2026-04-01', null]]);
    // The same team the roster and the Teams page show.
    const listed = await server.app.inject({ method: 'GET', url: '/api/v0/organization/teams', headers: bearer(acme.users.manager.key) });
    expect(listed.json().teams).toContainEqual(
      expect.objectContaining({
        name: 'Platform',
        members: [expect.objectContaining({ email: 'member@acme.example.com', from: '2026-04-01' })],
      }),
    );
    const found = (await scim(acmeToken, 'GET', `/Groups?filter=${encodeURIComponent('displayName eq "platform"')}`)).json();
    expect(found).toMatchObject({ totalResults: 1, Resources: [{ id: group.id, displayName: 'Platform' }] });
    expectScimError(await scim(acmeToken, 'POST', '/Groups', { displayName: 'PLATFORM' }), 409, 'uniqueness');
    const lean = (await scim(acmeToken, 'GET', `/Groups/${group.id}?excludedAttributes=members`)).json();
    expect(lean.members).toBeUndefined();
    expectScimError(
      await scim(acmeToken, 'POST', '/Groups', { displayName: 'X', members: [{ value: globex.users.member.id }] }),
      400,
      'invalidValue',
    );
  });

  it('member changes apply from the UTC day they arrive: add, remove by value list and by members[value eq] path', async () => {
    clock = new Date('2026-04-01T09:00:00Z');
    const group = (await scim(acmeToken, 'POST', '/Groups', { displayName: 'Data' })).json();
    clock = new Date('2026-04-03T23:59:00Z');
    const add = await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: acme.users.member.id }, { value: acme.users.guest.id }] }],
    });
    expect(add.statusCode, add.body).toBe(200);
    clock = new Date('2026-04-05T00:00:01Z');
    const removeEntra = await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'Remove', path: 'members', value: [{ value: acme.users.guest.id }] }],
    });
    expect(removeEntra.statusCode, removeEntra.body).toBe(200);
    clock = new Date('2026-04-07T12:00:00Z');
    const removeOkta = await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'remove', path: `members[value eq "${acme.users.member.id}"]` }],
    });
    expect(removeOkta.statusCode, removeOkta.body).toBe(200);
    expect(removeOkta.json().members).toEqual([]);
    const rows = await memberships(group.id);
    expect(byFirst(rows, acme.users.member.id)).toEqual([['2026-04-03', '2026-04-06']]);
    expect(byFirst(rows, acme.users.guest.id)).toEqual([['2026-04-03', '2026-04-04']]);
    // Added and removed on the same day: the membership never took effect.
    clock = new Date('2026-04-08T08:00:00Z');
    await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      Operations: [{ op: 'add', path: 'members', value: [{ value: acme.users.manager.id }] }],
    });
    await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      Operations: [{ op: 'remove', path: `members[value eq "${acme.users.manager.id}"]` }],
    });
    expect(byFirst(await memberships(group.id), acme.users.manager.id)).toEqual([]);
  });

  it('renames with PATCH (Okta: replace with no path) and PUT, replaces members, deletes', async () => {
    clock = new Date('2026-04-10T10:00:00Z');
    const group = (await scim(acmeToken, 'POST', '/Groups', { displayName: 'Ops', members: [{ value: acme.users.member.id }] })).json();
    const renamed = await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, {
      schemas: [SCIM.patch],
      Operations: [{ op: 'replace', value: { id: group.id, displayName: 'Operations' } }],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ displayName: 'Operations', members: [{ value: acme.users.member.id }] });
    clock = new Date('2026-04-12T10:00:00Z');
    const put = await scim(acmeToken, 'PUT', `/Groups/${group.id}`, {
      schemas: [SCIM.group],
      displayName: 'SRE',
      members: [{ value: acme.users.guest.id }],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ displayName: 'SRE', members: [{ value: acme.users.guest.id }] });
    const rows = await memberships(group.id);
    expect(byFirst(rows, acme.users.member.id)).toEqual([['2026-04-10', '2026-04-11']]);
    expect(byFirst(rows, acme.users.guest.id)).toEqual([['2026-04-12', null]]);
    expectScimError(
      await scim(acmeToken, 'PATCH', `/Groups/${group.id}`, { Operations: [{ op: 'replace', path: 'displayName', value: 'platform' }] }),
      409,
      'uniqueness',
    );
    expect((await scim(acmeToken, 'DELETE', `/Groups/${group.id}`)).statusCode).toBe(204);
    expectScimError(await scim(acmeToken, 'GET', `/Groups/${group.id}`), 404);
  });

  it('a filter on a name no group, or an id no user, could have answers 400 invalidFilter naming the character; no match is an empty list', async () => {
    const list = (path: string, filter: string) => scim(acmeToken, 'GET', `${path}?filter=${encodeURIComponent(filter)}`);
    for (const [filter, character] of [
      ['displayName eq "Pay\u202Eroll"', 'U+202E'],
      ['displayName eq "Ops\\u0007"', 'U+0007'],
      ['displayName eq "Ops\u0007"', 'U+0007'],
      ['displayName eq "\u3164"', 'U+3164'],
    ] as const) {
      const body = expectScimError(await list('/Groups', filter), 400, 'invalidFilter');
      expect(body.detail, filter).toMatch(new RegExp(`holds U\\+${character.slice(2)}, a character a team name never holds`));
    }
    const user = expectScimError(await list('/Users', 'id eq "usr_\u202E"'), 400, 'invalidFilter');
    expect(user.detail).toMatch(/U\+202E, a character a user id never holds/);
    // An e-mail address is stored as its source gave it: any value may find one, so none is refused.
    expect((await list('/Users', 'userName eq "ana\u200C@acme.example.com"')).json()).toMatchObject({ totalResults: 0, Resources: [] });
    expect((await list('/Groups', 'displayName eq "No such team"')).json()).toMatchObject({ totalResults: 0, Resources: [] });
    expect((await list('/Groups', 'displayName eq "نرم\u200Cافزار"')).json()).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it("one organization's token sees none of another's groups", async () => {
    const acmeGroups = (await scim(acmeToken, 'GET', '/Groups')).json();
    expect(acmeGroups.totalResults).toBeGreaterThan(0);
    const id = acmeGroups.Resources[0].id;
    const globexGroups = (await scim(globexToken, 'GET', '/Groups')).json();
    expect(globexGroups.totalResults).toBe(0);
    expect((await scim(globexToken, 'GET', `/Groups?filter=${encodeURIComponent('displayName eq "Platform"')}`)).json().totalResults).toBe(
      0,
    );
    expectScimError(await scim(globexToken, 'GET', `/Groups/${id}`), 404);
    expectScimError(await scim(globexToken, 'PATCH', `/Groups/${id}`, { Operations: [{ op: 'remove', path: 'members' }] }), 404);
    expectScimError(await scim(globexToken, 'PUT', `/Groups/${id}`, { displayName: 'Mine' }), 404);
    expectScimError(await scim(globexToken, 'DELETE', `/Groups/${id}`), 404);
    // A group of the same name in the other organization is another team.
    expect((await scim(globexToken, 'POST', '/Groups', { displayName: 'Platform' })).statusCode).toBe(201);
    expect((await scim(acmeToken, 'GET', `/Groups/${id}`)).statusCode).toBe(200);
  });
});
