// Whose credential drives a computer (api/keys/schema.ts KeyKind): a key minted for someone else never
// registers a computer as them, creates a session on theirs, or sends it messages; the user's own key,
// the operator's, the exchange of an invitation, and a JWT do (a JWT registers none: a computer's token
// outlives it, and only a personal API key mints what outlives it).

import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { ComputerStore } from '../../api/computers/store.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { bearer, JWT_SECRET, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let org: Org;

const call = async (method: 'GET' | 'POST', url: string, key: string, payload?: unknown) => {
  const res = await server.app.inject({
    method,
    url,
    headers: bearer(key),
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as any) : undefined };
};
const forbidden = (res: { status: number; body: unknown }, detail: string | RegExp) => {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  const body = ErrorBodySchema.parse(res.body);
  expect(body.title).toBe('Forbidden');
  if (typeof detail === 'string') expect(body.detail).toContain(detail);
  else expect(body.detail).toMatch(detail);
};
const register = (key: string) => call('POST', '/api/v0/computers', key, { name: 'laptop' });
const mint = (key: string, user: string) => call('POST', `/api/v0/admin/users/${user}/keys`, key, {});

beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
});
afterAll(async () => server.close());

describe("a computer's token", () => {
  it("is refused before the body on every route but the computer agent's own", async () => {
    const computer = await register(org.users.owner.key);
    expect(computer.status).toBe(201);
    const token = computer.body.token as string;
    const hello = await call('POST', `/api/v0/computers/${computer.body.computer.id}/agent/hello`, token, {
      checks: [{ name: 'agent command', ok: true }],
      agentCommand: 'droid exec',
    });
    expect(hello.status, JSON.stringify(hello.body)).toBeLessThan(300);
    for (const [method, url] of [
      ['POST', '/api/v1/ingest/events'],
      ['GET', '/api/v1/analytics/activity?startDate=2026-03-01&endDate=2026-03-02'],
      ['POST', '/api/v0/computers'],
    ] as const) {
      const res = await call(method, url, token, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(ErrorBodySchema.parse(res.body).detail).toContain("computer agent's routes");
    }
  });

  it('is looked up once per request: the authentication hook hands the computer to the route', async () => {
    const computer = await register(org.users.owner.key);
    const { id } = computer.body.computer as { id: string };
    const token = computer.body.token as string;
    const lookups = vi.spyOn(ComputerStore.prototype, 'byToken');
    try {
      for (const [method, url, body, status] of [
        ['POST', `/api/v0/computers/${id}/agent/hello`, { checks: [{ name: 'agent command', ok: true }], agentCommand: 'droid exec' }, 200],
        ['GET', `/api/v0/computers/${id}/agent/work?waitMs=0`, undefined, 200],
        ['POST', `/api/v0/computers/${id}/agent/messages/msg_unknown/start`, {}, 404],
        ['POST', `/api/v0/computers/${id}/agent/messages/msg_unknown/heartbeat`, {}, 404],
        ['POST', `/api/v0/computers/${id}/agent/messages/msg_unknown/result`, { exitCode: 0, output: '' }, 404],
      ] as const) {
        lookups.mockClear();
        const res = await call(method, url, token, body);
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(status);
        expect(lookups, `${method} ${url}`).toHaveBeenCalledTimes(1);
      }
    } finally {
      lookups.mockRestore();
    }
  });

  it("is checked before the body: another computer's token is 404 and a person's key 401, even with a bad body", async () => {
    const mine = await register(org.users.owner.key);
    const theirs = await register(org.users.owner.key);
    const url = `/api/v0/computers/${mine.body.computer.id}/agent/hello`;
    const other = await call('POST', url, theirs.body.token, { checks: 'not a list' });
    expect(other.status, JSON.stringify(other.body)).toBe(404);
    const person = await call('POST', url, org.users.owner.key, { checks: 'not a list' });
    expect(person.status, JSON.stringify(person.body)).toBe(401);
    expect(ErrorBodySchema.parse(person.body).detail).toContain('computer token');
  });
});

describe("a credential minted by someone else cannot drive a user's computer", () => {
  it('a manager-minted key for a member: 403 registering, creating a session and sending; the member’s own key works', async () => {
    const member = org.users.member;
    const computer = await register(member.key); // seeded by the operator: personal
    expect(computer.status).toBe(201);
    const computerId = computer.body.computer.id as string;
    await call('POST', `/api/v0/computers/${computerId}/agent/hello`, computer.body.token, {
      checks: [{ name: 'agent command', ok: true }],
      agentCommand: 'droid exec',
    });

    const minted = await mint(org.users.manager.key, member.id);
    expect(minted.status).toBe(201);
    expect(minted.body.key).toMatchObject({ userId: member.id, createdBy: org.users.manager.id, kind: 'delegated' });
    const delegated = minted.body.apiKey as string;
    // It is the member's key for everything else.
    expect((await call('GET', '/api/v0/admin/whoami', delegated)).body.userId).toBe(member.id);

    const refusal =
      'this key was minted by someone else (or with such a key), and keys minted for someone else never drive their computers';
    forbidden(
      await call('POST', '/api/v0/sessions', delegated, { computerId, cwd: '/root' }),
      `Creating a session on a computer needs the user's own API key or a JWT; ${refusal}`,
    );
    forbidden(await register(delegated), 'Registering a computer needs');
    // Whose key it is is decided before the body is read: a bad body does not turn the refusal into a 400.
    forbidden(await call('POST', '/api/v0/computers', delegated, { name: '' }), 'Registering a computer needs');
    const session = await call('POST', '/api/v0/sessions', member.key, { computerId });
    expect(session.status).toBe(201);
    const sessionId = session.body.sessionId as string;
    forbidden(
      await call('POST', `/api/v0/sessions/${sessionId}/messages`, delegated, { text: '--dangerously-skip-permissions' }),
      'Sending a message to a computer needs',
    );
    // Nothing was queued by it; the member's own key sends.
    expect((await call('GET', `/api/v0/sessions/${sessionId}/messages`, member.key)).body.messages).toEqual([]);
    expect((await call('POST', `/api/v0/sessions/${sessionId}/messages`, member.key, { text: 'hello' })).status).toBe(200);

    // A key minted with the delegated key, for the member, is delegated too: no way around through minting.
    const laundered = await mint(delegated, member.id);
    expect(laundered.status).toBe(201);
    expect(laundered.body.key).toMatchObject({ createdBy: member.id, kind: 'delegated' });
    forbidden(await call('POST', '/api/v0/sessions', laundered.body.apiKey, { computerId }), 'Creating a session on a computer needs');

    // The member's own key mints personal keys for the member.
    const own = await mint(member.key, member.id);
    expect(own.body.key).toMatchObject({ createdBy: member.id, kind: 'personal' });
    expect((await call('POST', '/api/v0/sessions', own.body.apiKey, { computerId })).status).toBe(201);

    // Listings say who minted each key and what it is.
    const listed = (await call('GET', `/api/v0/admin/users/${member.id}/keys`, member.key)).body.keys as {
      kind: string;
      createdBy: string | null;
    }[];
    expect(listed.map((k) => [k.kind, k.createdBy])).toEqual([
      ['personal', null],
      ['delegated', org.users.manager.id],
      ['delegated', member.id],
      ['personal', member.id],
    ]);
  });

  it('the key handed over with a new user is an invitation: refused on computers, exchanged once for the user’s own key', async () => {
    const created = await call('POST', '/api/v0/admin/users', org.users.manager.key, { email: 'new@acme.example.com', role: 'member' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatchObject({ kind: 'invitation', createdBy: org.users.manager.id });
    const invitation = created.body.apiKey as string;
    const userId = created.body.user.id as string;
    forbidden(
      await register(invitation),
      /^Registering a computer needs your own API key; this is the invitation key .* --user new@acme\.example\.com$/,
    );

    const exchanged = await mint(invitation, userId);
    expect(exchanged.status).toBe(201);
    expect(exchanged.body.key).toMatchObject({ kind: 'personal', createdBy: userId });
    // The invitation stops working at once, so whoever saw it cannot exchange it again.
    const again = await mint(invitation, userId);
    expect(again.status).toBe(401);
    expect((await register(exchanged.body.apiKey)).status).toBe(201);
    const keys = (await call('GET', `/api/v0/admin/users/${userId}/keys`, exchanged.body.apiKey)).body.keys as {
      kind: string;
      revokedAt: string | null;
    }[];
    expect(keys.map((k) => [k.kind, k.revokedAt !== null])).toEqual([
      ['invitation', true],
      ['personal', false],
    ]);
  });

  it('an invitation mints no key for someone else (a manager invited): only a personal API key does', async () => {
    const created = await call('POST', '/api/v0/admin/users', org.users.owner.key, { email: 'mgr2@acme.example.com', role: 'manager' });
    const invitation = created.body.apiKey as string;
    forbidden(
      await mint(invitation, org.users.member.id),
      /^Minting a key for someone else needs your own personal API key.*an invitation key/,
    );
    expect((await call('GET', '/api/v0/admin/whoami', invitation)).status).toBe(200);
  });

  it('a JWT is personal: it drives its user’s computers, but mints no computer token (only a personal API key does)', async () => {
    const member = org.users.member;
    const jwt = await new SignJWT({ sub: member.id, org_id: org.orgId, role: 'member' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(JWT_SECRET));
    // A computer's token lasts until revoked; the JWT ends in minutes.
    forbidden(await register(jwt), /^Registering a computer needs your own personal API key.*a JWT may not do it/);
    const computer = await register(member.key);
    expect(computer.status).toBe(201);
    await call('POST', `/api/v0/computers/${computer.body.computer.id}/agent/hello`, computer.body.token, {
      checks: [{ name: 'agent command', ok: true }],
      agentCommand: 'droid exec',
    });
    expect((await call('POST', '/api/v0/sessions', jwt, { computerId: computer.body.computer.id })).status).toBe(201);
    // It mints no personal key, which would outlive it; a collector key it may (docs/keys.md).
    expect((await mint(jwt, member.id)).status).toBe(403);
  });
});

describe('migration 011', () => {
  it('keys from before it have no recorded minter and count as personal', async () => {
    const path = join(tempDir(), 'old.duckdb');
    // A database as it was at migration 010, with a key in it.
    let db = await openDb(path);
    const accounts = new AccountStore(db);
    const org = await accounts.createOrg('Old');
    const user = await accounts.createUser({ orgId: org.id, email: 'old@example.com', role: 'member' });
    const { key } = await accounts.createKey(user);
    await db.run('ALTER TABLE api_keys DROP COLUMN kind');
    await db.run('ALTER TABLE api_keys DROP COLUMN created_by');
    await db.run('DELETE FROM schema_migrations WHERE version = 11');
    await db.close();
    db = await openDb(path);
    try {
      const upgraded = new AccountStore(db);
      expect(await upgraded.principalForKey(key)).toMatchObject({ userId: user.id, credential: 'personal' });
      expect((await upgraded.listKeys(org.id, user.id)).map((k) => [k.kind, k.created_by])).toEqual([['personal', null]]);
    } finally {
      await db.close();
    }
  });
});
