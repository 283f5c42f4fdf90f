// Removing a user and the right to erasure, end to end through the API: two users ship hook events, usage
// and assistant messages; after `DELETE /api/v0/admin/users/{id}?erase=true` every analytics figure equals
// that of an organization where only the other user ever shipped (the same records, in a second org).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../api/auth/principal.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { buildServer, type Services } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { call, ev, message, turn, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, JWT_SECRET } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const RANGE = 'startDate=2026-03-01&endDate=2026-03-19';
const ENDPOINTS = ['tokens', 'tokens?group_by=model', 'tools', 'activity', 'activity?group_by=client', 'productivity', 'users?limit=100'];

let app: FastifyInstance;
let services: Services;
let db: Db;
let logFile: string;
type Org = { orgId: string; users: Record<Role, { id: string; key: string; email: string }> };
let acme: Org;
let ref: Org;

async function seedOrg(name: string): Promise<Org> {
  const org = await services.accounts.createOrg(name);
  const users = {} as Org['users'];
  for (const role of ['owner', 'manager', 'member', 'guest'] as const) {
    const email = `${role}@${name.toLowerCase()}.example.com`;
    const user = await services.accounts.createUser({ orgId: org.id, email, role });
    users[role] = { id: user.id, key: (await services.accounts.createKey(user)).key, email };
  }
  return { orgId: org.id, users };
}

const ingest = async (key: string, records: unknown[]) => {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
};
const get = (key: string, url: string) => app.inject({ method: 'GET', url, headers: bearer(key) });
const remove = (key: string, user: string, erase = true) =>
  app.inject({ method: 'DELETE', url: `/api/v0/admin/users/${user}${erase ? '?erase=true' : ''}`, headers: bearer(key) });

/** Bo's records (the user who stays), shipped the same in both organizations. */
const bo = () => [
  turn('2026-03-02', { session_id: 'b1' }),
  call('Edit', '2026-03-02', { session_id: 'b1', files: [{ ext: 'ts', op: 'edit' }] }),
  call('Bash', '2026-03-05', { session_id: 'b2', is_shell: true }),
  ev('Stop', '2026-03-10', { session_id: 'b3' }),
  usage('claude-sonnet-4-5', '2026-03-02', { input_tokens: 1000, output_tokens: 200 }, false, 'b1'),
  usage('claude-opus-4-1', '2026-03-10', { input_tokens: 50, output_tokens: 70, cache_read_tokens: 9 }, true, 'b3'),
  message('2026-03-02', 'b1'),
  message('2026-03-10', 'b3'),
];
/** Ana's records (the user erased): some on Bo's days, some on days only she was active. */
const ana = () => [
  turn('2026-03-02', { session_id: 'a1', client: 'web' }),
  call('Write', '2026-03-03', { session_id: 'a1', files: [{ ext: 'py', op: 'create' }] }),
  call('mcp__github__create_pr', '2026-03-12', { session_id: 'a2', pr_created: true }),
  ev('Stop', '2026-03-12', { session_id: 'a2' }),
  usage('claude-opus-4-1', '2026-03-03', { input_tokens: 4000, output_tokens: 900 }, false, 'a1'),
  usage('claude-sonnet-4-5', '2026-03-12', { input_tokens: 10, output_tokens: 5 }, false, 'a2'),
  message('2026-03-03', 'a1'),
];

/** An answer with the organization's own ids and e-mails replaced, to compare two organizations. */
const normalized = (org: Org, body: string) => {
  let text = body.replaceAll(org.orgId, 'ORG');
  for (const role of ['owner', 'manager', 'member', 'guest'] as const)
    text = text.replaceAll(org.users[role].id, `USER-${role}`).replaceAll(org.users[role].email, `${role}@`);
  return JSON.parse(text) as unknown;
};
const figures = async (org: Org) => {
  const out: Record<string, unknown> = {};
  for (const endpoint of ENDPOINTS) {
    const res = await get(org.users.owner.key, `/api/v1/analytics/${endpoint}${endpoint.includes('?') ? '&' : '?'}${RANGE}`);
    expect(res.statusCode, res.body).toBe(200);
    out[endpoint] = normalized(org, res.body);
  }
  return out;
};

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'erase.duckdb'));
  logFile = join(tempDir(), 'server.log');
  const log = createLogger({ name: 'test', level: 'info', destination: logFile });
  ({ app, services } = await buildServer({ db, log, jwtSecret: JWT_SECRET, decodeWorkers: 0, now: () => NOW }));
  acme = await seedOrg('Acme');
  ref = await seedOrg('Ref');
  // Bo is Acme's manager, and the reference organization's manager; Ana is Acme's member.
  await ingest(acme.users.manager.key, bo());
  await ingest(ref.users.manager.key, bo());
  await ingest(acme.users.member.key, ana());
  await services.runBatch({ trigger: 'cli', log, now: NOW });
});
afterAll(async () => {
  await app.close();
  await db.close();
});

describe('users list and remove through the server', () => {
  it('lists users with roles for owners and managers, never for members', async () => {
    const res = await get(acme.users.manager.key, '/api/v0/admin/users');
    expect(res.statusCode).toBe(200);
    const users = res.json().users as { id: string; email: string; role: string; activeKeys: number }[];
    expect(users.map((u) => u.email)).toEqual([
      'guest@acme.example.com',
      'manager@acme.example.com',
      'member@acme.example.com',
      'owner@acme.example.com',
    ]);
    expect(users.find((u) => u.role === 'member')).toMatchObject({ id: acme.users.member.id, activeKeys: 1 });
    expect((await get(acme.users.member.key, '/api/v0/admin/users')).statusCode).toBe(403);
  });

  it('only owners remove users; the last owner stays; other organizations answer 404', async () => {
    const byManager = await remove(acme.users.manager.key, acme.users.guest.id);
    expect(byManager.statusCode).toBe(403);
    expect(ErrorBodySchema.parse(byManager.json()).detail).toContain('Removing users requires the owner role; this credential has manager');
    const lastOwner = await remove(acme.users.owner.key, acme.users.owner.id);
    expect(lastOwner.statusCode).toBe(409);
    expect(ErrorBodySchema.parse(lastOwner.json()).detail).toContain('last owner');
    expect((await remove(acme.users.owner.key, ref.users.member.id)).statusCode).toBe(404);
  });
});

describe('the right to erasure', () => {
  it("after remove --erase, every figure equals the other user's alone; her keys and JWTs no longer work; one log line", async () => {
    const before = await figures(acme);
    const reference = await figures(ref);
    expect(before['tokens']).not.toEqual(reference['tokens']); // Ana counts before
    expect(before['activity']).not.toEqual(reference['activity']);

    const jwt = await new SignJWT({ sub: acme.users.member.id, org_id: acme.orgId, role: 'member' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    expect((await get(jwt, '/api/v0/admin/whoami')).statusCode).toBe(200);
    expect((await get(acme.users.member.key, '/api/v0/admin/whoami')).statusCode).toBe(200); // cached now

    const res = await remove(acme.users.owner.key, acme.users.member.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      userId: acme.users.member.id,
      keysRevoked: 1,
      computersRevoked: 0,
      erased: { events: 4, usage: 2, assistantMessages: 1, sessions: 0, sessionMessages: 0 },
      // 03-02, 03-03 and 03-12 and the 29 days after each, up to yesterday (03-19).
      daysRebuilt: 18,
    });

    expect(await figures(acme)).toEqual(reference);
    for (const table of ['events', 'usage', 'assistant_messages', 'agg_user_day', 'agg_tokens_day', 'users', 'credit_limits'])
      expect(
        await db.all(`SELECT 1 FROM ${table} WHERE ${table === 'users' ? 'id' : 'user_id'} = $u`, { u: acme.users.member.id }),
        table,
      ).toEqual([]);
    // Her credentials: the key (even though it was cached) and a JWT naming her.
    expect((await get(acme.users.member.key, '/api/v0/admin/whoami')).statusCode).toBe(401);
    expect((await get(jwt, '/api/v0/admin/whoami')).statusCode).toBe(401);
    expect((await remove(acme.users.owner.key, acme.users.member.id)).statusCode).toBe(404);

    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'user removed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ orgId: acme.orgId, userId: acme.users.member.id, actor: acme.users.owner.id, erase: true });
    expect(JSON.stringify(lines[0])).not.toContain('@');
  });

  it('without --erase the user is gone and their key refused, while the figures keep their usage', async () => {
    const before = await figures(ref);
    const res = await remove(ref.users.owner.key, ref.users.manager.email, false);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ userId: ref.users.manager.id, keysRevoked: 1, erased: null, daysRebuilt: 0 });
    expect((await get(ref.users.manager.key, '/api/v0/admin/whoami')).statusCode).toBe(401);
    const after = await figures(ref);
    // The same usage, still under their id; their e-mail went with their user record (answers cached
    // before the removal are dropped with it, so no answer shows it any longer).
    const withoutEmail = JSON.parse(JSON.stringify(before['tokens']).replaceAll('"user_email":"manager@"', '"user_email":null'));
    expect(JSON.stringify(before['tokens'])).toContain('"user_email":"manager@"');
    expect(after['tokens']).toEqual(withoutEmail);
    expect(after['activity']).toEqual(before['activity']);
  });
});
