// Pure: aggregate rows → the response records of the reference (service-api.md) and docs/metrics.md §4.
// Ungrouped: exactly one row per day, zeros and empty breakdowns on quiet days. Grouped: only non-zero
// groups, ordered by date then group_key. Breakdown arrays: count descending, then name.
import { usd4 } from '../../common/money.ts';
import { CLIENT_TYPES } from '../../common/wire.ts';
import type { BreakdownRow, HookRow, OrgDayRow, RepoTokenRow, TokenRow, UserDayRow } from './store.ts';

const byCountThenName =
  <T>(count: (t: T) => number, name: (t: T) => string) =>
  (a: T, b: T) =>
    count(b) - count(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);

function group<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

const emptyOrgDay = (day: string): OrgDayRow => ({
  day,
  daily_active_users: 0,
  weekly_active_users: 0,
  monthly_active_users: 0,
  sessions: 0,
  user_messages: 0,
  assistant_messages: 0,
  tool_calls: 0,
  mcp_users_with_mcp: 0,
  skills_invocations: 0,
  slash_commands_invocations: 0,
  hooks_invocations: 0,
  web_users: 0,
  autonomy_ratio_avg: 0,
  autonomy_ratio_p50: 0,
  autonomy_ratio_p90: 0,
  tool_calls_per_session_avg: 0,
  user_turns_per_session_avg: 0,
  share_auto_high: 0,
  share_auto_medium: 0,
  share_auto_low: 0,
  share_manual: 0,
  files_created: 0,
  files_edited: 0,
  git_commits: 0,
  git_prs_created: 0,
});

function orgDayMap(rows: OrgDayRow[]): (day: string) => OrgDayRow {
  const map = new Map(rows.map((r) => [r.day, r]));
  return (day) => map.get(day) ?? emptyOrgDay(day);
}

function breakdownOf(rows: BreakdownRow[] | undefined, kind: string): { key: string; count: number }[] {
  return (rows ?? [])
    .filter((r) => r.kind === kind)
    .map((r) => ({ key: r.key, count: r.count }))
    .sort(
      byCountThenName(
        (r) => r.count,
        (r) => r.key,
      ),
    );
}

// ---------------------------------------------------------------- tokens

interface ModelTotals {
  model_id: string;
  model_tier: 'standard' | 'thinking';
  billable_tokens: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

/**
 * The dollars of a set of token rows (docs/metrics.md §8): the sum of the priced rows, to 4 decimals; null
 * when there are rows and none has a price; 0 without rows (a day without usage: §4, a count of a day
 * without activity is 0). A row without a price adds nothing and its model is named in the answer's
 * meta.unpriced_models, so a sum is never silently short.
 */
export function costOf(rows: readonly { cost_usd: number | null }[]): number | null {
  let total: number | null = rows.length === 0 ? 0 : null;
  for (const r of rows) if (r.cost_usd !== null && r.cost_usd !== undefined) total = (total ?? 0) + r.cost_usd;
  return usd4(total);
}

/** The models of token rows that had no dollar price, sorted (meta.unpriced_models). */
export function unpricedModels(rows: readonly { model: string; cost_usd: number | null }[]): string[] {
  return [...new Set(rows.filter((r) => r.cost_usd === null || r.cost_usd === undefined).map((r) => r.model))].sort();
}

function byModel(rows: TokenRow[]): ModelTotals[] {
  const models = new Map<string, ModelTotals>();
  for (const r of rows) {
    const m = models.get(r.model) ?? {
      model_id: r.model,
      model_tier: 'standard',
      billable_tokens: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: null,
    };
    if (r.thinking) m.model_tier = 'thinking';
    m.billable_tokens += r.billable_tokens;
    m.input_tokens += r.input_tokens;
    m.output_tokens += r.output_tokens;
    if (r.cost_usd !== null && r.cost_usd !== undefined) m.cost_usd = (m.cost_usd ?? 0) + r.cost_usd;
    models.set(r.model, m);
  }
  for (const m of models.values()) m.cost_usd = usd4(m.cost_usd);
  return [...models.values()].sort(
    byCountThenName(
      (m) => m.billable_tokens,
      (m) => m.model_id,
    ),
  );
}

export function tokenRecords(days: string[], rows: TokenRow[]) {
  const perDay = group(rows, (r) => r.day);
  return days.map((date) => {
    const dayRows = perDay.get(date) ?? [];
    const sum = (f: (r: TokenRow) => number) => dayRows.reduce((acc, r) => acc + f(r), 0);
    const users = [...group(dayRows, (r) => r.user_id).entries()].map(([user_id, userRows]) => ({
      user_id,
      user_email: userRows[0]!.user_email,
      billable_tokens: userRows.reduce((acc, r) => acc + r.billable_tokens, 0),
      cost_usd: costOf(userRows),
      by_model: byModel(userRows),
    }));
    return {
      date,
      billable_tokens: sum((r) => r.billable_tokens),
      input_tokens: sum((r) => r.input_tokens),
      output_tokens: sum((r) => r.output_tokens),
      cache_read_tokens: sum((r) => r.cache_read_tokens),
      cache_write_tokens: sum((r) => r.cache_write_tokens),
      cost_usd: costOf(dayRows),
      by_model: byModel(dayRows),
      by_user: users.sort(
        byCountThenName(
          (u) => u.billable_tokens,
          (u) => u.user_id,
        ),
      ),
    };
  });
}

/**
 * Pure: the agents used in the range (a user with one of their events on a day, `agent_users`) that
 * reported no token usage in it: Cursor keeps none on the machine, Copilot without its OpenTelemetry
 * export sends none. Their tokens are "not reported", never zero (docs/metrics.md §1); sorted.
 */
export function tokensNotReported(rows: readonly TokenRow[], breakdowns: readonly BreakdownRow[]): string[] {
  const reported = new Set(
    rows.filter((r) => r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_tokens > 0).map((r) => r.agent),
  );
  const used = new Set(breakdowns.filter((r) => r.kind === 'agent_users' && r.count > 0).map((r) => r.key));
  return [...used].filter((agent) => !reported.has(agent)).sort();
}

/** What /tokens says beside its records, as sets a range's days unite: models without a price, agents that reported tokens, agents used. */
export interface TokenFacts {
  unpriced: string[];
  reported: string[];
  used: string[];
}

export function tokenFacts(rows: readonly TokenRow[], breakdowns: readonly BreakdownRow[]): TokenFacts {
  return {
    unpriced: unpricedModels(rows),
    reported: [
      ...new Set(rows.filter((r) => r.input_tokens + r.output_tokens + r.cache_read_tokens + r.cache_write_tokens > 0).map((r) => r.agent)),
    ],
    used: [...new Set(breakdowns.filter((r) => r.kind === 'agent_users' && r.count > 0).map((r) => r.key))],
  };
}

/** meta.unpriced_models and meta.tokens_not_reported of the days whose facts these are (as unpricedModels and tokensNotReported). */
export function tokensMeta(facts: readonly TokenFacts[]) {
  const unpriced = new Set<string>();
  const reported = new Set<string>();
  const used = new Set<string>();
  for (const f of facts) {
    for (const m of f.unpriced) unpriced.add(m);
    for (const a of f.reported) reported.add(a);
    for (const a of f.used) used.add(a);
  }
  return { unpriced_models: [...unpriced].sort(), tokens_not_reported: [...used].filter((a) => !reported.has(a)).sort() };
}

/** group_by=agent (ours): the day's usage per agent, in the shape of the model rows; non-zero agents only. */
export function tokenGroupedByAgent(days: string[], rows: TokenRow[]) {
  const perDay = group(rows, (r) => r.day);
  return days.flatMap((date) =>
    [...group(perDay.get(date) ?? [], (r) => r.agent).entries()]
      .map(([agent, agentRows]) => ({
        date,
        group_key: agent,
        billable_tokens: agentRows.reduce((acc, r) => acc + r.billable_tokens, 0),
        input_tokens: agentRows.reduce((acc, r) => acc + r.input_tokens, 0),
        output_tokens: agentRows.reduce((acc, r) => acc + r.output_tokens, 0),
        cost_usd: costOf(agentRows),
      }))
      .filter((a) => a.billable_tokens || a.input_tokens || a.output_tokens)
      .sort((a, b) => (a.group_key < b.group_key ? -1 : 1)),
  );
}

/**
 * group_by=repo (ours): per day and repository of the sessions' working directory (over a team's members:
 * the rows reader.ts selects). Credits are the rows' weighted tokens rounded per day and repository; usage
 * of sessions in no repository is in no row.
 */
export function tokenGroupedByRepo(days: string[], rows: RepoTokenRow[]) {
  const perDay = group(rows, (r) => r.day);
  return days.flatMap((date) =>
    [...group(perDay.get(date) ?? [], (r) => r.repo).entries()]
      .map(([repo, repoRows]) => ({
        date,
        group_key: repo,
        billable_tokens: Math.round(repoRows.reduce((acc, r) => acc + r.raw_billable, 0)),
        input_tokens: repoRows.reduce((acc, r) => acc + r.input_tokens, 0),
        output_tokens: repoRows.reduce((acc, r) => acc + r.output_tokens, 0),
        cost_usd: costOf(repoRows),
      }))
      .filter((r) => r.billable_tokens || r.input_tokens || r.output_tokens)
      .sort((a, b) => (a.group_key < b.group_key ? -1 : 1)),
  );
}

export function tokenGroupedByModel(days: string[], rows: TokenRow[]) {
  const perDay = group(rows, (r) => r.day);
  return days.flatMap((date) =>
    byModel(perDay.get(date) ?? [])
      .filter((m) => m.billable_tokens || m.input_tokens || m.output_tokens)
      .sort((a, b) => (a.model_id < b.model_id ? -1 : 1))
      .map((m) => ({
        date,
        group_key: m.model_id,
        billable_tokens: m.billable_tokens,
        input_tokens: m.input_tokens,
        output_tokens: m.output_tokens,
        cost_usd: m.cost_usd,
      })),
  );
}

// ---------------------------------------------------------------- tools

export function toolRecords(days: string[], orgRows: OrgDayRow[], breakdowns: BreakdownRow[], hooks: HookRow[]) {
  const org = orgDayMap(orgRows);
  const perDay = group(breakdowns, (r) => r.day);
  const hooksPerDay = group(hooks, (r) => r.day);
  return days.map((date) => {
    const o = org(date);
    const b = perDay.get(date);
    return {
      date,
      tool_calls: o.tool_calls,
      by_tool: breakdownOf(b, 'tool').map((r) => ({ tool: r.key, invocations: r.count })),
      mcp_users_with_mcp: o.mcp_users_with_mcp,
      mcp_by_server: breakdownOf(b, 'mcp_server').map((r) => ({ server: r.key, invocations: r.count })),
      skills_invocations: o.skills_invocations,
      skills_by_name: breakdownOf(b, 'skill').map((r) => ({ name: r.key, count: r.count })),
      slash_commands_invocations: o.slash_commands_invocations,
      slash_commands_by_name: breakdownOf(b, 'slash_command').map((r) => ({ name: r.key, count: r.count })),
      hooks_invocations: o.hooks_invocations,
      hooks_by_event: (hooksPerDay.get(date) ?? [])
        .map((h) => ({ event: h.event, matcher: h.matcher, command: h.command, count: h.count }))
        .sort(
          byCountThenName(
            (h) => h.count,
            (h) => `${h.event}\u0000${h.matcher}\u0000${h.command}`,
          ),
        ),
      web_users: o.web_users,
      autonomy_ratio_avg: o.autonomy_ratio_avg,
      autonomy_ratio_p50: o.autonomy_ratio_p50,
      autonomy_ratio_p90: o.autonomy_ratio_p90,
      tool_calls_per_session_avg: o.tool_calls_per_session_avg,
      user_turns_per_session_avg: o.user_turns_per_session_avg,
      tool_autonomy_level_ratio: {
        auto_high: o.share_auto_high,
        auto_medium: o.share_auto_medium,
        auto_low: o.share_auto_low,
        manual: o.share_manual,
      },
    };
  });
}

/** Grouped rows from one breakdown kind: only non-zero groups, by date then group_key. */
function groupedBreakdown<F extends string>(days: string[], breakdowns: BreakdownRow[], kind: string, field: F) {
  const perDay = group(
    breakdowns.filter((r) => r.kind === kind && r.count > 0),
    (r) => r.day,
  );
  return days.flatMap((date) =>
    (perDay.get(date) ?? [])
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .map((r) => ({ date, group_key: r.key, [field]: r.count }) as { date: string; group_key: string } & Record<F, number>),
  );
}

export const toolGroupedByName = (days: string[], breakdowns: BreakdownRow[]) => groupedBreakdown(days, breakdowns, 'tool', 'tool_calls');
/** group_by=agent (ours): tool calls per agent. */
export const toolGroupedByAgent = (days: string[], breakdowns: BreakdownRow[]) =>
  groupedBreakdown(days, breakdowns, 'agent_calls', 'tool_calls');

// ---------------------------------------------------------------- activity

/** Every client type the wire knows (common/wire.ts), each a key of daily_active_users_by_client. */
export const CLIENTS = CLIENT_TYPES;

export function activityRecords(days: string[], orgRows: OrgDayRow[], breakdowns: BreakdownRow[]) {
  const org = orgDayMap(orgRows);
  const perDay = group(breakdowns, (r) => r.day);
  return days.map((date) => {
    const o = org(date);
    const clients = Object.fromEntries(CLIENTS.map((c) => [c, 0])) as Record<(typeof CLIENTS)[number], number>;
    for (const r of perDay.get(date) ?? [])
      if (r.kind === 'client' && r.key in clients) clients[r.key as (typeof CLIENTS)[number]] = r.count;
    return {
      date,
      daily_active_users: o.daily_active_users,
      weekly_active_users: o.weekly_active_users,
      monthly_active_users: o.monthly_active_users,
      daily_active_users_by_client: clients,
      sessions: o.sessions,
      messages: o.user_messages + o.assistant_messages,
      user_messages: o.user_messages,
    };
  });
}

export const activityGroupedByClient = (days: string[], breakdowns: BreakdownRow[]) =>
  groupedBreakdown(days, breakdowns, 'client', 'daily_active_users');
/** group_by=agent (ours): users with an event of the agent that day; a user of two agents is under each. */
export const activityGroupedByAgent = (days: string[], breakdowns: BreakdownRow[]) =>
  groupedBreakdown(days, breakdowns, 'agent_users', 'daily_active_users');

// ---------------------------------------------------------------- productivity

/** What an edit decisions grouping reads: group_by's name → the breakdown's dimension. */
export const DECISION_GROUPS = { agent: 'agent', tool_name: 'tool', language: 'language' } as const;
export type DecisionGroup = keyof typeof DECISION_GROUPS;
/** The breakdown kinds of edit decisions (pipeline/sql/45_user_breakdowns.sql). */
export const EDIT_DECISION_KINDS = Object.values(DECISION_GROUPS).flatMap((by) => [`edits_accepted_${by}`, `edits_rejected_${by}`]);

/** Pure: accepted / (accepted + rejected) to 4 decimals; null when nothing was decided (docs/metrics.md §11). */
export function acceptanceRate(accepted: number, rejected: number): number | null {
  const decided = accepted + rejected;
  return decided > 0 ? Math.round((accepted / decided) * 10_000) / 10_000 : null;
}

const decisionFigures = (accepted: number, rejected: number) => ({
  edits_accepted: accepted,
  edits_rejected: rejected,
  edit_acceptance_rate: acceptanceRate(accepted, rejected),
});

const sumCounts = (rows: BreakdownRow[] | undefined, kind: string) => (rows ?? []).reduce((n, r) => (r.kind === kind ? n + r.count : n), 0);

/** group_by=agent|tool_name|language: each group's edit decisions, only groups with a decision. */
export function productivityDecisionRows(days: string[], breakdowns: BreakdownRow[], groupBy: DecisionGroup) {
  const by = DECISION_GROUPS[groupBy];
  const perDay = group(
    breakdowns.filter((r) => r.count > 0 && (r.kind === `edits_accepted_${by}` || r.kind === `edits_rejected_${by}`)),
    (r) => r.day,
  );
  return days.flatMap((date) => {
    const perKey = group(perDay.get(date) ?? [], (r) => r.key);
    return [...perKey.keys()].sort().map((key) => ({
      date,
      group_key: key,
      ...decisionFigures(sumCounts(perKey.get(key), `edits_accepted_${by}`), sumCounts(perKey.get(key), `edits_rejected_${by}`)),
    }));
  });
}

export function productivityRecords(days: string[], orgRows: OrgDayRow[], breakdowns: BreakdownRow[]) {
  const org = orgDayMap(orgRows);
  const perDay = group(breakdowns, (r) => r.day);
  return days.map((date) => {
    const o = org(date);
    const b = perDay.get(date);
    return {
      date,
      files_created: o.files_created,
      files_edited: o.files_edited,
      by_extension: breakdownOf(b, 'extension').map((r) => ({ extension: r.key, count: r.count })),
      by_language: breakdownOf(b, 'language').map((r) => ({ language: r.key, count: r.count })),
      git_commits: o.git_commits,
      git_prs_created: o.git_prs_created,
      ...decisionFigures(sumCounts(b, 'edits_accepted_agent'), sumCounts(b, 'edits_rejected_agent')),
    };
  });
}

// ---------------------------------------------------------------- users

export function userRecords(rows: UserDayRow[]) {
  return rows.map((r) => ({
    user_id: r.user_id,
    user_email: r.user_email,
    date: r.day,
    tool_calls: r.tool_calls,
    billable_tokens: r.billable_tokens,
    primary_model: r.primary_model,
    primary_model_tier: r.primary_model_tier,
    files_created: r.files_created,
    files_edited: r.files_edited,
    git_commits: r.git_commits,
    git_prs_created: r.git_prs_created,
    mcp_calls: r.mcp_calls,
    skill_calls: r.skill_calls,
    slash_commands: r.slash_commands,
    hooks: r.hooks,
    sessions: r.sessions,
    messages: r.user_messages + r.assistant_messages,
    user_messages: r.user_messages,
    assistant_messages: r.assistant_messages,
    autonomy_ratio: r.autonomy_ratio,
    delegation_level: r.delegation_level,
    languages: r.languages,
    lines_added: r.lines_added ?? 0,
    landed_agent_lines: r.landed_agent_lines ?? 0,
    // 0 from the build for a day without usage, NULL for usage without a price (40_user_day.sql).
    cost_usd: usd4(r.cost_usd),
  }));
}
