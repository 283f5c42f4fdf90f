// What a request authenticated before its user's removal writes after it: nothing. A computer, a session
// or a message whose request passed its checks just before the removal (with erasure) committed is not
// written after it (their inserts ask that the user, the key, the computer or the session still be
// there), and a computer of a user who is gone never authenticates. The stores are called as their
// routes call them, once the removal has committed: the moment such a race leaves them at.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ComputerStore } from '../../api/computers/store.ts';
import { hashKey } from '../../api/keys/secret.ts';
import { SessionStore } from '../../api/sessions/store.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
beforeEach(async () => {
  server = await testServer({ decodeWorkers: 0 });
});
afterEach(async () => {
  await server.close();
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, key: string, payload?: object) =>
  server.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

const count = async (sql: string, params: Record<string, string>) =>
  (await server.db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${sql}`, params))[0]!.n;

describe('writes of a user removed with erasure while their request ran', () => {
  it('register no computer, create no session, queue no message; a computer of a removed user never authenticates', async () => {
    const org = await server.seedOrg('Acme');
    const { member, owner } = org.users;
    const registered = await call('POST', '/api/v0/computers', member.key, { name: 'laptop' });
    expect(registered.statusCode, registered.body).toBe(201);
    const { computer, token } = registered.json() as { computer: { id: string }; token: string };
    const created = await call('POST', '/api/v0/sessions', member.key, { computerId: computer.id, cwd: '/work/repo' });
    expect(created.statusCode, created.body).toBe(201);
    const sessionId = (created.json() as { sessionId: string }).sessionId;
    const [{ id: keyId }] = (await server.db.all<{ id: string }>('SELECT id FROM api_keys WHERE user_id = $user', {
      user: member.id,
    })) as [{ id: string }];
    // What the routes had read before the removal: the session as the message route checked it.
    const sessions = new SessionStore(server.db, () => Date.now());
    const session = (await sessions.record(org.orgId, sessionId))!;

    const removed = await call('DELETE', `/api/v0/admin/users/${member.id}?erase=true`, owner.key);
    expect(removed.statusCode, removed.body).toBe(200);

    const computers = new ComputerStore(server.db, () => Date.now());
    expect(await computers.register(org.orgId, member.id, { name: 'second laptop' }, keyId)).toBeUndefined();
    expect(await sessions.create(org.orgId, member.id, computer.id, '/work/repo', {})).toBeUndefined();
    expect(await sessions.addMessage(org.orgId, session, computer.id, { text: 'run the tests' })).toBeUndefined();
    expect(await count('computers WHERE user_id = $user', { user: member.id })).toBe(0);
    expect(await count('sessions WHERE user_id = $user', { user: member.id })).toBe(0);
    expect(await count('session_messages WHERE session_id = $session', { session: sessionId })).toBe(0);

    // A computer row of a removed user that got in all the same (written by an older server, say) with a
    // live token: its token finds no computer.
    await server.db.run(
      `INSERT INTO computers (id, org_id, user_id, name, provider_type, token_hash, created_ms)
       VALUES ('cmp_leftover', $org, $user, 'leftover', 'byom', $hash, 0)`,
      { org: org.orgId, user: member.id, hash: hashKey(token) },
    );
    expect(await computers.byToken(token)).toBeUndefined();
    const hello = await call('POST', '/api/v0/computers/cmp_leftover/agent/hello', token, { checks: [] });
    expect(hello.statusCode).toBe(401);
  });

  it('a key revoked before the registration is written registers no computer', async () => {
    const org = await server.seedOrg('Acme');
    const { member } = org.users;
    const [{ id: keyId }] = (await server.db.all<{ id: string }>('SELECT id FROM api_keys WHERE user_id = $user', {
      user: member.id,
    })) as [{ id: string }];
    await server.db.run('UPDATE api_keys SET revoked_at = now() WHERE id = $id', { id: keyId });
    const computers = new ComputerStore(server.db, () => Date.now());
    expect(await computers.register(org.orgId, member.id, { name: 'laptop' }, keyId)).toBeUndefined();
    expect(await count('computers WHERE user_id = $user', { user: member.id })).toBe(0);
  });
});

describe('a directory deleting a person (SCIM)', () => {
  it('refuses the batches of theirs still in flight, as the admin removal does', async () => {
    const org = await server.seedOrg('Acme');
    const { member } = org.users;
    const removals: string[] = [];
    const { ingest } = server.services;
    const removeSender = ingest.removeSender.bind(ingest);
    ingest.removeSender = (orgId, userId, remove) => {
      removals.push(userId);
      return removeSender(orgId, userId, remove);
    };
    const token = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/scim/tokens',
      headers: bearer(org.users.owner.key),
      payload: { name: 'directory' },
    });
    expect(token.statusCode, token.body).toBe(201);
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/scim/v2/Users/${member.id}`,
      headers: bearer((token.json() as { token: string }).token),
    });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(removals).toEqual([member.id]);
  });
});
