// The dashboard's server side through Fastify inject: its static files and security headers, the
// sign-in exchange (cookie attributes, CSRF rules, sign-out, revocation, expiry, role changes), and the
// routes only the dashboard needs (one person's usage, machines, batch runs), each with its role rules
// and the other-organization case.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../api/dashboard/routes.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { buildServer } from '../../api/server.ts';
import { COLLECTOR_USER_AGENT, encodeBatch, postBatch } from '../../collector/shipper.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { call, ev, turn, usage } from '../helpers/records.ts';
import { bearer, JWT_SECRET, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const log = createLogger({ name: 'test', level: 'silent' });
const DASH = { 'x-agentmeter-dashboard': '1' };
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

/** Signs in through the form's route; returns the cookie pair ("agentmeter_session=…") and the answer. */
async function signIn(credential: string) {
  const res = await server.app.inject({ method: 'POST', url: '/api/v0/auth/session', headers: DASH, payload: { credential } });
  const setCookie = String(res.headers['set-cookie'] ?? '');
  return { res, setCookie, cookie: setCookie.split(';')[0]! };
}
const getWith = (cookie: string, url: string, headers: Record<string, string> = {}) =>
  server.app.inject({ method: 'GET', url, headers: { cookie, ...headers } });

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  const ingest = (org: { orgId: string }, user: { id: string }, records: Parameters<TestServer['services']['ingest']['storeRecords']>[2]) =>
    server.services.ingest.storeRecords(org.orgId as OrgId, user.id as UserId, records);
  await ingest(acme, acme.users.member, [
    turn('2026-03-18', { id: 'mach-a.0001', session_id: 'm1' }),
    call('Read', '2026-03-18', { id: 'mach-a.0002', session_id: 'm1' }),
    usage('claude-sonnet-4-5', '2026-03-18', { input_tokens: 1000, output_tokens: 100 }, false, 'm1'),
  ]);
  await ingest(acme, acme.users.manager, [
    turn('2026-03-19', { id: 'mach-b.0001', session_id: 'g1', agent: 'droid' }),
    ev('SessionStart', '2026-03-19T08:00:00Z', { id: 'mach-b.0002', session_id: 'g2' }),
    usage('acme-secret-model', '2026-03-19', { input_tokens: 10, output_tokens: 1 }, false, 'g1'),
  ]);
  await ingest(other, other.users.member, [
    turn('2026-03-18', { id: 'mach-z.0001', session_id: 'z1' }),
    usage('other-secret-model', '2026-03-18', { input_tokens: 10, output_tokens: 1 }, false, 'z1'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
});
afterAll(() => server.close());

describe('static files', () => {
  it('serves index.html on / and on client routes with a strict CSP; hashed assets are immutable', async () => {
    for (const url of ['/', '/overview?from=2026-03-01&to=2026-03-19', '/people/usr_x']) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="app">');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    const index = await server.app.inject({ method: 'GET', url: '/' });
    // No inline script: every script is a file of this origin.
    expect(index.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)![1]!;
    const asset = await server.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip' } });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect(asset.headers['referrer-policy']).toBe('no-referrer');
    const again = await server.app.inject({ method: 'GET', url: script, headers: { 'if-none-match': String(asset.headers.etag) } });
    expect(again.statusCode).toBe(304);
    expect((await server.app.inject({ method: 'GET', url: '/assets/nope.js' })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'GET', url: '/assets/../../package.json' })).statusCode).toBe(404);
  });

  it('the API answers carry nosniff and no-referrer too', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('without a build, / says how to build it instead of a bare 404', async () => {
    const db = await openDb(join(tempDir(), 'nodist.duckdb'));
    const missing = join(tempDir(), 'missing');
    const { app } = await buildServer({ db, log, webDist: missing, decodeWorkers: 0 });
    try {
      const res = await app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toContain('npm run build');
      // An anonymous visitor does not learn where the server is installed (issue #20).
      expect(res.body).not.toContain(missing);
      expect(res.body).not.toMatch(/\/(tmp|home|root|work|opt|srv)\//);
      // A build that appears later is served without a restart.
      const dist = tempDir();
      mkdirSync(join(dist, 'assets'));
      writeFileSync(join(dist, 'index.html'), '<!doctype html><title>x</title>');
      const { app: app2 } = await buildServer({ db, log, webDist: dist, decodeWorkers: 0 });
      expect((await app2.inject({ method: 'GET', url: '/people' })).body).toContain('<title>x</title>');
      await app2.close();
    } finally {
      await app.close();
      await db.close();
    }
  });
});

describe('sign-in', () => {
  it('exchanges a key for an HttpOnly, SameSite=Strict cookie with an expiry; the cookie authenticates GETs', async () => {
    const { res, setCookie, cookie } = await signIn(acme.users.manager.key);
    expect(res.statusCode, res.body).toBe(201);
    expect(setCookie).toMatch(/^agentmeter_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    expect(res.json()).toMatchObject({
      email: 'manager@acme.example.com',
      role: 'manager',
      orgName: 'Acme',
      userId: acme.users.manager.id,
    });
    // The cookie holds no part of the key.
    expect(setCookie).not.toContain(acme.users.manager.key.slice(3, 12));
    const me = await getWith(cookie, '/api/v0/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ role: 'manager', orgId: acme.orgId });
    const analytics = await getWith(cookie, '/api/v1/analytics/activity?startDate=2026-03-18&endDate=2026-03-19');
    expect(analytics.statusCode).toBe(200);
    expect((await getWith(cookie, '/api/v0/auth/session')).json()).toMatchObject({ signedIn: true, me: { role: 'manager' } });
    // The session row holds a hash, never the token.
    const rows = await server.db.all<{ token_hash: string }>('SELECT token_hash FROM dashboard_sessions');
    expect(rows.map((r) => r.token_hash)).not.toContain(cookie.split('=')[1]);
  });

  it('the cookie is marked Secure when the request came over https', async () => {
    const { sessionCookieHeader } = await import('../../api/signin/routes.ts');
    expect(sessionCookieHeader('t', 60, true)).toBe('agentmeter_session=t; Path=/; Max-Age=60; HttpOnly; SameSite=Strict; Secure');
    expect(sessionCookieHeader('t', 60, false)).not.toContain('Secure');
  });

  it('behind a trusted proxy (--trust-proxy), its X-Forwarded-Proto makes the cookie Secure and its X-Forwarded-Host is the origin; from anyone else they are ignored', async () => {
    const proxied = await testServer({ now: () => NOW, trustProxy: '127.0.0.1' });
    try {
      const owner = (await proxied.seedOrg('Proxied')).users.owner;
      const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agentmeter.example.com' };
      const signInVia = (app: TestServer['app'], remoteAddress: string) =>
        app.inject({
          method: 'POST',
          url: '/api/v0/auth/session',
          remoteAddress,
          headers: { ...DASH, ...forwarded },
          payload: { credential: owner.key },
        });
      const viaProxy = await signInVia(proxied.app, '127.0.0.1');
      expect(String(viaProxy.headers['set-cookie'])).toMatch(/; Secure$/);
      const cookie = String(viaProxy.headers['set-cookie']).split(';')[0]!;
      const put = (origin: string) =>
        proxied.app.inject({
          method: 'PUT',
          url: '/api/v0/organization/usage/limits/users',
          headers: { cookie, host: '127.0.0.1:8080', ...DASH, ...forwarded, origin },
          payload: { users: [{ email: 'member@proxied.example.com', limit: 100 }] },
        });
      expect((await put('https://agentmeter.example.com')).statusCode).toBe(200);
      expect((await put('http://127.0.0.1:8080')).statusCode).toBe(403);
      // Not from the proxy: the forwarded headers are the sender's word and are ignored.
      expect(String((await signInVia(proxied.app, '10.1.2.3')).headers['set-cookie'])).not.toContain('Secure');
      // And a server without --trust-proxy believes no one.
      const { key } = (await server.seedOrg('Direct')).users.owner;
      const direct = await server.app.inject({
        method: 'POST',
        url: '/api/v0/auth/session',
        headers: { ...DASH, ...forwarded },
        payload: { credential: key },
      });
      expect(String(direct.headers['set-cookie'])).not.toContain('Secure');
    } finally {
      await proxied.close();
    }
  });

  it('at an https --public-url, the cookies are Secure without --trust-proxy: browsers reach it over TLS', async () => {
    const behind = await testServer({ now: () => NOW, publicUrl: 'https://agentmeter.example.com' });
    try {
      const { key } = (await behind.seedOrg('Behind')).users.owner;
      const signedIn = await behind.app.inject({
        method: 'POST',
        url: '/api/v0/auth/session',
        headers: DASH,
        payload: { credential: key },
      });
      expect(signedIn.statusCode).toBe(201);
      expect(String(signedIn.headers['set-cookie'])).toMatch(/; Secure$/);
      const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
      const signedOut = await behind.app.inject({ method: 'DELETE', url: '/api/v0/auth/session', headers: { ...DASH, cookie } });
      expect(String(signedOut.headers['set-cookie'])).toMatch(/Max-Age=0;.*; Secure$/);
    } finally {
      await behind.close();
    }
  });

  it('refuses bad credentials, a missing dashboard header, and a malformed body', async () => {
    expect((await signIn('am_not-a-key')).res.statusCode).toBe(401);
    expect((await signIn('not.a.jwt')).res.statusCode).toBe(401);
    const noHeader = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      payload: { credential: acme.users.owner.key },
    });
    expect(noHeader.statusCode).toBe(403);
    expect(noHeader.headers['set-cookie']).toBeUndefined();
    // The header is checked before the body: without it, a malformed body is refused for the header too.
    const neither = await server.app.inject({ method: 'POST', url: '/api/v0/auth/session', payload: { key: 'x' } });
    expect(neither.statusCode).toBe(403);
    const bad = await server.app.inject({ method: 'POST', url: '/api/v0/auth/session', headers: DASH, payload: { key: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400, title: 'Bad Request' });
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/auth/session' })).json()).toEqual({ signedIn: false });
    expect((await getWith('agentmeter_session=forged', '/api/v0/auth/me')).statusCode).toBe(401);
  });

  it('a cookie request that changes something needs the dashboard header and this origin', async () => {
    const { cookie } = await signIn(acme.users.owner.key);
    const put = (headers: Record<string, string>) =>
      server.app.inject({
        method: 'PUT',
        url: '/api/v0/organization/usage/limits/users',
        headers: { cookie, host: 'dash.example', ...headers },
        payload: { users: [{ email: 'member@acme.example.com', limit: 500 }] },
      });
    expect((await put({})).statusCode).toBe(403);
    expect((await put({ ...DASH, origin: 'https://evil.example' })).statusCode).toBe(403);
    const ok = await put({ ...DASH, origin: 'http://dash.example' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().updated).toEqual([{ email: 'member@acme.example.com', limit: 500 }]);
    // A bearer key needs no header: the rule is for the cookie only.
    const bearerPut = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/usage/limits/users',
      headers: bearer(acme.users.owner.key),
      payload: { users: [{ email: 'member@acme.example.com', limit: 600 }] },
    });
    expect(bearerPut.statusCode).toBe(200);
  });

  it('sign-out deletes the session: the cookie no longer authenticates', async () => {
    const { cookie } = await signIn(acme.users.manager.key);
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(200);
    // Another site cannot sign the visitor out, even with the header (issue #20): the Origin is checked too.
    const crossSite = await server.app.inject({
      method: 'DELETE',
      url: '/api/v0/auth/session',
      headers: { cookie, ...DASH, origin: 'https://evil.example', host: 'localhost:8080' },
    });
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().detail).toMatch(/dashboard origin/);
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(200);
    const out = await server.app.inject({
      method: 'DELETE',
      url: '/api/v0/auth/session',
      headers: { cookie, ...DASH, origin: 'http://localhost:8080', host: 'localhost:8080' },
    });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^agentmeter_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(401);
  });

  it('revoking the key ends its sessions at once', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: `/api/v0/admin/users/${acme.users.member.id}/keys`,
      headers: bearer(acme.users.member.key),
      payload: {},
    });
    const { apiKey, key } = created.json() as { apiKey: string; key: { id: string } };
    const { cookie } = await signIn(apiKey);
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(200);
    await server.app.inject({ method: 'DELETE', url: `/api/v0/admin/keys/${key.id}`, headers: bearer(acme.users.owner.key) });
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(401);
  });

  it('an expired session is refused, and a demoted user keeps no more than their new role', async () => {
    const { cookie } = await signIn(acme.users.manager.key);
    const user = await server.services.accounts.createUser({
      orgId: acme.orgId as OrgId,
      email: 'demoted@acme.example.com',
      role: 'manager',
    });
    const { key } = await server.services.accounts.createKey(user);
    const demoted = await signIn(key);
    await server.db.run("UPDATE users SET role = 'member' WHERE id = $id", { id: user.id });
    await server.db.run('UPDATE dashboard_sessions SET expires_at = now()::TIMESTAMP - INTERVAL 1 MINUTE WHERE user_id = $id', {
      id: acme.users.manager.id,
    });
    server.services.auth.invalidate();
    expect((await getWith(cookie, '/api/v0/auth/me')).statusCode).toBe(401);
    expect((await getWith(demoted.cookie, '/api/v0/auth/me')).json()).toMatchObject({ role: 'member' });
    expect((await getWith(demoted.cookie, '/api/v1/analytics/activity?startDate=2026-03-18&endDate=2026-03-19')).statusCode).toBe(403);
  });

  it('a JWT signs in too, and the session never outlives the token', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const jwt = await new SignJWT({ org_id: acme.orgId, role: 'manager' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(acme.users.manager.id)
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(JWT_SECRET));
    const { res, setCookie, cookie } = await signIn(jwt);
    expect(res.statusCode, res.body).toBe(201);
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookie)![1]);
    expect(maxAge).toBeGreaterThan(500);
    expect(maxAge).toBeLessThanOrEqual(600);
    expect((await getWith(cookie, '/api/v0/auth/me')).json()).toMatchObject({ role: 'manager' });
  });
});

describe('routes the dashboard reads', () => {
  it("one person's usage: managers anyone, members themselves only, guests none, other organizations none", async () => {
    const range = '?startDate=2026-03-18&endDate=2026-03-19';
    const mine = await server.app.inject({ method: 'GET', url: `/api/v0/usage/users/me${range}`, headers: bearer(acme.users.member.key) });
    expect(mine.statusCode).toBe(200);
    const body = mine.json() as { data: { date: string; user_id: string; tool_calls: number; billable_tokens: number }[] };
    expect(body.data.map((r) => [r.date, r.user_id, r.tool_calls])).toEqual([['2026-03-18', acme.users.member.id, 1]]);
    // The same record as the analytics API's /users for that person.
    const users = await server.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/users${range}`,
      headers: bearer(acme.users.manager.key),
    });
    expect(users.json().data.filter((r: { user_id: string }) => r.user_id === acme.users.member.id)).toEqual(body.data);
    const get = (key: string, id: string) =>
      server.app.inject({ method: 'GET', url: `/api/v0/usage/users/${id}${range}`, headers: bearer(key) });
    expect((await get(acme.users.manager.key, acme.users.member.id)).statusCode).toBe(200);
    expect((await get(acme.users.member.key, acme.users.manager.id)).statusCode).toBe(404);
    expect((await get(acme.users.guest.key, 'me')).statusCode).toBe(403);
    expect((await get(other.users.owner.key, acme.users.member.id)).statusCode).toBe(404);
    expect((await get(acme.users.member.key, 'me').then(() => get(acme.users.member.key, 'me'))).statusCode).toBe(200);
    const badRange = await server.app.inject({
      method: 'GET',
      url: '/api/v0/usage/users/me?startDate=2026-03-19&endDate=2026-03-20',
      headers: bearer(acme.users.member.key),
    });
    expect(badRange.statusCode).toBe(400);
    expect((await server.app.inject({ method: 'GET', url: `/api/v0/usage/users/me${range}` })).statusCode).toBe(401);
  });

  it("one person's usage takes startDate and endDate only: a group_by or team= it would ignore is a 400", async () => {
    // It took the query of /productivity, group_by and team= included, and answered them with the plain,
    // unfiltered records: group_by=agent, team=NoSuchTeam looked applied.
    const range = 'startDate=2026-03-18&endDate=2026-03-19';
    for (const extra of ['group_by=agent', 'group_by=team', 'team=NoSuchTeam']) {
      const res = await server.app.inject({
        method: 'GET',
        url: `/api/v0/usage/users/me?${range}&${extra}`,
        headers: bearer(acme.users.manager.key),
      });
      expect(res.statusCode, `${extra}: ${res.body}`).toBe(400);
      const body = ErrorBodySchema.parse(res.json());
      expect(body.detail).toBe(`unknown query parameter "${extra.split('=')[0]}"; this endpoint takes startDate, endDate`);
    }
    const doc = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const params = doc.paths['/api/v0/usage/users/{userId}'].get.parameters.map((p: { name: string }) => p.name);
    expect(params.sort()).toEqual(['endDate', 'startDate', 'userId']);
  });

  it('machines: derived from event ids; managers see all of their organization, members their own, guests none', async () => {
    const list = async (key: string) => {
      const res = await server.app.inject({ method: 'GET', url: '/api/v0/machines', headers: bearer(key) });
      return {
        status: res.statusCode,
        machines: (res.json() as { machines?: { machineId: string; agents: string[]; events: number; userEmail: string }[] }).machines,
      };
    };
    const manager = await list(acme.users.manager.key);
    expect(manager.status).toBe(200);
    expect(manager.machines!.map((m) => [m.machineId, m.userEmail, m.agents, m.events]).sort()).toEqual([
      ['mach-a', 'member@acme.example.com', ['claude'], 2],
      ['mach-b', 'manager@acme.example.com', ['claude', 'droid'], 2],
    ]);
    expect((await list(acme.users.member.key)).machines!.map((m) => m.machineId)).toEqual(['mach-a']);
    expect((await list(acme.users.guest.key)).status).toBe(403);
    expect((await list(other.users.owner.key)).machines!.map((m) => m.machineId)).toEqual(['mach-z']);
  });

  it("machines: the collector version of a delivery, from the collector's own headers", async () => {
    // What the collector sends: its version in User-Agent, its machine id in a header of its own.
    let seen: IncomingHttpHeaders = {};
    const capture = createServer((req, res) => {
      seen = req.headers;
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":0,"stored":0,"duplicates":0,"rejected":[]}'),
      );
    });
    await new Promise<void>((r) => capture.listen(0, '127.0.0.1', r));
    try {
      await postBatch(
        `http://127.0.0.1:${(capture.address() as AddressInfo).port}`,
        'am_x',
        encodeBatch([]),
        undefined,
        5000,
        '00112233aabbccdd',
      );
    } finally {
      capture.close();
    }
    expect(seen['user-agent']).toBe(COLLECTOR_USER_AGENT);
    expect(COLLECTOR_USER_AGENT).toMatch(/^agentmeter-collector\/\d+\.\d+\.\d+/);
    expect(seen['x-agentmeter-machine']).toBe('00112233aabbccdd');
    const ingest = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(acme.users.owner.key), 'user-agent': String(seen['user-agent']), 'x-agentmeter-machine': '00112233aabbccdd' },
      payload: [turn('2026-03-19', { id: '00112233aabbccdd.0001', session_id: 'o1' })],
    });
    expect(ingest.statusCode, ingest.body).toBe(200);
    const res = await server.app.inject({ method: 'GET', url: '/api/v0/machines', headers: bearer(acme.users.owner.key) });
    const machines = res.json().machines as { machineId: string; collectorVersion: string | null }[];
    expect(machines.find((m) => m.machineId === '00112233aabbccdd')!.collectorVersion).toBe(COLLECTOR_USER_AGENT.split('/')[1]);
    // Another user naming the same machine id in the header cannot change what it shows.
    const spoof = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(acme.users.member.key), 'user-agent': 'agentmeter-collector/9.9.9', 'x-agentmeter-machine': '00112233aabbccdd' },
      payload: [turn('2026-03-19', { id: 'mach-a.spoof', session_id: 'o2' })],
    });
    expect(spoof.statusCode, spoof.body).toBe(200);
    const after = (await server.app.inject({ method: 'GET', url: '/api/v0/machines', headers: bearer(acme.users.owner.key) })).json()
      .machines as { machineId: string; collectorVersion: string | null }[];
    expect(after.find((m) => m.machineId === '00112233aabbccdd')!.collectorVersion).toBe(COLLECTOR_USER_AGENT.split('/')[1]);
    // Machines that never said (or not since the server started) are "not known".
    expect(machines.find((m) => m.machineId === 'mach-a')!.collectorVersion).toBeNull();
    // Another organization never sees it.
    const theirs = await server.app.inject({ method: 'GET', url: '/api/v0/machines', headers: bearer(other.users.owner.key) });
    expect((theirs.json().machines as { machineId: string }[]).map((m) => m.machineId)).not.toContain('00112233aabbccdd');
  });

  it("batch runs: days rebuilt and only this organization's unpriced models; owners and managers only", async () => {
    const runs = async (key: string) => server.app.inject({ method: 'GET', url: '/api/v0/admin/batch/runs', headers: bearer(key) });
    const acmeRuns = (await runs(acme.users.manager.key)).json() as {
      runs: { daysRebuilt: number; unpricedModels: string[]; finishedAt: string }[];
    };
    expect(acmeRuns.runs.length).toBeGreaterThanOrEqual(1);
    expect(acmeRuns.runs[0]!.daysRebuilt).toBeGreaterThan(0);
    expect(acmeRuns.runs[0]!.finishedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(acmeRuns.runs[0]!.unpricedModels).toContain('acme-secret-model');
    expect(acmeRuns.runs[0]!.unpricedModels).not.toContain('other-secret-model');
    expect((await runs(other.users.manager.key)).json().runs[0].unpricedModels).toEqual(['other-secret-model']);
    expect((await runs(acme.users.member.key)).statusCode).toBe(403);
    // The answer of a batch run through the API follows the same rule: it covers every organization but
    // names only the caller's unpriced models.
    const run = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/batch',
      headers: bearer(acme.users.manager.key),
      payload: {},
    });
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json().unpricedModels).toEqual(['acme-secret-model']);
  });

  it("the organization's users carry their role", async () => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/v0/organization/users?limit=100',
      headers: bearer(acme.users.owner.key),
    });
    const roles = Object.fromEntries((res.json().users as { email: string; role: string }[]).map((u) => [u.email, u.role]));
    expect(roles).toMatchObject({ 'owner@acme.example.com': 'owner', 'guest@acme.example.com': 'guest' });
  });
});
