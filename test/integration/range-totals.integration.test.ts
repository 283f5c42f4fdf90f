// The range in one (meta.totals, an agentmeter extension) on the answers the dashboard reads, worked by hand
// over two days through the real ingest store and batch: the figures the dashboard used to compute
// itself (sums, the autonomy mean of active days, the acceptance rate, each person's range), now the server's.
//
// Day 1 (03-02): member (Claude Code) 2 turns, 3 calls (Read, Edit, Bash commit), sonnet 1000 in + 100 out
//   (1.2 × 1100 = 1320 credits), 3 accepted and 1 rejected edits; manager (Droid) 1 turn, 1 call.
// Day 2 (03-03): member 1 turn, 1 call, sonnet 200 + 20 (264 credits); nothing decided.
// Day 3 (03-04): quiet.
//   tool calls 3 + 1 + 1 = 5; sessions: m1, d1 (day 1), m2 (day 2) = 3
//   autonomy_ratio_avg: day 1 mean of member 3/2 = 1.5 and manager 1/1 = 1 → 1.25; day 2 1/1 = 1; the
//   range's mean over the days with a call (not the quiet one): (1.25 + 1) / 2 = 1.125
//   acceptance: 3 / (3 + 1) = 0.75; Droid used, no decision: not reported (null)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { call, turn, usage } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-10T12:00:00Z');
const RANGE = 'startDate=2026-03-02&endDate=2026-03-04';
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;

const get = async (url: string, key = acme.users.manager.key) => {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  server = await testServer({ now: () => NOW, decodeWorkers: 0 });
  acme = await server.seedOrg('Acme');
  const store = (who: 'member' | 'manager', records: WireRecord[]) =>
    server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users[who].id as UserId, records);
  await store('member', [
    turn('2026-03-02', { session_id: 'm1' }),
    turn('2026-03-02', { session_id: 'm1' }),
    call('Read', '2026-03-02', { session_id: 'm1' }),
    call('Edit', '2026-03-02', { session_id: 'm1', files: [{ ext: 'ts', op: 'edit' }] }),
    call('Bash', '2026-03-02', { session_id: 'm1', is_shell: true, git_commit: true }),
    usage('claude-sonnet-4-5', '2026-03-02', { input_tokens: 1000, output_tokens: 100 }, false, 'm1'),
    {
      kind: 'decision',
      id: 'otel.0',
      agent: 'claude',
      session_id: 'm1',
      ts: Date.parse('2026-03-02T10:00:00Z'),
      decision: 'accept',
      count: 3,
      tool_name: 'Edit',
      language: 'TypeScript',
    },
    {
      kind: 'decision',
      id: 'otel.1',
      agent: 'claude',
      session_id: 'm1',
      ts: Date.parse('2026-03-02T10:00:00Z'),
      decision: 'reject',
      count: 1,
      tool_name: 'Edit',
    },
    turn('2026-03-03', { session_id: 'm2' }),
    call('Read', '2026-03-03', { session_id: 'm2' }),
    usage('claude-sonnet-4-5', '2026-03-03', { input_tokens: 200, output_tokens: 20 }, false, 'm2'),
  ] as WireRecord[]);
  await store('manager', [
    turn('2026-03-02', { session_id: 'd1', agent: 'droid' }),
    call('Read', '2026-03-02', { session_id: 'd1', agent: 'droid' }),
  ]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 't', level: 'silent' }), now: NOW, from: '2026-03-01' });
});
afterAll(() => server.close());

describe('meta.totals: the range in one, on the answers the dashboard reads', () => {
  it('/tokens: the credits of the range (1320 + 264), ungrouped and by model and agent, with each group', async () => {
    for (const group of ['', '&group_by=model', '&group_by=agent'])
      expect((await get(`/api/v1/analytics/tokens?${RANGE}${group}`)).meta.totals.billable_tokens, group).toBe(1584);
    const byAgent = await get(`/api/v1/analytics/tokens?${RANGE}&group_by=agent`);
    expect(byAgent.meta.group_totals.map((g: { group_key: string; billable_tokens: number }) => [g.group_key, g.billable_tokens])).toEqual([
      ['claude', 1584],
    ]);
    // Sonnet at list price ($3 / $15 per million): 1000 × 3 + 100 × 15 = $0.0045, 200 × 3 + 20 × 15 = $0.0009.
    expect(byAgent.meta.totals.cost_usd).toBe(0.0054);
  });

  it('/tools: 5 calls, and the autonomy mean of the days with a call: (1.25 + 1) / 2 = 1.125', async () => {
    const { data, meta } = await get(`/api/v1/analytics/tools?${RANGE}`);
    expect(data.map((d: { autonomy_ratio_avg: number }) => d.autonomy_ratio_avg)).toEqual([1.25, 1, 0]);
    expect(meta.totals).toMatchObject({ tool_calls: 5, autonomy_ratio_avg: 1.125 });
    expect(meta.totals.by_tool).toEqual([
      { tool: 'Read', invocations: 3 },
      { tool: 'Bash', invocations: 1 },
      { tool: 'Edit', invocations: 1 },
    ]);
  });

  it('/activity: 3 sessions; /productivity: 1 commit, 1 file edited, 3 of 4 edits accepted', async () => {
    expect((await get(`/api/v1/analytics/activity?${RANGE}`)).meta.totals).toMatchObject({ sessions: 3 });
    expect((await get(`/api/v1/analytics/productivity?${RANGE}`)).meta.totals).toMatchObject({
      git_commits: 1,
      files_edited: 1,
      edits_accepted: 3,
      edits_rejected: 1,
      edit_acceptance_rate: 0.75,
      by_extension: [{ extension: 'ts', count: 1 }],
    });
  });

  it('/productivity?group_by=agent: each agent used, Droid without a decision not reported (null)', async () => {
    expect((await get(`/api/v1/analytics/productivity?${RANGE}&group_by=agent`)).meta.by_agent).toEqual([
      { agent: 'claude', edits_accepted: 3, edits_rejected: 1, edit_acceptance_rate: 0.75 },
      { agent: 'droid', edits_accepted: 0, edits_rejected: 0, edit_acceptance_rate: null },
    ]);
  });

  it("/users and a person's usage: each person's range, the same in both", async () => {
    const people = (await get(`/api/v1/analytics/users?${RANGE}`)).meta.people;
    const member = people.find((p: { user_id: string }) => p.user_id === acme.users.member.id);
    expect(member).toMatchObject({
      active_days: 2,
      billable_tokens: 1584,
      tool_calls: 4,
      sessions: 2,
      git_commits: 1,
      primary_model: 'claude-sonnet-4-5',
    });
    const own = await get(`/api/v0/usage/users/me?${RANGE}`, acme.users.member.key);
    expect({ user_id: own.meta.user_id, user_email: own.meta.user_email, ...own.meta.totals }).toEqual(member);
  });

  it('grouped answers: each group over the range (meta.group_totals)', async () => {
    // Claude Code: 3 + 1 calls, Droid 1; daily active users: Claude Code 1 on each day (peak 1), Droid 1.
    expect((await get(`/api/v1/analytics/tools?${RANGE}&group_by=agent`)).meta.group_totals).toEqual([
      { group_key: 'claude', tool_calls: 4 },
      { group_key: 'droid', tool_calls: 1 },
    ]);
    expect((await get(`/api/v1/analytics/activity?${RANGE}&group_by=agent`)).meta.group_totals).toEqual([
      { group_key: 'claude', peak_daily_active_users: 1 },
      { group_key: 'droid', peak_daily_active_users: 1 },
    ]);
  });
});
