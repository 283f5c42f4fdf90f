// What every answer says about caching, and parameters nobody asked for (issue #20, item 10): answers that
// carry a key or token are no-store, other authenticated answers private, public ones keep their own
// policy; unknown query parameters on the routes that take none are the documented 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
});
afterAll(async () => server.close());

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, key?: string, payload?: object) =>
  server.app.inject({ method, url, headers: key ? bearer(key) : {}, ...(payload ? { payload } : {}) });

describe('Cache-Control', () => {
  it('answers carrying a key or a token are no-store', async () => {
    const key = await call('POST', `/api/v0/admin/users/${org.users.member.id}/keys`, org.users.member.key, {});
    expect(key.statusCode).toBe(201);
    expect(key.json().apiKey).toMatch(/^am_/);
    expect(key.headers['cache-control']).toBe('no-store');
    const user = await call('POST', '/api/v0/admin/users', org.users.owner.key, { email: 'new@acme.example.com', role: 'member' });
    expect(user.statusCode).toBe(201);
    expect(user.headers['cache-control']).toBe('no-store');
    const computer = await call('POST', '/api/v0/computers', org.users.member.key, {
      name: 'box',
      hostname: 'box',
      remoteUser: 'dev',
      hostId: '4b0d7c3e-2a8e-4d8c-9a41-0d0c0a3f1b11',
    });
    expect(computer.statusCode).toBe(201);
    expect(computer.json().token).toBeTruthy();
    expect(computer.headers['cache-control']).toBe('no-store');
  });

  it('other authenticated answers are private, refusals included; public answers keep their own', async () => {
    for (const url of ['/api/v0/admin/users', '/api/v0/machines', `/api/v0/admin/users/${org.users.member.id}/keys`]) {
      const res = await call('GET', url, org.users.owner.key);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('private');
    }
    expect((await call('GET', '/api/v0/admin/users', org.users.guest.key)).headers['cache-control']).toBe('private');
    expect((await call('GET', '/api/v0/auth/me', org.users.owner.key)).headers['cache-control']).toBe('no-store');
    expect((await call('GET', '/openapi.json')).headers['cache-control']).toBeUndefined();
  });
});

describe('unknown query parameters', () => {
  it.each([
    '/api/v0/machines?userId=x',
    '/api/v0/machines/keys?userId=x',
    '/api/v0/admin/users?limit=5',
    '/api/v0/admin/users?role=owner&x=1',
  ])('%s is a 400 with the documented body', async (url) => {
    const res = await call('GET', url, org.users.owner.key);
    expect(res.statusCode).toBe(400);
    const body = ErrorBodySchema.parse(res.json());
    expect(body.status).toBe(400);
    expect(body.detail).toMatch(/^unknown query parameter "\w+"; this endpoint takes /);
  });

  it('without parameters, as before', async () => {
    expect((await call('GET', '/api/v0/machines', org.users.member.key)).statusCode).toBe(200);
    expect((await call('GET', '/api/v0/machines/keys', org.users.member.key)).statusCode).toBe(200);
    expect((await call('GET', '/api/v0/admin/users', org.users.manager.key)).statusCode).toBe(200);
  });
});
