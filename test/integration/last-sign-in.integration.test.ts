// "Last signed in" (issue #32 item 7) is a person opening the dashboard (a key or JWT in the sign-in form;
// the identity provider's sign-in makes its session the same way, test/e2e/oidc.e2e.test.ts), never a
// collector delivering events or a script using a key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_PATH } from '../../common/wire.ts';
import { turn } from '../helpers/records.ts';
import { bearer, ndjson, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
beforeAll(async () => {
  server = await testServer();
  acme = await server.seedOrg('Acme');
});
afterAll(() => server.close());

const lastSignIn = async (email: string) => {
  const res = await server.app.inject({ method: 'GET', url: '/api/v0/organization/users', headers: bearer(acme.users.owner.key) });
  expect(res.statusCode, res.body).toBe(200);
  return (
    (res.json() as { users: { email: string; lastSignInAt?: string | null }[] }).users.find((u) => u.email === email)!.lastSignInAt ?? null
  );
};

describe('last signed in', () => {
  it('a collector key shipping events and a key used by a script leave it empty; a dashboard sign-in sets it', async () => {
    const minted = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/users/me/keys',
      headers: bearer(acme.users.member.key),
      payload: { scope: 'collector', name: 'laptop' },
    });
    const collectorKey = (minted.json() as { apiKey: string }).apiKey;
    const shipped = await server.app.inject({
      method: 'POST',
      url: INGEST_PATH,
      headers: { ...bearer(collectorKey), 'content-type': 'application/x-ndjson' },
      payload: ndjson([turn('2026-03-02')]),
    });
    expect(shipped.statusCode, shipped.body).toBeLessThan(300);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/auth/me', headers: bearer(acme.users.member.key) })).statusCode).toBe(
      200,
    );
    // The key's own last use is recorded (written in the background, so polled).
    await expect
      .poll(
        async () =>
          (await server.services.accounts.listKeys(acme.orgId, acme.users.member.id)).find((k) => k.name === 'laptop')?.last_used_at,
      )
      .not.toBeNull();
    expect(await lastSignIn('member@acme.example.com')).toBeNull();

    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      headers: { 'x-agentmeter-dashboard': '1' },
      payload: { credential: acme.users.member.key },
    });
    expect(signIn.statusCode, signIn.body).toBe(201);
    expect(await lastSignIn('member@acme.example.com')).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
