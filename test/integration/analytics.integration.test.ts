// Fixture tests of the metric contract (docs/metrics.md), one organization per metric family, through the real
// ingest store, the real batch and the HTTP API. Every expected number is worked out by hand in the
// comments next to it.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { call, ev, failedCall, message, turn, usage, type WireRecord } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z'); // "today": the latest queryable day is 2026-03-19
const log = createLogger({ name: 'test', level: 'silent' });
let server: TestServer;

async function org(name: string, users: string[]) {
  const o = await server.seedOrg(name);
  const extra: Record<string, UserId> = {};
  for (const u of users)
    extra[u] = (
      await server.services.accounts.createUser({ orgId: o.orgId as OrgId, email: `${u}@${name}.example.com`, role: 'member' })
    ).id;
  return { ...o, u: extra, manager: o.users.manager.key };
}
const ingest = (orgId: string, userId: string, records: WireRecord[]) =>
  server.services.ingest.storeRecords(orgId as OrgId, userId as UserId, records);
const batch = () => server.services.runBatch({ trigger: 'cli', log, now: NOW });
async function get(key: string, path: string) {
  const res = await server.app.inject({ method: 'GET', url: path, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[]; meta: Record<string, unknown> };
}

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
});
afterAll(() => server.close());

describe('tools family (2026-03-02)', () => {
  const D = '2026-03-02';
  let o: Awaited<ReturnType<typeof org>>;
  const ours = { event: 'UserPromptSubmit', matcher: '', command: "'/h/.agentmeter/bin/agentmeter-hook.sh' claude" };
  beforeAll(async () => {
    o = await org('tools', ['a', 'b', 'c']);
    // A: 2 turns (one /review), 5 calls: Bash auto-high, Read auto-high, Edit failed auto-medium,
    // GitHub get_issue auto-low, github list spec (counts as manual in shares). A PreToolUse is no call.
    await ingest(o.orgId, o.u['a']!, [
      turn(D, { session_id: 'a1', slash_command: 'review', hooks: [ours] }),
      turn(D, { session_id: 'a1', hooks: [ours] }),
      ev('PreToolUse', D, { session_id: 'a1', tool_name: 'Bash', autonomy: 'auto-high' }),
      call('Bash', D, {
        session_id: 'a1',
        autonomy: 'auto-high',
        is_shell: true,
        hooks: [
          { event: 'PostToolUse', matcher: '*', command: ours.command },
          { event: 'PostToolUse', matcher: 'Bash', command: 'lint.sh' },
        ],
      }),
      call('Read', D, { session_id: 'a1', autonomy: 'auto-high' }),
      failedCall('Edit', D, { session_id: 'a1', autonomy: 'auto-medium' }),
      call('mcp__GitHub__get_issue', D, { session_id: 'a1', autonomy: 'auto-low' }),
      call('mcp__github__list', D, { session_id: 'a1', autonomy: 'spec' }),
    ]);
    // B: 1 turn, 3 calls, all manual but one: Skill pdf, GITHUB, and a parsing artifact (auto-high).
    await ingest(o.orgId, o.u['b']!, [
      turn(D, { session_id: 'b1' }),
      call('Skill', D, { session_id: 'b1', skill: 'pdf' }),
      call('mcp__GITHUB__x', D, { session_id: 'b1' }),
      call('bad tool!', D, { session_id: 'b1', autonomy: 'auto-high' }),
    ]);
    // C: on the web client, one call and no turn (so no autonomy ratio).
    await ingest(o.orgId, o.u['c']!, [call('Read', D, { session_id: 'c1', client: 'web' })]);
    await batch();
  });

  it('counts calls, tools, MCP servers (case-folded), skills, slash commands, hooks and web users', async () => {
    const { data, meta } = await get(o.manager, `/api/v1/analytics/tools?startDate=${D}&endDate=${D}`);
    const { totals, ...envelope } = meta;
    expect(envelope).toEqual({ org_id: o.orgId, start_date: D, end_date: D });
    // The range in one (meta.totals): a range of one day is that day.
    expect(totals).toMatchObject({ tool_calls: 9, by_tool: data[0]!['by_tool'], autonomy_ratio_avg: data[0]!['autonomy_ratio_avg'] });
    const day = data[0]!;
    expect(day['tool_calls']).toBe(9); // 5 + 3 + 1
    expect(day['by_tool']).toEqual([
      { tool: 'Read', invocations: 2 },
      { tool: 'Bash', invocations: 1 },
      { tool: 'Edit', invocations: 1 },
      { tool: 'Skill', invocations: 1 },
      { tool: 'mcp__GITHUB__x', invocations: 1 },
      { tool: 'mcp__GitHub__get_issue', invocations: 1 },
      { tool: 'mcp__github__list', invocations: 1 },
      { tool: 'unknown', invocations: 1 },
    ]);
    expect(day['mcp_by_server']).toEqual([{ server: 'github', invocations: 3 }]);
    expect(day['mcp_users_with_mcp']).toBe(2); // A and B
    expect(day['skills_invocations']).toBe(1);
    expect(day['skills_by_name']).toEqual([{ name: 'pdf', count: 1 }]);
    expect(day['slash_commands_invocations']).toBe(1);
    expect(day['slash_commands_by_name']).toEqual([{ name: 'review', count: 1 }]);
    expect(day['hooks_invocations']).toBe(4); // 2 on the turns, 2 on the Bash call
    expect(day['hooks_by_event']).toEqual([
      { ...ours, count: 2 },
      { event: 'PostToolUse', matcher: '*', command: ours.command, count: 1 },
      { event: 'PostToolUse', matcher: 'Bash', command: 'lint.sh', count: 1 },
    ]);
    expect(day['web_users']).toBe(1);
  });

  it('autonomy: ratios over users with a turn, per-session averages, level shares summing to 1', async () => {
    const day = (await get(o.manager, `/api/v1/analytics/tools?startDate=${D}&endDate=${D}`)).data[0]!;
    // A: 5 calls / 2 turns = 2.5; B: 3 / 1 = 3; C has no turn.
    expect(day['autonomy_ratio_avg']).toBeCloseTo(2.75, 10);
    expect(day['autonomy_ratio_p50']).toBeCloseTo(2.75, 10);
    expect(day['autonomy_ratio_p90']).toBeCloseTo(2.95, 10); // 2.5 + 0.9 × (3 − 2.5)
    // 9 calls and 3 turns over 3 sessions with events (a1, b1, c1).
    expect(day['tool_calls_per_session_avg']).toBe(3);
    expect(day['user_turns_per_session_avg']).toBe(1);
    // auto-high: Bash, Read, artifact = 3; auto-medium: Edit = 1; auto-low: get_issue = 1;
    // manual: spec list + Skill + GITHUB + C's Read = 4.
    const shares = day['tool_autonomy_level_ratio'] as Record<string, number>;
    expect(shares['auto_high']).toBeCloseTo(3 / 9, 12);
    expect(shares['auto_medium']).toBeCloseTo(1 / 9, 12);
    expect(shares['auto_low']).toBeCloseTo(1 / 9, 12);
    expect(shares['manual']).toBeCloseTo(4 / 9, 12);
    expect(Object.values(shares).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('grouped by tool_name: only non-zero groups, ordered by date then group_key', async () => {
    const { data } = await get(o.manager, `/api/v1/analytics/tools?startDate=2026-03-01&endDate=${D}&group_by=tool_name`);
    expect(data.map((r) => [r['date'], r['group_key'], r['tool_calls']])).toEqual([
      [D, 'Bash', 1],
      [D, 'Edit', 1],
      [D, 'Read', 2],
      [D, 'Skill', 1],
      [D, 'mcp__GITHUB__x', 1],
      [D, 'mcp__GitHub__get_issue', 1],
      [D, 'mcp__github__list', 1],
      [D, 'unknown', 1],
    ]);
  });

  it('per user: delegation level (ties to the more autonomous), autonomy ratio, no ratio without a turn', async () => {
    const { data } = await get(o.manager, `/api/v1/analytics/users?startDate=${D}&endDate=${D}&limit=100`);
    const byUser = Object.fromEntries(data.map((r) => [r['user_id'], r]));
    // A: auto-high 2, auto-medium 1, auto-low 1, spec 1 → auto-high.
    expect(byUser[o.u['a']!]).toMatchObject({
      tool_calls: 5,
      user_messages: 2,
      autonomy_ratio: 2.5,
      delegation_level: 'auto-high',
      mcp_calls: 2,
      slash_commands: 1,
      hooks: 4,
    });
    // B: manual 2, auto-high 1 → manual.
    expect(byUser[o.u['b']!]).toMatchObject({ tool_calls: 3, autonomy_ratio: 3, delegation_level: 'manual', skill_calls: 1, mcp_calls: 1 });
    expect(byUser[o.u['c']!]).toMatchObject({ tool_calls: 1, autonomy_ratio: null, delegation_level: 'manual' });
  });
});

describe('delegation tie-break', () => {
  it('one auto-low and one auto-medium call → auto-medium', async () => {
    const o = await org('ties', ['t']);
    await ingest(o.orgId, o.u['t']!, [
      call('Read', '2026-03-05', { autonomy: 'auto-low' }),
      call('Read', '2026-03-05', { autonomy: 'auto-medium' }),
    ]);
    await batch();
    const { data } = await get(o.manager, '/api/v1/analytics/users?startDate=2026-03-05&endDate=2026-03-05');
    expect(data[0]).toMatchObject({ delegation_level: 'auto-medium', autonomy_ratio: null });
  });
});

describe('tokens family (2026-03-03)', () => {
  const D = '2026-03-03';
  let o: Awaited<ReturnType<typeof org>>;
  beforeAll(async () => {
    o = await org('tokens', ['a', 'b', 'c']);
    // A: sonnet 1.2 × (1000 + 200 + 3000/10 + 100) = 1920, with thinking; opus 2 × (10 + 5) = 30.
    // A streamed message delivered twice (same id, larger output second): counted once, the larger.
    const streamed = usage(
      'claude-sonnet-4-5',
      D,
      { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 3000, cache_write_tokens: 100 },
      true,
    );
    await ingest(o.orgId, o.u['a']!, [ev('Stop', D), streamed, usage('claude-opus-4-1', D, { input_tokens: 10, output_tokens: 5 })]);
    await ingest(o.orgId, o.u['a']!, [{ ...streamed, output_tokens: 200, thinking: false }]);
    // B and C: sonnet 1.2 × (1 + 5/10) = 1.8 each. C also: an unpriced model at 1 × (7 + 3) = 10.
    await ingest(o.orgId, o.u['b']!, [ev('Stop', D), usage('claude-sonnet-4-5', D, { input_tokens: 1, cache_read_tokens: 5 })]);
    await ingest(o.orgId, o.u['c']!, [
      ev('Stop', D),
      usage('claude-sonnet-4-5', D, { input_tokens: 1, cache_read_tokens: 5 }),
      usage('mystery-1', D, { input_tokens: 7, output_tokens: 3 }),
    ]);
  });

  it('billable per day and model, rounded; users share it by largest remainder; unpriced models reported', async () => {
    const report = await batch();
    expect(report.unpricedModels).toEqual(['mystery-1']);
    const day = (await get(o.manager, `/api/v1/analytics/tokens?startDate=${D}&endDate=${D}`)).data[0]!;
    // sonnet: 1920 + 1.8 + 1.8 = 1923.6 → 1924; opus 30; mystery 10.
    expect(day).toMatchObject({
      billable_tokens: 1964,
      input_tokens: 1019,
      output_tokens: 208,
      cache_read_tokens: 3010,
      cache_write_tokens: 100,
    });
    // Dollars at list price (docs/metrics.md §8): sonnet A 1000 × 3 + 200 × 15 + 3000 × 0.30 + 100 × 3.75 per
    // million = $0.007275, B and C 1 × 3 + 5 × 0.30 = $0.0000045 each: $0.007284 → 0.0073; opus 4.1 10 × 15 +
    // 5 × 75 = $0.000525 → 0.0005; mystery-1 has no price: null, and named.
    expect(day['cost_usd']).toBe(0.0078);
    expect(day['by_model']).toEqual([
      {
        model_id: 'claude-sonnet-4-5',
        model_tier: 'thinking',
        billable_tokens: 1924,
        input_tokens: 1002,
        output_tokens: 200,
        cost_usd: 0.0073,
      },
      { model_id: 'claude-opus-4-1', model_tier: 'standard', billable_tokens: 30, input_tokens: 10, output_tokens: 5, cost_usd: 0.0005 },
      { model_id: 'mystery-1', model_tier: 'standard', billable_tokens: 10, input_tokens: 7, output_tokens: 3, cost_usd: null },
    ]);
    // Floors 1920 + 1 + 1 = 1922; two more units go to B and C (remainders .8 beat A's ~0).
    const users = day['by_user'] as {
      user_id: string;
      billable_tokens: number;
      by_model: { model_id: string; billable_tokens: number }[];
    }[];
    expect(users.map((u) => [u.user_id, u.billable_tokens])).toEqual([
      [o.u['a']!, 1950],
      [o.u['c']!, 12],
      [o.u['b']!, 2],
    ]);
    expect(users.find((u) => u.user_id === o.u['c'])!.by_model).toEqual([
      { model_id: 'mystery-1', model_tier: 'standard', billable_tokens: 10, input_tokens: 7, output_tokens: 3, cost_usd: null },
      { model_id: 'claude-sonnet-4-5', model_tier: 'standard', billable_tokens: 2, input_tokens: 1, output_tokens: 0, cost_usd: 0 },
    ]);
  });

  it('per user: primary model by billable tokens, with its tier', async () => {
    const { data } = await get(o.manager, `/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    const byUser = Object.fromEntries(data.map((r) => [r['user_id'], r]));
    expect(byUser[o.u['a']!]).toMatchObject({ billable_tokens: 1950, primary_model: 'claude-sonnet-4-5', primary_model_tier: 'thinking' });
    expect(byUser[o.u['c']!]).toMatchObject({ billable_tokens: 12, primary_model: 'mystery-1', primary_model_tier: 'standard' });
  });

  it('grouped by model', async () => {
    const { data } = await get(o.manager, `/api/v1/analytics/tokens?startDate=${D}&endDate=${D}&group_by=model`);
    expect(data).toEqual([
      { date: D, group_key: 'claude-opus-4-1', billable_tokens: 30, input_tokens: 10, output_tokens: 5, cost_usd: 0.0005 },
      { date: D, group_key: 'claude-sonnet-4-5', billable_tokens: 1924, input_tokens: 1002, output_tokens: 200, cost_usd: 0.0073 },
      { date: D, group_key: 'mystery-1', billable_tokens: 10, input_tokens: 7, output_tokens: 3, cost_usd: null },
    ]);
  });

  it('primary model: equal billable totals go to the alphabetically first model', async () => {
    const t = await org('primary-tie', ['p']);
    // opus 2 × 50 = 100 and haiku 0.4 × 250 = 100: a tie, and haiku comes first.
    await ingest(t.orgId, t.u['p']!, [
      usage('claude-opus-4-1', '2026-03-04', { input_tokens: 50 }),
      usage('claude-haiku-4-5', '2026-03-04', { input_tokens: 250 }, true),
    ]);
    await batch();
    const { data } = await get(t.manager, '/api/v1/analytics/users?startDate=2026-03-04&endDate=2026-03-04');
    expect(data[0]).toMatchObject({ billable_tokens: 200, primary_model: 'claude-haiku-4-5', primary_model_tier: 'thinking' });
  });

  it('equal remainders go to the smaller user id', async () => {
    const t = await org('remainders', ['x', 'y', 'z']);
    // haiku 0.4 × (3 + 5/10) = 1.4 each; 4.2 → 4; floors 3; the one extra unit goes to the smallest id.
    for (const u of ['x', 'y', 'z'])
      await ingest(t.orgId, t.u[u]!, [usage('claude-haiku-4-5', '2026-03-04', { input_tokens: 3, cache_read_tokens: 5 })]);
    await batch();
    const day = (await get(t.manager, '/api/v1/analytics/tokens?startDate=2026-03-04&endDate=2026-03-04')).data[0]!;
    expect(day['billable_tokens']).toBe(4);
    const smallest = [t.u['x']!, t.u['y']!, t.u['z']!].sort()[0]!;
    const users = day['by_user'] as { user_id: string; billable_tokens: number }[];
    expect(users[0]).toEqual(expect.objectContaining({ user_id: smallest, billable_tokens: 2 }));
    expect(users.slice(1).map((u) => u.billable_tokens)).toEqual([1, 1]);
  });
});

describe('activity family: rolling windows across a month boundary, late events, duplicates', () => {
  let o: Awaited<ReturnType<typeof org>>;
  const first: WireRecord[] = [];
  beforeAll(async () => {
    o = await org('activity', ['p', 'q', 'r']);
    // P: session p1 starts 2026-02-26 and goes on 2026-03-02 (counted once, on 02-26).
    await ingest(o.orgId, o.u['p']!, [
      ev('SessionStart', '2026-02-26', { session_id: 'p1' }),
      ev('Stop', '2026-03-02', { session_id: 'p1' }),
    ]);
    // Q: active on 2026-02-01 only (03-02 minus 29 days: inside 03-02's monthly window).
    await ingest(o.orgId, o.u['q']!, [ev('SessionStart', '2026-02-01', { session_id: 'q1' })]);
    // R: 2026-03-02 on two clients; 2 turns and 3 assistant messages.
    first.push(
      turn('2026-03-02', { session_id: 'r1' }),
      turn('2026-03-02', { session_id: 'r1', client: 'non-interactive-cli' }),
      message('2026-03-02', 'r1'),
      message('2026-03-02', 'r1'),
      message('2026-03-02', 'r1'),
    );
    await ingest(o.orgId, o.u['r']!, first);
    await batch();
  });

  it('DAU, WAU (D-6..D) and MAU (D-29..D); a user on two clients counts once in DAU, once per client', async () => {
    const { data } = await get(o.manager, '/api/v1/analytics/activity?startDate=2026-02-28&endDate=2026-03-03');
    const pick = (r: Record<string, unknown>) => [r['date'], r['daily_active_users'], r['weekly_active_users'], r['monthly_active_users']];
    expect(data.map(pick)).toEqual([
      ['2026-02-28', 0, 1, 2], // WAU 02-22..02-28: P; MAU 01-30..02-28: P, Q
      ['2026-03-01', 0, 1, 2], // MAU 01-31..03-01: P, Q
      ['2026-03-02', 2, 2, 3], // DAU P, R; WAU 02-24..03-02: P, R; MAU 02-01..03-02: P, Q, R
      ['2026-03-03', 0, 2, 2], // MAU 02-02..03-03: P, R (Q has left the window)
    ]);
    expect(data[2]).toMatchObject({
      daily_active_users_by_client: { 'terminal-ui': 2, web: 0, 'non-interactive-cli': 1 },
      sessions: 1,
      user_messages: 2,
      messages: 5,
    });
    expect(data[0]).toMatchObject({
      daily_active_users_by_client: { 'terminal-ui': 0, web: 0, 'non-interactive-cli': 0 },
      sessions: 0,
      messages: 0,
    });
    const grouped = await get(o.manager, '/api/v1/analytics/activity?startDate=2026-03-01&endDate=2026-03-02&group_by=client');
    expect(grouped.data).toEqual([
      { date: '2026-03-02', group_key: 'non-interactive-cli', daily_active_users: 1 },
      { date: '2026-03-02', group_key: 'terminal-ui', daily_active_users: 2 },
    ]);
  });

  it('a duplicate delivery changes nothing; a late event folds into its day and the windows after it', async () => {
    await ingest(o.orgId, o.u['r']!, first);
    // Q's laptop was offline: an event of 2026-02-27 arrives now.
    await ingest(o.orgId, o.u['q']!, [ev('Stop', '2026-02-27', { session_id: 'q2' })]);
    const report = await batch();
    expect(report.firstDay).toBe('2026-02-27');
    const { data } = await get(o.manager, '/api/v1/analytics/activity?startDate=2026-02-27&endDate=2026-03-02');
    expect(data.map((r) => [r['date'], r['daily_active_users'], r['weekly_active_users'], r['monthly_active_users']])).toEqual([
      ['2026-02-27', 1, 2, 2],
      ['2026-02-28', 0, 2, 2],
      ['2026-03-01', 0, 2, 2],
      ['2026-03-02', 2, 3, 3], // WAU now P, Q, R
    ]);
    expect(data[3]).toMatchObject({ user_messages: 2, messages: 5 });
    // q2's first event is on 02-27: one session there.
    expect(data[0]!['sessions']).toBe(1);
  });
});

describe('productivity family (2026-03-06)', () => {
  it('files created and edited by successful calls, by extension and language; commits and PRs', async () => {
    const o = await org('productivity', ['d']);
    const D = '2026-03-06';
    await ingest(o.orgId, o.u['d']!, [
      call('Write', D, { files: [{ ext: 'ts', op: 'create' }] }),
      call('Edit', D, { files: [{ ext: 'py', op: 'edit' }] }),
      call('ApplyPatch', D, {
        files: [
          { ext: 'py', op: 'edit' },
          { ext: 'rs', op: 'edit' },
        ],
      }),
      call('Create', D, { files: [{ ext: '', name: 'Makefile', op: 'create' }] }),
      failedCall('Write', D, { files: [{ ext: 'go', op: 'create' }] }),
      call('Bash', D, { is_shell: true, git_commit: true }),
      failedCall('Bash', D, { is_shell: true, git_commit: true }),
      call('Bash', D, { is_shell: true, pr_created: true }),
      call('mcp__github__create_pull_request', D, { pr_created: true }),
    ]);
    await batch();
    const { data } = await get(o.manager, `/api/v1/analytics/productivity?startDate=${D}&endDate=2026-03-07`);
    expect(data).toEqual([
      {
        date: D,
        files_created: 2,
        files_edited: 3,
        by_extension: [
          { extension: 'py', count: 2 },
          { extension: 'rs', count: 1 },
          { extension: 'ts', count: 1 },
        ],
        by_language: [
          { language: 'Python', count: 2 },
          { language: 'Makefile', count: 1 },
          { language: 'Rust', count: 1 },
          { language: 'TypeScript', count: 1 },
        ],
        git_commits: 1,
        git_prs_created: 2,
        // No agent reported an edit decision (docs/metrics.md §11): none, and no rate.
        edits_accepted: 0,
        edits_rejected: 0,
        edit_acceptance_rate: null,
      },
      {
        date: '2026-03-07',
        files_created: 0,
        files_edited: 0,
        by_extension: [],
        by_language: [],
        git_commits: 0,
        git_prs_created: 0,
        edits_accepted: 0,
        edits_rejected: 0,
        edit_acceptance_rate: null,
      },
    ]);
    const users = await get(o.manager, `/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    expect(users.data[0]).toMatchObject({
      files_created: 2,
      files_edited: 3,
      git_commits: 1,
      git_prs_created: 2,
      languages: ['Makefile', 'Python', 'Rust', 'TypeScript'],
    });
  });
});

describe('envelope', () => {
  it('exactly one row per day, zeros on quiet days, for every ungrouped endpoint', async () => {
    const o = await org('quiet', []);
    for (const endpoint of ['tokens', 'tools', 'activity', 'productivity']) {
      const { data } = await get(o.manager, `/api/v1/analytics/${endpoint}?startDate=2026-03-01&endDate=2026-03-10`);
      expect(data.map((r) => r['date'])).toEqual(Array.from({ length: 10 }, (_, i) => `2026-03-${String(i + 1).padStart(2, '0')}`));
    }
    const tools = await get(o.manager, '/api/v1/analytics/tools?startDate=2026-03-01&endDate=2026-03-01');
    expect(tools.data[0]).toEqual({
      date: '2026-03-01',
      tool_calls: 0,
      by_tool: [],
      mcp_users_with_mcp: 0,
      mcp_by_server: [],
      skills_invocations: 0,
      skills_by_name: [],
      slash_commands_invocations: 0,
      slash_commands_by_name: [],
      hooks_invocations: 0,
      hooks_by_event: [],
      web_users: 0,
      autonomy_ratio_avg: 0,
      autonomy_ratio_p50: 0,
      autonomy_ratio_p90: 0,
      tool_calls_per_session_avg: 0,
      user_turns_per_session_avg: 0,
      tool_autonomy_level_ratio: { auto_high: 0, auto_medium: 0, auto_low: 0, manual: 0 },
    });
    const users = await get(o.manager, '/api/v1/analytics/users?startDate=2026-03-01&endDate=2026-03-10');
    expect(users).toEqual({
      data: [],
      meta: { org_id: o.orgId, start_date: '2026-03-01', end_date: '2026-03-10', has_more: false, next_cursor: null, people: [] },
    });
  });

  it('/users pages by user: limit users per page in id order, day rows in date order, cursor walks to the end', async () => {
    const o = await org('pages', ['u1', 'u2', 'u3', 'u4', 'u5']);
    for (const [i, u] of ['u1', 'u2', 'u3', 'u4', 'u5'].entries()) {
      await ingest(o.orgId, o.u[u]!, [ev('Stop', '2026-03-08'), ...(i % 2 ? [ev('Stop', '2026-03-09')] : [])]);
    }
    await batch();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(
        o.manager,
        `/api/v1/analytics/users?startDate=2026-03-08&endDate=2026-03-09&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      pages++;
      const ids = [...new Set(page.data.map((r) => r['user_id'] as string))];
      expect(ids.length).toBeLessThanOrEqual(2);
      for (const id of ids) {
        const dates = page.data.filter((r) => r['user_id'] === id).map((r) => r['date']);
        expect(dates).toEqual([...dates].sort());
      }
      seen.push(...ids);
      cursor = page.meta['next_cursor'] as string | null;
      expect(page.meta['has_more']).toBe(cursor !== null);
      if (cursor) expect(cursor).toBe(ids.at(-1));
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(Object.values(o.u).sort());
  });
});

describe('batch idempotency', () => {
  it('rebuilding all history twice gives the same tables as the incremental runs did', async () => {
    const dump = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of ['agg_org_day', 'agg_user_day', 'agg_tokens_day', 'agg_breakdown_day', 'agg_hooks_day']) {
        out[table] = await server.db.all(`SELECT * FROM ${table} ORDER BY ALL`);
      }
      return out;
    };
    const before = await dump();
    expect(before['agg_org_day']!.length).toBeGreaterThan(10);
    await server.services.runBatch({ trigger: 'cli', log, now: NOW, from: '2026-01-14', to: '2026-03-19' });
    const once = await dump();
    await server.services.runBatch({ trigger: 'cli', log, now: NOW, from: '2026-01-14', to: '2026-03-19', chunkDays: 4 });
    expect(await dump()).toEqual(once);
    expect(once).toEqual(before);
  });
});

describe('response cache', () => {
  it('a repeated query is answered the same; a batch makes new figures visible at once', async () => {
    const o = await org('cache', ['k']);
    await ingest(o.orgId, o.u['k']!, [call('Read', '2026-03-10')]);
    await batch();
    const url = '/api/v1/analytics/tools?startDate=2026-03-10&endDate=2026-03-10';
    expect((await get(o.manager, url)).data[0]!['tool_calls']).toBe(1);
    await ingest(o.orgId, o.u['k']!, [call('Read', '2026-03-10')]);
    expect((await get(o.manager, url)).data[0]!['tool_calls']).toBe(1); // aggregates are daily: unchanged until the batch
    await batch();
    expect((await get(o.manager, url)).data[0]!['tool_calls']).toBe(2);
    // Another organization's manager asking the same URL gets their own (empty) figures.
    const stranger = await org('cache-other', []);
    expect((await get(stranger.manager, url)).data[0]!['tool_calls']).toBe(0);
  });

  it('requests for the same URL at once share one build: each gets the whole body, or its own error body', async () => {
    const o = await org('herd', ['a']);
    await ingest(o.orgId, o.u['a']!, [call('Read', '2026-03-13'), call('Bash', '2026-03-13')]);
    await batch();
    const ask = (url: string) =>
      Promise.all(Array.from({ length: 8 }, () => server.app.inject({ method: 'GET', url, headers: bearer(o.manager) })));
    const good = await ask('/api/v1/analytics/tools?startDate=2026-03-13&endDate=2026-03-13');
    expect(good.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(new Set(good.map((r) => r.body)).size).toBe(1);
    expect(JSON.parse(good[0]!.body).data[0].tool_calls).toBe(2);
    const bad = await ask('/api/v1/analytics/tools?startDate=2026-03-13&endDate=2026-03-01');
    expect(bad.map((r) => r.statusCode)).toEqual(Array(8).fill(400));
    // The shared failure is reported to each request under its own id.
    expect(new Set(bad.map((r) => JSON.parse(r.body).requestId)).size).toBe(8);
  });

  it('a client that accepts gzip gets the same body compressed; one that does not gets it plain', async () => {
    const o = await org('gzip', ['a', 'b', 'c']);
    await ingest(o.orgId, o.u['a']!, [call('Read', '2026-03-11'), call('Edit', '2026-03-12')]);
    await batch();
    const url = '/api/v1/analytics/tools?startDate=2026-02-11&endDate=2026-03-12';
    const plain = await server.app.inject({ method: 'GET', url, headers: bearer(o.manager) });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    for (const accept of ['gzip', 'br;q=1, gzip;q=0.5', '*']) {
      const zipped = await server.app.inject({ method: 'GET', url, headers: { ...bearer(o.manager), 'accept-encoding': accept } });
      expect(zipped.headers['content-encoding'], accept).toBe('gzip');
      expect(zipped.headers['vary']).toBe('accept-encoding');
      expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
      expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    }
    for (const accept of ['identity', 'gzip;q=0', 'gzip;q=0, *']) {
      const refused = await server.app.inject({ method: 'GET', url, headers: { ...bearer(o.manager), 'accept-encoding': accept } });
      expect(refused.headers['content-encoding'], accept).toBeUndefined();
      expect(refused.body).toBe(plain.body);
    }
  });
});
