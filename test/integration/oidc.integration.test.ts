// The OIDC configuration routes and the guards of the sign-in that need no browser: owners only, one
// organization never sees another's provider, the client secret sealed at rest and never answered, the
// issuer refused when http or private (no --allow-private-oidc), and the public routes' refusals.
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../api/http/address-guard.ts';
import { OidcStore } from '../../api/oidc/store.ts';
import { keyFileFor } from '../../common/sealing.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let acme: Org;
let globex: Org;
const SECRET = 'the-client-secret-never-to-be-seen-again';
const PROVIDER = { issuer: 'https://login.example.com/tenant', clientId: 'agentmeter', clientSecret: SECRET, provision: 'member' };

const oidc = (method: 'GET' | 'PUT' | 'DELETE', key: string, body?: unknown) =>
  server.app.inject({ method, url: '/api/v0/organization/oidc', headers: bearer(key), ...(body ? { payload: body as object } : {}) });

beforeAll(async () => {
  server = await testServer({ decodeWorkers: 0 });
  acme = await server.seedOrg('Acme');
  globex = await server.seedOrg('Globex');
  // Stored directly (as `orgs oidc --db` does): a public name the PUT's own check would resolve over DNS.
  await new OidcStore(server.db).set(acme.orgId, { ...PROVIDER, provision: 'member', groupsClaim: 'groups' });
});
afterAll(() => server.close());

describe('OIDC configuration routes', () => {
  it('owners only: managers, members and guests get 403 on every method', async () => {
    for (const role of ['manager', 'member', 'guest'] as const) {
      expect((await oidc('GET', acme.users[role].key)).statusCode, role).toBe(403);
      expect((await oidc('PUT', acme.users[role].key, PROVIDER)).statusCode, role).toBe(403);
      expect((await oidc('DELETE', acme.users[role].key)).statusCode, role).toBe(403);
    }
    const mine = await oidc('GET', acme.users.owner.key);
    expect(mine.statusCode).toBe(200);
    expect(mine.json().provider).toMatchObject({
      issuer: PROVIDER.issuer,
      clientId: 'agentmeter',
      groupsClaim: 'groups',
      provision: 'member',
      loginPath: `/auth/oidc/${acme.orgId}/login`,
    });
  });

  it('the client secret is sealed at rest, its key file private, and no answer holds it', async () => {
    const rows = await server.db.all<{ sealed: string }>('SELECT client_secret_sealed AS sealed FROM oidc_providers');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed).not.toContain(SECRET);
    expect(rows[0]!.sealed.startsWith('v1.')).toBe(true);
    expect(statSync(keyFileFor(server.db.path)).mode & 0o777).toBe(0o600);
    expect((await new OidcStore(server.db).get(acme.orgId))?.clientSecret).toBe(SECRET);
    expect((await oidc('GET', acme.users.owner.key)).body).not.toContain(SECRET);
  });

  it('another organization sees none of it, and its public answer says it has no provider', async () => {
    expect((await oidc('GET', globex.users.owner.key)).json()).toEqual({ provider: null });
    const acmeOptions = await server.app.inject({ method: 'GET', url: `/auth/oidc/${acme.orgId}` });
    // Its name and the provider's host, shown beside the button: whose sign-in a link from elsewhere starts.
    expect(acmeOptions.json()).toEqual({
      orgId: acme.orgId,
      oidc: true,
      loginPath: `/auth/oidc/${acme.orgId}/login`,
      orgName: 'Acme',
      providerHost: 'login.example.com',
    });
    expect((await server.app.inject({ method: 'GET', url: `/auth/oidc/${globex.orgId}` })).json()).toEqual({
      orgId: globex.orgId,
      oidc: false,
    });
    expect((await server.app.inject({ method: 'GET', url: '/auth/oidc/not-an-org' })).statusCode).toBe(400);
    // A browser following a login link with an id that is no organization's gets the page, not a JSON 400.
    const login = await server.app.inject({ method: 'GET', url: '/auth/oidc/not-an-org/login' });
    expect([login.statusCode, login.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    expect(login.body).toContain('No identity provider');
    // Deleting one's own provider leaves the other organization's.
    expect((await oidc('DELETE', globex.users.owner.key)).statusCode).toBe(200);
    expect((await oidc('GET', acme.users.owner.key)).json().provider).not.toBeNull();
  });

  it('refuses an issuer that is http, or that is or resolves to a private or loopback address, without --allow-private-oidc', async () => {
    for (const issuer of [
      'http://login.example.com',
      'https://127.0.0.1:8443',
      'https://10.1.2.3',
      'https://[::1]',
      'https://localhost',
      'https://169.254.169.254',
    ]) {
      const res = await oidc('PUT', globex.users.owner.key, { ...PROVIDER, issuer });
      expect(res.statusCode, issuer).toBe(400);
    }
    for (const issuer of ['ftp://login.example.com', 'https://user:pw@login.example.com', 'https://login.example.com/?a=1'])
      expect((await oidc('PUT', globex.users.owner.key, { ...PROVIDER, issuer })).statusCode, issuer).toBe(400);
    expect((await oidc('GET', globex.users.owner.key)).json()).toEqual({ provider: null });
  });

  it('the server refuses at sign-in a provider stored on the file that it may not reach', async () => {
    await new OidcStore(server.db).set(globex.orgId, { ...PROVIDER, issuer: 'http://127.0.0.1:9', groupsClaim: null, provision: 'none' });
    const res = await server.app.inject({ method: 'GET', url: `/auth/oidc/${globex.orgId}/login` });
    expect(res.statusCode).toBe(502);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('must be reached over https');
  });
});

describe('OIDC public routes', () => {
  it('login for an organization without a provider, and a callback without a started sign-in, answer pages saying why', async () => {
    const other = await server.seedOrg('Initech');
    const login = await server.app.inject({ method: 'GET', url: `/auth/oidc/${other.orgId}/login` });
    expect(login.statusCode).toBe(404);
    expect(login.body).toContain('does not sign in with an identity provider');
    const callback = await server.app.inject({ method: 'GET', url: '/auth/oidc/callback?code=x&state=y' });
    expect(callback.statusCode).toBe(400);
    expect(callback.body).toContain('state is missing or altered');
    expect(String(callback.headers['content-security-policy'])).toContain("default-src 'none'");
    const forged = await server.app.inject({
      method: 'GET',
      url: '/auth/oidc/callback?code=x&state=same',
      headers: { cookie: 'agentmeter_oidc_state=same' },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.body).toContain('expired or was already used');
  });
});

describe('isPublicAddress', () => {
  it('tells public addresses from loopback, private, link-local, CGNAT and multicast ones', () => {
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '172.32.0.1', '100.128.0.1']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'not-an-ip',
    ])
      expect(isPublicAddress(a), a).toBe(false);
  });
});
