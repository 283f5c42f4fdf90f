// The dashboard's sign-in: POST /api/v0/auth/session exchanges an API key or a JWT (in the body, never
// the URL) for an HttpOnly, SameSite=Strict session cookie; DELETE signs out; GET /api/v0/auth/me names
// the signed-in principal. The sign-in POST also needs the dashboard header, so another site cannot sign
// a visitor in to an account of its choosing.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import { forbidden, unauthorized } from '../../common/errors.ts';
import type { AccountStore } from '../accounts/store.ts';
import { type Authenticator, CSRF_HEADER, fromAnotherOrigin, SESSION_COOKIE, sessionCookie } from '../auth/authenticator.ts';
import { hashKey, KEY_PREFIX } from '../keys/secret.ts';
import { type Me, SESSION_TTL_MS, SignInBody, type SignInState } from './schema.ts';
import type { SignInStore } from './store.ts';

export const SESSION_PATH = '/api/v0/auth/session';

export interface SignInDeps {
  auth: Authenticator;
  accounts: AccountStore;
  sessions: SignInStore;
}

/** The Set-Cookie value; Secure when the request came over TLS to this server. */
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
  const secure = (request: FastifyRequest) => request.protocol === 'https';
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
  app.post(SESSION_PATH, { config: { public: true }, bodyLimit: 16 * 1024 }, async (request, reply) => {
    if (request.headers[CSRF_HEADER] !== '1') throw forbidden(`Signing in to the dashboard needs the "${CSRF_HEADER}: 1" header`);
    const { credential } = SignInBody.parse(request.body);
    const principal = await deps.auth.verifyCredential(credential);
    if (!principal) throw unauthorized('That API key or token is not valid (unknown, revoked or expired)');
    // A session does what its user's role allows: a collector key, which may do far less, opens none.
    if (principal.scope === 'collector') throw forbidden('A collector key cannot sign in to the dashboard: use a personal API key');
    const now = Date.now();
    const expiresAt = Math.min(now + SESSION_TTL_MS, jwtExpiry(credential) ?? Number.POSITIVE_INFINITY);
    const token = await deps.sessions.create(principal, expiresAt);
    request.log.info({ user: principal.userId, role: principal.role, key: principal.keyId ?? null }, 'dashboard sign-in');
    return reply
      .status(201)
      .header('set-cookie', sessionCookieHeader(token, Math.floor((expiresAt - now) / 1000), secure(request)))
      .header('cache-control', 'no-store')
      .send(await me(principal, expiresAt));
  });

  app.delete(SESSION_PATH, { config: { public: true } }, async (request, reply) => {
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
  });

  // Whether this browser is signed in: always 200, so the dashboard's first question logs no error.
  app.get(SESSION_PATH, { config: { public: true } }, async (request, reply): Promise<SignInState> => {
    void reply.header('cache-control', 'no-store');
    const token = sessionCookie(request.headers.cookie);
    const session = token ? await deps.sessions.lookup(hashKey(token)) : undefined;
    return session ? { signedIn: true, me: await me(session.principal, session.expiresAt) } : { signedIn: false };
  });

  // A collector key may ask whose it is (doctor checks the collector's key with it).
  app.get('/api/v0/auth/me', { config: { collectorKey: true } }, async (request, reply) => {
    const principal = await deps.auth.authenticate(request);
    const token = request.headers.authorization ? undefined : sessionCookie(request.headers.cookie);
    const session = token ? await deps.sessions.lookup(hashKey(token)) : undefined;
    void reply.header('cache-control', 'no-store');
    return me(principal, session?.expiresAt);
  });
}
