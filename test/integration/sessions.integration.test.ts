// The sessions and computers API in process, on a real DuckDB file, with the computer agent's side of
// the protocol played over HTTP and the clock pinned so leases can run out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { MessageCreated, MessagePage, Session, SessionPage } from '../../api/sessions/schema.ts';
import { CLAIM_LEASE_MS, PollAnswer, RUN_LEASE_MS } from '../../common/computer-protocol.ts';
import { waitFor } from '../helpers/processes.ts';
import { ev, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let clock = Date.parse('2026-11-20T10:00:00Z');
type Org = Awaited<ReturnType<TestServer['seedOrg']>>;
let org: Org;
let other: Org;

const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, key: string | undefined, payload?: unknown) => {
  const res = await server.app.inject({
    method,
    url,
    headers: key ? bearer(key) : {},
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as any) : undefined };
};
const expectError = (res: { status: number; body: unknown }, status: number) => {
  expect(res.status).toBe(status);
  expect(ErrorBodySchema.parse(res.body).status).toBe(status);
};

async function registerComputer(key: string, name = 'laptop') {
  const res = await call('POST', '/api/v0/computers', key, {
    name,
    hostname: 'dev-box',
    remoteUser: 'dev',
    hostId: '4b0d7c3e-2a8e-4d8c-9a41-0d0c0a3f1b11',
  });
  expect(res.status).toBe(201);
  return { id: res.body.computer.id as string, token: res.body.token as string };
}
const hello = (
  c: { id: string; token: string },
  checks: { name: string; ok: boolean; error?: string }[] = [{ name: 'agent command', ok: true }],
) => call('POST', `/api/v0/computers/${c.id}/agent/hello`, c.token, { checks, agentCommand: 'droid exec' });
const poll = async (c: { id: string; token: string }) => {
  const res = await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=0`, c.token);
  expect(res.status).toBe(200);
  return PollAnswer.parse(res.body).work;
};
const agentCall = (c: { id: string; token: string }, messageId: string, action: 'start' | 'heartbeat' | 'result', body?: unknown) =>
  call('POST', `/api/v0/computers/${c.id}/agent/messages/${messageId}/${action}`, c.token, body ?? {});
const getSession = async (key: string, id: string) => {
  const res = await call('GET', `/api/v0/sessions/${id}`, key);
  expect(res.status).toBe(200);
  return Session.parse(res.body);
};

beforeAll(async () => {
  server = await testServer({ now: () => new Date(clock) });
  org = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(async () => server.close());

describe('computers', () => {
  it('registers (token once, hash stored), walks provisioning → active → error, in the reference shape', async () => {
    const c = await registerComputer(org.users.member.key);
    const stored = await server.db.all<{ token_hash: string }>('SELECT token_hash FROM computers WHERE id = $id', { id: c.id });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(c.token.slice(4));
    expect(c.token).toMatch(/^amc_/);
    let got = await call('GET', `/api/v0/computers/${c.id}`, org.users.member.key);
    expect(got.body).toMatchObject({
      id: c.id,
      name: 'laptop',
      providerType: 'byom',
      hostname: 'dev-box',
      remoteUser: 'dev',
      status: 'provisioning',
    });
    expect(got.body.provisioningSteps.map((s: { id: string; status: string }) => `${s.id}:${s.status}`)).toEqual([
      'register:completed',
      'checks:pending',
      'connect:pending',
    ]);
    expect((await hello(c)).status).toBe(200);
    got = await call('GET', `/api/v0/computers/${c.id}`, org.users.manager.key);
    expect(got.body.status).toBe('active');
    // Not heard from for longer than the active window: an error with the reason on the connect step.
    clock += 120_000;
    got = await call('GET', `/api/v0/computers/${c.id}`, org.users.owner.key);
    expect(got.body.status).toBe('error');
    expect(got.body.provisioningSteps[2]).toMatchObject({
      id: 'connect',
      status: 'failed',
      error: expect.stringContaining('no connection from the computer agent since'),
    });
    await poll(c);
    expect((await call('GET', `/api/v0/computers/${c.id}`, org.users.member.key)).body.status).toBe('active');
  });

  it('failed checks put the computer in error with the reason, and it refuses work and sessions (409)', async () => {
    const c = await registerComputer(org.users.member.key, 'broken');
    await hello(c, [{ name: 'agent command', ok: false, error: 'droid: not found on PATH' }]);
    const got = await call('GET', `/api/v0/computers/${c.id}`, org.users.member.key);
    expect(got.body.status).toBe('error');
    expect(got.body.provisioningSteps[1]).toMatchObject({
      id: 'checks',
      status: 'failed',
      error: 'agent command: droid: not found on PATH',
    });
    expectError(await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=0`, c.token), 409);
    expectError(await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id }), 409);
  });

  it('auth: 401 without a credential, 403 for guests, 404 for other users (members) and other organizations, tokens bound to their computer', async () => {
    const c = await registerComputer(org.users.member.key);
    const d = await registerComputer(org.users.owner.key, 'owner box');
    expectError(await call('GET', `/api/v0/computers/${c.id}`, undefined), 401);
    expectError(await call('GET', `/api/v0/computers/${c.id}`, org.users.guest.key), 403);
    expectError(await call('POST', '/api/v0/computers', org.users.guest.key, { name: 'x' }), 403);
    expectError(await call('GET', `/api/v0/computers/${d.id}`, org.users.member.key), 404);
    expectError(await call('GET', `/api/v0/computers/${c.id}`, other.users.owner.key), 404);
    expectError(await call('GET', `/api/v0/computers/${d.id}/agent/work?waitMs=0`, c.token), 404);
    expectError(await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=0`, 'amc_nope'), 401);
    expectError(await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=0`, org.users.member.key), 401);
    expectError(await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=0`, c.token), 409); // no hello yet
    expectError(await call('POST', '/api/v0/computers', org.users.member.key, { name: '' }), 400);
    expectError(await call('POST', '/api/v0/computers', org.users.member.key, { name: 'x', hostId: 'not-a-uuid' }), 400);
    expectError(await call('POST', '/api/v0/computers', org.users.member.key, { name: 'x', extra: 1 }), 400);
    expectError(await call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=100000`, c.token), 400);
  });

  it('lists computers: members their own, owners and managers all, paged by id without skip or repeat', async () => {
    const x = await server.seedOrg('Listing');
    const mine = [
      await registerComputer(x.users.member.key, 'a'),
      await registerComputer(x.users.member.key, 'b'),
      await registerComputer(x.users.member.key, 'c'),
    ];
    const owners = await registerComputer(x.users.owner.key, 'owner');
    const memberList = await call('GET', '/api/v0/computers', x.users.member.key);
    expect(memberList.body.computers.map((c: { id: string }) => c.id).sort()).toEqual(mine.map((c) => c.id).sort());
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `/api/v0/computers?limit=2${cursor ? `&cursor=${cursor}` : ''}`, x.users.manager.key);
      expect(page.status).toBe(200);
      seen.push(...page.body.computers.map((c: { id: string }) => c.id));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...mine, owners].map((c) => c.id).sort());
    expectError(await call('GET', '/api/v0/computers?limit=0', x.users.member.key), 400);
    expectError(await call('GET', '/api/v0/computers', x.users.guest.key), 403);
    expect((await call('GET', '/api/v0/computers', other.users.owner.key)).body.computers.map((c: { id: string }) => c.id)).not.toContain(
      owners.id,
    );
  });

  it('obeys the enterprise controls: BYOM off, or allowed only for listed users', async () => {
    const x = await server.seedOrg('Controlled');
    expect(
      (await call('PUT', '/api/v0/organization/enterprise-controls', x.users.owner.key, { settings: { byomComputersEnabled: false } }))
        .status,
    ).toBe(200);
    expectError(await call('POST', '/api/v0/computers', x.users.member.key, { name: 'x' }), 403);
    await call('PUT', '/api/v0/organization/enterprise-controls', x.users.owner.key, {
      settings: { byomComputersAllowedEmails: ['owner@controlled.example.com'] },
    });
    expectError(await call('POST', '/api/v0/computers', x.users.member.key, { name: 'x' }), 403);
    expect((await call('POST', '/api/v0/computers', x.users.owner.key, { name: 'x' })).status).toBe(201);
  });
});

describe('sessions', () => {
  it("create: 201 idle with the org default model; every bad body is 400; the computer must be the caller's own", async () => {
    const c = await registerComputer(org.users.member.key);
    const created = await call('POST', '/api/v0/sessions', org.users.member.key, {
      computerId: c.id,
      cwd: '/work/repo',
      sessionSettings: { tags: [{ name: 'demo' }] },
    });
    expect(created.status).toBe(201);
    const session = Session.parse(created.body);
    expect(session).toMatchObject({ status: 'idle', messageCount: 0, computerId: c.id, cwd: '/work/repo' });
    expect(session.sessionSettings).toMatchObject({ tags: [{ name: 'demo' }], tokenUsage: { inputTokens: 0, serviceCredits: 0 } });
    expect(session.createdAt).toBe(clock);

    const bad = [
      {},
      { computerId: c.id, cwd: '' },
      { computerId: c.id, cwd: 'x'.repeat(4097) },
      { computerId: c.id, sessionSettings: { tokenUsage: { inputTokens: 1 } } },
      { computerId: c.id, sessionSettings: { inclusiveTokenUsage: {} } },
      { computerId: c.id, sessionSettings: { colour: 'red' } },
      { computerId: c.id, sessionSettings: { tags: [{ name: 5 }] } },
      { computerId: c.id, extra: true },
    ];
    for (const body of bad) expectError(await call('POST', '/api/v0/sessions', org.users.member.key, body), 400);
    expect((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id, cwd: 'x'.repeat(4096) })).status).toBe(201);
    expect(
      (await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id, sessionSettings: { tokenUsage: 1 } })).body.detail,
    ).toContain('computed by the server');

    expectError(await call('POST', '/api/v0/sessions', org.users.manager.key, { computerId: c.id }), 403); // sees it, may not run on it
    expectError(await call('POST', '/api/v0/sessions', other.users.owner.key, { computerId: c.id }), 404);
    expectError(await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: 'cmp_unknown' }), 404);
    expectError(await call('POST', '/api/v0/sessions', org.users.guest.key, { computerId: c.id }), 403);
    expectError(await call('POST', '/api/v0/sessions', undefined, { computerId: c.id }), 401);

    const x = await server.seedOrg('Defaults');
    await call('PUT', '/api/v0/organization/enterprise-controls', x.users.owner.key, {
      settings: { sessionDefaultSettings: { model: 'claude-sonnet-4-5' } },
    });
    const xc = await registerComputer(x.users.member.key);
    const withDefault = await call('POST', '/api/v0/sessions', x.users.member.key, { computerId: xc.id });
    expect(withDefault.body.sessionSettings.model).toBe('claude-sonnet-4-5');
    const own = await call('POST', '/api/v0/sessions', x.users.member.key, { computerId: xc.id, sessionSettings: { model: 'gpt-5' } });
    expect(own.body.sessionSettings.model).toBe('gpt-5');
  });

  it('messages: idle → pending → running (a second message waits behind) → pending → running → idle, in order, output stored', async () => {
    const c = await registerComputer(org.users.member.key);
    await hello(c);
    const s = Session.parse(
      (await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id, cwd: '/repo', sessionSettings: { model: 'm1' } }))
        .body,
    );
    expect(await poll(c)).toBeNull();

    clock += 1000;
    const first = MessageCreated.parse(
      (
        await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, {
          text: 'Fix the failing test\nin utils',
          files: [{ data: 'aGVsbG8=', name: 'notes.txt' }],
        })
      ).body,
    );
    expect(first.status).toBe('pending');
    let view = await getSession(org.users.member.key, s.sessionId);
    expect(view).toMatchObject({ status: 'pending', messageCount: 1, title: 'Fix the failing test', updatedAt: clock });
    expect(view.completedAt).toBeUndefined();

    const work = (await poll(c))!;
    expect(work).toMatchObject({
      sessionId: s.sessionId,
      messageId: first.messageId,
      cwd: '/repo',
      text: 'Fix the failing test\nin utils',
      model: 'm1',
    });
    expect(work.attachments).toEqual([{ kind: 'file', name: 'notes.txt', data: 'aGVsbG8=' }]);
    expect(await poll(c)).toBeNull(); // one at a time per session
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('pending');
    expect((await agentCall(c, work.messageId, 'start')).status).toBe(200);
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('running');

    const second = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'Now run the linter' })).body,
    );
    expect(second.status).toBe('running');
    expect(await poll(c)).toBeNull(); // queued behind the running one

    clock += 5000;
    const done = await agentCall(c, work.messageId, 'result', { exitCode: 0, output: 'Fixed: off-by-one in utils.ts' });
    expect(done.body).toEqual({ status: 'pending' });
    expect((await agentCall(c, work.messageId, 'result', { exitCode: 0, output: 'Fixed: off-by-one in utils.ts' })).status).toBe(200); // a repeated report is harmless
    const next = (await poll(c))!;
    expect(next.messageId).toBe(second.messageId);
    await agentCall(c, next.messageId, 'start');
    clock += 3000;
    expect((await agentCall(c, next.messageId, 'result', { exitCode: 0, output: 'Lint clean.' })).body).toEqual({ status: 'idle' });

    view = await getSession(org.users.member.key, s.sessionId);
    expect(view).toMatchObject({ status: 'idle', messageCount: 4, completedAt: clock, updatedAt: clock });
    const messages = MessagePage.parse((await call('GET', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key)).body);
    expect(messages.messages.map((m) => [m.role, m.text, m.status])).toEqual([
      ['user', 'Fix the failing test\nin utils', 'completed'],
      ['assistant', 'Fixed: off-by-one in utils.ts', 'completed'],
      ['user', 'Now run the linter', 'completed'],
      ['assistant', 'Lint clean.', 'completed'],
    ]);
    expect(messages.messages[1]!.replyTo).toBe(first.messageId);
    expect(messages.messages[0]!.attachments).toEqual([{ kind: 'file', name: 'notes.txt', bytes: 5 }]);
    const paged = await call('GET', `/api/v0/sessions/${s.sessionId}/messages?limit=3`, org.users.member.key);
    expect(paged.body.messages.map((m: { text: string }) => m.text)).toEqual([
      'Fix the failing test\nin utils',
      'Fixed: off-by-one in utils.ts',
      'Now run the linter',
    ]);
    const rest = await call(
      'GET',
      `/api/v0/sessions/${s.sessionId}/messages?cursor=${paged.body.pagination.nextCursor}`,
      org.users.member.key,
    );
    expect(rest.body.messages.map((m: { text: string }) => m.text)).toEqual(['Lint clean.']);
    expect(rest.body.pagination).toEqual({ hasMore: false });

    // A failed run: the error is on the user message, the session is idle again.
    const third = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'Deploy' })).body,
    );
    await poll(c);
    await agentCall(c, third.messageId, 'start');
    expect(
      (await agentCall(c, third.messageId, 'result', { exitCode: 2, output: '', error: 'the agent exited with code 2: no credentials' }))
        .body,
    ).toEqual({ status: 'idle' });
    const all = (await call('GET', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key)).body.messages;
    expect(all.slice(4)).toEqual([
      expect.objectContaining({ text: 'Deploy', status: 'failed', exitCode: 2, error: 'the agent exited with code 2: no credentials' }),
    ]);

    // The largest answer the agent sends (1M characters), in characters that take 3 bytes each in UTF-8.
    const big = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'Translate' })).body,
    );
    await poll(c);
    await agentCall(c, big.messageId, 'start');
    const answer = '€'.repeat(1024 * 1024);
    expect((await agentCall(c, big.messageId, 'result', { exitCode: 0, output: answer })).status).toBe(200);
    expect((await call('GET', `/api/v0/sessions/${s.sessionId}/messages?cursor=8`, org.users.member.key)).body.messages).toEqual([
      expect.objectContaining({ role: 'assistant', text: answer }),
    ]);
  });

  it('leases: an unstarted claim is handed out again; a started run that goes silent fails and is never handed out twice; a restart fails its runs', async () => {
    const c = await registerComputer(org.users.member.key);
    await hello(c);
    const s = Session.parse((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id })).body);
    const m = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'one' })).body,
    );
    expect((await poll(c))!.messageId).toBe(m.messageId);
    clock += CLAIM_LEASE_MS + 1;
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('pending');
    expect((await poll(c))!.messageId).toBe(m.messageId); // never started, so safe to hand out again
    await agentCall(c, m.messageId, 'start');
    clock += RUN_LEASE_MS / 2;
    expect((await agentCall(c, m.messageId, 'heartbeat')).status).toBe(200);
    clock += RUN_LEASE_MS / 2 + 1; // still within the renewed lease
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('running');
    clock += RUN_LEASE_MS;
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('idle');
    expect(await poll(c)).toBeNull();
    expectError(await agentCall(c, m.messageId, 'heartbeat'), 409);
    expectError(await agentCall(c, m.messageId, 'start'), 409);
    const msgs = (await call('GET', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key)).body.messages;
    expect(msgs).toEqual([expect.objectContaining({ status: 'failed', error: expect.stringContaining('stopped answering') })]);

    const n = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'two' })).body,
    );
    await poll(c);
    await agentCall(c, n.messageId, 'start');
    await hello(c); // the agent restarted mid-run
    expect((await getSession(org.users.member.key, s.sessionId)).status).toBe('idle');
    expect((await call('GET', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key)).body.messages.slice(1)).toEqual([
      expect.objectContaining({ text: 'two', status: 'failed', error: expect.stringContaining('restarted') }),
    ]);
    expectError(await agentCall(c, 'msg_0000', 'start'), 404);

    // Another computer cannot touch this computer's messages; bad bodies are 400.
    const other = await registerComputer(org.users.member.key, 'other');
    await hello(other);
    const o = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'three' })).body,
    );
    expect((await poll(c))!.messageId).toBe(o.messageId);
    expectError(await agentCall(other, o.messageId, 'start'), 404);
    expectError(await agentCall(other, o.messageId, 'result', { exitCode: 0, output: '' }), 404);
    expect((await agentCall(c, o.messageId, 'start')).status).toBe(200);
    expectError(await agentCall(c, o.messageId, 'result', { exitCode: '0', output: '' }), 400);
    expectError(await agentCall(c, o.messageId, 'result', { output: 'x'.repeat(10), extra: 1 }), 400);
    expectError(await call('POST', `/api/v0/computers/${c.id}/agent/hello`, c.token, { checks: [] }), 400);
    expectError(await call('POST', `/api/v0/computers/${c.id}/agent/hello`, c.token, { agentCommand: 'x' }), 400);
  });

  it('a long-poll returns as soon as a message arrives', async () => {
    const c = await registerComputer(org.users.member.key);
    await hello(c);
    const s = Session.parse((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id })).body);
    const waiting = call('GET', `/api/v0/computers/${c.id}/agent/work?waitMs=30000`, c.token);
    // The poll is parked (found no work and waits) before the message is sent: it must be woken by it.
    await waitFor(() => server.services.workSignal.waiting(c.id) === 1, 20_000, 'the long-poll to wait');
    const m = MessageCreated.parse(
      (await call('POST', `/api/v0/sessions/${s.sessionId}/messages`, org.users.member.key, { text: 'wake up' })).body,
    );
    const answer = await waiting;
    expect(PollAnswer.parse(answer.body).work?.messageId).toBe(m.messageId);
  });

  it("token usage: the runs' agent sessions are its own, later agent sessions in a run are children; credits priced", async () => {
    const c = await registerComputer(org.users.member.key);
    const s = Session.parse((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id })).body);
    const tag = { api_session_id: s.sessionId, api_message_id: 'msg_a' };
    const records = [
      ev('SessionStart', '2026-11-20T10:00:00Z', { session_id: 'agent-main', ...tag }),
      ev('SubagentStart', '2026-11-20T10:00:05Z', { session_id: 'agent-sub', ...tag }),
      ev('Stop', '2026-11-20T10:01:00Z', { session_id: 'agent-main', ...tag }),
      ev('SessionStart', '2026-11-20T10:02:00Z', { session_id: 'agent-main-2', api_session_id: s.sessionId, api_message_id: 'msg_b' }),
      ev('Stop', '2026-11-20T10:02:00Z', { session_id: 'unrelated' }),
      usage(
        'claude-sonnet-4-5',
        '2026-11-20T10:00:10Z',
        { input_tokens: 1000, output_tokens: 200, cache_read_tokens: 5000, cache_write_tokens: 300 },
        false,
        'agent-main',
      ),
      usage('claude-haiku-4-5', '2026-11-20T10:00:20Z', { input_tokens: 100, output_tokens: 50 }, false, 'agent-sub'),
      usage('mystery-model', '2026-11-20T10:02:10Z', { input_tokens: 10, output_tokens: 5 }, false, 'agent-main-2'),
      usage('claude-opus-4-1', '2026-11-20T10:02:10Z', { input_tokens: 999_999 }, false, 'unrelated'),
    ];
    const ingest = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      payload: gzipNdjson(records),
    });
    expect(ingest.statusCode).toBe(200);
    const view = await getSession(org.users.member.key, s.sessionId);
    // agent-main: sonnet 1.2 × (1000 + 200 + 300 + 500) = 2400; agent-main-2: unpriced 1 × 15 = 15.
    expect(view.sessionSettings.tokenUsage).toEqual({
      inputTokens: 1010,
      outputTokens: 205,
      cacheCreationTokens: 300,
      cacheReadTokens: 5000,
      thinkingTokens: 0,
      serviceCredits: 2415,
    });
    // agent-sub: haiku 0.4 × 150 = 60.
    expect(view.sessionSettings.childInclusiveTokenUsageBySessionId).toEqual({
      'agent-sub': {
        inputTokens: 100,
        outputTokens: 50,
        cacheCreationTokens: 0,
        cacheReadTokens: 0,
        thinkingTokens: 0,
        serviceCredits: 60,
      },
    });
    expect(view.sessionSettings.inclusiveTokenUsage).toEqual({
      inputTokens: 1110,
      outputTokens: 255,
      cacheCreationTokens: 300,
      cacheReadTokens: 5000,
      thinkingTokens: 0,
      serviceCredits: 2475,
    });
  });

  it("another key holder's events naming the session, or usage naming its agent session, do not count in its usage", async () => {
    const c = await registerComputer(org.users.member.key);
    const s = Session.parse((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id })).body);
    const send = async (key: string, records: unknown[]) => {
      const res = await server.app.inject({
        method: 'POST',
        url: '/api/v1/ingest/events',
        headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
        payload: gzipNdjson(records),
      });
      expect(res.statusCode).toBe(200);
    };
    const tag = { api_session_id: s.sessionId, api_message_id: 'msg_t' };
    await send(org.users.member.key, [
      ev('SessionStart', '2026-11-20T11:00:00Z', { session_id: 'tag-own', ...tag }),
      usage('mystery-model', '2026-11-20T11:00:10Z', { input_tokens: 10, output_tokens: 5 }, false, 'tag-own'),
    ]);
    // The manager tags the member's session with an agent session of their own, and ships usage under the
    // member's agent session id.
    await send(org.users.manager.key, [
      ev('SessionStart', '2026-11-20T10:59:00Z', { session_id: 'tag-foreign', ...tag }),
      usage('mystery-model', '2026-11-20T10:59:10Z', { input_tokens: 5_000_000 }, false, 'tag-foreign'),
      usage('mystery-model', '2026-11-20T11:00:20Z', { input_tokens: 7_000_000 }, false, 'tag-own'),
    ]);
    const view = await getSession(org.users.member.key, s.sessionId);
    expect(view.sessionSettings.tokenUsage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      cacheCreationTokens: 0,
      cacheReadTokens: 0,
      thinkingTokens: 0,
      serviceCredits: 15,
    });
    expect(view.sessionSettings.childInclusiveTokenUsageBySessionId ?? {}).toEqual({});
  });

  it('GET with computerId, PATCH merges settings, list pages and filters, and visibility by role and organization', async () => {
    const c = await registerComputer(org.users.member.key);
    const d = await registerComputer(org.users.member.key, 'second');
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock += 1;
      mine.push((await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: i < 3 ? c.id : d.id })).body.sessionId);
    }
    const id = mine[0]!;
    expect((await call('GET', `/api/v0/sessions/${id}?computerId=${c.id}`, org.users.member.key)).status).toBe(200);
    expectError(await call('GET', `/api/v0/sessions/${id}?computerId=${d.id}`, org.users.member.key), 409);
    expectError(await call('GET', `/api/v0/sessions/${id}?computerId=cmp_nope`, org.users.member.key), 404);
    expectError(await call('GET', `/api/v0/sessions/${id}?other=1`, org.users.member.key), 400);

    let patched = await call('PATCH', `/api/v0/sessions/${id}`, org.users.member.key, {
      sessionSettings: { model: 'claude-opus-4-1', archivedAt: '2026-11-20T10:00:00Z', tags: [{ name: 'a', metadata: { k: 1 } }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.sessionSettings).toMatchObject({
      model: 'claude-opus-4-1',
      archivedAt: '2026-11-20T10:00:00Z',
      tags: [{ name: 'a', metadata: { k: 1 } }],
    });
    // A manager keeps the books (archive, tags) but cannot change what runs on the member's machine.
    patched = await call('PATCH', `/api/v0/sessions/${id}`, org.users.manager.key, { sessionSettings: { archivedAt: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.sessionSettings).not.toHaveProperty('archivedAt');
    for (const settings of [{ model: 'x-model' }, { enabledToolIds: ['Bash'] }, { tags: [], disabledToolIds: [] }]) {
      const refused = await call('PATCH', `/api/v0/sessions/${id}`, org.users.manager.key, { sessionSettings: settings });
      expectError(refused, 403);
    }
    patched = await call('PATCH', `/api/v0/sessions/${id}`, org.users.member.key, { sessionSettings: { enabledToolIds: ['Read'] } });
    expect(patched.body.sessionSettings).toMatchObject({ model: 'claude-opus-4-1', enabledToolIds: ['Read'], tags: [{ name: 'a' }] });
    expectError(await call('PATCH', `/api/v0/sessions/${id}`, org.users.member.key, { sessionSettings: { tokenUsage: {} } }), 400);
    expectError(
      await call('PATCH', `/api/v0/sessions/${id}`, org.users.member.key, { sessionSettings: { childInclusiveTokenUsageBySessionId: {} } }),
      400,
    );
    expectError(await call('PATCH', `/api/v0/sessions/${id}`, org.users.member.key, { title: 'x' }), 400);
    expectError(await call('PATCH', `/api/v0/sessions/${id}`, other.users.owner.key, { sessionSettings: {} }), 404);

    // Pages: newest first, walked to the end without skip or repeat while sessions are added.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await call(
        'GET',
        `/api/v0/sessions?limit=2&computerId=${c.id}${cursor ? `&cursor=${cursor}` : ''}`,
        org.users.member.key,
      );
      expect(res.status).toBe(200);
      const page = SessionPage.parse(res.body);
      seen.push(...page.sessions.map((x) => x.sessionId));
      cursor = page.pagination.nextCursor;
      clock += 1;
      await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: c.id });
    } while (cursor);
    expect(seen).toEqual(mine.slice(0, 3).reverse().concat(seen.slice(3)));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(-3)).toEqual(mine.slice(0, 3).reverse());
    // The counts by status are over every session of the filter, not only the page (an agentmeter extension).
    const whole = SessionPage.parse((await call('GET', `/api/v0/sessions?limit=100&computerId=${c.id}`, org.users.member.key)).body);
    const one = SessionPage.parse((await call('GET', `/api/v0/sessions?limit=1&computerId=${c.id}`, org.users.member.key)).body);
    expect(one.sessions).toHaveLength(1);
    const tally = { running: 0, pending: 0, idle: 0 };
    for (const x of whole.sessions) tally[x.status]++;
    expect(whole.sessions.length).toBeGreaterThan(1);
    expect(one.counts).toEqual(tally);

    expectError(await call('GET', '/api/v0/sessions?limit=0', org.users.member.key), 400);
    expectError(await call('GET', '/api/v0/sessions?limit=101', org.users.member.key), 400);
    expectError(await call('GET', '/api/v0/sessions?cursor=garbage', org.users.member.key), 400);
    // Managers see every session of the org; another member nothing of this one; other orgs nothing.
    const managerList = await call('GET', '/api/v0/sessions?limit=100', org.users.manager.key);
    expect(managerList.body.sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual(expect.arrayContaining(mine));
    const x = await server.services.accounts.createUser({ orgId: org.orgId as never, email: 'second@acme.example.com', role: 'member' });
    const secondKey = (await server.services.accounts.createKey(x)).key;
    expect((await call('GET', '/api/v0/sessions', secondKey)).body.sessions).toEqual([]);
    expectError(await call('GET', `/api/v0/sessions/${id}`, secondKey), 404);
    expectError(await call('GET', `/api/v0/sessions/${id}/messages`, secondKey), 404);
    expectError(await call('POST', `/api/v0/sessions/${id}/messages`, secondKey, { text: 'hi' }), 404);
    expectError(await call('GET', `/api/v0/sessions/${id}`, other.users.owner.key), 404);
    expectError(await call('GET', `/api/v0/sessions/${id}`, org.users.guest.key), 403);
    expectError(await call('GET', `/api/v0/sessions/${id}`, undefined), 401);
    expect((await call('GET', `/api/v0/sessions/${id}`, org.users.owner.key)).status).toBe(200);
    expectError(await call('POST', `/api/v0/sessions/${id}/messages`, org.users.owner.key, { text: 'hi' }), 403); // runs on the member's machine
    expectError(await call('POST', `/api/v0/sessions/${id}/messages`, org.users.member.key, {}), 400);
    expectError(await call('POST', `/api/v0/sessions/${id}/messages`, org.users.member.key, { text: '' }), 400);
    expectError(
      await call('POST', `/api/v0/sessions/${id}/messages`, org.users.member.key, { text: 'x', images: [{ data: 'not base64!' }] }),
      400,
    );
    expectError(await call('POST', `/api/v0/sessions/${id}/messages`, org.users.member.key, { text: 'x', computerId: 'cmp_nope' }), 404);
    expectError(await call('POST', '/api/v0/sessions/ses_nope/messages', org.users.member.key, { text: 'x' }), 404);

    // A message for another of the user's computers moves the session there.
    const moved = await call('POST', `/api/v0/sessions/${id}/messages`, org.users.member.key, { text: 'x', computerId: d.id });
    expect(moved.status).toBe(200);
    expect((await getSession(org.users.member.key, id)).computerId).toBe(d.id);
  });
});

describe('retention', () => {
  it('sessionRetentionDays removes idle sessions last active longer ago, never a busy one, only in that organization', async () => {
    const x = await server.seedOrg('Retention');
    const c = await registerComputer(x.users.member.key);
    await hello(c);
    const create = async () =>
      Session.parse((await call('POST', '/api/v0/sessions', x.users.member.key, { computerId: c.id })).body).sessionId;
    const old = await create();
    const busy = await create();
    await call('POST', `/api/v0/sessions/${busy}/messages`, x.users.member.key, { text: 'queued and waiting' });
    const keptElsewhere = Session.parse(
      (await call('POST', '/api/v0/sessions', org.users.member.key, { computerId: (await registerComputer(org.users.member.key)).id }))
        .body,
    ).sessionId;
    clock += 10 * 86_400_000;
    const recent = await create();
    await call('PUT', '/api/v0/organization/enterprise-controls', x.users.owner.key, { settings: { sessionRetentionDays: 7 } });
    expect(await server.services.applySessionRetention()).toBe(1);
    expectError(await call('GET', `/api/v0/sessions/${old}`, x.users.member.key), 404);
    expect((await call('GET', `/api/v0/sessions/${busy}`, x.users.member.key)).status).toBe(200);
    expect((await call('GET', `/api/v0/sessions/${recent}`, x.users.member.key)).status).toBe(200);
    expect((await call('GET', `/api/v0/sessions/${keptElsewhere}`, org.users.member.key)).status).toBe(200);
    const [{ n }] = (await server.db.all<{ n: number }>('SELECT count(*) AS n FROM session_messages WHERE session_id = $id', {
      id: old,
    })) as [{ n: number }];
    expect(n).toBe(0);
  });
});

describe('shutdown', () => {
  it('a waiting long-poll is answered (no work) when the server closes, instead of holding the shutdown', { timeout: 20_000 }, async () => {
    const own = await testServer();
    const x = await own.seedOrg('Closing');
    const registered = await own.app.inject({
      method: 'POST',
      url: '/api/v0/computers',
      headers: bearer(x.users.member.key),
      payload: { name: 'c' },
    });
    const { computer, token } = registered.json() as { computer: { id: string }; token: string };
    await own.app.inject({
      method: 'POST',
      url: `/api/v0/computers/${computer.id}/agent/hello`,
      headers: bearer(token),
      payload: { checks: [{ name: 'x', ok: true }], agentCommand: 'x' },
    });
    const waiting = own.app.inject({
      method: 'GET',
      url: `/api/v0/computers/${computer.id}/agent/work?waitMs=60000`,
      headers: bearer(token),
    });
    await waitFor(() => own.services.workSignal.waiting(computer.id) === 1, 20_000, 'the long-poll to wait');
    const closing = own.close();
    expect((await waiting).json()).toEqual({ work: null });
    await closing;
  });
});
