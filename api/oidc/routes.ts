// Sign-in with the organization's OpenID Connect provider, with openid-client (certified): discovery,
// the authorization code flow with PKCE (S256), state and nonce, and the ID token's checks (issuer,
// audience, expiry, nonce; its signature against the provider's JWKS with jose, id-token.ts). GET
// /auth/oidc/{orgId}/login sends the browser to the provider (login-routes.ts); GET /auth/oidc/callback
// takes it back (callback-routes.ts). Owners configure the provider on PUT /api/v0/organization/oidc
// (provider-routes.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { secureCookies } from '../auth/authenticator.ts';
import { registerCallbackRoute } from './callback-routes.ts';
import { ProviderDiscovery } from './discovery.ts';
import { registerLoginRoutes } from './login-routes.ts';
import { registerProviderRoutes } from './provider-routes.ts';
import type { OidcDeps, OidcRouteContext } from './route-context.ts';
import { OidcStore } from './store.ts';

export { OIDC_STATE_COOKIE } from './cookies.ts';
export type { OidcDeps } from './route-context.ts';

export function registerOidcRoutes(app: FastifyInstance, deps: OidcDeps): void {
  const ctx: OidcRouteContext = {
    deps,
    store: new OidcStore(deps.db),
    discovery: new ProviderDiscovery(deps.allowPrivate),
    clock: () => (deps.now ?? (() => new Date()))(),
    secure: (request: FastifyRequest) => secureCookies(request, deps.publicUrl),
    base: (request: FastifyRequest) => (deps.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, ''),
  };
  registerProviderRoutes(app, ctx);
  registerLoginRoutes(app, ctx);
  registerCallbackRoute(app, ctx);
}
