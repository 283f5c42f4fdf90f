// Authentication happens once per request, in onRequest, before the body is read: the hook puts the
// principal on the request (`request.principal`), and routes read it from there (a route declared with
// declareRoute, api/openapi/declare.ts, is handed it) instead of checking the credential again.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../../common/errors.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers without a credential (health, metrics behind its own token, the API document, the dashboard's files and sign-in). */
    public?: boolean;
    /** A collector key may call the route (every other route answers it 403): see KeyScope. */
    collectorKey?: boolean;
  }
  interface FastifyRequest {
    /** The person the request's credential stands for; undefined on public routes and the computer agent's routes. */
    principal: Principal | undefined;
  }
}

/**
 * Every route needs a credential unless its config says `public: true`: the check runs in onRequest, before
 * the body is read, so an unauthenticated upload is refused without being buffered: the 401 is sent at
 * once, with `Connection: close` (api/http/errors.ts, for every 401 and 403), so the body is never read and
 * the sender keeps no connection. Unknown routes are left to the 404.
 * `verify` throws the 401, and returns the principal of a person's credential (undefined for a computer
 * agent's token: verify puts its computer on the request instead, api/computers/access.ts).
 */
export function installAuthentication(app: FastifyInstance, verify: (request: FastifyRequest) => Promise<Principal | undefined>): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.url === undefined || request.routeOptions.config.public === true) return;
    const principal = await verify(request);
    refuseOutOfScope(request, principal);
    request.principal = principal;
  });
}

/** 403 for a collector key on a route not marked `collectorKey: true` (checked before the body is read). */
function refuseOutOfScope(request: FastifyRequest, principal: Principal | undefined): void {
  if (principal?.scope !== 'collector' || request.routeOptions.config.collectorKey === true) return;
  throw forbidden(
    'A collector key only sends events and reads its own limits, usage and identity; use a personal key or the dashboard for anything else',
  );
}
