// A record belongs to the user who sent its id first (issue #20, item 7). Records are keyed by
// (organization, id), so before this a member who learned another user's usage id could take the record
// over (a copy with an earlier ts won the user) or inflate it (the greatest of each count from any
// sender). Now a copy from another user is rejected with its index, the collector quarantines it, and the
// stored row does not move; the same user's copies (a continued session, docs/metrics.md §1) still count once.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { machineId } from '../../collector/state.ts';
import { createLogger } from '../../common/logger.ts';
import { IngestResponse } from '../../common/wire.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const T = Date.UTC(2026, 10, 20, 12);
const usage = (id: string, ts: number, output: number, session = 's-victim') => ({
  kind: 'usage',
  id,
  agent: 'claude',
  session_id: session,
  ts,
  model: 'claude-sonnet-4',
  input_tokens: 10,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  thinking_tokens: 0,
  thinking: false,
});
const event = (id: string, ts: number) => ({
  kind: 'event',
  id,
  agent: 'claude',
  event: 'PreToolUse',
  ts,
  session_id: 's-victim',
  client: 'terminal-ui',
  autonomy: 'manual',
});
const message = (id: string, ts: number) => ({ kind: 'message', id, agent: 'claude', session_id: 's-victim', ts });

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

async function send(key: string, records: unknown[]): Promise<IngestResponse> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
  return IngestResponse.parse(res.json());
}

const row = async (table: string, id: string) =>
  server.db.all<Record<string, unknown>>(
    `SELECT user_id, epoch_ms(ts) AS ts, * EXCLUDE (user_id, ts) FROM ${table} WHERE org_id = $org AND id = $id`,
    {
      org: org.orgId,
      id,
    },
  );

beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
});
afterAll(async () => server.close());

describe('a record id another user of the organization holds', () => {
  it('cannot be taken over by an earlier copy nor inflated by larger counts: rejected by index, stored row unchanged', async () => {
    const owner = org.users.owner;
    const member = org.users.member;
    const first = await send(owner.key, [usage('cc:msg_1:req_1', T, 100), event('m1.ev-1', T), message('cc-msg:msg_1', T)]);
    expect(first).toMatchObject({ received: 3, stored: 3, rejected: [] });

    // The attacker's own new record in the same batch is stored; the three copies of the owner's ids are
    // refused, the repeated usage copy included (each index names a spool file to quarantine).
    const attack = await send(member.key, [
      event('m2.ev-own', T),
      usage('cc:msg_own:req_own', T, 5, 's-mine'),
      usage('cc:msg_1:req_1', T - 3_600_000, 6_000_000_000),
      event('m1.ev-1', T - 3_600_000),
      message('cc-msg:msg_1', T - 3_600_000),
      usage('cc:msg_1:req_1', T - 7_200_000, 9_000_000_000),
    ]);
    expect(attack.received).toBe(6);
    expect(attack.stored).toBe(2);
    expect(attack.duplicates).toBe(0);
    expect(attack.rejected.map((r) => r.index)).toEqual([2, 3, 4, 5]);
    expect(attack.rejected.map((r) => r.id)).toEqual(['cc:msg_1:req_1', 'm1.ev-1', 'cc-msg:msg_1', 'cc:msg_1:req_1']);
    for (const r of attack.rejected) expect(r.reason).toMatch(/another user/);

    expect(await row('usage', 'cc:msg_1:req_1')).toEqual([
      expect.objectContaining({ user_id: owner.id, ts: T, output_tokens: 100, session_id: 's-victim' }),
    ]);
    expect(await row('events', 'm1.ev-1')).toEqual([expect.objectContaining({ user_id: owner.id, ts: T })]);
    expect(await row('assistant_messages', 'cc-msg:msg_1')).toEqual([expect.objectContaining({ user_id: owner.id, ts: T })]);
    expect(await row('usage', 'cc:msg_own:req_own')).toEqual([expect.objectContaining({ user_id: member.id })]);
    expect(await row('events', 'm2.ev-own')).toEqual([expect.objectContaining({ user_id: member.id })]);
  });

  it('is refused the same way in a large JSON array body, decoded on a worker rather than on the event loop', async () => {
    const owner = org.users.owner;
    await send(owner.key, [usage('cc:msg_3:req_3', T, 100)]);
    // Over the on-loop size (32 KiB as sent), plain JSON: the worker path, then the careful store path.
    const padding = Array.from({ length: 300 }, (_, i) => event(`m2.pad-${i}`, T));
    const records = [...padding, usage('cc:msg_3:req_3', T - 3_600_000, 9_000_000_000)];
    const body = JSON.stringify(records);
    expect(body.length).toBeGreaterThan(32 * 1024);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(org.users.member.key), 'content-type': 'application/json' },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = IngestResponse.parse(res.json());
    expect(answer).toMatchObject({ received: 301, stored: 300 });
    expect(answer.rejected.map((r) => [r.index, r.id])).toEqual([[300, 'cc:msg_3:req_3']]);
    expect(await row('usage', 'cc:msg_3:req_3')).toEqual([expect.objectContaining({ user_id: owner.id, output_tokens: 100 })]);
  });

  it("the same user's copies still combine into one record (a continued session, docs/metrics.md §1)", async () => {
    const owner = org.users.owner;
    await send(owner.key, [usage('cc:msg_2:req_2', T, 100)]);
    const again = await send(owner.key, [usage('cc:msg_2:req_2', T - 60_000, 150, 's-continued'), message('cc-msg:msg_2', T)]);
    expect(again).toMatchObject({ received: 2, stored: 2, rejected: [] });
    const rows = await row('usage', 'cc:msg_2:req_2');
    expect(rows).toEqual([expect.objectContaining({ user_id: owner.id, ts: T - 60_000, output_tokens: 150, session_id: 's-continued' })]);
    // Delivered again as is (a lost acknowledgement): a duplicate, not a rejection.
    const repeat = await send(owner.key, [usage('cc:msg_2:req_2', T - 60_000, 150, 's-continued')]);
    expect(repeat).toMatchObject({ received: 1, stored: 0, duplicates: 1, rejected: [] });
  });

  it('a copy from another organization is its own record', async () => {
    const other = await server.seedOrg('Other');
    const answer = await send(other.users.member.key, [usage('cc:msg_1:req_1', T - 3_600_000, 7)]);
    expect(answer).toMatchObject({ stored: 1, rejected: [] });
    expect(await row('usage', 'cc:msg_1:req_1')).toEqual([expect.objectContaining({ user_id: org.users.owner.id, output_tokens: 100 })]);
  });
});

describe('the collector of the user whose copy is refused', () => {
  it('quarantines it with the reason, like any record the server rejects', async () => {
    const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const log = createLogger({ name: 'test-collector', level: 'silent' });
    const victim = join(tempDir(), '.agentmeter');
    const attacker = join(tempDir(), '.agentmeter');
    // The attacker's machine takes the victim's machine id and spool file name: the same event id.
    const name = writeSpoolFile(
      victim,
      {
        session_id: 's9',
        cwd: '/w',
        hook_event_name: 'PostToolUse',
        tool_name: 'Read',
        tool_input: { file_path: '/w/a.ts' },
        tool_response: {},
      },
      {},
      T,
    );
    mkdirSync(join(attacker, 'spool', 'new'), { recursive: true });
    writeFileSync(join(attacker, 'machine-id'), `${machineId(victim)}\n`, { mode: 0o600 });
    copyFileSync(join(victim, 'spool', 'new', name), join(attacker, 'spool', 'new', name));

    const drain = async (agentmeterHome: string, apiKey: string) => {
      const collector = new Collector({ server: url, apiKey, agentmeterHome, home: tempDir(), log, batchSize: 10, maxAttempts: 1 });
      try {
        return await collector.drain();
      } finally {
        await collector.close();
      }
    };
    expect(await drain(victim, org.users.manager.key)).toMatchObject({ shipped: 1, quarantined: 0 });
    expect(await drain(attacker, org.users.guest.key)).toMatchObject({ shipped: 0, quarantined: 1 });
    const bad = readdirSync(join(attacker, 'spool', 'bad'));
    expect(bad).toContain(name);
    const reason = bad.find((f) => f.startsWith(name) && f.endsWith('.reason'))!;
    expect(readFileSync(join(attacker, 'spool', 'bad', reason), 'utf8')).toMatch(/another user of the organization/);
    const [stored] = await server.db.all<{ user_id: string }>('SELECT user_id FROM events WHERE org_id = $org AND id = $id', {
      org: org.orgId,
      id: `${machineId(victim)}.${name}`,
    });
    expect(stored?.user_id).toBe(org.users.manager.id);
  });
});
