// Pure: team figures (docs/metrics.md §6) from per-user daily rows and dated memberships.
// - `team=` restricts an answer to the users who were members (of the team or a descendant) on each day:
//   the organization's day rows, breakdowns, hook counts, token rows and user rows are derived again over
//   those users alone, by the same rules as pipeline/sql/60_org_day.sql, and then assembled by the same
//   functions as the organization's answers (api/analytics/assemble.ts).
// - `group_by=team` gives one row per day and team with a non-zero figure, over the team's direct members.
// - Billable tokens are rounded per day, team and model, from the users' unrounded figures; the users'
//   shares (by_user) are then split by largest remainder, as the organization's are (30_tokens.sql).
import { costOf } from '../analytics/assemble.ts';
import type {
  BreakdownRow,
  HookRow,
  OrgDayRow,
  RawBillableRow,
  TeamUserDayRow,
  TokenRow,
  UserBreakdownRow,
  UserDayRow,
  UserHookRow,
} from '../analytics/store.ts';
import type { Membership } from './store.ts';

export type { RawBillableRow, TeamUserDayRow, UserBreakdownRow, UserHookRow };

const DAY_MS = 86_400_000;
export const addDays = (day: string, n: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** Who was a member of any of `teams` on a day: a function of the day, memoized. */
export function membersByDay(memberships: readonly Membership[], teams: ReadonlySet<string>): (day: string) => ReadonlySet<string> {
  const relevant = memberships.filter((m) => teams.has(m.teamId));
  const memo = new Map<string, Set<string>>();
  return (day) => {
    let users = memo.get(day);
    if (!users) {
      users = new Set(relevant.filter((m) => m.firstDay <= day && (m.lastDay === null || m.lastDay >= day)).map((m) => m.userId));
      memo.set(day, users);
    }
    return users;
  };
}

/**
 * quantile_cont of DuckDB: linear interpolation between the closest ranks at position (n - 1) × q, written
 * lo × (1 - d) + hi × d as DuckDB computes it (lo + (hi - lo) × d differs in the last bit now and then).
 */
export function quantileCont(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const d = pos - lo;
  return (sorted[lo] as number) * (1 - d) + (sorted[hi] as number) * d;
}

/**
 * The organization's day rows computed over the members alone (60_org_day.sql's derivation). `rows` must
 * reach 29 days before `days[0]` for the weekly and monthly active users, and hold every day of the users
 * who were members at some time, not only their days as members: D's figures count the members on D, and
 * its weekly and monthly users are the members on D active in D-6..D and D-29..D, though they joined on D
 * (docs/metrics.md §6).
 */
export function teamOrgDays(
  days: readonly string[],
  rows: readonly TeamUserDayRow[],
  members: (day: string) => ReadonlySet<string>,
): OrgDayRow[] {
  const rowsOf = byDay(rows);
  const out: OrgDayRow[] = [];
  for (const day of days) {
    const who = members(day);
    const users = (rowsOf.get(day) ?? []).filter((r) => who.has(r.user_id));
    const activeSince = (first: string) => {
      const seen = new Set<string>();
      for (let d = first; d <= day; d = addDays(d, 1))
        for (const r of rowsOf.get(d) ?? []) if (r.active && who.has(r.user_id)) seen.add(r.user_id);
      return seen.size;
    };
    const wau = activeSince(addDays(day, -6));
    const mau = activeSince(addDays(day, -29));
    if (users.length === 0 && mau === 0) continue;
    const sum = (f: (r: TeamUserDayRow) => number) => users.reduce((acc, r) => acc + f(r), 0);
    const ratios = users.map((r) => r.autonomy_ratio).filter((v): v is number => v !== null);
    const toolCalls = sum((r) => r.tool_calls);
    const sessionsWithEvents = sum((r) => r.sessions_with_events);
    const share = (n: number) => (toolCalls > 0 ? n / toolCalls : 0);
    out.push({
      day,
      daily_active_users: users.filter((r) => r.active).length,
      weekly_active_users: wau,
      monthly_active_users: mau,
      sessions: sum((r) => r.sessions),
      user_messages: sum((r) => r.user_messages),
      assistant_messages: sum((r) => r.assistant_messages),
      tool_calls: toolCalls,
      mcp_users_with_mcp: users.filter((r) => r.mcp_calls > 0).length,
      skills_invocations: sum((r) => r.skill_calls),
      slash_commands_invocations: sum((r) => r.slash_commands),
      hooks_invocations: sum((r) => r.hooks),
      web_users: users.filter((r) => r.clients.includes('web')).length,
      autonomy_ratio_avg: ratios.length ? ratios.reduce((a, b) => a + b, 0) / ratios.length : 0,
      autonomy_ratio_p50: quantileCont(ratios, 0.5),
      autonomy_ratio_p90: quantileCont(ratios, 0.9),
      tool_calls_per_session_avg: sessionsWithEvents > 0 ? toolCalls / sessionsWithEvents : 0,
      user_turns_per_session_avg: sessionsWithEvents > 0 ? sum((r) => r.user_turns) / sessionsWithEvents : 0,
      share_auto_high: share(sum((r) => r.calls_auto_high)),
      share_auto_medium: share(sum((r) => r.calls_auto_medium)),
      share_auto_low: share(sum((r) => r.calls_auto_low)),
      share_manual: share(sum((r) => r.calls_manual)),
      files_created: sum((r) => r.files_created),
      files_edited: sum((r) => r.files_edited),
      git_commits: sum((r) => r.git_commits),
      git_prs_created: sum((r) => r.git_prs_created),
    });
  }
  return out;
}

/** The rows of users who were members on the row's own day. */
export const restrictRows = <T extends { day: string; user_id: string }>(
  rows: readonly T[],
  members: (day: string) => ReadonlySet<string>,
): T[] => rows.filter((r) => members(r.day).has(r.user_id));

/** Breakdown rows summed over the members (for client and agent_users, each user's row counts 1: users). */
export function teamBreakdowns(rows: readonly UserBreakdownRow[]): BreakdownRow[] {
  const sums = new Map<string, BreakdownRow>();
  for (const r of rows) {
    const k = `${r.day}\u0000${r.kind}\u0000${r.key}`;
    const row = sums.get(k) ?? { day: r.day, kind: r.kind, key: r.key, count: 0 };
    row.count += r.count;
    sums.set(k, row);
  }
  return [...sums.values()];
}

export function teamHooks(rows: readonly UserHookRow[]): HookRow[] {
  const sums = new Map<string, HookRow>();
  for (const r of rows) {
    const k = `${r.day}\u0000${r.event}\u0000${r.matcher}\u0000${r.command}`;
    const row = sums.get(k) ?? { day: r.day, event: r.event, matcher: r.matcher, command: r.command, count: 0 };
    row.count += r.count;
    sums.set(k, row);
  }
  return [...sums.values()];
}

/** Millionths: pipeline/sql/30_tokens.sql sums the unrounded figures as DECIMAL(38, 6). */
const MICROS = 1_000_000n;

/**
 * The group's billable tokens of each model on a day: the members' unrounded figures summed, then rounded
 * half up, exactly as the organization's figure is (30_tokens.sql): in millionths, as integers. A sum of
 * doubles can land just under a half (0.1 + 4.1 + 0.3 is 4.499999999999999), and a team of everyone would
 * then show a token less than its organization.
 */
export function roundedByModel(raw: readonly RawBillableRow[]): Map<string, number> {
  const sums = new Map<string, bigint>();
  for (const r of raw) {
    const k = `${r.day}\u0000${r.model}`;
    sums.set(k, (sums.get(k) ?? 0n) + BigInt(Math.round(r.raw_billable * Number(MICROS))));
  }
  return new Map([...sums].map(([k, v]) => [k, Number((v + MICROS / 2n) / MICROS)]));
}

/**
 * The members' token rows with billable tokens shared out of the team's rounded figure per day and model:
 * each user floor(raw), plus one for the largest remainders (equal ones: user id first) until the shares
 * sum to it; a user's change from their organization share goes to their agent row with the most billable
 * tokens (equal ones: agent name first).
 */
export function teamTokenRows(tokens: readonly TokenRow[], raw: readonly RawBillableRow[]): TokenRow[] {
  const totals = roundedByModel(raw);
  const shares = new Map<string, number>();
  const byDayModel = groupBy(raw, (r) => `${r.day}\u0000${r.model}`);
  for (const [k, rows] of byDayModel) {
    const total = totals.get(k) ?? 0;
    const floors = rows.map((r) => Math.floor(r.raw_billable));
    let left = total - floors.reduce((a, b) => a + b, 0);
    const order = rows
      .map((r, i) => ({ i, rest: r.raw_billable - Math.floor(r.raw_billable), user: r.user_id }))
      .sort((a, b) => b.rest - a.rest || (a.user < b.user ? -1 : a.user > b.user ? 1 : 0));
    for (const o of order) {
      const bonus = left > 0 ? 1 : 0;
      left -= bonus;
      shares.set(`${k}\u0000${o.user}`, (floors[o.i] as number) + bonus);
    }
  }
  const out = tokens.map((t) => ({ ...t }));
  const groups = groupBy(out, (t) => `${t.day}\u0000${t.model}\u0000${t.user_id}`);
  for (const [k, rows] of groups) {
    const share = shares.get(k);
    if (share === undefined) continue;
    const delta = share - rows.reduce((a, r) => a + r.billable_tokens, 0);
    if (delta === 0) continue;
    const target = [...rows].sort((a, b) => b.billable_tokens - a.billable_tokens || (a.agent < b.agent ? -1 : 1))[0] as TokenRow;
    target.billable_tokens += delta;
  }
  return out;
}

/** Rows by day: each day's rows are read once per team, not found again in the whole range. */
const byDay = <T extends { day: string }>(rows: readonly T[]): Map<string, T[]> => groupBy(rows, (r) => r.day);

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return map;
}

export interface TeamRef {
  id: string;
  name: string;
}

const byName = (a: { group_key: string }, b: { group_key: string }) => (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0);

/** Each day's teams with their direct members, leaving out teams below the minimum size that day. */
export function teamsOnDays(days: readonly string[], teams: readonly TeamRef[], memberships: readonly Membership[], minSize: number) {
  const out: { day: string; team: TeamRef; members: ReadonlySet<string> }[] = [];
  const perTeam = teams.map((team) => ({ team, members: membersByDay(memberships, new Set([team.id])) }));
  for (const day of days)
    for (const { team, members } of perTeam) {
      const users = members(day);
      if (users.size >= minSize && users.size > 0) out.push({ day, team, members: users });
    }
  return out;
}

/** group_by=team on /tokens: `{date, group_key, billable_tokens, input_tokens, output_tokens, cost_usd}`. */
export function tokensByTeam(
  days: readonly string[],
  teams: readonly TeamRef[],
  memberships: readonly Membership[],
  minSize: number,
  tokens: readonly TokenRow[],
  raw: readonly RawBillableRow[],
) {
  const rows = [];
  const tokensOf = byDay(tokens);
  const rawOf = byDay(raw);
  for (const { day, team, members } of teamsOnDays(days, teams, memberships, minSize)) {
    const mine = (tokensOf.get(day) ?? []).filter((t) => members.has(t.user_id));
    const billable = [...roundedByModel((rawOf.get(day) ?? []).filter((r) => members.has(r.user_id))).values()].reduce((a, b) => a + b, 0);
    const input = mine.reduce((a, t) => a + t.input_tokens, 0);
    const output = mine.reduce((a, t) => a + t.output_tokens, 0);
    if (billable || input || output)
      rows.push({
        date: day,
        group_key: team.name,
        billable_tokens: billable,
        input_tokens: input,
        output_tokens: output,
        cost_usd: costOf(mine),
      });
  }
  return sortRows(rows);
}

/** group_by=team on /tools, /activity and /productivity: sums (or counts) of the direct members' day rows. */
export function userFiguresByTeam<F extends string>(
  days: readonly string[],
  teams: readonly TeamRef[],
  memberships: readonly Membership[],
  minSize: number,
  userDays: readonly UserDayRow[],
  fields: Record<F, (rows: UserDayRow[]) => number>,
) {
  const rows: ({ date: string; group_key: string } & Record<F, number>)[] = [];
  const rowsOf = byDay(userDays);
  for (const { day, team, members } of teamsOnDays(days, teams, memberships, minSize)) {
    const mine = (rowsOf.get(day) ?? []).filter((r) => members.has(r.user_id));
    const figures = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, (f as (rows: UserDayRow[]) => number)(mine)])) as Record<
      F,
      number
    >;
    if (Object.values<number>(figures).some((v) => v !== 0)) rows.push({ date: day, group_key: team.name, ...figures });
  }
  return sortRows(rows);
}

const sortRows = <T extends { date: string; group_key: string }>(rows: T[]) =>
  rows.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : byName(a, b)));

const total = (f: (r: UserDayRow) => number) => (rows: UserDayRow[]) => rows.reduce((a, r) => a + f(r), 0);
export const TOOL_FIELDS = { tool_calls: total((r) => r.tool_calls) };
export const ACTIVITY_FIELDS = { daily_active_users: (rows: UserDayRow[]) => rows.filter((r) => r.active).length };
export const PRODUCTIVITY_FIELDS = {
  files_created: total((r) => r.files_created),
  files_edited: total((r) => r.files_edited),
  git_commits: total((r) => r.git_commits),
  git_prs_created: total((r) => r.git_prs_created),
};

/**
 * Why a team= filter over these members is refused (undefined: allowed): a day of the range on which it
 * covers some users but fewer than the minimum team size.
 */
export function belowMinimum(days: readonly string[], members: (day: string) => ReadonlySet<string>, minSize: number): string | undefined {
  for (const day of days) {
    const n = members(day).size;
    if (n > 0 && n < minSize) return day;
  }
  return undefined;
}
