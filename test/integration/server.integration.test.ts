import { gzipSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { IngestResponse } from '../../common/wire.ts';
import { bearer, gzipNdjson, JWT_SECRET, ndjson, type TestServer, testServer } from '../helpers/server.ts';

const T = Date.UTC(2026, 2, 1, 12);
const event = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'event',
  id,
  agent: 'claude',
  event: 'PostToolUse',
  ts: T,
  session_id: 's1',
  client: 'terminal-ui',
  autonomy: 'manual',
  tool_name: 'Bash',
  tool_success: true,
  ...extra,
});
const usage = (id: string, output: number) => ({
  kind: 'usage',
  id,
  agent: 'claude',
  session_id: 's1',
  ts: T,
  model: 'claude-sonnet-4-5',
  input_tokens: 10,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  thinking_tokens: 0,
  thinking: false,
});
const message = (id: string) => ({ kind: 'message', id, agent: 'claude', session_id: 's1', ts: T, model: 'claude-sonnet-4-5' });

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(() => server.close());

const ingest = (key: string | undefined, records: unknown[], gzip = true) =>
  server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...(key ? bearer(key) : {}), 'content-type': 'application/x-ndjson', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    payload: gzip ? gzipNdjson(records) : ndjson(records),
  });

describe('authentication', () => {
  it('401 with the documented error body when the credential is missing, malformed or unknown', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, bearer('am_not-a-real-key'), bearer('garbage')]) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/v1/ingest/events',
        headers: { ...headers, 'content-type': 'application/x-ndjson' },
        payload: ndjson([event('x')]),
      });
      expect(res.statusCode).toBe(401);
      const body = ErrorBodySchema.parse(res.json());
      expect(body).toMatchObject({ status: 401, title: 'Unauthorized' });
      expect(body.requestId).toBe(res.headers['x-request-id']);
    }
  });

  it('accepts an HS256 JWT naming org, user and role; refuses a wrong signature or an unknown user', async () => {
    const sign = (claims: Record<string, unknown>, secret = JWT_SECRET) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode(secret));
    const good = await sign({ sub: org.users.member.id, org_id: org.orgId, role: 'member' });
    expect((await ingest(good, [event('jwt-1')])).statusCode).toBe(200);
    const forged = await sign({ sub: org.users.member.id, org_id: org.orgId, role: 'member' }, 'another-secret-another-secret-another');
    expect((await ingest(forged, [event('jwt-2')])).statusCode).toBe(401);
    const wrongOrg = await sign({ sub: org.users.member.id, org_id: other.orgId, role: 'member' });
    expect((await ingest(wrongOrg, [event('jwt-3')])).statusCode).toBe(401);
  });

  it('a revoked key stops working at once', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: `/api/v0/admin/users/${org.users.member.id}/keys`,
      headers: bearer(org.users.member.key),
      payload: {},
    });
    expect(created.statusCode).toBe(201);
    const { apiKey, key } = created.json() as { apiKey: string; key: { id: string; prefix: string } };
    expect(apiKey.startsWith(key.prefix)).toBe(true);
    expect((await ingest(apiKey, [event('rev-1')])).statusCode).toBe(200);
    const revoked = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/keys/${key.id}`,
      headers: bearer(org.users.owner.key),
    });
    expect(revoked.json()).toMatchObject({ revoked: true });
    expect((await ingest(apiKey, [event('rev-2')])).statusCode).toBe(401);
  });

  it('stores only hashes of keys', async () => {
    const rows = await server.db.all<{ hash: string; prefix: string }>('SELECT hash, prefix FROM api_keys');
    for (const row of rows) {
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.prefix).toHaveLength(9);
    }
    const all = JSON.stringify(await server.db.all('SELECT * FROM api_keys'));
    expect(all).not.toContain(org.users.owner.key);
  });
});

describe('POST /api/v1/ingest/events', () => {
  it('stores good records, rejects bad ones by index, and takes user and org from the credential', async () => {
    const res = await ingest(org.users.guest.key, [
      event('a1', { user_id: 'usr_spoof' }),
      event('a2'),
      { kind: 'event' },
      usage('u1', 5),
      message('m1'),
    ]);
    expect(res.statusCode).toBe(200);
    const body = IngestResponse.parse(res.json());
    expect(body).toMatchObject({ received: 5, stored: 3, duplicates: 0 });
    expect(body.rejected.map((r) => r.index)).toEqual([0, 2]);
    expect(body.rejected[0]!.reason).toContain('user_id');
    const rows = await server.db.all<{ id: string; org_id: string; user_id: string; ts: string }>(
      "SELECT id, org_id, user_id, CAST(ts AS VARCHAR) AS ts FROM events WHERE id = 'a2'",
    );
    expect(rows).toEqual([{ id: 'a2', org_id: org.orgId, user_id: org.users.guest.id, ts: '2026-03-01 12:00:00' }]);
  });

  it('is idempotent on the id: re-delivery stores nothing new', async () => {
    const batch = [event('d1'), event('d2'), message('dm1')];
    expect(IngestResponse.parse((await ingest(org.users.member.key, batch)).json())).toMatchObject({ stored: 3, duplicates: 0 });
    expect(IngestResponse.parse((await ingest(org.users.member.key, batch, false)).json())).toMatchObject({ stored: 0, duplicates: 3 });
    const [row] = await server.db.all<{ n: number }>("SELECT count(*) AS n FROM events WHERE id IN ('d1', 'd2')");
    expect(row!.n).toBe(2);
  });

  it('a batch holding ids already stored (even at another time) falls back to the conflict-handling insert: the repeats are duplicates, the rest is stored', async () => {
    expect(IngestResponse.parse((await ingest(org.users.member.key, [event('moved-1'), message('moved-m1')])).json())).toMatchObject({
      stored: 2,
    });
    const later = { ts: T + 86_400_000 * 40 };
    const body = IngestResponse.parse(
      (
        await ingest(org.users.member.key, [
          event('moved-1', later),
          event('moved-2', later),
          { ...message('moved-m1'), ...later },
          message('moved-m2'),
        ])
      ).json(),
    );
    expect(body).toMatchObject({ received: 4, stored: 2, duplicates: 2 });
    const rows = await server.db.all<{ id: string; ts: string }>(
      "SELECT id, CAST(ts AS VARCHAR) AS ts FROM events WHERE id LIKE 'moved-%' ORDER BY id",
    );
    expect(rows).toEqual([
      { id: 'moved-1', ts: '2026-03-01 12:00:00' },
      { id: 'moved-2', ts: '2026-04-10 12:00:00' },
    ]);
    const [m] = await server.db.all<{ n: number }>("SELECT count(*) AS n FROM assistant_messages WHERE id LIKE 'moved-m%'");
    expect(m!.n).toBe(2);
    // Usage in a batch that falls back is upserted once: the failed first pass was rolled back.
    expect(IngestResponse.parse((await ingest(org.users.member.key, [usage('moved-u1', 5)])).json())).toMatchObject({ stored: 1 });
    expect(
      IngestResponse.parse((await ingest(org.users.member.key, [event('moved-1'), usage('moved-u1', 9), event('moved-3')])).json()),
    ).toMatchObject({ stored: 2, duplicates: 1 });
    const [u] = await server.db.all<{ n: number; out: number }>(
      "SELECT count(*) AS n, max(output_tokens) AS out FROM usage WHERE id = 'moved-u1'",
    );
    expect(u).toEqual({ n: 1, out: 9 });
  });

  it('an id another organization holds at the same time is no duplicate here', async () => {
    expect(IngestResponse.parse((await ingest(other.users.member.key, [event('shared-1')])).json())).toMatchObject({ stored: 1 });
    expect(IngestResponse.parse((await ingest(org.users.member.key, [event('shared-1')])).json())).toMatchObject({
      stored: 1,
      duplicates: 0,
    });
  });

  it('keeps the larger output of a usage record delivered twice (a message read while streaming)', async () => {
    await ingest(org.users.member.key, [usage('stream-1', 10)]);
    await ingest(org.users.member.key, [usage('stream-1', 400)]);
    await ingest(org.users.member.key, [usage('stream-1', 50)]);
    const [row] = await server.db.all<{ output_tokens: number; n: number }>(
      "SELECT max(output_tokens) AS output_tokens, count(*) AS n FROM usage WHERE id = 'stream-1'",
    );
    expect(row).toEqual({ output_tokens: 400, n: 1 });
  });

  it('the same id in two organizations is two events: one org never touches another', async () => {
    await ingest(org.users.member.key, [event('shared-id')]);
    await ingest(other.users.member.key, [event('shared-id')]);
    const rows = await server.db.all<{ org_id: string }>("SELECT org_id FROM events WHERE id = 'shared-id' ORDER BY org_id");
    expect(rows.map((r) => r.org_id).sort()).toEqual([org.orgId, other.orgId].sort());
  });

  it('400 for a body that is not a batch, a broken gzip stream; 415 for an unknown type', async () => {
    const notBatch = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/json' },
      payload: { hello: 1 },
    });
    expect(notBatch.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(notBatch.json()).detail).toContain('NDJSON');
    const badGzip = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: 'not gzip',
    });
    expect(badGzip.statusCode).toBe(400);
    const xml = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'text/xml' },
      payload: '<a/>',
    });
    expect(xml.statusCode).toBe(415);
    ErrorBodySchema.parse(xml.json());
  });

  it('decodes alike on the decode workers and on the event loop: good and bad lines, bad gzip, too many records, 415', async () => {
    const onLoop = await testServer({ decodeWorkers: 0 });
    try {
      const loopOrg = await onLoop.seedOrg('Loop');
      const post = (target: TestServer, key: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
        target.app.inject({
          method: 'POST',
          url: '/api/v1/ingest/events',
          headers: { ...bearer(key), 'content-type': 'application/x-ndjson', ...headers },
          payload,
        });
      const body = `${JSON.stringify(event('both-1'))}\n{oops\n${JSON.stringify({ kind: 'event', id: 'both-2' })}\n${JSON.stringify(message('both-m'))}`;
      const tooMany = '{}\n'.repeat(10_001);
      for (const [target, key] of [
        [server, org.users.member.key],
        [onLoop, loopOrg.users.member.key],
      ] as const) {
        for (const res of [await post(target, key, body), await post(target, key, gzipSync(body), { 'content-encoding': 'gzip' })]) {
          expect(res.statusCode).toBe(200);
          const answer = IngestResponse.parse(res.json());
          expect(answer.received).toBe(4);
          expect(answer.rejected.map((r) => [r.index, r.id])).toEqual([
            [1, undefined],
            [2, 'both-2'],
          ]);
        }
        const gzipError = await post(target, key, 'not gzip', { 'content-encoding': 'gzip' });
        expect([gzipError.statusCode, ErrorBodySchema.parse(gzipError.json()).detail]).toEqual([
          400,
          expect.stringContaining('gzip body could not be decompressed'),
        ]);
        const tooLarge = await post(target, key, gzipSync(tooMany), { 'content-encoding': 'gzip' });
        expect([tooLarge.statusCode, ErrorBodySchema.parse(tooLarge.json()).detail]).toEqual([
          413,
          expect.stringContaining('at most 10000 records'),
        ]);
        expect((await post(target, key, body, { 'content-encoding': 'br' })).statusCode).toBe(415);
      }
    } finally {
      await onLoop.close();
    }
  });

  it('stores what was validated whether a line is kept as sent or written again (spacing, a key given twice, escapes)', async () => {
    const lines = [
      JSON.stringify(event('raw-1')).replace('"tool_name":', '"tool_name" :\t'),
      JSON.stringify(event('raw-2', { tool_name: 'Edit' })).replace('"tool_name":"Edit"', '"tool_name":"Bash","tool_name" : "Edit"'),
      JSON.stringify(event('raw-3', { tool_name: 'C:\\x "y"' })),
    ];
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/x-ndjson' },
      payload: `${lines.join('\n')}\n`,
    });
    expect(IngestResponse.parse(res.json())).toMatchObject({ stored: 3, rejected: [] });
    const rows = await server.db.all<{ id: string; tool_name: string }>(
      "SELECT id, tool_name FROM events WHERE id LIKE 'raw-%' ORDER BY id",
    );
    expect(rows).toEqual(
      lines.map((line) => JSON.parse(line) as { id: string; tool_name: string }).map(({ id, tool_name }) => ({ id, tool_name })),
    );
  });

  it('accepts a JSON array too', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/json' },
      payload: [event('json-1')],
    });
    expect(IngestResponse.parse(res.json()).stored).toBe(1);
  });
});

describe('account administration through the server', () => {
  it('owners add users of any role; managers only members and guests; members none', async () => {
    const add = (key: string, email: string, role: string) =>
      server.app.inject({ method: 'POST', url: '/api/v0/admin/users', headers: bearer(key), payload: { email, role } });
    const byOwner = await add(org.users.owner.key, 'new-manager@acme.example.com', 'manager');
    expect(byOwner.statusCode).toBe(201);
    expect((byOwner.json() as { apiKey: string }).apiKey).toMatch(/^am_/);
    expect((await add(org.users.manager.key, 'new-member@acme.example.com', 'member')).statusCode).toBe(201);
    expect((await add(org.users.manager.key, 'x@acme.example.com', 'owner')).statusCode).toBe(403);
    expect((await add(org.users.member.key, 'y@acme.example.com', 'guest')).statusCode).toBe(403);
    expect((await add(org.users.owner.key, 'new-manager@acme.example.com', 'member')).statusCode).toBe(409);
    expect((await add(org.users.owner.key, 'not-an-email', 'member')).statusCode).toBe(400);
  });

  it('keys of another organization answer 404, never 403', async () => {
    const list = await server.app.inject({
      method: 'GET',
      url: `/api/v0/admin/users/${other.users.member.id}/keys`,
      headers: bearer(org.users.owner.key),
    });
    expect(list.statusCode).toBe(404);
    const [otherKey] = await server.db.all<{ id: string }>('SELECT id FROM api_keys WHERE org_id = $org LIMIT 1', { org: other.orgId });
    const revoke = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/keys/${otherKey!.id}`,
      headers: bearer(org.users.owner.key),
    });
    expect(revoke.statusCode).toBe(404);
  });

  it('a member lists their own keys (never the secret) but not a manager’s', async () => {
    const own = await server.app.inject({
      method: 'GET',
      url: `/api/v0/admin/users/${org.users.member.id}/keys`,
      headers: bearer(org.users.member.key),
    });
    expect(own.statusCode).toBe(200);
    expect(JSON.stringify(own.json())).not.toContain(org.users.member.key);
    expect(
      (
        await server.app.inject({
          method: 'GET',
          url: `/api/v0/admin/users/${org.users.manager.id}/keys`,
          headers: bearer(org.users.member.key),
        })
      ).statusCode,
    ).toBe(403);
  });

  it('GET /healthz answers without credentials; unknown routes give the error body', async () => {
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const missing = await server.app.inject({ method: 'GET', url: '/nope' });
    expect(missing.statusCode).toBe(404);
    ErrorBodySchema.parse(missing.json());
  });
});
