// The SCIM 2.0 service a directory provisions people (and teams) through, under /scim/v2, and the owners'
// routes that mint and revoke the directory's token (/api/v0/admin/scim/tokens). The /scim/v2 routes take
// ONLY a SCIM token (caller.ts): they are public to the API's own authentication and check the token
// themselves, so an API key, a JWT or a dashboard cookie is refused there, as a SCIM token is everywhere
// else. Every answer is application/scim+json, errors included (RFC 7644 §3.12, errors.ts). The Users and
// Groups routes are user-routes.ts and group-routes.ts.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Changes } from '../answers/changes.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { IngestStore } from '../ingest/store.ts';
import { authenticateScim, SCIM_BASE, scimBase } from './caller.ts';
import { scimErrorHandler } from './errors.ts';
import { registerScimGroupRoutes } from './group-routes.ts';
import { registerRenameRoutes } from './rename-routes.ts';
import { listResponse, resourceTypes, schemas, serviceProviderConfig } from './resources.ts';
import { ScimError } from './schema.ts';
import { registerTokenRoutes } from './token-routes.ts';
import { ScimTokenStore } from './tokens.ts';
import { registerScimUserRoutes } from './user-routes.ts';

export { SCIM_BASE } from './caller.ts';

export interface ScimDeps {
  db: Db;
  accounts: AccountStore;
  auth: Authenticator;
  /** Told when a person was renamed, got other e-mails, or lost their credentials: answers name them. */
  changes?: Pick<Changes, 'changed'>;
  /** The server's clock (tests pin it): the UTC day a membership change applies from. */
  now?: () => Date;
  /** A directory's deletion of a person runs beside ingest as the admin removal does (IngestStore.removeSender). */
  ingest: Pick<IngestStore, 'removeSender'>;
}

export function registerScimRoutes(app: FastifyInstance, deps: ScimDeps): void {
  const tokens = new ScimTokenStore(deps.db);
  const today = () => (deps.now ?? (() => new Date()))().toISOString().slice(0, 10);

  registerTokenRoutes(app, tokens);
  registerRenameRoutes(app, deps.db, deps.auth, deps.changes);

  app.register(
    async (scim) => {
      // Directories send application/scim+json; it is JSON.
      scim.addContentTypeParser('application/scim+json', { parseAs: 'string' }, scim.getDefaultJsonParser('error', 'error'));
      scim.setErrorHandler(scimErrorHandler);
      scim.setNotFoundHandler((request, reply) =>
        scimErrorHandler(new ScimError(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}`), request, reply),
      );
      authenticateScim(scim, tokens);
      const pub = { config: { public: true } };

      scim.get('/ServiceProviderConfig', pub, async (request) => serviceProviderConfig(scimBase(request)));
      scim.get('/ResourceTypes', pub, async (request) => {
        const types = resourceTypes(scimBase(request));
        return listResponse(types, types.length, 1);
      });
      scim.get('/Schemas', pub, async (request) => {
        const all = schemas(scimBase(request));
        return listResponse(all, all.length, 1);
      });

      registerScimUserRoutes(scim, deps);
      registerScimGroupRoutes(scim, deps.db, today);
    },
    { prefix: SCIM_BASE },
  );
}
