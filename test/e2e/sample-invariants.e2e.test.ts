// The sample data through the real hook and collector into a real server, then invariants that must hold
// on any data: per-user sums equal the organization's figures, grouped rows sum to the ungrouped ones,
// exactly one row per day, shares sum to 1, the range's totals are their records' sums, and no prompt text
// reached the server.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../api/accounts/store.ts';
import { type RunningServer, startServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { generate } from '../../sample-data/generator.ts';
import { loadSample } from '../../sample-data/load.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const START = '2026-02-23';
const END = '2026-03-15';
let db: Db;
let server: RunningServer;
let key: string;
let orgId: string;

async function get(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: bearer(key) });
  expect(res.status).toBe(200);
  return (await res.json()) as { data: Record<string, any>[]; meta: Record<string, any> };
}

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'sample.duckdb'));
  const log = createLogger({ name: 'test', level: 'silent' });
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false });
  const accounts = new AccountStore(db);
  const { org } = await loadSample({
    db,
    accounts,
    server: server.url,
    runBatch: server.services.runBatch,
    log,
    lastDay: END,
    days: 21,
    users: 10,
  });
  orgId = org.id;
  const manager = (
    await db.all<{ id: string }>("SELECT id FROM users WHERE org_id = $org AND role = 'manager' LIMIT 1", { org: org.id })
  )[0]!;
  key = (await accounts.createKey((await accounts.getUser(org.id, manager.id))!)).key;
}, 180_000);
afterAll(async () => {
  await server?.close();
});

describe('sample data invariants', () => {
  it('the generator is deterministic for a seed and differs across seeds', () => {
    const a = generate({ seed: 7, lastDay: END, days: 5, users: 4 });
    expect(generate({ seed: 7, lastDay: END, days: 5, users: 4 })).toEqual(a);
    expect(generate({ seed: 8, lastDay: END, days: 5, users: 4 })).not.toEqual(a);
  });

  it('the git activity for the Code page ships beside the replay, not after it', async () => {
    // Its first records arrive before the replay's last: the replay's ten users take many times its two.
    const [row] = await db.all<{ git: number; replay: number }>(
      `SELECT epoch_ms(min(received_at) FILTER (WHERE session_id LIKE 'git-session-%'))::DOUBLE AS git,
              epoch_ms(max(received_at) FILTER (WHERE session_id NOT LIKE 'git-session-%'))::DOUBLE AS replay
         FROM events WHERE org_id = $org`,
      { org: orgId },
    );
    expect(row!.git).toBeGreaterThan(0);
    expect(row!.git).toBeLessThan(row!.replay);
  });

  it('one row per day on every ungrouped endpoint', async () => {
    for (const endpoint of ['tokens', 'tools', 'activity', 'productivity']) {
      const { data } = await get(`/api/v1/analytics/${endpoint}?startDate=${START}&endDate=${END}`);
      expect(data).toHaveLength(21);
      expect(new Set(data.map((r) => r['date'])).size).toBe(21);
    }
  });

  it('per-user sums equal the organization figures (tokens, tool calls, messages, sessions, files, commits)', async () => {
    const users: Record<string, any>[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/api/v1/analytics/users?startDate=${START}&endDate=${END}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      users.push(...page.data);
      cursor = page.meta['next_cursor'];
    } while (cursor);
    const sum = (rows: Record<string, any>[], field: string) => rows.reduce((a, r) => a + (r[field] as number), 0);
    const [tokens, tools, activity, productivity] = await Promise.all(
      ['tokens', 'tools', 'activity', 'productivity'].map((e) => get(`/api/v1/analytics/${e}?startDate=${START}&endDate=${END}`)),
    );
    let activeDays = 0;
    for (let i = 0; i < 21; i++) {
      const date = tokens!.data[i]!['date'];
      const mine = users.filter((u) => u['date'] === date);
      expect(sum(mine, 'billable_tokens')).toBe(tokens!.data[i]!['billable_tokens']);
      expect(sum(mine, 'tool_calls')).toBe(tools!.data[i]!['tool_calls']);
      expect(sum(mine, 'messages')).toBe(activity!.data[i]!['messages']);
      expect(sum(mine, 'user_messages')).toBe(activity!.data[i]!['user_messages']);
      expect(sum(mine, 'sessions')).toBe(activity!.data[i]!['sessions']);
      expect(sum(mine, 'files_created')).toBe(productivity!.data[i]!['files_created']);
      expect(sum(mine, 'files_edited')).toBe(productivity!.data[i]!['files_edited']);
      expect(sum(mine, 'git_commits')).toBe(productivity!.data[i]!['git_commits']);
      expect(sum(mine, 'git_prs_created')).toBe(productivity!.data[i]!['git_prs_created']);
      const byUser = tokens!.data[i]!['by_user'] as { billable_tokens: number }[];
      expect(byUser.reduce((a, u) => a + u.billable_tokens, 0)).toBe(tokens!.data[i]!['billable_tokens']);
      if (tools!.data[i]!['tool_calls'] > 0) {
        activeDays++;
        const shares = Object.values(tools!.data[i]!['tool_autonomy_level_ratio'] as Record<string, number>);
        expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      }
    }
    expect(activeDays).toBeGreaterThan(10);
  });

  it('its teams: team=Engineering (the parent of every team) is the whole organization; each person counts under one team', async () => {
    const q = `startDate=${START}&endDate=${END}`;
    const [tokens, engineering, tools, byTeam] = await Promise.all([
      get(`/api/v1/analytics/tokens?${q}`),
      get(`/api/v1/analytics/tokens?${q}&team=Engineering`),
      get(`/api/v1/analytics/tools?${q}`),
      get(`/api/v1/analytics/tools?${q}&group_by=team`),
    ]);
    expect(engineering.data).toEqual(tokens.data);
    // Each sample person is in exactly one child team, and Engineering has no direct member.
    for (const day of tools.data) {
      const rows = byTeam.data.filter((r) => r['date'] === day['date']);
      expect(rows.some((r) => r['group_key'] === 'Engineering')).toBe(false);
      expect(rows.reduce((a, r) => a + r['tool_calls'], 0)).toBe(day['tool_calls']);
    }
  });

  it('grouped rows sum to the ungrouped figures', async () => {
    const q = `startDate=${START}&endDate=${END}`;
    const [tokens, tokensByModel, tools, toolsByName, activity, byClient] = await Promise.all([
      get(`/api/v1/analytics/tokens?${q}`),
      get(`/api/v1/analytics/tokens?${q}&group_by=model`),
      get(`/api/v1/analytics/tools?${q}`),
      get(`/api/v1/analytics/tools?${q}&group_by=tool_name`),
      get(`/api/v1/analytics/activity?${q}`),
      get(`/api/v1/analytics/activity?${q}&group_by=client`),
    ]);
    for (const day of tokens.data) {
      const rows = tokensByModel.data.filter((r) => r['date'] === day['date']);
      expect(rows.reduce((a, r) => a + r['billable_tokens'], 0)).toBe(day['billable_tokens']);
      expect(rows.reduce((a, r) => a + r['input_tokens'], 0)).toBe(day['input_tokens']);
    }
    for (const day of tools.data) {
      expect(toolsByName.data.filter((r) => r['date'] === day['date']).reduce((a, r) => a + r['tool_calls'], 0)).toBe(day['tool_calls']);
      expect((day['by_tool'] as { invocations: number }[]).reduce((a, t) => a + t.invocations, 0)).toBe(day['tool_calls']);
    }
    for (const day of activity.data) {
      const clients = byClient.data.filter((r) => r['date'] === day['date']);
      for (const row of clients) expect(row['daily_active_users']).toBe(day['daily_active_users_by_client'][row['group_key']]);
      expect(clients.reduce((a, r) => a + r['daily_active_users'], 0)).toBeGreaterThanOrEqual(day['daily_active_users']);
    }
    for (const [a, b] of [
      [tokens, tokensByModel],
      [tools, toolsByName],
      [activity, byClient],
    ] as const) {
      const order = b.data.map((r) => `${r['date']}|${r['group_key']}`);
      expect(order).toEqual([...order].sort());
      expect(a.meta['org_id']).toBe(orgId);
    }
  });

  it("the range in one (meta.totals) is its records' sums, and each person's range (meta.people) theirs", async () => {
    const q = `startDate=${START}&endDate=${END}`;
    const sum = (rows: Record<string, any>[], f: (r: Record<string, any>) => number) => rows.reduce((n, r) => n + f(r), 0);
    const [tokens, tools, activity, productivity, users] = await Promise.all([
      get(`/api/v1/analytics/tokens?${q}`),
      get(`/api/v1/analytics/tools?${q}`),
      get(`/api/v1/analytics/activity?${q}`),
      get(`/api/v1/analytics/productivity?${q}`),
      get(`/api/v1/analytics/users?${q}&limit=100`),
    ]);
    expect(tokens.meta['totals'].billable_tokens).toBe(sum(tokens.data, (r) => r['billable_tokens']));
    expect(tokens.meta['totals'].billable_tokens).toBeGreaterThan(0);
    expect(tools.meta['totals'].tool_calls).toBe(sum(tools.data, (r) => r['tool_calls']));
    const active = tools.data.filter((r) => r['tool_calls'] > 0);
    expect(tools.meta['totals'].autonomy_ratio_avg).toBeCloseTo(sum(active, (r) => r['autonomy_ratio_avg']) / active.length, 10);
    expect(activity.meta['totals'].sessions).toBe(sum(activity.data, (r) => r['sessions']));
    expect(productivity.meta['totals'].files_edited).toBe(sum(productivity.data, (r) => r['files_edited']));
    expect(users.meta['has_more']).toBe(false);
    for (const person of users.meta['people']) {
      const rows = users.data.filter((r) => r['user_id'] === person.user_id);
      expect(person.active_days, person.user_id).toBe(rows.length);
      expect(person.billable_tokens, person.user_id).toBe(sum(rows, (r) => r['billable_tokens']));
      expect(person.tool_calls, person.user_id).toBe(sum(rows, (r) => r['tool_calls']));
    }
    expect(sum(users.meta['people'], (p) => p.billable_tokens)).toBe(tokens.meta['totals'].billable_tokens);
  });

  it('grouped by agent (our extension): tokens and tool calls add up to the day; each agent has at most the DAU, together at least', async () => {
    const q = `startDate=${START}&endDate=${END}`;
    const [tokens, tokensByAgent, tools, toolsByAgent, activity, usersByAgent] = await Promise.all([
      get(`/api/v1/analytics/tokens?${q}`),
      get(`/api/v1/analytics/tokens?${q}&group_by=agent`),
      get(`/api/v1/analytics/tools?${q}`),
      get(`/api/v1/analytics/tools?${q}&group_by=agent`),
      get(`/api/v1/analytics/activity?${q}`),
      get(`/api/v1/analytics/activity?${q}&group_by=agent`),
    ]);
    // The sample's organization runs more than one agent.
    expect(new Set(usersByAgent.data.map((r) => r['group_key'])).size).toBeGreaterThan(1);
    for (const day of tokens.data) {
      const rows = tokensByAgent.data.filter((r) => r['date'] === day['date']);
      for (const field of ['billable_tokens', 'input_tokens', 'output_tokens'])
        expect(rows.reduce((a, r) => a + r[field], 0)).toBe(day[field]);
    }
    for (const day of tools.data)
      expect(toolsByAgent.data.filter((r) => r['date'] === day['date']).reduce((a, r) => a + r['tool_calls'], 0)).toBe(day['tool_calls']);
    for (const day of activity.data) {
      const agents = usersByAgent.data.filter((r) => r['date'] === day['date']);
      for (const row of agents) expect(row['daily_active_users']).toBeLessThanOrEqual(day['daily_active_users']);
      expect(agents.reduce((a, r) => a + r['daily_active_users'], 0)).toBeGreaterThanOrEqual(day['daily_active_users']);
    }
    for (const grouped of [tokensByAgent, toolsByAgent, usersByAgent]) {
      const order = grouped.data.map((r) => `${r['date']}|${r['group_key']}`);
      expect(order).toEqual([...order].sort());
    }
  });

  it('the sample shows what it should: MCP case duplicates folded, every client, no prompt text', async () => {
    const tools = await get(`/api/v1/analytics/tools?startDate=${START}&endDate=${END}`);
    const servers = new Set(tools.data.flatMap((d) => (d['mcp_by_server'] as { server: string }[]).map((s) => s.server)));
    for (const s of servers) expect(s).toBe(s.toLowerCase());
    const raw = await db.all<{ n: number }>("SELECT count(DISTINCT mcp_server) AS n FROM events WHERE lower(mcp_server) = 'github'");
    expect(raw[0]!.n).toBeGreaterThan(1);
    const activity = await get(`/api/v1/analytics/activity?startDate=${START}&endDate=${END}&group_by=client`);
    // VS Code's is Copilot's agent there (sample-data/agents/copilot.ts).
    expect(new Set(activity.data.map((r) => r['group_key']))).toEqual(new Set(['terminal-ui', 'web', 'non-interactive-cli', 'vscode']));
    const stored = JSON.stringify(await db.all('SELECT * FROM events LIMIT 5000'));
    expect(stored).not.toContain('private prompt text');
    expect(stored).not.toContain('private message');
  });

  it('the sample is a mixed organization: Codex CLI sessions with their rollout usage, headless ones too', async () => {
    const [codex] = await db.all<{ events: number; headless: number; calls: number; messages: number }>(
      `SELECT (SELECT count(*) FROM events WHERE agent = 'codex') AS events,
              (SELECT count(*) FROM events WHERE agent = 'codex' AND client = 'non-interactive-cli') AS headless,
              (SELECT count(*) FROM usage WHERE agent = 'codex' AND model LIKE 'gpt-5%') AS calls,
              (SELECT count(*) FROM assistant_messages WHERE agent = 'codex') AS messages`,
    );
    expect(codex!.events).toBeGreaterThan(0);
    expect(codex!.headless).toBeGreaterThan(0);
    expect(codex!.calls).toBeGreaterThan(0);
    expect(codex!.messages).toBeGreaterThan(0);
  });

  it('Cursor sessions too: calls and edit lines from its hooks, its tokens not reported', async () => {
    const [cursor] = await db.all<{ events: number; calls: number; edits: number; usage: number }>(
      `SELECT (SELECT count(*) FROM events WHERE agent = 'cursor') AS events,
              (SELECT count(*) FROM events WHERE agent = 'cursor' AND event = 'PostToolUse') AS calls,
              (SELECT count(*) FROM events WHERE agent = 'cursor' AND edits IS NOT NULL) AS edits,
              (SELECT count(*) FROM usage WHERE agent = 'cursor') AS usage`,
    );
    expect(cursor!.events).toBeGreaterThan(0);
    expect(cursor!.calls).toBeGreaterThan(0);
    expect(cursor!.edits).toBeGreaterThan(0);
    expect(cursor!.usage).toBe(0);
    const tokens = await get(`/api/v1/analytics/tokens?startDate=${START}&endDate=${END}&group_by=agent`);
    expect(tokens.meta['tokens_not_reported']).toEqual(['cursor']);
    expect(tokens.data.some((r) => r['group_key'] === 'cursor')).toBe(false);
  });
});
