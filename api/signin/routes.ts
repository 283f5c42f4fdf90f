// The dashboard's sign-in: POST /api/v0/auth/session exchanges an API key or a JWT (in the body, never
// the URL) for an HttpOnly, SameSite=Strict session cookie; DELETE signs out; GET /api/v0/auth/me names
// the signed-in principal. The sign-in POST also needs the dashboard header, so another site cannot sign
// a visitor in to an account of its choosing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { forbidden, unauthorized } from '../../common/errors.ts';
import type { AccountStore } from '../accounts/store.ts';
import { type Authenticator, CSRF_HEADER, fromAnotherOrigin, SESSION_COOKIE, secureCookies, sessionCookie } from '../auth/authenticator.ts';
import { hashKey, KEY_PREFIX } from '../keys/secret.ts';
import { declareRoute } from '../openapi/declare.ts';
import { DASHBOARD_HEADER } from '../openapi/registry.ts';
import { AUTH_ME_PATH, Me, SESSION_PATH, SESSION_TTL_MS, SignInBody, SignInState } from './schema.ts';
import type { SignInStore } from './store.ts';

/** The dashboard's header as the document describes it: required to sign in, and to sign out with a cookie. */
const dashboardHeader = (description: string) => ({ name: DASHBOARD_HEADER, description, schema: { type: 'string', enum: ['1'] } });

export interface SignInDeps {
  auth: Authenticator;
  accounts: AccountStore;
  sessions: SignInStore;
  /** The URL browsers reach this server at (serve --public-url): an https one makes the cookie Secure. */
  publicUrl?: string | undefined;
}

/** The Set-Cookie value; Secure when browsers reach this server over TLS (secureCookies). */
export function sessionCookieHeader(token: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    `Max-Age=${maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** A JWT's own expiry (ms), if it has one: a session never outlives the token it came from. */
function jwtExpiry(credential: string): number | undefined {
  if (credential.startsWith(KEY_PREFIX)) return undefined;
  const { exp } = decodeJwt(credential);
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

export function registerSignInRoutes(app: FastifyInstance, deps: SignInDeps): void {
  deps.auth.useSessions((hash) => deps.sessions.lookup(hash));
  const secure = (request: FastifyRequest) => secureCookies(request, deps.publicUrl);
  const clear = (request: FastifyRequest, reply: FastifyReply) =>
    reply.header('set-cookie', sessionCookieHeader('', 0, secure(request))).header('cache-control', 'no-store');

  const me = async (
    principal: { orgId: string; userId: string; email: string; role: Me['role']; scope?: Me['scope']; via?: string },
    expiresAt?: number,
  ): Promise<Me> => {
    const org = await deps.accounts.getOrg(principal.orgId);
    return {
      userId: principal.userId,
      email: principal.email,
      role: principal.role,
      orgId: principal.orgId,
      orgName: org?.name ?? principal.orgId,
      ...(expiresAt === undefined ? {} : { sessionExpiresAt: expiresAt }),
      ...(principal.via === 'key' && principal.scope ? { scope: principal.scope } : {}),
    };
  };

  // Public by nature (it takes the credential in its body), so its body is capped small.
  declareRoute(
    app,
    {
      method: 'POST',
      path: SESSION_PATH,
      tag: 'Dashboard sign-in',
      summary: 'Sign in to the dashboard: an API key or a JWT in the JSON body, a session cookie in the answer',
      description: `The credential goes in the body (never the URL); the answer sets the ${SESSION_COOKIE} cookie (HttpOnly, SameSite=Strict) and names the principal. The "${DASHBOARD_HEADER}: 1" header is required (403 without it), so another site cannot sign a visitor in. 401 when the credential is unknown, revoked or expired; 403 for a collector key.`,
      access: { kind: 'signin' },
      headers: [dashboardHeader('Must be 1')],
      body: SignInBody,
      responses: { 201: Me },
      options: {
        bodyLimit: 16 * 1024,
      },
      // Before the body is validated (the handler's input): a request without the header is a 403 whatever it sends.
      checkFirst: (request) => {
        if (request.headers[CSRF_HEADER] !== '1') throw forbidden(`Signing in to the dashboard needs the "${CSRF_HEADER}: 1" header`);
      },
    },
    async ({ body: { credential } }, request, reply) => {
      const principal = await deps.auth.verifyCredential(credential);
      if (!principal) throw unauthorized('That API key or token is not valid (unknown, revoked or expired)');
      // A session does what its user's role allows: a collector key, which may do far less, opens none.
      if (principal.scope === 'collector') throw forbidden('A collector key cannot sign in to the dashboard: use a personal API key');
      const now = Date.now();
      const expiresAt = Math.min(now + SESSION_TTL_MS, jwtExpiry(credential) ?? Number.POSITIVE_INFINITY);
      const token = await deps.sessions.create(principal, expiresAt);
      request.log.info({ user: principal.userId, role: principal.role, key: principal.keyId ?? null }, 'dashboard sign-in');
      // Returned, not sent: test servers check it against the declared 201 answer.
      reply
        .status(201)
        .header('set-cookie', sessionCookieHeader(token, Math.floor((expiresAt - now) / 1000), secure(request)))
        .header('cache-control', 'no-store');
      return me(principal, expiresAt);
    },
  );

  // Whether this browser is signed in: always 200, so the dashboard's first question logs no error.
  declareRoute(
    app,
    {
      method: 'GET',
      path: SESSION_PATH,
      freshness: 'credential',
      tag: 'Dashboard sign-in',
      summary: 'Whether this browser is signed in to the dashboard (always 200)',
      access: { kind: 'session' },
      responses: { 200: SignInState },
    },
    async (_input, request, reply): Promise<SignInState> => {
      void reply.header('cache-control', 'no-store');
      const token = sessionCookie(request.headers.cookie);
      const session = token ? await deps.sessions.lookup(hashKey(token)) : undefined;
      return session ? { signedIn: true, me: await me(session.principal, session.expiresAt) } : { signedIn: false };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: SESSION_PATH,
      tag: 'Dashboard sign-in',
      summary: 'Sign out of the dashboard: the session ends and the cookie is cleared',
      description: `With a session cookie, the "${DASHBOARD_HEADER}: 1" header is required (403 without it).`,
      access: { kind: 'session' },
      headers: [dashboardHeader('Must be 1 when a session cookie is sent')],
      responses: { 204: { description: 'Signed out (also when there was no session)' } },
      errors: [403],
    },
    async (_input, request, reply) => {
      const token = sessionCookie(request.headers.cookie);
      if (token) {
        // Signing out changes state: the same header rule as every cookie request that changes something.
        if (request.headers[CSRF_HEADER] !== '1') throw forbidden(`Signing out needs the "${CSRF_HEADER}: 1" header`);
        if (fromAnotherOrigin(request)) throw forbidden('Signing out must come from the dashboard origin');
        const hash = hashKey(token);
        await deps.sessions.remove(hash);
        deps.auth.forgetSession(hash);
      }
      return clear(request, reply).status(204).send();
    },
  );

  // A collector key may ask whose it is (doctor checks the collector's key with it).
  declareRoute(
    app,
    {
      method: 'GET',
      path: AUTH_ME_PATH,
      freshness: 'credential',
      tag: 'Dashboard sign-in',
      summary: 'The principal of the credential or session cookie, with the session’s end when signed in with the cookie',
      access: { kind: 'user', collectorKey: true },
      responses: { 200: Me },
    },
    async ({ principal }, request, reply): Promise<Me> => {
      const token = request.headers.authorization ? undefined : sessionCookie(request.headers.cookie);
      const session = token ? await deps.sessions.lookup(hashKey(token)) : undefined;
      void reply.header('cache-control', 'no-store');
      return me(principal, session?.expiresAt);
    },
  );
}
