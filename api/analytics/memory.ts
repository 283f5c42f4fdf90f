// The analytics read model: an organization's daily aggregate rows held in memory, so that a cold answer
// (one the answer cache does not hold) costs a range lookup and the assembly, not four DuckDB statements.
// Measured on the 10M-event bench (500 users): a statement over these small tables costs 1 to 3 ms of
// planning and execution and the tokens rows another 2 to 4 ms of conversion to JS, on the single
// connection every request queues behind; picking the same rows out of memory costs microseconds.
//
// The rows are the ones AnalyticsStore's statements return (the same columns and conversions, read once
// per organization without the date filter, sorted by day), and the answers are assembled by the same
// functions, so the figures are the SQL path's by construction; test/integration/analytics-memory
// compares the two answer for answer. What it holds is the stored data, never an answer: every request
// still selects its range and assembles its answer.
//
// Kept until the aggregates or the users change: a batch run (clear(), called where the answer cache is
// cleared) or a user created or removed (their e-mail is part of the rows). Memory is bounded by a row
// budget over all organizations held (oldest loaded out first); an organization larger than the whole
// budget is answered by SQL.
import type { Db } from '../../common/db/duckdb.ts';
import { DEFAULT_READ_MODEL_LIMITS, type ReadModelLimits } from '../../common/serve-defaults.ts';
import type { AnalyticsReader, BreakdownRow, HookRow, OrgDayRow, TokenRow, UserDayRow } from './store.ts';

/** Each table of an organization, without the date filter, sorted by day (the SELECTs of ANALYTICS_SQL). */
export const READ_MODEL_SQL = {
  count: `SELECT (SELECT count(*) FROM agg_org_day WHERE org_id = $org)
                + (SELECT count(*) FROM agg_breakdown_day WHERE org_id = $org)
                + (SELECT count(*) FROM agg_hooks_day WHERE org_id = $org)
                + (SELECT count(*) FROM agg_tokens_day WHERE org_id = $org)
                + (SELECT count(*) FROM agg_user_day WHERE org_id = $org) AS n`,
  orgDays: 'SELECT CAST(day AS VARCHAR) AS day, * EXCLUDE (org_id, day) FROM agg_org_day WHERE org_id = $org ORDER BY day',
  breakdown: 'SELECT CAST(day AS VARCHAR) AS day, kind, key, count FROM agg_breakdown_day WHERE org_id = $org ORDER BY day',
  hooks: 'SELECT CAST(day AS VARCHAR) AS day, event, matcher, command, count FROM agg_hooks_day WHERE org_id = $org ORDER BY day',
  tokens: `SELECT CAST(t.day AS VARCHAR) AS day, t.user_id, u.email AS user_email, t.model, t.thinking, t.input_tokens, t.output_tokens,
                  t.cache_read_tokens, t.cache_write_tokens, t.billable_tokens
           FROM agg_tokens_day t LEFT JOIN users u ON u.id = t.user_id AND u.org_id = t.org_id
           WHERE t.org_id = $org ORDER BY t.day`,
  // The columns of UserDayRow (what userRecords reads), not the bookkeeping columns of the batch.
  userRows: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.active, a.tool_calls, a.user_turns, a.mcp_calls,
                    a.skill_calls, a.slash_commands, a.hooks, a.sessions, a.user_messages, a.assistant_messages, a.files_created,
                    a.files_edited, a.git_commits, a.git_prs_created, a.billable_tokens, a.primary_model, a.primary_model_tier,
                    a.autonomy_ratio, a.delegation_level, a.languages, a.clients
             FROM agg_user_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id
             WHERE a.org_id = $org ORDER BY a.day, a.user_id`,
} as const;

/** Rows sorted by day, and where each range of days starts (binary search on the day strings). */
class DayIndexed<T extends { day: string }> {
  constructor(readonly rows: T[]) {}

  /** Index of the first row whose day is ≥ day. */
  private lower(day: string): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.rows[mid]!.day < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The rows from `from` to `to` inclusive (YYYY-MM-DD strings order as the dates do). */
  range(from: string, to: string): T[] {
    // The successor of `to` in string order among YYYY-MM-DD values: every day ≤ to sorts before it.
    return this.rows.slice(this.lower(from), this.lower(`${to}\u0000`));
  }
}

interface OrgModel {
  orgDays: DayIndexed<OrgDayRow>;
  breakdown: DayIndexed<BreakdownRow>;
  hooks: DayIndexed<HookRow>;
  tokens: DayIndexed<TokenRow>;
  userDays: DayIndexed<UserDayRow>;
  rows: number;
}

export { DEFAULT_READ_MODEL_LIMITS, type ReadModelLimits };

/** Repeated strings (days, user ids, e-mails, models, keys) kept once: they are most of a row's bytes. */
function interner(): <T>(value: T) => T {
  const seen = new Map<string, string>();
  return <T>(value: T): T => {
    if (typeof value !== 'string') return value;
    const known = seen.get(value);
    if (known !== undefined) return known as T;
    seen.set(value, value);
    return value;
  };
}

function internRows<T extends Record<string, unknown>>(rows: T[], intern: <V>(value: V) => V): T[] {
  for (const row of rows) for (const key of Object.keys(row)) row[key as keyof T] = intern(row[key as keyof T]);
  return rows;
}

export class AnalyticsReadModel implements AnalyticsReader {
  private readonly orgs = new Map<string, OrgModel>();
  /** Organizations found larger than the whole budget: answered by SQL until the next clear(). */
  private readonly tooLarge = new Set<string>();
  private readonly loading = new Map<string, Promise<OrgModel | undefined>>();
  /** Bumped by clear(): a load that began before it read rows that may be gone, so it is not kept. */
  private generation = 0;
  private held = 0;
  readonly stats = { loads: 0, sqlFallbacks: 0 };

  constructor(
    private readonly db: Db,
    /** The SQL path, for organizations over the budget (and the reference the tests compare with). */
    private readonly sql: AnalyticsReader,
    private readonly limits: ReadModelLimits = DEFAULT_READ_MODEL_LIMITS,
  ) {}

  /** Rows held now, over all organizations. */
  get heldRows(): number {
    return this.held;
  }

  /** Forgets everything held (a batch committed, or users changed). */
  clear(): void {
    this.generation++;
    this.orgs.clear();
    this.loading.clear();
    this.tooLarge.clear();
    this.held = 0;
  }

  private async model(org: string): Promise<OrgModel | undefined> {
    if (this.limits.maxRows <= 0 || this.tooLarge.has(org)) return undefined;
    const held = this.orgs.get(org);
    if (held) return held;
    let running = this.loading.get(org);
    if (!running) {
      const generation = this.generation;
      running = this.load(org, generation).finally(() => {
        if (this.loading.get(org) === running) this.loading.delete(org);
      });
      this.loading.set(org, running);
    }
    return running;
  }

  private async load(org: string, generation: number): Promise<OrgModel | undefined> {
    const [count] = await this.db.all<{ n: number }>(READ_MODEL_SQL.count, { org });
    const rows = count?.n ?? 0;
    if (rows > this.limits.maxRows) {
      if (generation === this.generation) this.tooLarge.add(org);
      return undefined;
    }
    const p = { org };
    const intern = interner();
    // One after another: they share the one connection anyway.
    const orgDays = internRows(await this.db.all<OrgDayRow & Record<string, unknown>>(READ_MODEL_SQL.orgDays, p), intern);
    const breakdown = internRows(await this.db.all<BreakdownRow & Record<string, unknown>>(READ_MODEL_SQL.breakdown, p), intern);
    const hooks = internRows(await this.db.all<HookRow & Record<string, unknown>>(READ_MODEL_SQL.hooks, p), intern);
    const tokens = internRows(await this.db.all<TokenRow & Record<string, unknown>>(READ_MODEL_SQL.tokens, p), intern);
    const userDays = internRows(await this.db.all<UserDayRow & Record<string, unknown>>(READ_MODEL_SQL.userRows, p), intern);
    for (const row of userDays) {
      row.languages = row.languages.map(intern);
      row.clients = row.clients.map(intern);
    }
    const model: OrgModel = {
      orgDays: new DayIndexed(orgDays),
      breakdown: new DayIndexed(breakdown),
      hooks: new DayIndexed(hooks),
      tokens: new DayIndexed(tokens),
      userDays: new DayIndexed(userDays),
      rows: orgDays.length + breakdown.length + hooks.length + tokens.length + userDays.length,
    };
    this.stats.loads++;
    // Rows read before a clear() answer the requests that waited for them, but are not kept.
    if (generation !== this.generation) return model;
    this.orgs.set(org, model);
    this.held += model.rows;
    for (const [other, held] of this.orgs) {
      if (this.held <= this.limits.maxRows || other === org) break;
      this.orgs.delete(other);
      this.held -= held.rows;
    }
    return model;
  }

  async orgDays(org: string, from: string, to: string): Promise<OrgDayRow[]> {
    const model = await this.model(org);
    if (!model) return this.fallback().orgDays(org, from, to);
    return model.orgDays.range(from, to);
  }

  async breakdown(org: string, from: string, to: string, kinds: string[]): Promise<BreakdownRow[]> {
    const model = await this.model(org);
    if (!model) return this.fallback().breakdown(org, from, to, kinds);
    return model.breakdown.range(from, to).filter((r) => kinds.includes(r.kind));
  }

  async hooks(org: string, from: string, to: string): Promise<HookRow[]> {
    const model = await this.model(org);
    if (!model) return this.fallback().hooks(org, from, to);
    return model.hooks.range(from, to);
  }

  async tokens(org: string, from: string, to: string): Promise<TokenRow[]> {
    const model = await this.model(org);
    if (!model) return this.fallback().tokens(org, from, to);
    return model.tokens.range(from, to);
  }

  async userPage(org: string, from: string, to: string, cursor: string | undefined, limit: number): Promise<string[]> {
    const model = await this.model(org);
    if (!model) return this.fallback().userPage(org, from, to, cursor, limit);
    const ids = new Set<string>();
    for (const row of model.userDays.range(from, to)) if (cursor === undefined || row.user_id > cursor) ids.add(row.user_id);
    // User ids are ASCII (usr_ and hex digits): JS string order is DuckDB's VARCHAR order.
    return [...ids].sort(byString).slice(0, limit + 1);
  }

  async userRows(org: string, from: string, to: string, users: string[]): Promise<UserDayRow[]> {
    if (users.length === 0) return [];
    const model = await this.model(org);
    if (!model) return this.fallback().userRows(org, from, to, users);
    const wanted = new Set(users);
    // The range is sorted by day, then user: a stable sort by user gives user, then day.
    return model.userDays
      .range(from, to)
      .filter((r) => wanted.has(r.user_id))
      .sort((a, b) => byString(a.user_id, b.user_id));
  }

  private fallback(): AnalyticsReader {
    this.stats.sqlFallbacks++;
    return this.sql;
  }
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
