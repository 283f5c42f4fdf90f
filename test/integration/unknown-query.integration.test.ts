// Every declared route refuses a query parameter it does not take with the documented 400 (issue 28, item
// 13): the check is declareRoute's, so it walks all of them, each called with a credential it lets in.
// Only a route whose query schema keeps unknown keys on purpose (an OAuth redirect, SCIM's listing) takes
// any parameter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../api/auth/principal.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { queryNames } from '../../api/http/query.ts';
import type { RouteDoc } from '../../api/openapi/registry.ts';
import { declaredRoutes } from '../../api/openapi/registry.ts';
import { bearer, pathWithUnknownIds, type TestServer, testServer } from '../helpers/server.ts';

const METRICS_TOKEN = 'metrics-token-for-the-unknown-query-test';
let server: TestServer;
let keys: Record<Role, string>;
let computerToken: string;
let computerId: string;
let orgId: string;

beforeAll(async () => {
  server = await testServer({ metricsToken: METRICS_TOKEN });
  const { orgId: org, users } = await server.seedOrg('Query');
  orgId = org;
  keys = { owner: users.owner.key, manager: users.manager.key, member: users.member.key, guest: users.guest.key };
  const computer = await server.app.inject({
    method: 'POST',
    url: '/api/v0/computers',
    headers: bearer(keys.member),
    payload: { name: 'box' },
  });
  expect(computer.statusCode).toBe(201);
  computerToken = computer.json().token;
  computerId = computer.json().computer.id;
});
afterAll(() => server.close());

/** A credential the route lets in (its first role, a computer's token, the metrics token), or none. */
function credential(route: RouteDoc): Record<string, string> {
  switch (route.access.kind) {
    case 'user':
      return bearer(keys[route.access.roles?.[0] ?? 'member']);
    case 'computer':
      return bearer(computerToken);
    case 'metrics':
      return bearer(METRICS_TOKEN);
    default:
      return {};
  }
}

describe('unknown query parameters', () => {
  it('every declared route answers the documented 400 for a parameter it does not take', async () => {
    const routes = declaredRoutes(server.app);
    expect(routes.length).toBeGreaterThan(60);
    const refused: string[] = [];
    for (const route of routes) {
      const res = await server.app.inject({
        method: route.method,
        // A computer's token is checked against the computer in the path (404 for another) before the
        // inputs, as the sign-in link is against a real organization (an HTML 404 page otherwise).
        url: `${pathWithUnknownIds(route.path.replace(':computerId', computerId).replace(':orgId', orgId))}?nosuchparameter=1`,
        headers: { ...credential(route), 'x-agentmeter-dashboard': '1' },
        ...(route.method === 'GET' ? {} : { payload: {} }),
      });
      const name = `${route.method} ${route.path}: ${res.statusCode} ${res.body.slice(0, 200)}`;
      if (queryNames(route.query) === undefined) {
        expect(res.body, name).not.toContain('unknown query parameter');
        continue;
      }
      expect(res.statusCode, name).toBe(400);
      const body = ErrorBodySchema.parse(res.json());
      expect(body.detail, name).toMatch(/^unknown query parameter "nosuchparameter"; this endpoint takes /);
      refused.push(`${route.method} ${route.path}`);
    }
    // The routes that take any parameter are the OAuth redirect and SCIM's listings, nothing else.
    const open = routes.filter((r) => queryNames(r.query) === undefined).map((r) => `${r.method} ${r.path}`);
    expect(
      open.every((r) => /oidc|scim/i.test(r)),
      open.join(', '),
    ).toBe(true);
    expect(refused.length).toBe(routes.length - open.length);
  });

  it('every declared route answers the documented 400 naming a parameter given twice', async () => {
    // A repeated parameter arrives as a list: a route whose schema parsed it said "startDate: … is
    // required" or "expected string, received array" of a parameter that was given (pull requests, sessions).
    const wrong: string[] = [];
    let checked = 0;
    for (const route of declaredRoutes(server.app)) {
      const name = queryNames(route.query)?.[0];
      if (name === undefined) continue;
      const res = await server.app.inject({
        method: route.method,
        url: `${pathWithUnknownIds(route.path.replace(':computerId', computerId).replace(':orgId', orgId))}?${name}=1&${name}=1`,
        headers: { ...credential(route), 'x-agentmeter-dashboard': '1' },
        ...(route.method === 'GET' ? {} : { payload: {} }),
      });
      checked++;
      const detail = res.statusCode === 400 ? ErrorBodySchema.parse(res.json()).detail : '';
      if (detail !== `"${name}" was given more than once`)
        wrong.push(`${route.method} ${route.path}: ${res.statusCode} ${res.body.slice(0, 160)}`);
    }
    expect(checked).toBeGreaterThan(15);
    expect(wrong).toEqual([]);
  });

  it('names what the route takes, or none', async () => {
    const users = await server.app.inject({ url: '/api/v0/admin/users?x=1', headers: bearer(keys.owner) });
    expect(ErrorBodySchema.parse(users.json()).detail).toMatch(/^unknown query parameter "x"; this endpoint takes /);
    const me = await server.app.inject({ url: '/api/v0/auth/me?x=1', headers: bearer(keys.owner) });
    expect(me.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(me.json()).detail).toBe('unknown query parameter "x"; this endpoint takes none');
  });
});
