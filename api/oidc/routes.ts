// Sign-in with the organization's OpenID Connect provider, with openid-client (certified): discovery,
// the authorization code flow with PKCE (S256), state and nonce, and the ID token's checks (issuer,
// audience, expiry, nonce; its signature against the provider's JWKS with jose, id-token.ts). GET
// /auth/oidc/{orgId}/login sends the browser to the provider; GET /auth/oidc/callback takes it back, reads
// UserInfo when the ID token lacks the e-mail or groups claim, matches the person by the verified `email`
// and gives the same HttpOnly SameSite=Strict session cookie as the key sign-in (api/signin/). The state
// is bound to the browser by a short-lived cookie, so a callback carrying another browser's (or an
// altered) state is refused. Owners configure the provider on PUT /api/v0/organization/oidc.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FetchImplementation } from 'jose';
import * as client from 'openid-client';
import type { Db } from '../../common/db/duckdb.ts';
import { badRequest } from '../../common/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { AccountStore } from '../accounts/store.ts';
import { OWNERS, type Principal } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { sessionCookieHeader } from '../signin/routes.ts';
import { SESSION_TTL_MS } from '../signin/schema.ts';
import type { SignInStore } from '../signin/store.ts';
import { guardedFetch, OidcGuardError, refusal } from './guard.ts';
import { type IdTokenVerifier, idTokenVerifier, needsUserInfo, personClaims } from './id-token.ts';
import { PAGE_CSP, refusalPage, signedInPage } from './pages.ts';
import {
  CallbackQuery,
  OIDC_CALLBACK_PATH,
  OIDC_CONFIG_PATH,
  OIDC_LOGIN_PATH,
  OIDC_OPTIONS_PATH,
  OrgParams,
  ProviderAnswer,
  ProviderBody,
  SignInOptions,
} from './schema.ts';
import { loginPath, OidcStore, type Provider, providerView } from './store.ts';
import { groupNames, setTeamsFromClaim } from './teams.ts';

export const OIDC_STATE_COOKIE = 'agentmeter_oidc_state';

export interface OidcDeps {
  db: Db;
  accounts: AccountStore;
  sessions: SignInStore;
  /** serve --allow-private-oidc: the provider may be http and on a private or loopback address. */
  allowPrivate: boolean;
  /** The URL browsers reach this server at (serve --public-url); else the request's own. */
  publicUrl?: string | undefined;
  now?: () => Date;
}

/** The state cookie: Lax (it must come back on the provider's redirect, a cross-site navigation), 10 minutes, this path only. */
const stateCookie = (value: string, maxAge: number, secure: boolean) =>
  [`${OIDC_STATE_COOKIE}=${value}`, 'Path=/auth/oidc', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join(
    '; ',
  );

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** An error's message with those of its causes (openid-client wraps the check that failed, e.g. the "aud" one). */
function reasonOf(error: unknown): string {
  const messages: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++)
    if (!messages.includes(e.message)) messages.push(e.message);
  return messages.join(': ') || String(error);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

const TAG = 'Sign-in with the identity provider';
const htmlPage = (description: string) => ({ contentType: 'text/html; charset=utf-8', description, schema: { type: 'string' } });

export function registerOidcRoutes(app: FastifyInstance, deps: OidcDeps): void {
  const store = new OidcStore(deps.db);
  const clock = () => (deps.now ?? (() => new Date()))();
  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const base = (request: FastifyRequest) => (deps.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');

  /** Discovery once per provider setting (a new `orgs oidc` discovers again), with the provider's ID-token verifier. */
  const configs = new Map<string, { version: string; config: client.Configuration; idTokens: IdTokenVerifier }>();
  const configFor = async (provider: Provider): Promise<client.Configuration> => (await discovered(provider)).config;
  const discovered = async (provider: Provider) => {
    const version = `${provider.issuer}\n${provider.clientId}\n${provider.updatedAt}`;
    const cached = configs.get(provider.orgId);
    if (cached?.version === version) return cached;
    // Said plainly before openid-client's own refusal of http (the guarded fetch checks every later request).
    const why = await refusal(new URL(provider.issuer), deps.allowPrivate);
    if (why) throw new OidcGuardError(why);
    const guarded = guardedFetch(deps.allowPrivate);
    const fetcher = guarded as client.CustomFetch;
    const config = await client.discovery(
      new URL(provider.issuer),
      provider.clientId,
      undefined,
      client.ClientSecretBasic(provider.clientSecret),
      {
        [client.customFetch]: fetcher,
        ...(deps.allowPrivate ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
    config[client.customFetch] = fetcher;
    const entry = {
      version,
      config,
      idTokens: idTokenVerifier(config.serverMetadata(), provider.clientId, guarded as FetchImplementation),
    };
    configs.set(provider.orgId, entry);
    return entry;
  };

  const page = (reply: FastifyReply, status: number, html: string) =>
    reply
      .status(status)
      .type('text/html; charset=utf-8')
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      .send(html);

  // ---- Configuration (owners) ----
  declareRoute(
    app,
    {
      method: 'PUT',
      path: OIDC_CONFIG_PATH,
      tag: TAG,
      summary: "Set the organization's OpenID Connect provider (docs/oidc.md)",
      description:
        "The issuer must be https and resolve to public addresses unless the server runs with --allow-private-oidc (400 otherwise). The client secret is stored sealed and never answered. `urls` names the sign-in start and the callback to register at the provider, at this server's --public-url (else the address the request reached).",
      action: 'Configuring sign-in with an identity provider',
      access: { kind: 'user', roles: OWNERS },
      body: ProviderBody,
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor, body }, request): Promise<ProviderAnswer> => {
      const why = await refusal(new URL(body.issuer), deps.allowPrivate, true);
      if (why) throw badRequest(why);
      const saved = await store.set(actor.orgId, {
        issuer: body.issuer,
        clientId: body.clientId,
        clientSecret: body.clientSecret,
        groupsClaim: body.groupsClaim ?? null,
        provision: body.provision,
      });
      request.log.info({ actor: actor.userId, issuer: saved.issuer, provision: saved.provision }, 'oidc provider configured');
      return {
        provider: providerView(saved),
        urls: { login: `${base(request)}${loginPath(saved.orgId)}`, callback: `${base(request)}${OIDC_CALLBACK_PATH}` },
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_CONFIG_PATH,
      tag: TAG,
      summary: "The organization's OpenID Connect provider, without its secret (provider: null when none)",
      action: "Reading the organization's identity provider",
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor }): Promise<ProviderAnswer> => {
      const provider = await store.get(actor.orgId);
      return { provider: provider ? providerView(provider) : null };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: OIDC_CONFIG_PATH,
      tag: TAG,
      summary: 'Stop signing in with the identity provider (sessions already given last until they end)',
      action: 'Removing sign-in with an identity provider',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor }, request): Promise<ProviderAnswer> => {
      const removed = await store.remove(actor.orgId);
      configs.delete(actor.orgId);
      request.log.info({ actor: actor.userId, removed }, 'oidc provider removed');
      return { provider: null };
    },
  );

  // ---- Public: the sign-in page's question, and the flow itself ----
  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_OPTIONS_PATH,
      tag: TAG,
      summary: 'Whether an organization signs in with an identity provider (the sign-in page asks, to offer the button)',
      access: { kind: 'none' },
      params: OrgParams,
      responses: { 200: SignInOptions },
    },
    async ({ params: { orgId } }, _request, reply): Promise<SignInOptions> => {
      void reply.header('cache-control', 'no-store');
      return (await store.has(orgId)) ? { orgId, oidc: true, loginPath: loginPath(orgId) } : { orgId, oidc: false };
    },
  );

  const noProvider = (reply: FastifyReply) =>
    page(
      reply,
      404,
      refusalPage(
        'No identity provider',
        'This organization does not sign in with an identity provider.',
        'Sign in with your API key instead.',
      ),
    );

  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_LOGIN_PATH,
      tag: TAG,
      summary: "Start signing in: a redirect (302) to the organization's provider, with PKCE, state and nonce",
      description:
        'Sets a short-lived HttpOnly cookie binding the state to this browser. 404 (an HTML page) when the organization has no provider; 502 when the provider cannot be reached.',
      access: { kind: 'none' },
      params: OrgParams,
      responses: {
        302: { description: "Redirect to the provider's authorization endpoint" },
        404: htmlPage('The organization has no identity provider'),
        502: htmlPage('The provider cannot be reached'),
      },
      // A person follows this link in a browser: an id that is no organization's finds no provider, the
      // same page as an unknown organization, not the JSON 400 the declared params would give.
      checkFirst: (request, reply) => {
        if (!OrgParams.safeParse(request.params).success) return noProvider(reply);
      },
    },
    async ({ params }, request, reply) => {
      const provider = await store.get(params.orgId);
      if (!provider) return noProvider(reply);
      let config: client.Configuration;
      try {
        config = await configFor(provider);
      } catch (error) {
        request.log.warn({ org: provider.orgId, issuer: provider.issuer, error: String(error) }, 'oidc discovery failed');
        const reason =
          error instanceof OidcGuardError
            ? error.message
            : `the provider's discovery document could not be read (${(error as Error).message})`;
        return page(reply, 502, refusalPage('The identity provider cannot be reached', reason, 'Tell an owner of the organization.'));
      }
      const codeVerifier = client.randomPKCECodeVerifier();
      const nonce = client.randomNonce();
      const redirectUri = `${base(request)}${OIDC_CALLBACK_PATH}`;
      const state = await store.begin({ orgId: provider.orgId, codeVerifier, nonce, redirectUri }, clock().getTime());
      const target = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      request.log.info({ org: provider.orgId }, 'oidc sign-in started');
      return reply
        .header('set-cookie', stateCookie(state, 600, secure(request)))
        .header('cache-control', 'no-store')
        .redirect(target.href, 302);
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_CALLBACK_PATH,
      tag: TAG,
      summary: "The provider's redirect back: checks state, PKCE and the ID token, then sets the dashboard's session cookie",
      description:
        'A page that continues to the dashboard, or a page saying why the sign-in was refused: 400 (state missing, altered, expired or used), 401 (ID token refused: issuer, audience, expiry, signature, nonce), 403 (no verified e-mail, not a user and provisioning off, deactivated).',
      access: { kind: 'none' },
      // Loose: a provider may add parameters a client must ignore (RFC 6749 §4.1.2), so none is refused.
      query: CallbackQuery,
      queryCheckedBy: 'handler',
      responses: {
        200: htmlPage('Signed in: continues to the dashboard'),
        400: htmlPage('The state is missing, altered, expired or used'),
        401: htmlPage('The ID token was refused'),
        403: htmlPage('The person may not sign in'),
      },
    },
    async (_input, request, reply) => {
      // Whatever happens, the state cookie has done its work.
      void reply.header('set-cookie', stateCookie('', 0, secure(request)));
      const refuse = (status: number, title: string, detail: string, next?: string) => {
        request.log.info({ status, reason: title }, 'oidc sign-in refused');
        return page(reply, status, refusalPage(title, detail, next));
      };
      const { state } = CallbackQuery.parse(request.query ?? {});
      const expected = cookieValue(request.headers.cookie, OIDC_STATE_COOKIE);
      if (!state || !expected || !sameText(state, expected))
        return refuse(
          400,
          'Sign-in not completed',
          'This answer from the identity provider does not belong to a sign-in started in this browser (its state is missing or altered).',
        );
      const pending = await store.take(state);
      if (!pending) return refuse(400, 'Sign-in not completed', 'This sign-in expired or was already used.');
      const provider = await store.get(pending.orgId);
      if (!provider) return refuse(400, 'Sign-in not completed', 'The organization no longer signs in with an identity provider.');

      let claims: Record<string, unknown>;
      try {
        const { config, idTokens } = await discovered(provider);
        const current = new URL(pending.redirectUri);
        current.search = new URL(request.url, 'http://callback').search;
        const tokens = await client.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        // Signed by the provider's own key, with an algorithm it publishes (jose, against its JWKS).
        await idTokens.verify(tokens.id_token!);
        const idToken = tokens.claims()! as Record<string, unknown>;
        // The e-mail (and the groups claim) may come only from UserInfo (OpenID Connect Core 5.4).
        const needed = ['email', ...(provider.groupsClaim ? [provider.groupsClaim] : [])];
        const userInfo =
          needsUserInfo(idToken, needed) && tokens.access_token && config.serverMetadata().userinfo_endpoint
            ? ((await client.fetchUserInfo(config, tokens.access_token, String(idToken['sub']))) as Record<string, unknown>)
            : undefined;
        // The names a new member is created with come along when UserInfo is read anyway.
        claims = personClaims(idToken, userInfo, [...needed, 'given_name', 'family_name']);
      } catch (error) {
        request.log.warn({ org: provider.orgId, error: String(error) }, 'oidc token refused');
        return refuse(401, 'Sign-in refused', `The identity provider's answer was not accepted: ${reasonOf(error)}`);
      }

      // The e-mail is the person's identity: it must be there, and verified when the provider says whether it is.
      const email = typeof claims['email'] === 'string' ? claims['email'].toLowerCase() : undefined;
      if (!email)
        return refuse(403, 'Sign-in refused', 'The identity provider did not give an e-mail address (ask for the "email" scope).');
      const verified = claims['email_verified'];
      if (verified === false || verified === 'false')
        return refuse(403, 'Sign-in refused', `The identity provider says ${email} is not verified.`);

      const orgId = provider.orgId as OrgId;
      let user = await deps.accounts.findUserByEmail(orgId, email);
      if (!user) {
        if (provider.provision !== 'member')
          return refuse(
            403,
            'Not a member of this organization',
            `${email} is not a user of this organization, and it does not add people at sign-in.`,
            'Ask an owner to add you (agentmeter users add), or to provision you from the directory.',
          );
        user = await deps.accounts.createUser({
          orgId,
          email,
          role: 'member',
          ...(typeof claims['given_name'] === 'string' ? { firstName: claims['given_name'].slice(0, 200) } : {}),
          ...(typeof claims['family_name'] === 'string' ? { lastName: claims['family_name'].slice(0, 200) } : {}),
        });
        request.log.info({ org: orgId, user: user.id }, 'oidc sign-in added a member');
      }
      if (await deps.accounts.deactivated(orgId, user.id))
        return refuse(403, 'Sign-in refused', `${email} is deactivated in the directory.`, 'Ask your administrator.');

      if (provider.groupsClaim) {
        const names = groupNames(claims[provider.groupsClaim]);
        if (names) {
          const teams = await setTeamsFromClaim(deps.db, orgId, user.id, names, clock().toISOString().slice(0, 10));
          request.log.info({ org: orgId, user: user.id, teams }, 'oidc groups claim set the teams');
        }
      }

      const principal: Principal = { orgId, userId: user.id as UserId, email: user.email, role: user.role, credential: 'delegated' };
      const now = Date.now();
      const expiresAt = now + SESSION_TTL_MS;
      const token = await deps.sessions.create(principal, expiresAt);
      request.log.info({ org: orgId, user: user.id, role: user.role }, 'dashboard sign-in with the identity provider');
      // Appended beside the state cookie's removal (Fastify keeps every set-cookie).
      void reply.header('set-cookie', sessionCookieHeader(token, Math.floor(SESSION_TTL_MS / 1000), secure(request)));
      return page(reply, 200, signedInPage(user.email));
    },
  );
}
