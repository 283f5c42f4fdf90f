// The roles a route declares are the roles it lets in: every declared route is called with a key of each
// role, and answers 403 (naming the roles it requires) exactly for the roles its declaration leaves out.
// A route whose handler checked roles of its own, differently from what the document says, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '../../api/auth/principal.ts';
import { declaredRoutes } from '../../api/openapi/registry.ts';
import { bearer, pathWithUnknownIds, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let keys: Record<Role, string>;

beforeAll(async () => {
  server = await testServer();
  const { users } = await server.seedOrg('Roles');
  keys = Object.fromEntries(ROLES.map((role) => [role, users[role].key])) as Record<Role, string>;
});
afterAll(() => server.close());

const refusedForRole = (res: { statusCode: number; body: string }) =>
  res.statusCode === 403 && /requires the .* role; this credential has/.test((JSON.parse(res.body) as { detail: string }).detail);

describe('declared roles', () => {
  it('every route that declares roles refuses exactly the other roles', async () => {
    const routes = declaredRoutes(server.app).filter((r) => r.access.kind === 'user' && r.access.roles);
    expect(routes.length).toBeGreaterThan(0);
    for (const route of routes) {
      const allowed = route.access.kind === 'user' ? (route.access.roles ?? ROLES) : ROLES;
      for (const role of ROLES) {
        // A role that is let in is only asked on reads: a write past the role check would change things.
        if (allowed.includes(role) && route.method !== 'GET') continue;
        const res = await server.app.inject({
          method: route.method,
          url: pathWithUnknownIds(route.path),
          headers: bearer(keys[role]),
          ...(route.method === 'GET' ? {} : { payload: {} }),
        });
        expect(refusedForRole(res), `${route.method} ${route.path} as ${role}: ${res.statusCode} ${res.body}`).toBe(
          !allowed.includes(role),
        );
      }
    }
  });
});
