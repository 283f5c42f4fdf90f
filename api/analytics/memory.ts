// The analytics read model: an organization's daily aggregate rows held in memory, so that a cold answer
// (one the answer cache does not hold) costs a range lookup and the assembly, not four DuckDB statements.
// A statement over these small tables costs milliseconds of planning, execution and conversion to JS, on
// the single connection every request queues behind; picking the same rows out of memory costs
// microseconds (docs/performance.md has the cold answer's figures).
//
// The rows are those of store.ts's ROW_SETS, read by the same statements (a window of days at a time,
// without the user filter), so that the figures of reader.ts are the SQL path's by construction;
// test/integration/analytics-memory compares the two answer for answer. What it holds is the stored data,
// never an answer: every request still selects its range and assembles its answer.
//
// Each set of an organization is loaded in the background (a week of days per statement; no request
// waits for it: until it is done, its rows come from SQL): the sets the ungrouped answers read at the
// server's start (preload), any set at its first request, all of them by ready(). Kept until the
// aggregates or the users change: a batch run (clear(), called where the answer cache is cleared) or a
// user removed (their e-mail is part of the rows); what was held is then loaded again. Memory is bounded
// by a row budget over all organizations held (the least recently asked organization goes first); a set
// that would take its organization over the whole budget is answered by SQL. Values derived from the
// rows (the answers' pieces, pieces.ts) are kept with them.
import type { Db } from '../../common/db/duckdb.ts';
import { DEFAULT_READ_MODEL_LIMITS, type ReadModelLimits } from '../../common/serve-defaults.ts';
import type { Holder, Source } from '../answers/changes.ts';
import { ROW_SET_NAMES, ROW_SETS, type RowSet, type RowSource, type RowTypes, rowSetQuery } from './store.ts';

/** A set's extent in an organization: its first and last day and its number of rows. */
const extentSql = (table: string) =>
  `SELECT CAST(min(day) AS VARCHAR) AS first, CAST(max(day) AS VARCHAR) AS last, count(*)::BIGINT AS n FROM ${table} WHERE org_id = $org`;

/** The sets the ungrouped answers read: what a server loads at its start. */
export const PRELOADED_SETS: readonly RowSet[] = ['orgDays', 'breakdown', 'hooks', 'tokens', 'userDays'];
/** Organizations with aggregates, the most recently active first. */
const PRELOAD_ORDER = 'SELECT org_id FROM agg_org_day GROUP BY org_id ORDER BY max(day) DESC, org_id';

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

  /** Where the rows from `from` to `to` inclusive are: rows[lo] to rows[hi - 1] (YYYY-MM-DD strings order as the dates do). */
  bounds(from: string, to: string): { lo: number; hi: number } {
    // The successor of `to` in string order among YYYY-MM-DD values: every day ≤ to sorts before it.
    return { lo: this.lower(from), hi: this.lower(`${to}\u0000`) };
  }

  /** The rows from `from` to `to` inclusive. */
  range(from: string, to: string): T[] {
    const { lo, hi } = this.bounds(from, to);
    return this.rows.slice(lo, hi);
  }

  /** Is there a row from `from` to `to`? */
  any(from: string, to: string): boolean {
    const at = this.lower(from);
    return at < this.rows.length && this.rows[at]!.day <= to;
  }

  private users: { ids: string[]; of: Map<string, DayIndexed<T>> } | undefined;

  /** A per-user set's rows by user (each in day order), and the users sorted: made at the first ask. */
  byUser(): { ids: string[]; of: Map<string, DayIndexed<T>> } {
    if (!this.users) {
      const lists = new Map<string, T[]>();
      for (const row of this.rows) {
        const user = (row as { user_id?: string }).user_id as string;
        const list = lists.get(user);
        if (list) list.push(row);
        else lists.set(user, [row]);
      }
      this.users = { ids: [...lists.keys()].sort(byString), of: new Map([...lists].map(([u, rows]) => [u, new DayIndexed(rows)])) };
    }
    return this.users;
  }
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Below this many users, a per-user set's rows of some users are found user by user, not by a scan of the range. */
const FEW_USERS = 100;

interface OrgModel {
  sets: Map<RowSet, DayIndexed<{ day: string }>>;
  rows: number;
  /** Values derived from the rows (answer pieces, api/analytics/pieces.ts), dropped with them. */
  derived: Map<string, unknown>;
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

export class AnalyticsReadModel implements RowSource, Holder {
  /** The aggregate rows, with their users' e-mails. */
  readonly reads: readonly Source[] = ['aggregates', 'users'];
  private readonly orgs = new Map<string, OrgModel>();
  /** Sets (organization|set) found too large for the budget: answered by SQL until the next clear(). */
  private readonly tooLarge = new Set<string>();
  private readonly loading = new Map<string, Promise<void>>();
  /** Bumped by clear(): a load that began before it read rows that may be gone, so it is not kept. */
  private generation = 0;
  private held = 0;
  readonly stats = { loads: 0, sqlFallbacks: 0 };

  constructor(
    private readonly db: Db,
    /** The SQL path, for sets over the budget or not loaded yet (and the reference the tests compare with). */
    private readonly sql: RowSource,
    private readonly limits: ReadModelLimits = DEFAULT_READ_MODEL_LIMITS,
  ) {}

  /** Rows held now, over all organizations. */
  get heldRows(): number {
    return this.held;
  }

  /** Forgets everything held (a batch committed, or users changed), and loads again what was held. */
  clear(): void {
    const held = [...this.orgs].map(([org, model]) => [org, [...model.sets.keys()]] as const);
    this.generation++;
    this.orgGenerations.clear();
    this.orgs.clear();
    this.loading.clear();
    this.tooLarge.clear();
    this.held = 0;
    for (const [org, sets] of held) this.reload(org, sets);
  }

  /**
   * After a change, the sets an organization had are loaded again in the background: the first answers
   * after a batch (a dashboard opened in the morning) find them held rather than read from DuckDB.
   */
  private reload(org: string, sets: readonly RowSet[]): void {
    if (this.closed || sets.length === 0) return;
    this.ready(org, sets).catch((error: unknown) => this.onLoadError?.(error));
  }

  /**
   * Loads the sets the organizations' ungrouped answers read, most recently active organization first,
   * while they take less than half the budget (the server's start: the first answers find them held).
   */
  async preload(): Promise<void> {
    if (this.limits.maxRows <= 0) return;
    const orgs = await this.db.all<{ org_id: string }>(PRELOAD_ORDER);
    for (const { org_id } of orgs) {
      if (this.closed || this.held >= this.limits.maxRows / 2) return;
      await this.ready(org_id, PRELOADED_SETS);
    }
  }

  private closed = false;

  /** Stops loading (the server closes): a load under way ends at its next statement; resolves when all have. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.loading.values()]);
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

  /** Forgets one organization's rows (a batch of that organization alone committed), and loads them again; the others' stay. */
  clearOrg(org: string): void {
    this.orgGenerations.set(org, (this.orgGenerations.get(org) ?? 0) + 1);
    const held = this.orgs.get(org);
    if (held) this.held -= held.rows;
    this.orgs.delete(org);
    for (const key of [...this.loading.keys()]) if (key.startsWith(`${org}|`)) this.loading.delete(key);
    for (const key of [...this.tooLarge]) if (key.startsWith(`${org}|`)) this.tooLarge.delete(key);
    if (held) this.reload(org, [...held.sets.keys()]);
  }

  /**
   * The set's rows of the organization when held; otherwise undefined (the caller reads DuckDB) and a load
   * starts in the background: no request waits for a load, those meanwhile are answered by SQL.
   */
  private heldSet<K extends RowSet>(org: string, set: K): DayIndexed<RowTypes[K]> | undefined {
    const model = this.orgs.get(org);
    const rows = model?.sets.get(set);
    if (model && rows) {
      // Most recently used last: the budget pushes out the organization asked for longest ago.
      this.orgs.delete(org);
      this.orgs.set(org, model);
      return rows as unknown as DayIndexed<RowTypes[K]>;
    }
    if (this.limits.maxRows > 0 && !this.tooLarge.has(`${org}|${set}`))
      this.load(org, set).catch((error: unknown) => this.onLoadError?.(error));
    return undefined;
  }

  /** Told when a background load fails (the answers go on from SQL; the next request tries again). */
  onLoadError: ((error: unknown) => void) | undefined;

  /** Loads the organization's sets (all by default) that are not held; resolves when done. */
  async ready(org: string, sets: readonly RowSet[] = ROW_SET_NAMES): Promise<void> {
    for (const set of sets) await this.load(org, set);
  }

  /** Loads one set of the organization if it is not held (or being loaded); resolves when done. */
  private load(org: string, set: RowSet): Promise<void> {
    const key = `${org}|${set}`;
    if (this.limits.maxRows <= 0 || this.closed || this.orgs.get(org)?.sets.has(set) || this.tooLarge.has(key)) return Promise.resolve();
    let running = this.loading.get(key);
    if (!running) {
      const started = this.read(org, set, this.stamp(org)).finally(() => {
        if (this.loading.get(key) === started) this.loading.delete(key);
      });
      running = started;
      this.loading.set(key, running);
    }
    return running;
  }

  private async read(org: string, set: RowSet, stamp: string): Promise<void> {
    const [extent] = await this.db.all<{ first: string | null; last: string | null; n: number }>(extentSql(ROW_SETS[set].table), { org });
    const total = Number(extent?.n ?? 0);
    if (total + (this.orgs.get(org)?.rows ?? 0) > this.limits.maxRows) {
      if (stamp === this.stamp(org)) this.tooLarge.add(`${org}|${set}`);
      return;
    }
    const intern = interner();
    const rows: Record<string, unknown>[] = [];
    if (extent?.first && extent.last) {
      const last = Date.parse(extent.last);
      // Windows in day order, each read sorted by day: the rows come out sorted as the statement sorts them.
      for (let ms = Date.parse(extent.first); ms <= last; ms += WINDOW_DAYS * DAY_MS) {
        if (stamp !== this.stamp(org) || this.closed) return; // a batch ended meanwhile: these rows may be stale
        const { sql, params } = rowSetQuery(set, org, isoDay(ms), isoDay(Math.min(last, ms + (WINDOW_DAYS - 1) * DAY_MS)));
        for (const row of await this.db.all(sql, params)) rows.push(internRow(row, intern));
      }
    }
    this.stats.loads++;
    // Rows read before a clear() may be stale: not kept.
    if (stamp !== this.stamp(org)) return;
    let model = this.orgs.get(org);
    if (!model) this.orgs.set(org, (model = { sets: new Map(), rows: 0, derived: new Map() }));
    model.sets.set(set, new DayIndexed(rows as unknown as { day: string }[]));
    model.rows += rows.length;
    this.held += rows.length;
    for (const [other, held] of this.orgs) {
      if (this.held <= this.limits.maxRows || other === org) break;
      this.orgs.delete(other);
      this.held -= held.rows;
    }
  }

  /** Are these sets of the organization held (so that reading them costs no statement)? */
  holds(org: string, sets: readonly RowSet[]): boolean {
    const model = this.orgs.get(org);
    return model !== undefined && sets.every((set) => model.sets.has(set));
  }

  /**
   * A value derived from the organization's rows by `build`, kept while they are held: made once, unless
   * a change of the rows (clear, clearOrg) happens while it is made.
   */
  derived<T>(org: string, key: string, build: () => Promise<T>): T | Promise<T> {
    const known = this.orgs.get(org)?.derived.get(key);
    // Known: no promise, no turn of the event loop (an answer asks for thirty of them).
    if (known !== undefined) return known as T;
    return this.derive(org, key, build);
  }

  private async derive<T>(org: string, key: string, build: () => Promise<T>): Promise<T> {
    const stamp = this.stamp(org);
    const value = await build();
    const model = this.orgs.get(org);
    if (model && stamp === this.stamp(org)) model.derived.set(key, value);
    return value;
  }

  async rows<K extends RowSet>(set: K, org: string, from: string, to: string, users?: readonly string[]): Promise<RowTypes[K][]> {
    const held = this.heldSet(org, set);
    if (!held) {
      this.stats.sqlFallbacks++;
      return this.sql.rows(set, org, from, to, users);
    }
    if (!users) return held.range(from, to);
    if (users.length > FEW_USERS) {
      const wanted = new Set(users);
      return held.range(from, to).filter((r) => wanted.has((r as { user_id?: string }).user_id as string));
    }
    // A few users (a page of /users): each one's rows, then in the statement's order (day, then user; a
    // user's rows of a day keep theirs).
    const { of } = held.byUser();
    // One user (a row of /users' page): their rows are in the statement's order already.
    if (users.length === 1) return of.get(users[0]!)?.range(from, to) ?? [];
    const rows: RowTypes[K][] = [];
    for (const user of new Set(users)) {
      const mine = of.get(user);
      if (mine) for (const row of mine.range(from, to)) rows.push(row);
    }
    return rows.sort(
      (a, b) => byString(a.day, b.day) || byString((a as { user_id?: string }).user_id!, (b as { user_id?: string }).user_id!),
    );
  }

  /**
   * Each user's rows of a per-user set, all of them in day order (the same array while they are held), and
   * where `from` to `to` lies in them: rows[lo] to rows[hi - 1]; undefined when the set is not held.
   */
  userRanges<K extends RowSet>(
    set: K,
    org: string,
    users: readonly string[],
    from: string,
    to: string,
  ): { rows: readonly RowTypes[K][]; lo: number; hi: number }[] | undefined {
    const held = this.heldSet(org, set);
    if (!held) return undefined;
    const { of } = held.byUser();
    return users.map((user) => {
      const mine = of.get(user);
      return mine ? { rows: mine.rows as unknown as RowTypes[K][], ...mine.bounds(from, to) } : { rows: [], lo: 0, hi: 0 };
    });
  }

  /**
   * The first `limit` users (by id) after `after` with a row of a per-user set from `from` to `to`;
   * undefined when the set is not held (the caller finds them in the rows).
   */
  usersWithRows(set: RowSet, org: string, from: string, to: string, after: string | undefined, limit: number): string[] | undefined {
    const held = this.heldSet(org, set);
    if (!held) return undefined;
    const { ids, of } = held.byUser();
    let at = 0;
    if (after !== undefined) {
      let hi = ids.length;
      while (at < hi) {
        const mid = (at + hi) >>> 1;
        if (ids[mid]! <= after) at = mid + 1;
        else hi = mid;
      }
    }
    const out: string[] = [];
    for (; at < ids.length && out.length < limit; at++) if (of.get(ids[at]!)!.any(from, to)) out.push(ids[at]!);
    return out;
  }
}
