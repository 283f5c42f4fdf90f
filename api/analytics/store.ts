// Reads the daily aggregates (never raw events) for the analytics endpoints.
import type { Db } from '../../common/db/duckdb.ts';

const RANGE = 'org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)';

export const ANALYTICS_SQL = {
  orgDays: `SELECT CAST(day AS VARCHAR) AS day, * EXCLUDE (org_id, day) FROM agg_org_day WHERE ${RANGE}`,
  breakdown: `SELECT CAST(day AS VARCHAR) AS day, kind, key, count FROM agg_breakdown_day WHERE ${RANGE} AND kind IN (SELECT unnest(string_split($kinds, ',')))`,
  hooks: `SELECT CAST(day AS VARCHAR) AS day, event, matcher, command, count FROM agg_hooks_day WHERE ${RANGE}`,
  tokens: `SELECT CAST(t.day AS VARCHAR) AS day, t.user_id, u.email AS user_email, t.agent, t.model, t.thinking, t.input_tokens, t.output_tokens,
                  t.cache_read_tokens, t.cache_write_tokens, t.billable_tokens, t.cost_usd
           FROM agg_tokens_day t LEFT JOIN users u ON u.id = t.user_id AND u.org_id = t.org_id
           WHERE t.org_id = $org AND t.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)`,
  // Spend by repository (group_by=repo): per day, user and repository of the sessions' working directory.
  tokensByRepo: `SELECT CAST(day AS VARCHAR) AS day, user_id, repo, input_tokens, output_tokens, raw_billable, cost_usd
                 FROM agg_tokens_repo_day WHERE ${RANGE}`,
  userPage: `SELECT DISTINCT user_id FROM agg_user_day WHERE ${RANGE} AND ($cursor IS NULL OR user_id > $cursor) ORDER BY user_id LIMIT $limit`,
  userRows: `SELECT CAST(a.day AS VARCHAR) AS day, a.* EXCLUDE (org_id, day), u.email AS user_email
             FROM agg_user_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id
             WHERE a.org_id = $org AND a.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)
               AND a.user_id IN (SELECT unnest(string_split($users, ',')))
             ORDER BY a.user_id, a.day`,
} as const;

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

/** What the analytics routes read: the rows of a range of days (AnalyticsStore in SQL, or the read model). */
export interface AnalyticsReader {
  orgDays(org: string, from: string, to: string): Promise<OrgDayRow[]>;
  breakdown(org: string, from: string, to: string, kinds: string[]): Promise<BreakdownRow[]>;
  hooks(org: string, from: string, to: string): Promise<HookRow[]>;
  tokens(org: string, from: string, to: string): Promise<TokenRow[]>;
  /** One page of user ids (limit + 1 fetched to know whether more follow). */
  userPage(org: string, from: string, to: string, cursor: string | undefined, limit: number): Promise<string[]>;
  userRows(org: string, from: string, to: string, users: string[]): Promise<UserDayRow[]>;
}

export class AnalyticsStore implements AnalyticsReader {
  constructor(private readonly db: Db) {}

  private range(org: string, from: string, to: string) {
    return { org, from, to };
  }

  orgDays(org: string, from: string, to: string): Promise<OrgDayRow[]> {
    return this.db.all<OrgDayRow & Record<string, unknown>>(ANALYTICS_SQL.orgDays, this.range(org, from, to));
  }

  breakdown(org: string, from: string, to: string, kinds: string[]): Promise<BreakdownRow[]> {
    return this.db.all<BreakdownRow & Record<string, unknown>>(ANALYTICS_SQL.breakdown, {
      ...this.range(org, from, to),
      kinds: kinds.join(','),
    });
  }

  hooks(org: string, from: string, to: string): Promise<HookRow[]> {
    return this.db.all<HookRow & Record<string, unknown>>(ANALYTICS_SQL.hooks, this.range(org, from, to));
  }

  tokens(org: string, from: string, to: string): Promise<TokenRow[]> {
    return this.db.all<TokenRow & Record<string, unknown>>(ANALYTICS_SQL.tokens, this.range(org, from, to));
  }

  /** group_by=repo's rows (read from SQL: the read model does not hold them). */
  tokensByRepo(org: string, from: string, to: string): Promise<RepoTokenRow[]> {
    return this.db.all<RepoTokenRow & Record<string, unknown>>(ANALYTICS_SQL.tokensByRepo, this.range(org, from, to));
  }

  /** One page of user ids (limit + 1 fetched to know whether more follow). */
  async userPage(org: string, from: string, to: string, cursor: string | undefined, limit: number): Promise<string[]> {
    const rows = await this.db.all<{ user_id: string }>(ANALYTICS_SQL.userPage, {
      ...this.range(org, from, to),
      cursor: cursor ?? null,
      limit: limit + 1,
    });
    return rows.map((r) => r.user_id);
  }

  userRows(org: string, from: string, to: string, users: string[]): Promise<UserDayRow[]> {
    if (users.length === 0) return Promise.resolve([]);
    return this.db.all<UserDayRow & Record<string, unknown>>(ANALYTICS_SQL.userRows, {
      ...this.range(org, from, to),
      users: users.join(','),
    });
  }
}
