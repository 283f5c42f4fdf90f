// group_by=agent (our extension, docs/metrics.md §1 and §4) on /tokens, /tools and /activity: records of five
// agents posted to the ingest route as their collectors ship them, the real batch, and the HTTP API.
// Every expected number is worked out by hand beside it. Also: the parameter is refused where it does not
// belong, the OpenAPI document marks it as ours, and migration 014 on a database built before it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityResponse, TokensResponse, ToolsResponse } from '../../api/analytics/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { buildServer } from '../../api/server.ts';
import { migrate, openDb } from '../../common/db/duckdb.ts';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import type { AgentName } from '../../common/wire.ts';
import { runBatch } from '../../pipeline/batch.ts';
import { call, ev, turn, usage, type WireRecord } from '../helpers/records.ts';
import { bearer, gzipNdjson } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z'); // the latest queryable day is 2026-03-19
const D = '2026-03-03';
const D2 = '2026-03-04';
const log = createLogger({ name: 'test', level: 'silent' });

// Prices of this file only, so the figures stay what they are whatever the shipped table says of these
// models: sonnet 1.2, gpt-5-codex 1, gemini-2.5-pro 0.5, qwen3-coder-plus 0.25.
const PRICES = {
  prices: [
    { match: 'claude-sonnet-*', multiplier: 1.2, effective_from: '2026-01-01' },
    { match: 'gpt-5-codex', multiplier: 1, effective_from: '2026-01-01' },
    { match: 'gemini-2.5-pro', multiplier: 0.5, effective_from: '2026-01-01' },
    { match: 'qwen3-coder-plus', multiplier: 0.25, effective_from: '2026-01-01' },
  ],
};

let app: Awaited<ReturnType<typeof buildServer>>['app'];
let services: Awaited<ReturnType<typeof buildServer>>['services'];
let close: () => Promise<void>;
const keys: Record<'a' | 'b' | 'c' | 'manager' | 'member' | 'stranger', { id: string; key: string }> = {} as never;
let orgId: string;

/** A record as that agent's collector ships it. */
const by = <R extends WireRecord>(agent: AgentName, record: R): R => ({ ...record, agent });

async function post(who: keyof typeof keys, records: WireRecord[]) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(keys[who].key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ received: records.length, stored: records.length });
}

async function get(path: string, who: keyof typeof keys = 'manager') {
  const res = await app.inject({ method: 'GET', url: path, headers: bearer(keys[who].key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[]; meta: Record<string, unknown> };
}

beforeAll(async () => {
  const dir = tempDir();
  const pricingFile = join(dir, 'pricing.json');
  writeFileSync(pricingFile, JSON.stringify(PRICES));
  const db = await openDb(join(dir, 'agents.duckdb'));
  const built = await buildServer({ db, log, now: () => NOW, pricingFile, decodeWorkers: 0, batchAt: null });
  app = built.app;
  services = built.services;
  close = async () => {
    await app.close();
    await db.close();
  };
  const { accounts } = services;
  const org = await accounts.createOrg('Agents');
  orgId = org.id;
  for (const who of ['a', 'b', 'c', 'manager', 'member'] as const) {
    const user = await accounts.createUser({
      orgId: org.id,
      email: `${who}@agents.example.com`,
      role: who === 'manager' ? 'manager' : 'member',
    });
    keys[who] = { id: user.id, key: (await accounts.createKey(user)).key };
  }
  const other = await accounts.createOrg('Elsewhere');
  const stranger = await accounts.createUser({ orgId: other.id as OrgId, email: 'm@elsewhere.example.com', role: 'manager' });
  keys.stranger = { id: stranger.id, key: (await accounts.createKey(stranger)).key };

  // A on D: Claude Code (a1: a turn, Read and Bash; sonnet 1.2 × (1000 + 200) = 1440) and Codex CLI
  // (a2: a turn, a PreToolUse that is no call, shell, apply_patch and an MCP call; gpt-5-codex
  // 1 × (2000 + 500 + 1000/10) = 2600): the user of two agents on one day.
  await post('a', [
    turn(D, { session_id: 'a1' }),
    call('Read', D, { session_id: 'a1' }),
    call('Bash', D, { session_id: 'a1', is_shell: true }),
    by('claude', usage('claude-sonnet-4-5', D, { input_tokens: 1000, output_tokens: 200 }, false, 'a1')),
    by('codex', turn(D, { session_id: 'a2' })),
    by('codex', ev('PreToolUse', D, { session_id: 'a2', tool_name: 'shell' })),
    by('codex', call('shell', D, { session_id: 'a2', is_shell: true })),
    by('codex', call('apply_patch', D, { session_id: 'a2' })),
    by('codex', call('mcp__github__get_issue', D, { session_id: 'a2' })),
    by('codex', usage('gpt-5-codex', D, { input_tokens: 2000, output_tokens: 500, cache_read_tokens: 1000 }, true, 'a2')),
  ]);
  // B on D: Gemini CLI (b1: a turn, one call; gemini-2.5-pro 0.5 × 301 = 150.5, rounded for the day to
  // 151). On D2: a Codex call, and Gemini usage without any event (0.5 × 100 = 50), and a Qwen record of
  // no tokens at all (a group of zeros: no row).
  await post('b', [
    by('gemini', turn(D, { session_id: 'b1' })),
    by('gemini', call('run_shell_command', D, { session_id: 'b1', is_shell: true })),
    by('gemini', usage('gemini-2.5-pro', D, { input_tokens: 301 }, false, 'b1')),
    by('codex', call('shell', D2, { session_id: 'b2', is_shell: true })),
    by('gemini', usage('gemini-2.5-pro', D2, { input_tokens: 100 }, false, 'b3')),
    by('qwen', usage('qwen3-coder-plus', D2, {}, false, 'b4')),
  ]);
  // C on D: Qwen Code (c1: a turn, two calls; qwen3-coder-plus 0.25 × 10 = 2.5, rounded to 3), Droid
  // (c2: one call; sonnet 1.2 × (1 + 5/10) = 1.8) and Claude Code (c3: a turn only; sonnet 1.2 × 2 = 2.4).
  await post('c', [
    by('qwen', turn(D, { session_id: 'c1' })),
    by('qwen', call('read_file', D, { session_id: 'c1' })),
    by('qwen', call('run_shell_command', D, { session_id: 'c1', is_shell: true })),
    by('qwen', usage('qwen3-coder-plus', D, { input_tokens: 10 }, false, 'c1')),
    by('droid', call('Execute', D, { session_id: 'c2', is_shell: true })),
    by('droid', usage('claude-sonnet-4-5', D, { input_tokens: 1, cache_read_tokens: 5 }, false, 'c2')),
    by('claude', turn(D, { session_id: 'c3' })),
    by('claude', usage('claude-sonnet-4-5', D, { input_tokens: 2 }, false, 'c3')),
  ]);
  await services.runBatch({ trigger: 'cli', log, now: NOW, pricingFile });
});
afterAll(() => close());

describe('group_by=agent', () => {
  it('/tokens: per agent, in the shape of the model rows; a user’s share split between their agents', async () => {
    const body = await get(`/api/v1/analytics/tokens?startDate=${D}&endDate=${D2}&group_by=agent`);
    const { totals, group_totals, ...envelope } = TokensResponse.parse(body).meta;
    // The range in one (meta.totals, meta.group_totals): the sums of the rows below.
    const rows = body.data as { group_key: string; billable_tokens: number }[];
    const credits = (agent?: string) => rows.filter((r) => !agent || r.group_key === agent).reduce((n, r) => n + r.billable_tokens, 0);
    expect(totals?.billable_tokens).toBe(credits());
    expect(group_totals?.map((g) => g.group_key).sort()).toEqual([...new Set(rows.map((r) => r.group_key))].sort());
    for (const g of group_totals ?? []) expect(g.billable_tokens, g.group_key).toBe(credits(g.group_key));
    expect(envelope).toEqual({
      org_id: orgId,
      start_date: D,
      end_date: D2,
      unpriced_models: ['qwen3-coder-plus'],
      tokens_not_reported: [],
    });
    // Sonnet on D: A 1440 + C 4.2 = 1444.2 → 1444; floors 1440 + 4, nothing left over. C's 4 goes to Droid
    // (weight 10 × 1 + 5 = 15) and Claude Code (10 × 2 = 20): 4 × 15 // 35 = 1 rest 25, 4 × 20 // 35 = 2
    // rest 10; the unit left goes to Droid's larger rest: Droid 2, Claude Code 2 (1.8 and 2.4 each rounded).
    // Claude Code: A 1440 + C 2 = 1442, input 1000 + 2, output 200.
    // Dollars at list price (docs/metrics.md §8, money.integration.test.ts has larger figures): sonnet $3/$15
    // per million: 1002 × 3 + 200 × 15 = $0.006006 → 0.006; gpt-5 $1.25/$10/$0.125 cached: 0.0025 + 0.005 +
    // 0.000125 = 0.0076; sonnet 1 + 5 cached: $0.0000045 → 0; gemini-2.5-pro $1.25: 301 → 0.0004, 100 → 0.0001;
    // qwen3-coder-plus has no list price: null.
    expect(body.data).toEqual([
      { date: D, group_key: 'claude', billable_tokens: 1442, input_tokens: 1002, output_tokens: 200, cost_usd: 0.006 },
      { date: D, group_key: 'codex', billable_tokens: 2600, input_tokens: 2000, output_tokens: 500, cost_usd: 0.0076 },
      { date: D, group_key: 'droid', billable_tokens: 2, input_tokens: 1, output_tokens: 0, cost_usd: 0 },
      { date: D, group_key: 'gemini', billable_tokens: 151, input_tokens: 301, output_tokens: 0, cost_usd: 0.0004 },
      { date: D, group_key: 'qwen', billable_tokens: 3, input_tokens: 10, output_tokens: 0, cost_usd: null },
      // D2: only Gemini; Qwen's record of no tokens is a group of zeros, left out.
      { date: D2, group_key: 'gemini', billable_tokens: 50, input_tokens: 100, output_tokens: 0, cost_usd: 0.0001 },
    ]);
  });

  it('/tokens without group_by is the reference’s record, unchanged: agents add up to the day and to each user', async () => {
    const { data } = await get(`/api/v1/analytics/tokens?startDate=${D}&endDate=${D}`);
    const day = data[0]!;
    expect(day['billable_tokens']).toBe(1442 + 2600 + 2 + 151 + 3); // 4198
    const users = day['by_user'] as {
      user_id: string;
      billable_tokens: number;
      by_model: { model_id: string; billable_tokens: number }[];
    }[];
    expect(users.map((u) => [u.user_id, u.billable_tokens])).toEqual([
      [keys.a.id, 4040], // 1440 + 2600
      [keys.b.id, 151],
      [keys.c.id, 7], // sonnet 4 (through two agents: one model row) + qwen 3
    ]);
    expect(users[2]!.by_model).toEqual([
      { model_id: 'claude-sonnet-4-5', model_tier: 'standard', billable_tokens: 4, input_tokens: 3, output_tokens: 0, cost_usd: 0 },
      { model_id: 'qwen3-coder-plus', model_tier: 'standard', billable_tokens: 3, input_tokens: 10, output_tokens: 0, cost_usd: null },
    ]);
    expect(Object.keys(day).sort()).toEqual(
      [
        'billable_tokens',
        'by_model',
        'by_user',
        'cache_read_tokens',
        'cache_write_tokens',
        'cost_usd',
        'date',
        'input_tokens',
        'output_tokens',
      ].sort(),
    );
    // The users endpoint: C's primary model sums its two agents' rows (sonnet 4 beats qwen 3).
    const perUser = await get(`/api/v1/analytics/users?startDate=${D}&endDate=${D}`);
    const c = perUser.data.find((r) => r['user_id'] === keys.c.id)!;
    expect(c).toMatchObject({ billable_tokens: 7, primary_model: 'claude-sonnet-4-5', tool_calls: 3 });
  });

  it('/tools: tool calls per agent (PreToolUse is no call), adding up to the day’s tool_calls', async () => {
    const body = await get(`/api/v1/analytics/tools?startDate=${D}&endDate=${D2}&group_by=agent`);
    ToolsResponse.parse(body);
    // D: Claude Code A's Read and Bash (C's Claude Code session had a turn only); Codex A's three; Droid
    // C's Execute; Gemini B's one; Qwen C's two. D2: B's Codex call.
    expect(body.data).toEqual([
      { date: D, group_key: 'claude', tool_calls: 2 },
      { date: D, group_key: 'codex', tool_calls: 3 },
      { date: D, group_key: 'droid', tool_calls: 1 },
      { date: D, group_key: 'gemini', tool_calls: 1 },
      { date: D, group_key: 'qwen', tool_calls: 2 },
      { date: D2, group_key: 'codex', tool_calls: 1 },
    ]);
    const { data } = await get(`/api/v1/analytics/tools?startDate=${D}&endDate=${D}`);
    expect(data[0]!['tool_calls']).toBe(9);
  });

  it('/activity: a user is counted under each agent they used that day; DAU counts them once', async () => {
    const body = await get(`/api/v1/analytics/activity?startDate=${D}&endDate=${D2}&group_by=agent`);
    ActivityResponse.parse(body);
    // D: Claude Code A and C; Codex A; Droid C; Gemini B; Qwen C: 6 under the agents, 3 users.
    // D2: B's Codex call (B's Gemini and Qwen usage is no event, so no activity).
    expect(body.data).toEqual([
      { date: D, group_key: 'claude', daily_active_users: 2 },
      { date: D, group_key: 'codex', daily_active_users: 1 },
      { date: D, group_key: 'droid', daily_active_users: 1 },
      { date: D, group_key: 'gemini', daily_active_users: 1 },
      { date: D, group_key: 'qwen', daily_active_users: 1 },
      { date: D2, group_key: 'codex', daily_active_users: 1 },
    ]);
    const { data } = await get(`/api/v1/analytics/activity?startDate=${D}&endDate=${D2}`);
    expect(data.map((r) => r['daily_active_users'])).toEqual([3, 1]);
    expect(data[0]!['sessions']).toBe(6); // a1, a2, b1, c1, c2, c3
  });

  it('roles and organizations as for every analytics request: a member 403, another organization sees none of it', async () => {
    const url = `/api/v1/analytics/activity?startDate=${D}&endDate=${D}&group_by=agent`;
    const res = await app.inject({ method: 'GET', url, headers: bearer(keys.member.key) });
    expect(res.statusCode).toBe(403);
    expect((await get(url, 'stranger')).data).toEqual([]);
  });
});

describe('group_by=agent where it does not belong → 400 with the documented body', () => {
  it.each([
    // productivity's groupings are the edit decisions' and team (docs/metrics.md §6, §11).
    ['productivity', 'group_by=model', 'group_by "model" is not supported here; use "agent" or "tool_name" or "language" or "team"'],
    ['users', 'group_by=agent', 'unknown query parameter "group_by"'],
    ['tokens', 'group_by=agents', 'group_by "agents" is not supported here; use "model" or "agent"'],
    ['tools', 'group_by=client', 'group_by "client" is not supported here; use "tool_name" or "agent"'],
    ['activity', 'group_by=Agent', 'group_by "Agent" is not supported here; use "client" or "agent"'],
  ])('%s?%s', async (endpoint, query, detail) => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/analytics/${endpoint}?startDate=${D}&endDate=${D}&${query}`,
      headers: bearer(keys.manager.key),
    });
    expect(res.statusCode).toBe(400);
    const body = ErrorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 400, title: 'Bad Request', requestId: res.headers['x-request-id'] });
    expect(body.detail).toContain(detail);
  });
});

describe('the OpenAPI document', () => {
  it('offers agent on exactly /tokens, /tools, /activity and /productivity, and says it is an agentmeter extension', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, { get: { parameters?: { name: string; description?: string; schema: { enum?: string[] } }[] } }>;
    };
    const groupBy = (endpoint: string) => doc.paths[`/api/v1/analytics/${endpoint}`]!.get.parameters?.find((p) => p.name === 'group_by');
    // team (docs/metrics.md §6) is offered on these and on /productivity; repo on /tokens (§8, spend by repository).
    expect(groupBy('tokens')!.schema.enum).toEqual(['model', 'agent', 'team', 'repo']);
    expect(groupBy('tools')!.schema.enum).toEqual(['tool_name', 'agent', 'team']);
    expect(groupBy('activity')!.schema.enum).toEqual(['client', 'agent', 'team']);
    for (const endpoint of ['tokens', 'tools', 'activity']) expect(groupBy(endpoint)!.description).toContain('agentmeter extension');
    // Productivity's agent, tool_name and language rows are the edit decisions (docs/metrics.md §11).
    expect(groupBy('productivity')!.schema.enum).toEqual(['agent', 'tool_name', 'language', 'team']);
    expect(groupBy('users')).toBeUndefined();
  });
});

describe('migration 014 on a database built before it', () => {
  it('keeps the built figures under their usage’s agent, and the next batch rebuilds every day', async () => {
    const db = await openDb(join(tempDir(), 'm014.duckdb'));
    try {
      // The state before 014: agg_tokens_day without the agent, built by a finished batch.
      await db.run('DELETE FROM schema_migrations WHERE version = 14');
      await db.run('DROP TABLE agg_tokens_day');
      await db.run(`CREATE TABLE agg_tokens_day (org_id VARCHAR NOT NULL, day DATE NOT NULL, user_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL, thinking BOOLEAN NOT NULL, input_tokens BIGINT NOT NULL, output_tokens BIGINT NOT NULL,
        cache_read_tokens BIGINT NOT NULL, cache_write_tokens BIGINT NOT NULL, billable_tokens BIGINT NOT NULL,
        PRIMARY KEY (org_id, day, user_id, model))`);
      await db.run(`INSERT INTO orgs (id, name) VALUES ('org_m', 'M')`);
      // u1 used sonnet through Claude Code only; u2 through Claude Code and Droid on the same day.
      await db.run(`INSERT INTO usage (org_id, id, user_id, received_at, ts, agent, session_id, model, input_tokens, output_tokens,
          cache_read_tokens, cache_write_tokens, thinking_tokens, thinking) VALUES
        ('org_m', 'x1', 'usr_1', TIMESTAMP '2026-03-05 10:00:00', TIMESTAMP '2026-03-02 10:00:00', 'claude', 's1', 'claude-sonnet-4-5', 100, 0, 0, 0, 0, false),
        ('org_m', 'x2', 'usr_2', TIMESTAMP '2026-03-05 10:00:00', TIMESTAMP '2026-03-02 11:00:00', 'claude', 's2', 'claude-sonnet-4-5', 10, 0, 0, 0, 0, false),
        ('org_m', 'x3', 'usr_2', TIMESTAMP '2026-03-05 10:00:00', TIMESTAMP '2026-03-02 12:00:00', 'droid', 's3', 'claude-sonnet-4-5', 20, 0, 0, 0, 0, false)`);
      await db.run(`INSERT INTO agg_tokens_day VALUES
        ('org_m', DATE '2026-03-02', 'usr_1', 'claude-sonnet-4-5', false, 100, 0, 0, 0, 120),
        ('org_m', DATE '2026-03-02', 'usr_2', 'claude-sonnet-4-5', false, 30, 0, 0, 0, 36)`);
      await db.run(`INSERT INTO batch_runs (id, started_at, finished_at, watermark, days_rebuilt, unpriced_models, trigger)
        VALUES (1, TIMESTAMP '2026-03-06 00:00:00', TIMESTAMP '2026-03-06 00:01:00',
        TIMESTAMP '2026-03-05 10:00:00', 30, '[]', 'schedule')`);

      expect(await migrate(db)).toEqual(['014_agent_dimension.sql']);
      // The table 014 made again lacks what later migrations added to it (060: the dollars).
      await db.run('ALTER TABLE agg_tokens_day ADD COLUMN cost_usd DOUBLE');
      const rows = await db.all('SELECT user_id, agent, billable_tokens FROM agg_tokens_day ORDER BY user_id');
      expect(rows).toEqual([
        { user_id: 'usr_1', agent: 'claude', billable_tokens: 120 },
        { user_id: 'usr_2', agent: 'unknown', billable_tokens: 36 }, // two agents: not to be guessed
      ]);
      const runs = await db.all<{ trigger: string; watermark: string | null }>('SELECT trigger, watermark FROM batch_runs ORDER BY id');
      expect(runs).toEqual([
        { trigger: 'schedule', watermark: expect.anything() },
        { trigger: 'migration', watermark: null },
      ]);

      // The next incremental batch starts from no watermark: every day with records is rebuilt.
      const report = await runBatch(db, { trigger: 'cli', log, now: NOW });
      expect(report.firstDay).toBe('2026-03-02');
      // u2: 1.2 × 30 = 36, split by weight 100 : 200 → 12 and 24.
      expect(await db.all('SELECT user_id, agent, billable_tokens FROM agg_tokens_day ORDER BY user_id, agent')).toEqual([
        { user_id: 'usr_1', agent: 'claude', billable_tokens: 120 },
        { user_id: 'usr_2', agent: 'claude', billable_tokens: 12 },
        { user_id: 'usr_2', agent: 'droid', billable_tokens: 24 },
      ]);
    } finally {
      await db.close();
    }
  });

  it('on a new database it records no run', async () => {
    const db = await openDb(join(tempDir(), 'fresh.duckdb'));
    try {
      expect(await db.all('SELECT * FROM batch_runs')).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
