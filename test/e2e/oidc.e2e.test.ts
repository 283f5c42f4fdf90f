// Sign-in with the organization's identity provider, end to end in real Chromium against a real OpenID
// provider (oidc-provider, test/helpers/idp.ts) on 127.0.0.1 and a real server (serve's
// --allow-private-oidc, since the provider is on loopback): the sign-in page's button, the provider's
// login and consent, the overview loading with the HttpOnly SameSite=Strict session cookie, the groups
// claim setting the teams; a tampered state, a wrong audience, an expired ID token, an unverified e-mail,
// an unknown person and a person the directory deactivated refused with a page saying why; a sign-in
// another site links to asked about first; sign-out ending the session.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../api/auth/authenticator.ts';
import { SERVER_DB_OPTIONS, startServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { launchChromium } from '../helpers/browser.ts';
import { type Idp, startIdp } from '../helpers/idp.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
let server: Awaited<ReturnType<typeof startServer>>;
let db: Db;
/** The browser signed in by the first test, signed out by the last. */
let signedIn: Page;
let idp: Idp;
let browser: Browser;
let base: string;
let orgId: string;
let ownerKey: string;
const contexts: BrowserContext[] = [];

const configure = (body: Record<string, unknown>, key = ownerKey) =>
  fetch(`${base}/api/v0/organization/oidc`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, ...body }),
  });

async function freshPage(): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
  contexts.push(context);
  return context.newPage();
}

/** From the sign-in page's button through the provider's login and consent, to the page the callback answers. */
async function signInAtProvider(page: Page, login: string): Promise<{ status: number; text: string }> {
  await page.goto(`${base}/?org=${orgId}`);
  // The page names whose sign-in the button starts (a link from another site may have chosen it).
  expect(await page.getByTestId('oidc-org').textContent()).toBe(`Organization Corp, identity provider at ${new URL(idp.issuer).host}:`);
  const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/auth/oidc/callback`), { timeout: 60_000 });
  await page.getByRole('link', { name: 'Sign in with your identity provider' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  const answer = await callback;
  // A refusal stays on its page; the signed-in page moves on to the dashboard (its body is gone then).
  if (answer.status() === 200) return { status: 200, text: '' };
  await page.locator('#reason').waitFor();
  return { status: answer.status(), text: (await page.locator('main').textContent()) ?? '' };
}

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'oidc.duckdb'), SERVER_DB_OPTIONS);
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, decodeWorkers: 0, allowPrivateOidc: true });
  base = server.url;
  idp = await startIdp(`${base}/auth/oidc/callback`, {
    'ana@corp.example.com': { email: 'Ana@Corp.example.com', emailVerified: true, groups: ['Platform', 'Data'] },
    'new@corp.example.com': { email: 'new@corp.example.com', givenName: 'Nova' },
    'unverified@corp.example.com': { email: 'unverified@corp.example.com', emailVerified: false },
    'twin@corp.example.com': { email: 'twin@corp.example.com', emailVerified: true },
  });
  const { accounts } = server.services;
  const org = await accounts.createOrg('Corp');
  orgId = org.id;
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@corp.example.com', role: 'owner' });
  ownerKey = (await accounts.createKey(owner)).key;
  await accounts.createUser({ orgId: org.id, email: 'ana@corp.example.com', role: 'manager' });
  const res = await configure({ groupsClaim: 'groups', provision: 'none' });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(JSON.stringify(await res.json())).not.toContain(idp.clientSecret);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await idp?.close();
  await server?.close();
});

describe('OIDC sign-in in Chromium', { timeout: 120_000 }, () => {
  it('signs in through the provider: the overview loads with the session cookie; the groups claim sets the teams', async () => {
    const page = await freshPage();
    const answer = await signInAtProvider(page, 'ana@corp.example.com');
    expect(answer.status, answer.text).toBe(200);
    await page.getByTestId('who').waitFor();
    expect(await page.getByTestId('who').textContent()).toContain('ana@corp.example.com');
    await page.waitForURL(/\/overview/);
    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    const me = await page.request.get(`${base}/api/v0/auth/me`);
    expect(me.status()).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'ana@corp.example.com', role: 'manager', orgId });
    // The identity provider's sign-in is the person's last sign-in (the Organization page shows it).
    const [signIn] = await db.all<{ at: string | null }>(
      "SELECT CAST(last_sign_in_at AS VARCHAR) AS at FROM users WHERE email = 'ana@corp.example.com'",
    );
    expect(signIn?.at).toMatch(/^\d{4}-\d\d-\d\d /);
    const today = new Date().toISOString().slice(0, 10);
    const teams = await db.all<{ name: string; first: string; last: string | null }>(
      `SELECT t.name, CAST(m.first_day AS VARCHAR) AS first, CAST(m.last_day AS VARCHAR) AS last
       FROM team_members m JOIN teams t ON t.org_id = m.org_id AND t.team_id = m.team_id
       JOIN users u ON u.id = m.user_id WHERE u.email = 'ana@corp.example.com' ORDER BY t.name`,
    );
    expect(teams).toEqual([
      { name: 'Data', first: today, last: null },
      { name: 'Platform', first: today, last: null },
    ]);
    signedIn = page;
  });

  it('asks first when another site links to the sign-in (login CSRF), then signs in from its own link', async () => {
    // Another site: a page on "localhost", a different site from 127.0.0.1 to the browser.
    const other = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><a id="go" href="${base}/auth/oidc/${orgId}/login">sign in</a>`);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const page = await freshPage();
      await page.goto(`http://localhost:${(other.address() as AddressInfo).port}/`);
      await page.locator('#go').click();
      await page.locator('h1').waitFor();
      expect(await page.locator('h1').textContent()).toBe('Sign in to Corp');
      expect(page.url()).toBe(`${base}/auth/oidc/${orgId}/login`);
      // Nothing started: no state in this browser.
      expect((await page.context().cookies(base)).map((c) => c.name)).toEqual([]);
      const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/auth/oidc/callback`), { timeout: 60_000 });
      await page.locator('#continue').click();
      await page.locator('input[name="login"]').fill('ana@corp.example.com');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.getByRole('button', { name: 'Continue' }).click();
      expect((await callback).status()).toBe(200);
      await page.getByTestId('who').waitFor();
      expect(await page.getByTestId('who').textContent()).toContain('ana@corp.example.com');
    } finally {
      other.close();
    }
  });

  it('refuses a tampered state with a page saying why', async () => {
    const page = await freshPage();
    // The sign-in starts as the button would (the state cookie lands in this browser's jar); the state
    // sent to the provider has one character changed, and the provider hands it back unchanged.
    const start = await page.request.get(`${base}/auth/oidc/${orgId}/login`, { maxRedirects: 0 });
    expect(start.status()).toBe(302);
    const authorize = new URL(start.headers()['location']!);
    expect(authorize.origin).toBe(idp.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const state = authorize.searchParams.get('state')!;
    authorize.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    const callback = page.waitForResponse((r) => r.url().startsWith(`${base}/auth/oidc/callback`));
    await page.goto(authorize.href);
    await page.locator('input[name="login"]').fill('ana@corp.example.com');
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    const answer = await callback;
    expect(answer.status()).toBe(400);
    expect(await page.locator('#reason').textContent()).toContain('state is missing or altered');
    expect((await page.context().cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(false);
  });

  it('refuses an ID token for another audience, and an expired one', async () => {
    try {
      idp.tamper = 'wrong-audience';
      const page = await freshPage();
      const wrongAudience = await signInAtProvider(page, 'ana@corp.example.com');
      expect(wrongAudience.status).toBe(401);
      expect(wrongAudience.text).toMatch(/aud/);
      expect((await page.context().cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(false);
      idp.tamper = 'expired';
      const other = await freshPage();
      const expired = await signInAtProvider(other, 'ana@corp.example.com');
      expect(expired.status).toBe(401);
      expect(expired.text).toMatch(/exp/);
      expect((await other.context().cookies()).some((c) => c.name === SESSION_COOKIE)).toBe(false);
    } finally {
      idp.tamper = 'none';
    }
  });

  it('refuses an unverified e-mail, and an unknown person unless the organization provisions members', async () => {
    const unverified = await signInAtProvider(await freshPage(), 'unverified@corp.example.com');
    expect(unverified.status).toBe(403);
    expect(unverified.text).toContain('not verified');
    const unknown = await signInAtProvider(await freshPage(), 'new@corp.example.com');
    expect(unknown.status).toBe(403);
    expect(unknown.text).toContain('is not a user of this organization');
    expect(await server.services.accounts.findUserByEmail(orgId, 'new@corp.example.com')).toBeUndefined();
    expect((await configure({ groupsClaim: 'groups', provision: 'member' })).status).toBe(200);
    const page = await freshPage();
    const added = await signInAtProvider(page, 'new@corp.example.com');
    expect(added.status, added.text).toBe(200);
    await page.getByTestId('who').waitFor();
    const user = await server.services.accounts.findUserByEmail(orgId, 'new@corp.example.com');
    expect(user).toMatchObject({ role: 'member', first_name: 'Nova' });
    // Deactivated by the directory (SCIM active=false): refused at the next sign-in.
    await db.run('INSERT INTO scim_users (org_id, user_id, active) VALUES ($org, $user, false)', { org: orgId, user: user!.id });
    const deactivated = await signInAtProvider(await freshPage(), 'new@corp.example.com');
    expect(deactivated.status).toBe(403);
    expect(deactivated.text).toContain('deactivated in the directory');
    // An address that is another user's alias (their commits carry it) provisions no second owner of it.
    const ana = (await server.services.accounts.findUserByEmail(orgId, 'ana@corp.example.com'))!;
    await db.run(
      "INSERT INTO user_aliases (org_id, email, user_id, source, created_at) VALUES ($org, 'twin@corp.example.com', $user, 'owner', now()::TIMESTAMP)",
      {
        org: orgId,
        user: ana.id,
      },
    );
    const twin = await signInAtProvider(await freshPage(), 'twin@corp.example.com');
    expect(twin.status).toBe(403);
    expect(twin.text).toContain("another user's alias");
    expect(await server.services.accounts.findUserByEmail(orgId, 'twin@corp.example.com')).toBeUndefined();
  });

  it('sign-out ends the session: the cookie no longer signs anything in', async () => {
    const cookie = (await signedIn.context().cookies()).find((c) => c.name === SESSION_COOKIE)!;
    await signedIn.getByRole('button', { name: 'Sign out' }).click();
    await signedIn.getByLabel('API key or token').waitFor();
    // Signing out lands on the organization's sign-in page, which offers its provider again.
    await signedIn.getByRole('link', { name: 'Sign in with your identity provider' }).waitFor();
    const me = await fetch(`${base}/api/v0/auth/me`, { headers: { cookie: `${SESSION_COOKIE}=${cookie.value}` } });
    expect(me.status).toBe(401);
  });
});
