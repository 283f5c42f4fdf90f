// The analytics row sets: each kind of daily aggregate row the analytics figures are built from, read by
// one SQL statement per kind (never raw events). The read model (memory.ts) loads an organization's rows
// of each set a window of days at a time with these statements, the SQL path answers a range with the
// same ones, and today's live build reads its provisional rows with them too (api/today/store.ts): a
// new kind of row is one entry here, and its figure is one reader in reader.ts.
import type { Db } from '../../common/db/duckdb.ts';

const RANGE = 'a.org_id = $org AND a.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)';
/** A per-user set restricted to some users ($users, comma-separated), or not ($users NULL). */
const USERS = "($users IS NULL OR a.user_id IN (SELECT unnest(string_split($users, ','))))";
const EMAIL = 'LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id';

/**
 * Each set's statement: its rows of the days $from to $to, sorted by day (then user and the rest of the
 * row's key, so that every reader sums in one order); a per-user set also takes $users. `table` is what
 * the read model counts before a load.
 */
export const ROW_SETS = {
  /** The organization's day figures (pipeline/sql/60_org_day.sql). */
  orgDays: {
    table: 'agg_org_day',
    perUser: false,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.* EXCLUDE (org_id, day) FROM agg_org_day a WHERE ${RANGE} ORDER BY a.day`,
  },
  breakdown: {
    table: 'agg_breakdown_day',
    perUser: false,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.kind, a.key, a.count FROM agg_breakdown_day a WHERE ${RANGE} ORDER BY a.day, a.kind, a.key`,
  },
  hooks: {
    table: 'agg_hooks_day',
    perUser: false,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.event, a.matcher, a.command, a.count FROM agg_hooks_day a WHERE ${RANGE}
          ORDER BY a.day, a.event, a.matcher, a.command`,
  },
  /** One user's usage of one model through one agent on a day, with the user's e-mail (null once removed). */
  tokens: {
    table: 'agg_tokens_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.agent, a.model, a.thinking, a.input_tokens,
                 a.output_tokens, a.cache_read_tokens, a.cache_write_tokens, a.billable_tokens, a.cost_usd
          FROM agg_tokens_day a ${EMAIL} WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id, a.agent, a.model, a.thinking`,
  },
  /** A user's day, with the counts the organization's ratios are built from (for team=). */
  userDays: {
    table: 'agg_user_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.active, a.tool_calls, a.user_turns, a.mcp_calls,
                 a.skill_calls, a.slash_commands, a.hooks, a.sessions, a.user_messages, a.assistant_messages, a.files_created,
                 a.files_edited, a.git_commits, a.git_prs_created, a.billable_tokens, a.primary_model, a.primary_model_tier,
                 a.autonomy_ratio, a.delegation_level, a.languages, a.clients, a.sessions_with_events, a.calls_auto_high,
                 a.calls_auto_medium, a.calls_auto_low, a.calls_manual, a.lines_added, a.landed_agent_lines, a.cost_usd
          FROM agg_user_day a ${EMAIL} WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id`,
  },
  /** The breakdowns per user (migration 021), which team= sums over the members. */
  userBreakdowns: {
    table: 'agg_user_breakdown_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.kind, a.key, a.count FROM agg_user_breakdown_day a
          WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id, a.kind, a.key`,
  },
  userHooks: {
    table: 'agg_user_hooks_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.event, a.matcher, a.command, a.count FROM agg_user_hooks_day a
          WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id, a.event, a.matcher, a.command`,
  },
  /** Each user's unrounded billable tokens per model (a team's credits are rounded over its members). */
  rawBillable: {
    table: 'agg_user_model_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.model, a.raw_billable FROM agg_user_model_day a
          WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id, a.model`,
  },
  /** Spend by repository (group_by=repo): per day, user and repository of the sessions' working directory. */
  repoTokens: {
    table: 'agg_tokens_repo_day',
    perUser: true,
    sql: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.repo, a.input_tokens, a.output_tokens, a.raw_billable, a.cost_usd
          FROM agg_tokens_repo_day a WHERE ${RANGE} AND ${USERS} ORDER BY a.day, a.user_id, a.repo`,
  },
} as const satisfies Record<keyof RowTypes, { table: string; perUser: boolean; sql: string }>;

export interface OrgDayRow {
  day: string;
  daily_active_users: number;
  weekly_active_users: number;
  monthly_active_users: number;
  sessions: number;
  user_messages: number;
  assistant_messages: number;
  tool_calls: number;
  mcp_users_with_mcp: number;
  skills_invocations: number;
  slash_commands_invocations: number;
  hooks_invocations: number;
  web_users: number;
  autonomy_ratio_avg: number;
  autonomy_ratio_p50: number;
  autonomy_ratio_p90: number;
  tool_calls_per_session_avg: number;
  user_turns_per_session_avg: number;
  share_auto_high: number;
  share_auto_medium: number;
  share_auto_low: number;
  share_manual: number;
  files_created: number;
  files_edited: number;
  git_commits: number;
  git_prs_created: number;
}

export interface BreakdownRow {
  day: string;
  kind: string;
  key: string;
  count: number;
}
export interface HookRow {
  day: string;
  event: string;
  matcher: string;
  command: string;
  count: number;
}
/** One user's usage of one model through one agent on a day (a model used through two agents: two rows). */
export interface TokenRow {
  day: string;
  user_id: string;
  user_email: string | null;
  agent: string;
  model: string;
  thinking: boolean;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  billable_tokens: number;
  /** US dollars (docs/metrics.md §8); null when the model had no price. */
  cost_usd: number | null;
}
/** One user's usage in one repository on a day (group_by=repo). */
export interface RepoTokenRow {
  day: string;
  user_id: string;
  repo: string;
  input_tokens: number;
  output_tokens: number;
  raw_billable: number;
  cost_usd: number | null;
}
export interface UserDayRow {
  day: string;
  user_id: string;
  user_email: string | null;
  active: boolean;
  tool_calls: number;
  user_turns: number;
  mcp_calls: number;
  skill_calls: number;
  slash_commands: number;
  hooks: number;
  sessions: number;
  user_messages: number;
  assistant_messages: number;
  files_created: number;
  files_edited: number;
  git_commits: number;
  git_prs_created: number;
  billable_tokens: number;
  primary_model: string | null;
  primary_model_tier: string | null;
  autonomy_ratio: number | null;
  delegation_level: string | null;
  languages: string[];
  clients: string[];
  /** Code the agents wrote (docs/metrics.md §5): edit lines added, and landed agent lines (null on rows built before). */
  lines_added: number | null;
  landed_agent_lines: number | null;
  /** US dollars of the user's priced usage (null: none priced, or a row built before dollars). */
  cost_usd: number | null;
}

/** A user's day row with the counts the organization's ratios are built from. */
export interface TeamUserDayRow extends UserDayRow {
  sessions_with_events: number;
  calls_auto_high: number;
  calls_auto_medium: number;
  calls_auto_low: number;
  calls_manual: number;
}
export interface UserBreakdownRow extends BreakdownRow {
  user_id: string;
}
export interface UserHookRow extends HookRow {
  user_id: string;
}
export interface RawBillableRow {
  day: string;
  user_id: string;
  model: string;
  raw_billable: number;
}

/** The row of each set. */
export interface RowTypes {
  orgDays: OrgDayRow;
  breakdown: BreakdownRow;
  hooks: HookRow;
  tokens: TokenRow;
  userDays: TeamUserDayRow;
  userBreakdowns: UserBreakdownRow;
  userHooks: UserHookRow;
  rawBillable: RawBillableRow;
  repoTokens: RepoTokenRow;
}
/** A set's name (ROW_SETS has a statement for each, checked by the compiler). */
export type RowSet = keyof RowTypes;
export const ROW_SET_NAMES = Object.keys(ROW_SETS) as RowSet[];

/**
 * Where rows come from: the rows of a set for days `from` to `to` of an organization, sorted as its
 * statement sorts them; `users` restricts a per-user set to those users.
 */
export interface RowSource {
  rows<K extends RowSet>(set: K, org: string, from: string, to: string, users?: readonly string[]): Promise<RowTypes[K][]>;
  /**
   * Optional, a shortcut of rows(): the first `limit` users (by id) after `after` with a row of a per-user
   * set in the range, or undefined when the source cannot tell without them.
   */
  usersWithRows?(set: RowSet, org: string, from: string, to: string, after: string | undefined, limit: number): string[] | undefined;
  /** Optional: are these sets of the organization in memory (reading one user's rows costs no statement)? */
  holds?(org: string, sets: readonly RowSet[]): boolean;
}

/** A set's statement with its parameters (a per-user set's $users NULL: every user). */
export function rowSetQuery(set: RowSet, org: string, from: string, to: string, users?: readonly string[]) {
  const def = ROW_SETS[set];
  const params: Record<string, string | null> = { org, from, to };
  if (def.perUser) params['users'] = users ? users.join(',') : null;
  return { sql: def.sql, params };
}

/** The rows as DuckDB answers them: the SQL path, for organizations the read model does not hold. */
export class AnalyticsStore implements RowSource {
  constructor(private readonly db: Pick<Db, 'all'>) {}

  rows<K extends RowSet>(set: K, org: string, from: string, to: string, users?: readonly string[]): Promise<RowTypes[K][]> {
    if (users && users.length === 0) return Promise.resolve([]);
    const { sql, params } = rowSetQuery(set, org, from, to, users);
    return this.db.all<RowTypes[K] & Record<string, unknown>>(sql, params);
  }
}
