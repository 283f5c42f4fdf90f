// Pure: a range's figures in one, from the records an answer carries (meta.totals, an agentmeter
// extension), so no reader (the dashboard, a script) sums, averages or divides the daily records itself.
// Each total is the sum of the day records' own field, and each ratio is computed once, here, over those sums.
import { usd4 } from '../../common/money.ts';
import { acceptanceRate } from './assemble.ts';

const sum = <T>(rows: readonly T[], f: (row: T) => number) => rows.reduce((n, r) => n + f(r), 0);

/** Breakdown lists summed over the days: count descending, then name (the envelope rule, docs/metrics.md §4). */
export function sumBreakdowns<T, K extends string>(
  lists: readonly (readonly T[])[],
  name: (item: T) => string,
  count: (item: T) => number,
  rebuild: (name: string, count: number) => Record<K, string | number>,
) {
  const totals = new Map<string, number>();
  for (const list of lists)
    for (const item of list) {
      const key = name(item);
      totals.set(key, (totals.get(key) ?? 0) + count(item));
    }
  return [...totals]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k, n]) => rebuild(k, n));
}

/**
 * Whether a record's dollars price usage: not null, and not the 0 of a day without usage (no credits,
 * nothing spent), which adds no price to a range whose usage has none.
 */
const pricesUsage = (r: { cost_usd: number | null; billable_tokens?: number }) =>
  r.cost_usd !== null && (r.cost_usd !== 0 || r.billable_tokens === undefined || r.billable_tokens > 0);

/**
 * The dollars of a range: the sum of its priced records, to 4 decimals. Null when there was usage and none
 * of it had a price (docs/metrics.md §8: never priced at zero silently); 0 when there was no usage.
 */
export function rangeCost(records: readonly { cost_usd: number | null; billable_tokens?: number }[], used: boolean): number | null {
  const priced = records.filter(pricesUsage);
  if (priced.length === 0) return used ? null : 0;
  return usd4(sum(priced, (r) => r.cost_usd!)) ?? 0;
}

/** /tokens (ungrouped, group_by=model or agent): the range's Standard Credits and dollars. */
export function tokenTotals(records: readonly { billable_tokens: number; cost_usd: number | null }[]) {
  const credits = sum(records, (r) => r.billable_tokens);
  // A record without a price is usage too, credits or not (under half a credit rounds to 0 of them).
  return { billable_tokens: credits, cost_usd: rangeCost(records, credits > 0 || records.some((r) => r.cost_usd === null)) };
}

/**
 * Grouped /tokens: each group's Standard Credits and dollars over the range, by credits descending then
 * group_key (the overview's lists by agent).
 */
export function tokenGroupTotals(rows: readonly { group_key: string; billable_tokens: number; cost_usd: number | null }[]) {
  const groups = new Map<string, { billable_tokens: number; cost_usd: number | null }[]>();
  for (const r of rows) {
    const list = groups.get(r.group_key);
    if (list) list.push(r);
    else groups.set(r.group_key, [r]);
  }
  return [...groups]
    .map(([group_key, list]) => ({ group_key, ...tokenTotals(list) }))
    .sort((a, b) => b.billable_tokens - a.billable_tokens || (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0));
}

type HookCount = { event: string; matcher: string; command: string; count: number };
/**
 * A hook's name in the sums: its three fields as JSON (the order of ties). Kept by the entry: the kept
 * records of the analytics read model (api/analytics/pieces.ts) are summed again by every range over them.
 */
const hookKeys = new WeakMap<HookCount, string>();
function hookKey(h: HookCount): string {
  let key = hookKeys.get(h);
  if (key === undefined) hookKeys.set(h, (key = JSON.stringify([h.event, h.matcher, h.command])));
  return key;
}

interface ToolDay {
  tool_calls: number;
  by_tool: { tool: string; invocations: number }[];
  mcp_by_server: { server: string; invocations: number }[];
  skills_invocations: number;
  skills_by_name: { name: string; count: number }[];
  slash_commands_invocations: number;
  slash_commands_by_name: { name: string; count: number }[];
  hooks_invocations: number;
  hooks_by_event: HookCount[];
  autonomy_ratio_avg: number;
}

/**
 * /tools: the range's calls and breakdowns, and `autonomy_ratio_avg`: the mean of the days'
 * autonomy_ratio_avg over the days with a tool call (a quiet day reports 0 and would pull it down); 0
 * without one.
 */
export function toolTotals(records: readonly ToolDay[]) {
  const active = records.filter((r) => r.tool_calls > 0);
  return {
    tool_calls: sum(records, (r) => r.tool_calls),
    skills_invocations: sum(records, (r) => r.skills_invocations),
    slash_commands_invocations: sum(records, (r) => r.slash_commands_invocations),
    hooks_invocations: sum(records, (r) => r.hooks_invocations),
    autonomy_ratio_avg: active.length === 0 ? 0 : sum(active, (r) => r.autonomy_ratio_avg) / active.length,
    by_tool: sumBreakdowns(
      records.map((r) => r.by_tool),
      (t) => t.tool,
      (t) => t.invocations,
      (tool, invocations) => ({ tool, invocations }),
    ) as { tool: string; invocations: number }[],
    mcp_by_server: sumBreakdowns(
      records.map((r) => r.mcp_by_server),
      (t) => t.server,
      (t) => t.invocations,
      (server, invocations) => ({ server, invocations }),
    ) as { server: string; invocations: number }[],
    skills_by_name: sumBreakdowns(
      records.map((r) => r.skills_by_name),
      (t) => t.name,
      (t) => t.count,
      (name, count) => ({ name, count }),
    ) as { name: string; count: number }[],
    slash_commands_by_name: sumBreakdowns(
      records.map((r) => r.slash_commands_by_name),
      (t) => t.name,
      (t) => t.count,
      (name, count) => ({ name, count }),
    ) as { name: string; count: number }[],
    hooks_by_event: sumBreakdowns(
      records.map((r) => r.hooks_by_event),
      hookKey,
      (h) => h.count,
      (key, count) => {
        const [event, matcher, command] = JSON.parse(key) as [string, string, string];
        return { event, matcher, command, count };
      },
    ) as { event: string; matcher: string; command: string; count: number }[],
  };
}

/** /activity: the range's sessions and messages (active users are not summed: a person counts once a day). */
export function activityTotals(records: readonly { sessions: number; messages: number; user_messages: number }[]) {
  return {
    sessions: sum(records, (r) => r.sessions),
    messages: sum(records, (r) => r.messages),
    user_messages: sum(records, (r) => r.user_messages),
  };
}

interface ProductivityDay {
  files_created: number;
  files_edited: number;
  by_extension: { extension: string; count: number }[];
  by_language: { language: string; count: number }[];
  git_commits: number;
  git_prs_created: number;
  edits_accepted: number;
  edits_rejected: number;
}

/** /productivity: the range's files, commits, pull requests and edit decisions, with its acceptance rate. */
export function productivityTotals(records: readonly ProductivityDay[]) {
  const accepted = sum(records, (r) => r.edits_accepted);
  const rejected = sum(records, (r) => r.edits_rejected);
  return {
    files_created: sum(records, (r) => r.files_created),
    files_edited: sum(records, (r) => r.files_edited),
    git_commits: sum(records, (r) => r.git_commits),
    git_prs_created: sum(records, (r) => r.git_prs_created),
    edits_accepted: accepted,
    edits_rejected: rejected,
    edit_acceptance_rate: acceptanceRate(accepted, rejected),
    by_extension: sumBreakdowns(
      records.map((r) => r.by_extension),
      (e) => e.extension,
      (e) => e.count,
      (extension, count) => ({ extension, count }),
    ) as { extension: string; count: number }[],
    by_language: sumBreakdowns(
      records.map((r) => r.by_language),
      (e) => e.language,
      (e) => e.count,
      (language, count) => ({ language, count }),
    ) as { language: string; count: number }[],
  };
}

/**
 * /productivity?group_by=agent: each agent used in the range (`used`: an event of theirs) or that reported
 * a decision, with its edit decisions over the range and their acceptance rate (docs/metrics.md §11); by
 * agent. An agent that reported no decision has a null rate: it does not report them, which is not 0%.
 */
export function decisionsByAgent(
  used: readonly string[],
  rows: readonly { group_key: string; edits_accepted: number; edits_rejected: number }[],
) {
  const byAgent = new Map<string, { accepted: number; rejected: number }>();
  for (const agent of used) byAgent.set(agent, { accepted: 0, rejected: 0 });
  for (const r of rows) {
    const t = byAgent.get(r.group_key) ?? { accepted: 0, rejected: 0 };
    t.accepted += r.edits_accepted;
    t.rejected += r.edits_rejected;
    byAgent.set(r.group_key, t);
  }
  return [...byAgent]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([agent, t]) => ({
      agent,
      edits_accepted: t.accepted,
      edits_rejected: t.rejected,
      edit_acceptance_rate: acceptanceRate(t.accepted, t.rejected),
    }));
}

interface UserDay {
  user_id: string;
  user_email: string | null;
  billable_tokens: number;
  cost_usd: number | null;
  tool_calls: number;
  sessions: number;
  messages: number;
  files_created: number;
  files_edited: number;
  git_commits: number;
  git_prs_created: number;
  primary_model: string | null;
}

/**
 * One person's range from their day records (one per active day): sums, active days, and the primary model
 * of the range: the model that was primary on the days with the most Standard Credits (ties by name);
 * null without one.
 */
export function personTotals(records: readonly UserDay[]) {
  // One pass (a /users page sums its people for every range asked): each sum in the records' order, as
  // sum() and rangeCost() add them.
  const models = new Map<string, number>();
  let credits = 0;
  let cost = 0;
  let priced = false;
  /** A record of usage without a price (a day without usage costs 0), credits or not. */
  let unpriced = false;
  let tool_calls = 0;
  let sessions = 0;
  let messages = 0;
  let files_created = 0;
  let files_edited = 0;
  let git_commits = 0;
  let git_prs_created = 0;
  for (const r of records) {
    if (r.primary_model) models.set(r.primary_model, (models.get(r.primary_model) ?? 0) + r.billable_tokens);
    credits += r.billable_tokens;
    if (r.cost_usd !== null) {
      cost += r.cost_usd;
      if (pricesUsage(r)) priced = true;
    } else unpriced = true;
    tool_calls += r.tool_calls;
    sessions += r.sessions;
    messages += r.messages;
    files_created += r.files_created;
    files_edited += r.files_edited;
    git_commits += r.git_commits;
    git_prs_created += r.git_prs_created;
  }
  // The most credits, ties by name.
  let primary: string | null = null;
  let most = 0;
  for (const [model, n] of models)
    if (primary === null || n > most || (n === most && model < primary)) {
      primary = model;
      most = n;
    }
  return {
    active_days: records.length,
    billable_tokens: credits,
    // rangeCost(): null when there was usage and none of it had a price, 0 without usage.
    cost_usd: priced ? (usd4(cost) ?? 0) : credits > 0 || unpriced ? null : 0,
    tool_calls,
    sessions,
    messages,
    files_created,
    files_edited,
    git_commits,
    git_prs_created,
    primary_model: primary,
  };
}

/** /users: each person of the page over the range (their rows are all on one page), in page order. */
export function peopleTotals(records: readonly UserDay[]) {
  const byUser = new Map<string, UserDay[]>();
  for (const r of records) {
    const list = byUser.get(r.user_id);
    if (list) list.push(r);
    else byUser.set(r.user_id, [r]);
  }
  return [...byUser].map(([user_id, rows]) => ({ user_id, user_email: rows[0]!.user_email, ...personTotals(rows) }));
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Grouped /tools: each group's calls over the range, most first, then by group_key. */
export function toolGroupTotals(rows: readonly { group_key: string; tool_calls: number }[]) {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.group_key, (totals.get(r.group_key) ?? 0) + r.tool_calls);
  return [...totals]
    .map(([group_key, tool_calls]) => ({ group_key, tool_calls }))
    .sort((a, b) => b.tool_calls - a.tool_calls || byKey(a.group_key, b.group_key));
}

/**
 * Grouped /activity: each group's peak of daily active users over the range (people are not summed over
 * days: one person active on two days is one person), highest first, then by group_key.
 */
export function activityGroupTotals(rows: readonly { group_key: string; daily_active_users: number }[]) {
  const peaks = new Map<string, number>();
  for (const r of rows) peaks.set(r.group_key, Math.max(peaks.get(r.group_key) ?? 0, r.daily_active_users));
  return [...peaks]
    .map(([group_key, peak_daily_active_users]) => ({ group_key, peak_daily_active_users }))
    .sort((a, b) => b.peak_daily_active_users - a.peak_daily_active_users || byKey(a.group_key, b.group_key));
}

/** /productivity?group_by=team: each team's files, commits and pull requests over the range, by commits then name. */
export function productivityGroupTotals(
  rows: readonly { group_key: string; files_created: number; files_edited: number; git_commits: number; git_prs_created: number }[],
) {
  const totals = new Map<string, { files_created: number; files_edited: number; git_commits: number; git_prs_created: number }>();
  for (const r of rows) {
    const t = totals.get(r.group_key) ?? { files_created: 0, files_edited: 0, git_commits: 0, git_prs_created: 0 };
    t.files_created += r.files_created;
    t.files_edited += r.files_edited;
    t.git_commits += r.git_commits;
    t.git_prs_created += r.git_prs_created;
    totals.set(r.group_key, t);
  }
  return [...totals]
    .map(([group_key, t]) => ({ group_key, ...t }))
    .sort((a, b) => b.git_commits - a.git_commits || byKey(a.group_key, b.group_key));
}
