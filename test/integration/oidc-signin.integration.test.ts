// OIDC sign-in as the standard has it, without a browser (test/helpers/idp.ts walks the provider's pages):
// oidc-provider in its default configuration gives the e-mail and the groups only from UserInfo (OpenID
// Connect Core 5.4), and the person signs in; an ID token with `alg: none`, a corrupted signature, a key
// the provider never published or an algorithm it does not sign with (HS256 with the client secret) is
// refused; the request log never holds the authorization code or the state; setting the provider answers
// the real callback URL (serve --public-url); a sign-in another site started is asked about first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { type Idp, signInWithoutBrowser, startIdp, type Tamper } from '../helpers/idp.ts';
import { bearer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const logFile = join(tempDir(), 'server.log');
let server: Awaited<ReturnType<typeof startServer>>;
let db: Db;
let idp: Idp;
let orgId: string;
let ownerKey: string;

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'oidc-signin.duckdb'), SERVER_DB_OPTIONS);
  const log = createLogger({ name: 'test', level: 'info', destination: logFile });
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0, allowPrivateOidc: true });
  idp = await startIdp(`${server.url}/auth/oidc/callback`, {
    'ana@corp.example.com': { email: 'Ana@Corp.example.com', emailVerified: true, groups: ['Platform', 'Data'] },
  });
  const { accounts } = server.services;
  const org = await accounts.createOrg('Corp');
  orgId = org.id;
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@corp.example.com', role: 'owner' });
  ownerKey = (await accounts.createKey(owner)).key;
  await accounts.createUser({ orgId: org.id, email: 'ana@corp.example.com', role: 'manager' });
  const res = await fetch(`${server.url}/api/v0/organization/oidc`, {
    method: 'PUT',
    headers: { ...bearer(ownerKey), 'content-type': 'application/json' },
    body: JSON.stringify({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, groupsClaim: 'groups' }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  // Without --public-url, the server names itself by the address the request reached.
  expect(((await res.json()) as { urls: unknown }).urls).toEqual({
    login: `${server.url}/auth/oidc/${orgId}/login`,
    callback: `${server.url}/auth/oidc/callback`,
  });
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await server?.close();
});

describe('OIDC sign-in against a provider in its default configuration', { timeout: 60_000 }, () => {
  it('reads the e-mail and the groups from UserInfo when the ID token lacks them, and signs the person in', async () => {
    const answer = await signInWithoutBrowser(server.url, orgId, 'ana@corp.example.com');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.sessionCookie).toBeDefined();
    const me = await fetch(`${server.url}/api/v0/auth/me`, { headers: { cookie: answer.sessionCookie! } });
    expect(await me.json()).toMatchObject({ email: 'ana@corp.example.com', role: 'manager', orgId });
    const teams = await db.all<{ name: string }>(
      `SELECT t.name FROM team_members m JOIN teams t ON t.org_id = m.org_id AND t.team_id = m.team_id
       JOIN users u ON u.id = m.user_id WHERE u.email = 'ana@corp.example.com' ORDER BY t.name`,
    );
    expect(teams.map((t) => t.name)).toEqual(['Data', 'Platform']);

    // The request log holds the callback's line, with neither the code nor the state.
    const callback = new URL(answer.callbackUrl);
    const code = callback.searchParams.get('code')!;
    const state = callback.searchParams.get('state')!;
    expect(code.length).toBeGreaterThan(10);
    const log = readFileSync(logFile, 'utf8');
    const lines = log.split('\n').filter((line) => line.includes('/auth/oidc/callback?'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines)
      expect(JSON.parse(line).req.url).toMatch(/code=\[redacted\].*state=\[redacted\]|state=\[redacted\].*code=\[redacted\]/);
    expect(log).not.toContain(code);
    expect(log).not.toContain(state);
  });

  it('asks first when another site started the sign-in (login CSRF): nothing starts until a link here is followed', async () => {
    const login = `${server.url}/auth/oidc/${orgId}/login`;
    for (const site of ['cross-site', 'same-site']) {
      const res = await fetch(login, { redirect: 'manual', headers: { 'sec-fetch-site': site } });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      const page = await res.text();
      expect(page).toContain('Sign in to Corp</h1>');
      expect(page).toContain(`href="/auth/oidc/${orgId}/login"`);
      expect(page).toContain(`Continue to ${new URL(idp.issuer).host}`);
    }
    // Its own sign-in page's link, a typed address, a client that is not a browser: on to the provider.
    for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Record<string, string>[]) {
      const res = await fetch(login, { redirect: 'manual', headers });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')!.startsWith(idp.issuer)).toBe(true);
      expect(res.headers.get('set-cookie')).toMatch(/state/i);
    }
  });

  it('writes no authorization code or state to the request log, even of a callback it refuses', async () => {
    const code = 'an-authorization-code-0123456789';
    const state = 'a-state-value-0123456789';
    const res = await fetch(`${server.url}/auth/oidc/callback?code=${code}&state=${state}&iss=x`);
    expect(res.status).toBe(400);
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('/auth/oidc/callback?code=[redacted]&state=[redacted]&iss=x');
    expect(log).not.toContain(code);
    expect(log).not.toContain(state);
  });

  const forged: [Tamper, RegExp][] = [
    ['alg-none', /alg|Unsecured|not allowed/i],
    ['bad-signature', /signature verification failed/i],
    ['unknown-key', /no applicable key/i],
    // openid-client refuses this one itself (it expects RS256 unless told otherwise); jose would too.
    ['hs256', /unexpected JWT &quot;alg&quot;|alg.*not allowed/i],
  ];
  for (const [tamper, reason] of forged) {
    it(`refuses an ID token whose signature is forged: ${tamper}`, async () => {
      try {
        idp.tamper = tamper;
        const answer = await signInWithoutBrowser(server.url, orgId, 'ana@corp.example.com');
        expect(answer.status, answer.text).toBe(401);
        expect(answer.text).toMatch(reason);
        expect(answer.sessionCookie).toBeUndefined();
      } finally {
        idp.tamper = 'none';
      }
    });
  }
});

describe('setting the provider', () => {
  it('answers the callback URL at serve --public-url', async () => {
    const behind = await testServer({ publicUrl: 'https://agentmeter.example.com/' });
    try {
      const org = await behind.seedOrg('Behind');
      const res = await behind.app.inject({
        method: 'PUT',
        url: '/api/v0/organization/oidc',
        headers: bearer(org.users.owner.key),
        // A public address written as an IP: nothing to resolve.
        payload: { issuer: 'https://93.184.216.34', clientId: 'agentmeter', clientSecret: 'a-secret-0123456789' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().urls).toEqual({
        login: `https://agentmeter.example.com/auth/oidc/${org.orgId}/login`,
        callback: 'https://agentmeter.example.com/auth/oidc/callback',
      });
      // Browsers reach it over TLS: the state cookie the callback clears is Secure, with or without --trust-proxy.
      const callback = await behind.app.inject({ method: 'GET', url: '/auth/oidc/callback?state=x&code=y' });
      expect(callback.statusCode).toBe(400);
      expect(String(callback.headers['set-cookie'])).toMatch(/; Secure/);
      // An http issuer is refused with the flag that allows it named.
      const http = await behind.app.inject({
        method: 'PUT',
        url: '/api/v0/organization/oidc',
        headers: bearer(org.users.owner.key),
        payload: { issuer: 'http://93.184.216.34', clientId: 'agentmeter', clientSecret: 'a-secret-0123456789' },
      });
      expect(http.statusCode).toBe(400);
      expect(http.json().detail).toMatch(/https.*--allow-private-oidc/);
    } finally {
      await behind.close();
    }
  });
});
