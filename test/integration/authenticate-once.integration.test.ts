// A request's credential is checked once: the onRequest hook authenticates and puts the principal on the
// request, and no route checks it again (each check hashes the key and looks it up). Every route that
// needs a person is read once with an owner's key, counting the Authenticator's checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../api/openapi/registry.ts';
import { bearer, pathWithUnknownIds, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let owner: string;

beforeAll(async () => {
  server = await testServer();
  owner = (await server.seedOrg('Once')).users.owner.key;
});
afterAll(() => server.close());

describe('authentication', () => {
  it('checks the credential once per request on every route that needs a person', async () => {
    const auth = server.services.auth;
    const authenticate = auth.authenticate.bind(auth);
    let checks = 0;
    auth.authenticate = async (request) => {
      checks += 1;
      return authenticate(request);
    };
    // Every API read but the sign-in session's, which needs no credential.
    const routes = registeredRoutes(server.app).filter(
      (r) => r.method === 'GET' && r.path.startsWith('/api/') && r.path !== '/api/v0/auth/session',
    );
    expect(routes.length).toBeGreaterThan(20);
    const counts: Record<string, number> = {};
    for (const route of routes) {
      checks = 0;
      await server.app.inject({ method: 'GET', url: pathWithUnknownIds(route.path), headers: bearer(owner) });
      counts[`GET ${route.path}`] = checks;
    }
    expect(Object.entries(counts).filter(([, n]) => n !== 1)).toEqual([]);
  });
});
