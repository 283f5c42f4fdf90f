// The analytics read model: an organization's daily aggregate rows held in memory, so that a cold answer
// (one the answer cache does not hold) costs a range lookup and the assembly, not four DuckDB statements.
// A statement over these small tables costs milliseconds of planning, execution and conversion to JS, on
// the single connection every request queues behind; picking the same rows out of memory costs
// microseconds (docs/performance.md has the cold answer's figures).
//
// The rows are the ones AnalyticsStore's statements return (the same columns and conversions, read once
// per organization without the date filter, sorted by day), and the answers are assembled by the same
// functions, so the figures are the SQL path's by construction; test/integration/analytics-memory
// compares the two answer for answer. What it holds is the stored data, never an answer: every request
// still selects its range and assembles its answer.
//
// Loaded in the background at an organization's first request, a week of days per statement (no request
// waits for it: until it is done, answers come from SQL). Kept until the aggregates or the users change:
// a batch run (clear(), called where the answer cache is cleared) or a user removed (their e-mail is part
// of the rows). Memory is bounded by a row budget over all organizations held (the least recently
// asked organization goes first); an organization larger than the whole
// budget is answered by SQL.
import type { Db } from '../../common/db/duckdb.ts';
import { DEFAULT_READ_MODEL_LIMITS, type ReadModelLimits } from '../../common/serve-defaults.ts';
import type { Holder, Source } from '../answers/changes.ts';
import type { AnalyticsReader, BreakdownRow, HookRow, OrgDayRow, TokenRow, UserDayRow } from './store.ts';

/**
 * The SELECTs of ANALYTICS_SQL for a window of days (the load reads an organization a window at a time,
 * so that no statement holds the one connection, or its conversion the event loop, for long).
 */
const WINDOW = 'org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)';
export const READ_MODEL_SQL = {
  extent: `SELECT CAST(min(day) AS VARCHAR) AS first, CAST(max(day) AS VARCHAR) AS last, sum(n)::BIGINT AS n FROM (
             SELECT min(day) AS day, count(*) AS n FROM agg_org_day WHERE org_id = $org
             UNION ALL SELECT max(day), 0 FROM agg_org_day WHERE org_id = $org
             UNION ALL SELECT min(day), count(*) FROM agg_breakdown_day WHERE org_id = $org
             UNION ALL SELECT max(day), 0 FROM agg_breakdown_day WHERE org_id = $org
             UNION ALL SELECT min(day), count(*) FROM agg_hooks_day WHERE org_id = $org
             UNION ALL SELECT max(day), 0 FROM agg_hooks_day WHERE org_id = $org
             UNION ALL SELECT min(day), count(*) FROM agg_tokens_day WHERE org_id = $org
             UNION ALL SELECT max(day), 0 FROM agg_tokens_day WHERE org_id = $org
             UNION ALL SELECT min(day), count(*) FROM agg_user_day WHERE org_id = $org
             UNION ALL SELECT max(day), 0 FROM agg_user_day WHERE org_id = $org)`,
  orgDays: `SELECT CAST(day AS VARCHAR) AS day, * EXCLUDE (org_id, day) FROM agg_org_day WHERE ${WINDOW} ORDER BY day`,
  breakdown: `SELECT CAST(day AS VARCHAR) AS day, kind, key, count FROM agg_breakdown_day WHERE ${WINDOW} ORDER BY day`,
  hooks: `SELECT CAST(day AS VARCHAR) AS day, event, matcher, command, count FROM agg_hooks_day WHERE ${WINDOW} ORDER BY day`,
  tokens: `SELECT CAST(t.day AS VARCHAR) AS day, t.user_id, u.email AS user_email, t.agent, t.model, t.thinking, t.input_tokens, t.output_tokens,
                  t.cache_read_tokens, t.cache_write_tokens, t.billable_tokens, t.cost_usd
           FROM agg_tokens_day t LEFT JOIN users u ON u.id = t.user_id AND u.org_id = t.org_id
           WHERE t.org_id = $org AND t.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) ORDER BY t.day`,
  // The columns of UserDayRow (what userRecords reads), not the bookkeeping columns of the batch.
  userRows: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.active, a.tool_calls, a.user_turns, a.mcp_calls,
                    a.skill_calls, a.slash_commands, a.hooks, a.sessions, a.user_messages, a.assistant_messages, a.files_created,
                    a.files_edited, a.git_commits, a.git_prs_created, a.billable_tokens, a.primary_model, a.primary_model_tier,
                    a.autonomy_ratio, a.delegation_level, a.languages, a.clients, a.lines_added, a.landed_agent_lines, a.cost_usd
             FROM agg_user_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id
             WHERE a.org_id = $org AND a.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) ORDER BY a.day, a.user_id`,
} as const;

/** Days per load statement: a week of a 500-user organization is about 15k rows. */
const WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

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

/** The row with its strings (and the strings of its lists) shared. */
function internRow<T extends Record<string, unknown>>(row: T, intern: <V>(value: V) => V): T {
  for (const key of Object.keys(row)) {
    const value = row[key];
    row[key as keyof T] = (Array.isArray(value) ? value.map(intern) : intern(value)) as T[keyof T];
  }
  return row;
}

export class AnalyticsReadModel implements AnalyticsReader, Holder {
  /** The aggregate rows, with their users' e-mails. */
  readonly reads: readonly Source[] = ['aggregates', 'users'];
  private readonly orgs = new Map<string, OrgModel>();
  /** Organizations found larger than the whole budget: answered by SQL until the next clear(). */
  private readonly tooLarge = new Set<string>();
  private readonly loading = new Map<string, Promise<void>>();
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
    this.orgGenerations.clear();
    this.orgs.clear();
    this.loading.clear();
    this.tooLarge.clear();
    this.held = 0;
  }

  /** Bumped by clearOrg(org): like generation, for one organization. */
  private readonly orgGenerations = new Map<string, number>();
  /** What a load of `org` compares with when it ends: changed by clear() and by clearOrg(org). */
  private stamp(org: string): string {
    return `${this.generation}.${this.orgGenerations.get(org) ?? 0}`;
  }

  forget(org: string | undefined): void {
    if (org === undefined) this.clear();
    else this.clearOrg(org);
  }

  /** Forgets one organization's rows (a batch of that organization alone committed); the others' stay. */
  clearOrg(org: string): void {
    this.orgGenerations.set(org, (this.orgGenerations.get(org) ?? 0) + 1);
    const held = this.orgs.get(org);
    if (held) this.held -= held.rows;
    this.orgs.delete(org);
    this.loading.delete(org);
    this.tooLarge.delete(org);
  }

  /**
   * The organization's rows when held; otherwise undefined (the caller reads DuckDB) and a load starts in
   * the background: no request waits for a load, those meanwhile are answered by SQL.
   */
  private model(org: string): OrgModel | undefined {
    const held = this.orgs.get(org);
    if (held) {
      // Most recently used last: the budget pushes out the organization asked for longest ago.
      this.orgs.delete(org);
      this.orgs.set(org, held);
      return held;
    }
    if (this.limits.maxRows > 0 && !this.tooLarge.has(org)) this.ready(org).catch((error: unknown) => this.onLoadError?.(error));
    return undefined;
  }

  /** Told when a background load fails (the answers go on from SQL; the next request tries again). */
  onLoadError: ((error: unknown) => void) | undefined;

  /** Loads the organization's rows if they are not held (or being loaded); resolves when done. */
  ready(org: string): Promise<void> {
    if (this.limits.maxRows <= 0 || this.orgs.has(org) || this.tooLarge.has(org)) return Promise.resolve();
    let running = this.loading.get(org);
    if (!running) {
      const started = this.load(org, this.stamp(org)).finally(() => {
        if (this.loading.get(org) === started) this.loading.delete(org);
      });
      running = started;
      this.loading.set(org, running);
    }
    return running;
  }

  private async load(org: string, stamp: string): Promise<void> {
    const [extent] = await this.db.all<{ first: string | null; last: string | null; n: number }>(READ_MODEL_SQL.extent, { org });
    const total = extent?.n ?? 0;
    if (total > this.limits.maxRows) {
      if (stamp === this.stamp(org)) this.tooLarge.add(org);
      return;
    }
    const intern = interner();
    const orgDays: OrgDayRow[] = [];
    const breakdown: BreakdownRow[] = [];
    const hooks: HookRow[] = [];
    const tokens: TokenRow[] = [];
    const userDays: UserDayRow[] = [];
    const read = async <T extends Record<string, unknown>>(sql: string, into: T[], p: Record<string, string>) => {
      for (const row of await this.db.all<T>(sql, p)) into.push(internRow(row, intern));
    };
    if (extent?.first && extent.last) {
      const last = Date.parse(extent.last);
      // Windows in day order, each read sorted by day: the arrays come out sorted by day.
      for (let ms = Date.parse(extent.first); ms <= last; ms += WINDOW_DAYS * DAY_MS) {
        if (stamp !== this.stamp(org)) return; // a batch ended meanwhile: these rows may be stale
        const p = { org, from: isoDay(ms), to: isoDay(Math.min(last, ms + (WINDOW_DAYS - 1) * DAY_MS)) };
        await read(READ_MODEL_SQL.orgDays, orgDays as (OrgDayRow & Record<string, unknown>)[], p);
        await read(READ_MODEL_SQL.breakdown, breakdown as (BreakdownRow & Record<string, unknown>)[], p);
        await read(READ_MODEL_SQL.hooks, hooks as (HookRow & Record<string, unknown>)[], p);
        await read(READ_MODEL_SQL.tokens, tokens as (TokenRow & Record<string, unknown>)[], p);
        await read(READ_MODEL_SQL.userRows, userDays as (UserDayRow & Record<string, unknown>)[], p);
      }
    }
    this.stats.loads++;
    // Rows read before a clear() may be stale: not kept.
    if (stamp !== this.stamp(org)) return;
    const model: OrgModel = {
      orgDays: new DayIndexed(orgDays),
      breakdown: new DayIndexed(breakdown),
      hooks: new DayIndexed(hooks),
      tokens: new DayIndexed(tokens),
      userDays: new DayIndexed(userDays),
      rows: orgDays.length + breakdown.length + hooks.length + tokens.length + userDays.length,
    };
    this.orgs.set(org, model);
    this.held += model.rows;
    for (const [other, held] of this.orgs) {
      if (this.held <= this.limits.maxRows || other === org) break;
      this.orgs.delete(other);
      this.held -= held.rows;
    }
  }

  async orgDays(org: string, from: string, to: string): Promise<OrgDayRow[]> {
    const model = this.model(org);
    if (!model) return this.fallback().orgDays(org, from, to);
    return model.orgDays.range(from, to);
  }

  async breakdown(org: string, from: string, to: string, kinds: string[]): Promise<BreakdownRow[]> {
    const model = this.model(org);
    if (!model) return this.fallback().breakdown(org, from, to, kinds);
    return model.breakdown.range(from, to).filter((r) => kinds.includes(r.kind));
  }

  async hooks(org: string, from: string, to: string): Promise<HookRow[]> {
    const model = this.model(org);
    if (!model) return this.fallback().hooks(org, from, to);
    return model.hooks.range(from, to);
  }

  async tokens(org: string, from: string, to: string): Promise<TokenRow[]> {
    const model = this.model(org);
    if (!model) return this.fallback().tokens(org, from, to);
    return model.tokens.range(from, to);
  }

  async userPage(org: string, from: string, to: string, cursor: string | undefined, limit: number): Promise<string[]> {
    const model = this.model(org);
    if (!model) return this.fallback().userPage(org, from, to, cursor, limit);
    const ids = new Set<string>();
    for (const row of model.userDays.range(from, to)) if (cursor === undefined || row.user_id > cursor) ids.add(row.user_id);
    // User ids are ASCII (usr_ and hex digits): JS string order is DuckDB's VARCHAR order.
    return [...ids].sort(byString).slice(0, limit + 1);
  }

  async userRows(org: string, from: string, to: string, users: string[]): Promise<UserDayRow[]> {
    if (users.length === 0) return [];
    const model = this.model(org);
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
