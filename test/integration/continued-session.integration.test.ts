// Copies of a model call (docs/metrics.md §1: one (message.id, requestId) per organization, counted at its
// earliest line, in that line's session) through the real ingest store, the batch and the HTTP API: a copy
// that arrives before its original moves to the original's day and session; and rows stored under the old
// ids (cc:<session>:<message.id>) are corrected by migration 010. Numbers worked by hand beside them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { ev, message, usage, type WireRecord } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const log = createLogger({ name: 'test', level: 'silent' });
let server: TestServer;

const batch = () => server.services.runBatch({ trigger: 'cli', log, now: NOW });
async function day(key: string, date: string) {
  const get = async (path: string) => {
    const res = await server.app.inject({ method: 'GET', url: `${path}?startDate=${date}&endDate=${date}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Record<string, number>[];
  };
  const [tokens] = await get('/api/v1/analytics/tokens');
  const users = await get('/api/v1/analytics/users');
  return {
    billable: tokens!['billable_tokens'],
    input: tokens!['input_tokens'],
    output: tokens!['output_tokens'],
    assistantMessages: users.reduce((n, u) => n + u['assistant_messages']!, 0),
  };
}
/** A usage record and its assistant message under one id, as the collector ships them. */
const call = (id: string, session: string, when: string, tokens: { input_tokens: number; output_tokens: number }): WireRecord[] => [
  { ...usage('claude-sonnet-4-5', when, tokens, false, session), id },
  { ...message(when, session), id },
];

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
});
afterAll(() => server.close());

describe('a copy of a call', () => {
  it('that arrives before its original moves to the earliest day and session', async () => {
    const o = await server.seedOrg('copyfirst');
    const ingest = (records: WireRecord[]) => server.services.ingest.storeRecords(o.orgId as OrgId, o.users.member.id as UserId, records);
    // The continued session b is shipped first: its copy of a's call (dated 2026-03-05) and a call of its own.
    await ingest([
      ev('SessionStart', '2026-03-05T08:00:00Z', { session_id: 'b' }),
      ...call('cc:msg_1:req_1', 'b', '2026-03-05T08:00:00Z', { input_tokens: 100, output_tokens: 50 }),
      ...call('cc:msg_2:req_2', 'b', '2026-03-05T08:01:00Z', { input_tokens: 10, output_tokens: 5 }),
    ]);
    await batch();
    // 2026-03-05: 1.2 × (110 + 55) = 198.
    expect(await day(o.users.manager.key, '2026-03-05')).toEqual({ billable: 198, input: 110, output: 55, assistantMessages: 2 });
    // Then the original session a: the call on 2026-03-04, and the same call again (re-delivered) later.
    await ingest([
      ev('SessionStart', '2026-03-04T09:00:00Z', { session_id: 'a' }),
      ...call('cc:msg_1:req_1', 'a', '2026-03-04T09:00:00Z', { input_tokens: 100, output_tokens: 50 }),
    ]);
    await ingest(call('cc:msg_1:req_1', 'b', '2026-03-05T08:00:00Z', { input_tokens: 100, output_tokens: 50 }));
    await batch();
    // 2026-03-04: 1.2 × 150 = 180; 2026-03-05 keeps b's own call: 1.2 × 15 = 18.
    expect(await day(o.users.manager.key, '2026-03-04')).toEqual({ billable: 180, input: 100, output: 50, assistantMessages: 1 });
    expect(await day(o.users.manager.key, '2026-03-05')).toEqual({ billable: 18, input: 10, output: 5, assistantMessages: 1 });
    const rows = await server.db.all<{ id: string; session_id: string; day: string }>(
      `SELECT id, session_id, CAST(CAST(ts AS DATE) AS VARCHAR) AS day FROM usage WHERE org_id = $org
       UNION ALL SELECT id, session_id, CAST(CAST(ts AS DATE) AS VARCHAR) FROM assistant_messages WHERE org_id = $org ORDER BY ALL`,
      { org: o.orgId },
    );
    expect(rows).toEqual([
      { id: 'cc:msg_1:req_1', session_id: 'a', day: '2026-03-04' },
      { id: 'cc:msg_1:req_1', session_id: 'a', day: '2026-03-04' },
      { id: 'cc:msg_2:req_2', session_id: 'b', day: '2026-03-05' },
      { id: 'cc:msg_2:req_2', session_id: 'b', day: '2026-03-05' },
    ]);
  });
});

describe('a copy of a call moved more than 29 days earlier', () => {
  it('leaves the day it moved from to the next batch: the call counts once, on its earliest day', async () => {
    const o = await server.seedOrg('farback');
    const ingest = (records: WireRecord[]) => server.services.ingest.storeRecords(o.orgId as OrgId, o.users.member.id as UserId, records);
    // Shipped first: the continued session b's copy, dated 2026-03-15; then the original, 2026-02-05.
    await ingest([
      ev('SessionStart', '2026-03-15T09:59:00Z', { session_id: 'b' }),
      ...call('cc:msg_9:req_9', 'b', '2026-03-15T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }),
    ]);
    await batch();
    expect(await day(o.users.manager.key, '2026-03-15')).toMatchObject({ input: 1000, assistantMessages: 1 });
    await ingest([
      ev('SessionStart', '2026-02-05T09:59:00Z', { session_id: 'a' }),
      ...call('cc:msg_9:req_9', 'a', '2026-02-05T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }),
    ]);
    await batch();
    expect(await day(o.users.manager.key, '2026-02-05')).toMatchObject({ input: 1000, assistantMessages: 1 });
    // 38 days after its new day: out of the 29 the new day's rebuild reaches. Nothing of it is left there
    // (the day keeps session b's start).
    expect(await day(o.users.manager.key, '2026-03-15')).toEqual({ billable: 0, input: 0, output: 0, assistantMessages: 0 });
  });
});

describe("today's live figures", () => {
  it("count a call moved to an earlier day of the month once in the month's credits", async () => {
    const o = await server.seedOrg('livemove');
    const ingest = (records: WireRecord[]) => server.services.ingest.storeRecords(o.orgId as OrgId, o.users.member.id as UserId, records);
    await ingest(call('cc:msg_7:req_7', 'b', '2026-03-15T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }));
    await batch();
    // The original arrives after the batch: the live build counts it on 03-10, and no longer on 03-15.
    await ingest(call('cc:msg_7:req_7', 'a', '2026-03-10T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }));
    server.services.live.clear();
    const credits = await server.services.live.figures({ orgId: o.orgId }, 'credits');
    // 1.2 × 1000.
    expect(credits.month.byUser.get(o.users.member.id)).toBe(1200);
  });
});

describe('migration 010', () => {
  it('collapses copies stored under the old ids; the next batch corrects the days', async () => {
    const o = await server.seedOrg('legacy');
    const other = await server.seedOrg('legacy-other');
    const ingest = (org: typeof o, records: WireRecord[]) =>
      server.services.ingest.storeRecords(org.orgId as OrgId, org.users.member.id as UserId, records);
    // As the previous collector stored them: session a on 2026-03-06; its continuation b copies msg_1 as it
    // was and msg_2 dated 2026-03-07, and adds msg_3. Another organization has a call with the same id.
    await ingest(o, [
      ev('Stop', '2026-03-06T10:00:00Z', { session_id: 'a' }),
      ...call('cc:a:msg_1', 'a', '2026-03-06T10:00:00Z', { input_tokens: 100, output_tokens: 50 }),
      ...call('cc:a:msg_2', 'a', '2026-03-06T23:00:00Z', { input_tokens: 200, output_tokens: 100 }),
    ]);
    await ingest(o, [
      ev('Stop', '2026-03-07T08:00:00Z', { session_id: 'b' }),
      ...call('cc:b:msg_1', 'b', '2026-03-06T10:00:00Z', { input_tokens: 100, output_tokens: 50 }),
      ...call('cc:b:msg_2', 'b', '2026-03-07T08:00:00Z', { input_tokens: 200, output_tokens: 100 }),
      ...call('cc:b:msg_3', 'b', '2026-03-07T08:01:00Z', { input_tokens: 20, output_tokens: 10 }),
    ]);
    // A copy more than 29 days after its original (session c on 2026-01-20, continued as d on 2026-03-01):
    // the batch rebuilds 29 days after a changed row's day, so d's own days must be marked too.
    await ingest(o, [
      ev('Stop', '2026-01-20T10:00:00Z', { session_id: 'c' }),
      ...call('cc:c:msg_9', 'c', '2026-01-20T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }),
      ev('Stop', '2026-03-01T10:00:00Z', { session_id: 'd' }),
      ...call('cc:d:msg_9', 'd', '2026-03-01T10:00:00Z', { input_tokens: 1000, output_tokens: 0 }),
    ]);
    await ingest(other, [
      ev('Stop', '2026-03-06T10:00:00Z', { session_id: 'x' }),
      ...call('cc:x:msg_1', 'x', '2026-03-06T10:00:00Z', { input_tokens: 1, output_tokens: 1 }),
    ]);
    await batch();
    // Counted twice before: 2026-03-06 1.2 × (150 + 300 + 150) = 720, three messages.
    expect(await day(o.users.manager.key, '2026-03-06')).toEqual({ billable: 720, input: 400, output: 200, assistantMessages: 3 });

    await server.db.run('DELETE FROM schema_migrations WHERE version = 10');
    expect(await migrate(server.db)).toEqual(['010_claude_call_identity.sql']);
    await batch();
    // 2026-03-06: a's two calls, 1.2 × (150 + 300) = 540; 2026-03-07: b's own call, 1.2 × 30 = 36.
    expect(await day(o.users.manager.key, '2026-03-06')).toEqual({ billable: 540, input: 300, output: 150, assistantMessages: 2 });
    expect(await day(o.users.manager.key, '2026-03-07')).toEqual({ billable: 36, input: 20, output: 10, assistantMessages: 1 });
    expect(await day(o.users.manager.key, '2026-01-20')).toEqual({ billable: 1200, input: 1000, output: 0, assistantMessages: 1 });
    expect(await day(o.users.manager.key, '2026-03-01')).toEqual({ billable: 0, input: 0, output: 0, assistantMessages: 0 });
    expect(await day(other.users.manager.key, '2026-03-06')).toEqual({ billable: 2, input: 1, output: 1, assistantMessages: 1 });
    const ids = await server.db.all<{ id: string }>(
      `SELECT id FROM usage WHERE org_id = $org UNION ALL SELECT id FROM assistant_messages WHERE org_id = $org ORDER BY id`,
      { org: o.orgId },
    );
    expect(ids.map((r) => r.id)).toEqual([
      'cc:a:msg_1',
      'cc:a:msg_1',
      'cc:a:msg_2',
      'cc:a:msg_2',
      'cc:b:msg_3',
      'cc:b:msg_3',
      'cc:c:msg_9',
      'cc:c:msg_9',
    ]);
  });
});
