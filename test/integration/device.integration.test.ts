// Enrollment by device code (issue #32 item 4, api/device/): a machine with no key starts a sign-in, a
// person of the organization approves its code in a dashboard session, the machine's next poll receives
// a collector key of that person, once. Expiry at 10 minutes, single use, slow_down, the per-address and
// per-person limits, another organization's 404, and codes stored only as hashes, on a pinned clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { turn } from '../helpers/records.ts';
import { bearer, ndjson, type TestServer, testServer } from '../helpers/server.ts';

const DASH = { 'x-agentmeter-dashboard': '1' };
const START = Date.parse('2026-11-27T10:00:00Z');
let nowMs = START;
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
let address = 0;

beforeAll(async () => {
  server = await testServer({ now: () => new Date(nowMs), publicUrl: 'https://am.example.com' });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(() => server.close());

type Headers = Record<string, string>;
/** Each test asks from an address of its own, so the per-address limit counts only its own starts. */
const start = (from: string, name = 'install.sh on ana-laptop') =>
  server.app.inject({ method: 'POST', url: '/api/v0/auth/device', payload: { name }, remoteAddress: from });
const started = async (from = `10.0.0.${++address}`) => {
  const res = await start(from);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as {
    deviceCode: string;
    userCode: string;
    verificationUri: string;
    verificationUriComplete: string;
    expiresIn: number;
    interval: number;
  };
};
const poll = (deviceCode: string) => server.app.inject({ method: 'POST', url: '/api/v0/auth/device/token', payload: { deviceCode } });
const request = (headers: Headers, userCode: string) =>
  server.app.inject({ method: 'GET', url: `/api/v0/auth/device/requests/${userCode}`, headers });
const decide = (headers: Headers, userCode: string, decision: 'approve' | 'deny') =>
  server.app.inject({ method: 'POST', url: `/api/v0/auth/device/requests/${userCode}`, headers, payload: { decision } });
async function sessionOf(key: string): Promise<Headers> {
  const res = await server.app.inject({ method: 'POST', url: '/api/v0/auth/session', headers: DASH, payload: { credential: key } });
  expect(res.statusCode, res.body).toBe(201);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, ...DASH };
}
const later = (seconds: number) => {
  nowMs += seconds * 1000;
};

describe('enrollment by device code', () => {
  it('a person approves the code in a dashboard session; the machine receives a collector key of theirs, once', async () => {
    const code = await started();
    expect(code).toMatchObject({
      verificationUri: 'https://am.example.com/device',
      verificationUriComplete: `https://am.example.com/device?code=${code.userCode}`,
      expiresIn: 600,
      interval: 5,
    });
    expect(code.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(code.deviceCode).toMatch(/^amd_[A-Za-z0-9_-]{43}$/);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'authorization_pending', interval: 5 });

    const session = await sessionOf(acme.users.member.key);
    // Typed as a person would: lower case, without the dash.
    const typed = code.userCode.replace('-', '').toLowerCase();
    const seen = await request(session, typed);
    expect(seen.statusCode, seen.body).toBe(200);
    expect(seen.json()).toEqual({
      userCode: code.userCode,
      machineName: 'install.sh on ana-laptop',
      requestedFrom: `10.0.0.${address}`,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: new Date(nowMs + 600_000).toISOString(),
      state: 'pending',
      decidedBy: null,
    });
    // The dashboard's rules for a cookie that changes something: its header, and its own origin.
    const { 'x-agentmeter-dashboard': _, ...cookieOnly } = session;
    expect((await decide(cookieOnly, code.userCode, 'approve')).statusCode).toBe(403);
    expect((await decide({ ...session, origin: 'https://evil.example.com' }, code.userCode, 'approve')).statusCode).toBe(403);
    // A collector key approves nothing.
    const approved = await decide(session, code.userCode, 'approve');
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ state: 'approved', decidedBy: 'member@acme.example.com' });

    later(5);
    const answer = await poll(code.deviceCode);
    expect(answer.statusCode, answer.body).toBe(200);
    const body = answer.json() as { status: string; apiKey: string; key: { userId: string; scope: string; name: string } };
    expect(body).toMatchObject({
      status: 'approved',
      key: { userId: acme.users.member.id, scope: 'collector', name: 'install.sh on ana-laptop' },
    });
    // The key works as a collector key: it ships events, and reads nothing else.
    const shipped = await server.app.inject({
      method: 'POST',
      url: INGEST_PATH,
      headers: { ...bearer(body.apiKey), 'content-type': 'application/x-ndjson', 'x-agentmeter-machine': '0123456789abcdef' },
      payload: ndjson([turn('2026-11-27')]),
    });
    expect(shipped.statusCode, shipped.body).toBeLessThan(300);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/machines', headers: bearer(body.apiKey) })).statusCode).toBe(403);
    expect((await decide(bearer(body.apiKey), code.userCode, 'approve')).statusCode).toBe(403);

    // Single use: the next poll is refused, and the code cannot be decided again.
    later(5);
    const reused = await poll(code.deviceCode);
    expect(reused.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(reused.json()).detail).toContain('already used');
    expect((await decide(session, code.userCode, 'approve')).statusCode).toBe(409);
  });

  it('refuses a machine name that could make the approval page say something else (400)', async () => {
    for (const name of ['ana-laptop\u202Egpj.exe', 'ana-laptop\n\nApproved by IT', 'ana\u200Blaptop', 'ana\u2028laptop']) {
      const res = await start(`10.1.0.${++address}`, name);
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(ErrorBodySchema.parse(res.json()).detail).toMatch(/printable characters only/);
    }
    // A name with letters of any script is taken.
    expect((await start(`10.1.0.${++address}`, 'install.sh on Zoë’s MacBook — 東京')).statusCode).toBe(201);
  });

  it('a code expires after 10 minutes: the page cannot find it, and the machine hears expired_token', async () => {
    const code = await started();
    later(600);
    expect((await request(bearer(acme.users.owner.key), code.userCode)).statusCode).toBe(404);
    expect((await decide(bearer(acme.users.owner.key), code.userCode, 'approve')).statusCode).toBe(404);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'expired_token' });
    // One millisecond before its end it was still there.
    const fresh = await started();
    later(600 - 0.001);
    expect((await request(bearer(acme.users.owner.key), fresh.userCode)).statusCode).toBe(200);
  });

  it('a machine polling sooner than its interval is told slow_down, and its interval grows by 5 s each time', async () => {
    const code = await started();
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'authorization_pending', interval: 5 });
    later(1);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'slow_down', interval: 10 });
    later(6);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'slow_down', interval: 15 });
    later(15);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'authorization_pending', interval: 15 });
  });

  it('one address gets 10 codes per 10 minutes (429 with Retry-After), another address is not held back', async () => {
    const from = '10.1.0.1';
    for (let i = 0; i < 10; i++) expect((await start(from)).statusCode).toBe(201);
    const refused = await start(from);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(600);
    expect((await start('10.1.0.2')).statusCode).toBe(201);
    later(600);
    expect((await start(from)).statusCode).toBe(201);
  });

  it('a person trying unknown codes is stopped after 10; typos that cannot be codes are a 404 too', async () => {
    const headers = bearer(acme.users.manager.key);
    expect((await request(headers, 'AEIO-UAEI')).statusCode).toBe(404);
    for (let i = 0; i < 9; i++) expect((await request(headers, `BCDF-GHJ${'KLMNPQRST'[i]}`)).statusCode).toBe(404);
    const stopped = await request(headers, 'BCDF-GHJV');
    expect(stopped.statusCode).toBe(429);
    expect(stopped.headers['retry-after']).toBeDefined();
    // Another person is not held back.
    expect((await request(bearer(acme.users.owner.key), 'BCDF-GHJV')).statusCode).toBe(404);
    later(600);
  });

  it('a person stopped after 10 unknown codes is refused a right one too, until the window ends', async () => {
    const code = await started();
    const headers = bearer(other.users.manager.key);
    for (let i = 0; i < 10; i++) expect((await request(headers, `BCDF-GHK${'KLMNPQRSTV'[i]}`)).statusCode).toBe(404);
    // A guess that happens to be right is no different from a wrong one once the limit is reached.
    expect((await request(headers, code.userCode)).statusCode).toBe(429);
    expect((await decide(headers, code.userCode, 'approve')).statusCode).toBe(429);
    expect((await request(bearer(acme.users.member.key), code.userCode)).json()).toMatchObject({ state: 'pending' });
    later(600);
    expect((await request(headers, 'BCDF-GHKK')).statusCode).toBe(404);
  });

  it("a code approved in one organization is another organization's 404; its key is of the approver's organization", async () => {
    const code = await started();
    // Pending, anyone signed in may see it (the machine belongs to no organization yet).
    expect((await request(bearer(other.users.member.key), code.userCode)).statusCode).toBe(200);
    expect((await decide(bearer(acme.users.owner.key), code.userCode, 'approve')).statusCode).toBe(200);
    expect((await request(bearer(other.users.owner.key), code.userCode)).statusCode).toBe(404);
    expect((await decide(bearer(other.users.owner.key), code.userCode, 'approve')).statusCode).toBe(404);
    expect((await decide(bearer(other.users.owner.key), code.userCode, 'deny')).statusCode).toBe(404);
    // Someone of the same organization sees who approved it.
    expect((await request(bearer(acme.users.manager.key), code.userCode)).json()).toMatchObject({
      state: 'approved',
      decidedBy: 'owner@acme.example.com',
    });
    later(5);
    const key = (await poll(code.deviceCode)).json() as { apiKey: string; key: { userId: string } };
    expect(key.key.userId).toBe(acme.users.owner.id);
    const listed = await server.app.inject({ method: 'GET', url: '/api/v0/machines/keys', headers: bearer(other.users.owner.key) });
    expect(JSON.stringify(listed.json())).not.toContain(key.key.userId);
  });

  it('approved with a key someone else minted for its user, the key ends with that key (or is refused once it has)', async () => {
    const mintKey = async (key: string, userId: string) => {
      const res = await server.app.inject({
        method: 'POST',
        url: `/api/v0/admin/users/${userId}/keys`,
        headers: bearer(key),
        payload: { scope: 'personal' },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { apiKey: string; key: { id: string; kind: string } };
    };
    const revokeKey = (keyId: string) =>
      server.app.inject({ method: 'DELETE', url: `/api/v0/admin/keys/${keyId}`, headers: bearer(acme.users.owner.key) });
    const manager = await mintKey(acme.users.manager.key, acme.users.manager.id);
    const delegated = await mintKey(manager.apiKey, acme.users.member.id);
    expect(delegated.key.kind).toBe('delegated');
    // Approved with the delegated key, and through a dashboard session signed in with it.
    const byKey = await started();
    const bySession = await started();
    expect((await decide(bearer(delegated.apiKey), byKey.userCode, 'approve')).statusCode).toBe(200);
    expect((await decide(await sessionOf(delegated.apiKey), bySession.userCode, 'approve')).statusCode).toBe(200);
    later(5);
    const keys = [];
    for (const code of [byKey, bySession]) {
      const answer = (await poll(code.deviceCode)).json() as { status: string; apiKey: string };
      expect(answer.status).toBe('approved');
      keys.push(answer.apiKey);
    }
    // Approved, then the delegated key revoked before the machine's poll: no key.
    const late = await started();
    expect((await decide(bearer(delegated.apiKey), late.userCode, 'approve')).statusCode).toBe(200);
    const ingest = (key: string) =>
      server.app.inject({
        method: 'POST',
        url: INGEST_PATH,
        headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
        payload: ndjson([turn('2026-11-26')]),
      });
    for (const key of keys) expect((await ingest(key)).statusCode).toBe(200);
    expect((await revokeKey(manager.key.id)).statusCode).toBe(200);
    for (const key of keys) expect((await ingest(key)).statusCode).toBe(401);
    later(5);
    expect((await poll(late.deviceCode)).json()).toEqual({ status: 'access_denied' });
  });

  it('approved with an invitation exchanged before the machine polls, the machine gets its key all the same', async () => {
    const added = (
      await server.app.inject({
        method: 'POST',
        url: '/api/v0/admin/users',
        headers: bearer(acme.users.owner.key),
        payload: { email: 'invited@acme.example.com', role: 'member' },
      })
    ).json() as { apiKey: string; user: { id: string } };
    const code = await started();
    expect((await decide(bearer(added.apiKey), code.userCode, 'approve')).statusCode).toBe(200);
    // The person exchanges the invitation for their own key: they take over what it approved.
    const exchanged = await server.app.inject({
      method: 'POST',
      url: `/api/v0/admin/users/${added.user.id}/keys`,
      headers: bearer(added.apiKey),
      payload: { scope: 'personal' },
    });
    expect(exchanged.statusCode, exchanged.body).toBe(201);
    later(5);
    const answer = await poll(code.deviceCode);
    expect(answer.json()).toMatchObject({ status: 'approved' });
    const { apiKey } = answer.json() as { apiKey: string };
    const sent = await server.app.inject({
      method: 'POST',
      url: INGEST_PATH,
      headers: { ...bearer(apiKey), 'content-type': 'application/x-ndjson' },
      payload: ndjson([turn('2026-11-26')]),
    });
    expect(sent.statusCode, sent.body).toBe(200);
  });

  it('a denied code gives no key; the codes are stored only as hashes', async () => {
    const code = await started();
    expect((await decide(bearer(acme.users.member.key), code.userCode, 'deny')).json()).toMatchObject({ state: 'denied' });
    later(5);
    expect((await poll(code.deviceCode)).json()).toEqual({ status: 'access_denied' });
    const rows = JSON.stringify(await server.db.all('SELECT * FROM device_codes'));
    expect(rows).not.toContain(code.deviceCode);
    expect(rows).not.toContain(code.userCode.replace('-', ''));
    expect(rows).not.toContain(code.userCode);
  });
});
