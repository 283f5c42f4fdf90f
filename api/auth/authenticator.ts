// Bearer credentials: an agentmeter API key ("am_…") or an HS256 JWT whose claims name the org
// (org_id), the user (sub) and the role, and which expires (exp) within the configured lifetime.
// Principals are cached briefly so a request does not pay a database lookup; revoking a key through the
// server clears the cache at once.

import type { FastifyRequest } from 'fastify';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import { forbidden, unauthorized } from '../../common/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { Logger } from '../../common/logger.ts';
import type { AccountStore } from '../accounts/store.ts';
import { hashKey, KEY_PREFIX } from '../keys/secret.ts';
import { type Principal, ROLE_RANK } from './principal.ts';
import { JwtClaims } from './schema.ts';

const CACHE_TTL_MS = 30_000;
/** last_used_at is written at most this often per key: a busy collector must not turn reads into writes. */
const TOUCH_INTERVAL_MS = 60_000;

/** A JWT lives at most this long unless the server is told otherwise (serve --jwt-max-lifetime). */
export const DEFAULT_JWT_MAX_LIFETIME_SECONDS = 24 * 3600;

export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  private readonly touched = new Map<string, number>();
  private readonly jwtKey: Uint8Array | undefined;

  constructor(
    private readonly accounts: AccountStore,
    private readonly log: Logger,
    jwtSecret: string | undefined,
    private readonly jwtMaxLifetimeSeconds = DEFAULT_JWT_MAX_LIFETIME_SECONDS,
  ) {
    this.jwtKey = jwtSecret ? new TextEncoder().encode(jwtSecret) : undefined;
  }

  async authenticate(request: FastifyRequest): Promise<Principal> {
    // The dashboard's session cookie stands for a credential only when no Authorization header is sent.
    if (!request.headers.authorization && this.sessions) {
      const principal = await this.sessionPrincipal(request, this.sessions);
      if (principal) return principal;
    }
    const credential = bearerToken(request);
    const cacheKey = hashKey(credential);
    const cached = this.cache.get(cacheKey);
    if (cached && cached.until > Date.now()) {
      this.touch(cached.principal);
      return cached.principal;
    }
    const found = credential.startsWith(KEY_PREFIX)
      ? { principal: await this.accounts.principalForKey(credential), expiresMs: Number.POSITIVE_INFINITY }
      : await this.verifyJwt(credential);
    const principal = found?.principal;
    if (!principal) throw unauthorized('API key missing or invalid');
    // A JWT is never served from the cache past its exp.
    this.cache.set(cacheKey, { principal, until: Math.min(Date.now() + CACHE_TTL_MS, found.expiresMs) });
    this.touch(principal);
    return principal;
  }

  /** Where dashboard sessions are looked up (api/signin/store.ts); without it the cookie is ignored. */
  private sessions: SessionLookup | undefined;
  useSessions(lookup: SessionLookup): void {
    this.sessions = lookup;
  }

  /**
   * The principal of the dashboard session cookie, if there is one. A cookie is sent by the browser on
   * its own, so a request that changes something must also carry the dashboard's custom header (a page of
   * another origin cannot add one without a CORS preflight, which this server never grants) and, when the
   * browser names its Origin, come from this host: SameSite=Strict alone is not relied on.
   */
  private async sessionPrincipal(request: FastifyRequest, lookup: SessionLookup): Promise<Principal | undefined> {
    const token = sessionCookie(request.headers.cookie);
    if (!token) return undefined;
    if (!SAFE_METHODS.has(request.method)) {
      if (request.headers[CSRF_HEADER] !== '1')
        throw forbidden(`A request signed in with the dashboard cookie that changes something must send "${CSRF_HEADER}: 1"`);
      const origin = request.headers.origin;
      if (origin && urlHost(origin) !== request.host)
        throw forbidden('A request signed in with the dashboard cookie must come from the dashboard origin');
    }
    const cacheKey = `session:${hashKey(token)}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.until > Date.now()) return cached.principal;
    const found = await lookup(hashKey(token));
    if (!found) throw unauthorized('The dashboard session has ended (signed out, expired or its API key revoked): sign in again');
    this.cache.set(cacheKey, { principal: found.principal, until: Math.min(Date.now() + CACHE_TTL_MS, found.expiresAt) });
    return found.principal;
  }

  /** The principal of an API key or JWT given directly (the dashboard's sign-in form), or undefined. */
  async verifyCredential(credential: string): Promise<Principal | undefined> {
    return credential.startsWith(KEY_PREFIX) ? this.accounts.principalForKey(credential) : (await this.verifyJwt(credential))?.principal;
  }

  /** Forgets one dashboard session's cached principal (at sign-out). */
  forgetSession(tokenHash: string): void {
    this.cache.delete(`session:${tokenHash}`);
  }

  private async verifyJwt(token: string): Promise<{ principal: Principal | undefined; expiresMs: number } | undefined> {
    if (!this.jwtKey || token.split('.').length !== 3) return undefined;
    let payload: JWTPayload;
    try {
      // exp is required: a token without one would be good forever.
      ({ payload } = await jwtVerify(token, this.jwtKey, { algorithms: ['HS256'], requiredClaims: ['exp'] }));
    } catch (error) {
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing')
        throw unauthorized('JWT has no exp claim; tokens must expire');
      return undefined;
    }
    const exp = payload.exp!;
    // From iat, or from now when iat is missing or in the future (a future iat would stretch the window).
    const now = Math.floor(Date.now() / 1000);
    const from = Math.min(payload.iat ?? now, now);
    if (exp - from > this.jwtMaxLifetimeSeconds)
      throw unauthorized(`JWT lifetime (exp - iat) exceeds the server's maximum of ${this.jwtMaxLifetimeSeconds} seconds`);
    const claims = JwtClaims.safeParse(payload);
    if (!claims.success) return undefined;
    const user = await this.accounts.getUser(claims.data.org_id, claims.data.sub);
    if (!user) return undefined;
    // Deactivation revokes the person's keys and sessions; a token signed for them ends with it too.
    if (await this.accounts.deactivated(user.org_id, user.id))
      throw unauthorized('This user was deactivated by the organization directory (SCIM); their tokens no longer work');
    // A token never grants more than the user's current role.
    const role = ROLE_RANK[claims.data.role] <= ROLE_RANK[user.role] ? claims.data.role : user.role;
    // Personal: only the operator's sign-in holds the secret that signs a JWT, so it is the person
    // themselves and may drive their computers (no one in the organization can mint one for them).
    return {
      principal: { orgId: user.org_id as OrgId, userId: user.id as UserId, email: user.email, role, credential: 'personal', via: 'jwt' },
      expiresMs: exp * 1000,
    };
  }

  private touch(principal: Principal): void {
    if (!principal.keyId) return;
    const last = this.touched.get(principal.keyId) ?? 0;
    if (Date.now() - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(principal.keyId, Date.now());
    // Not awaited: a request does not wait for bookkeeping. A failure (the database closing) is logged.
    this.accounts.touchKey(principal.keyId).catch((error) => this.log.warn({ error: String(error) }, 'could not record key use'));
  }

  /** Forgets cached principals (after a revocation or a role change). */
  invalidate(): void {
    this.cache.clear();
  }
}

export const SESSION_COOKIE = 'agentmeter_session';
export const CSRF_HEADER = 'x-agentmeter-dashboard';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export type SessionLookup = (tokenHash: string) => Promise<{ principal: Principal; expiresAt: number } | undefined>;

/** A URL's host (with its port), or undefined when the text is no URL. */
export const urlHost = (url: string): string | undefined => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/**
 * Whether a browser request names another site as its Origin (a request without Origin, from a script or
 * an older browser, is judged by the dashboard header alone). Used by the cookie's own routes, which the
 * cookie check in authenticate does not cover: signing out is a change another site must not make.
 */
export const fromAnotherOrigin = (request: FastifyRequest): boolean => {
  const origin = request.headers.origin;
  return origin !== undefined && urlHost(origin) !== request.host;
};

/**
 * Whether this server's cookies are Secure: the request came over TLS, or browsers reach the server at an
 * https --public-url (behind a proxy that ends TLS, whose requests arrive as http unless --trust-proxy
 * lets the server read its X-Forwarded-Proto).
 */
export const secureCookies = (request: FastifyRequest, publicUrl: string | undefined): boolean =>
  request.protocol === 'https' || (publicUrl?.toLowerCase().startsWith('https://') ?? false);

/** The dashboard session token in a Cookie header, if any. */
export function sessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The credential of an `Authorization: Bearer <token>` header; 401 when it is missing or malformed. */
export function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw unauthorized('Authorization header missing: send "Authorization: Bearer <API_KEY>"');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Authorization header must be "Bearer <API_KEY>"');
  return match[1]!;
}
