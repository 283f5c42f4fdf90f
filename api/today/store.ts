// Live figures ("today so far", docs/metrics.md §7): the daily batch's own build steps (pipeline/sql/2x-6x),
// run for the current UTC day over what has arrived, on a connection of their own. There, temporary views
// named like the raw tables (events, usage, assistant_messages) show one organization's rows (or one
// user's), and temporary tables named like the aggregate tables take the steps' output: DuckDB resolves a
// temporary name before the database's, so the same SQL builds provisional rows without touching the
// batch's tables, its temp tables, or the writer's queue (ingest and the batch never wait for it).
//
// What a build covers: today, plus the days of the last 30 or of this month that received records since
// the last finished batch (the batch's own 10_touched_days step), so the month's credits and today's
// weekly and monthly active users are right before the nightly batch has run. Every other day is the
// batch's rows, copied in first. A build is kept per scope until new records reach the organization
// (ingest calls `touch`). A request shares the build that is running when it covers what the request
// asks, and otherwise the one that waits behind it, which begins after the request: however many ask
// while records keep arriving (a collector asks after each ship), one build a scope runs and one waits.
// While records keep arriving, an organization's new build starts at most every PACE × its last build's
// duration after that one ended (one organization's live figures take at most about a third of one
// core). Organizations are queued apart, so one's heavy day does not delay another's.
//
// Two kinds of build: `all` (the /today records: every step) and `credits` (the month's and today's
// credits: usage only, the tokens step alone), which budgets, limits and the status line need, at a
// fraction of the cost.
import type { Db } from '../../common/db/duckdb.ts';
import type { Logger } from '../../common/logger.ts';
import { type BuildStep, buildStepTargets, loadLanguageTable, runBuildSteps } from '../../pipeline/batch.ts';
import {
  type BreakdownRow,
  type HookRow,
  type OrgDayRow,
  type RowSet,
  type RowSource,
  type RowTypes,
  rowSetQuery,
  type TokenRow,
} from '../analytics/store.ts';
import type { Holder, Source } from '../answers/changes.ts';

/** Whose records a build counts: an organization's, one of its users', or a set of its users' (a team's). */
export interface LiveScope {
  orgId: string;
  userId?: string | undefined;
  /** A team= filter: the members on today of the team and the teams below it (sorted). */
  userIds?: readonly string[] | undefined;
}

/** The users a scope counts, comma-separated; null: the whole organization. */
const scopeUsers = (scope: LiveScope): string | null =>
  scope.userIds ? scope.userIds.join(',') : scope.userId !== undefined ? scope.userId : null;

export type BuildKind = 'all' | 'credits';

/** A user's credits and dollars of one day. */
export interface UserDayCredits {
  user_id: string;
  day: string;
  credits: number;
  usd: number;
}

/** Each user's credits and dollars of each day of agg_tokens_day that `days` (a condition on `day`) keeps. */
export const userDaysSql = (days: string) => `SELECT user_id, CAST(day AS VARCHAR) AS day, CAST(sum(billable_tokens) AS BIGINT) AS credits,
       coalesce(sum(cost_usd), 0) AS usd FROM agg_tokens_day WHERE org_id = $org AND ${days} GROUP BY user_id, day`;

/** The rows of a userDaysSql query, its sums as numbers. */
export async function readUserDays(db: Db, sql: string, params: Record<string, string>): Promise<UserDayCredits[]> {
  const rows = await db.all<UserDayCredits & Record<string, unknown>>(sql, params);
  return rows.map((r) => ({ user_id: r.user_id, day: r.day, credits: Number(r.credits), usd: Number(r.usd) }));
}

/**
 * The days before the month that the build rebuilt (they received records since the last batch, within
 * the last 30 days), and each user's credits and dollars on them: the batch's rows of those days are out
 * of date until it runs (on the 1st, yesterday's are not there at all). The forecast and the anomaly
 * check read them in place of the batch's.
 */
export interface EarlierDays {
  days: string[];
  byUserDay: UserDayCredits[];
}

/** Billable tokens, and US dollars (docs/metrics.md §8), of the UTC month so far, today included. */
export interface MonthCredits {
  start: string;
  credits: number;
  byUser: Map<string, number>;
  /** Each user's credits and dollars of each day of the month (team budgets count members on each day). */
  byUserDay: UserDayCredits[];
  /** Dollars of the priced usage (usage without a price adds nothing). */
  usd: number;
  usdByUser: Map<string, number>;
}
const CREDIT_STEPS: readonly BuildStep[] = ['30_tokens'];
/** A new build waits until PACE × the last build's duration has passed since it ended. */
const PACE = 2;

export interface LiveFigures {
  kind: BuildKind;
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** The time of the newest event, usage or message of the day counted (null: none yet). */
  asOf: string | null;
  orgDays: OrgDayRow[];
  breakdowns: BreakdownRow[];
  hooks: HookRow[];
  tokens: TokenRow[];
  earlier: EarlierDays;
  /** Billable tokens of the UTC month so far, today included: in all, per user, and per user and day. */
  month: MonthCredits;
  /** Each agent session's dollars of today (null: a model without a price); empty for a credits build. */
  sessionCosts: Map<string, number | null>;
  /** When the build started (ms since the epoch). */
  builtAt: number;
}

const RAW_TABLES = ['events', 'usage', 'assistant_messages', 'edit_decisions'] as const;
/** Every table the build steps write, each shadowed by a temp table of the same name (read from the SQL). */
const AGG_TABLES = buildStepTargets();

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The days from $from on that calls or messages received since the watermark moved away from (migration
 * 097), as the batch's 10_touched_days.sql has them: a day the batch counted a call on is built again
 * without it once the call moved earlier, or the month's credits would count it twice.
 */
const movedAwayFrom = (table: string) => `UNION SELECT DISTINCT org_id, day FROM (
  SELECT org_id, unnest(moved_from) AS day FROM ${table} WHERE received_at > $watermark AND moved_from IS NOT NULL
) WHERE day >= CAST($from AS DATE)`;

export const LIVE_SQL = {
  catalog: 'SELECT current_database() AS name',
  scope: `CREATE OR REPLACE TEMP TABLE live_scope AS
          SELECT CAST($org AS VARCHAR) AS org_id, CASE WHEN $users IS NULL THEN NULL ELSE string_split($users, ',') END AS users`,
  // A raw table as the scope sees it: the organization's rows, or one user's.
  rawView: (catalog: string, table: string) =>
    `CREATE OR REPLACE TEMP VIEW ${table} AS SELECT * FROM ${quoteIdent(catalog)}.main.${table}
     WHERE org_id = (SELECT org_id FROM live_scope)
       AND ((SELECT users FROM live_scope) IS NULL OR list_contains((SELECT users FROM live_scope), user_id))`,
  aggShadow: (catalog: string, table: string) =>
    `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT * FROM ${quoteIdent(catalog)}.main.${table} LIMIT 0`,
  // Which of the written tables resolve to a temp table: all of them, or the build is refused.
  shadowed: `SELECT count(*) AS n FROM duckdb_tables() WHERE temporary AND table_name IN (SELECT unnest(string_split($tables, ',')))`,
  // The batch's rows the build reads and does not rebuild: user days for the weekly and monthly active
  // users of today, token days for the month's credits.
  seedUserDays: (catalog: string) =>
    `INSERT INTO agg_user_day SELECT * FROM ${quoteIdent(catalog)}.main.agg_user_day
     WHERE org_id = $org AND ($users IS NULL OR list_contains(string_split($users, ','), user_id))
       AND day >= CAST($today AS DATE) - 29 AND day < CAST($today AS DATE)`,
  seedTokenDays: (catalog: string) =>
    `INSERT INTO agg_tokens_day SELECT * FROM ${quoteIdent(catalog)}.main.agg_tokens_day
     WHERE org_id = $org AND ($users IS NULL OR list_contains(string_split($users, ','), user_id))
       AND day >= CAST($from AS DATE) AND day < CAST($today AS DATE)`,
  lastWatermark: 'SELECT CAST(watermark AS VARCHAR) AS watermark FROM batch_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1',
  touchedUsage: `CREATE OR REPLACE TEMP TABLE touched AS
SELECT DISTINCT org_id, CAST(ts AS DATE) AS day FROM usage WHERE received_at > $watermark AND ts >= CAST($from AS TIMESTAMP)
${movedAwayFrom('usage')}`,
  touched: `CREATE OR REPLACE TEMP TABLE touched AS
SELECT DISTINCT org_id, CAST(ts AS DATE) AS day FROM events WHERE received_at > $watermark AND ts >= CAST($from AS TIMESTAMP)
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM usage WHERE received_at > $watermark AND ts >= CAST($from AS TIMESTAMP)
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM assistant_messages WHERE received_at > $watermark AND ts >= CAST($from AS TIMESTAMP)
UNION SELECT DISTINCT org_id, CAST(ts AS DATE) FROM edit_decisions WHERE received_at > $watermark AND ts >= CAST($from AS TIMESTAMP)
${movedAwayFrom('usage')}
${movedAwayFrom('assistant_messages')}`,
  rebuild: `CREATE OR REPLACE TEMP TABLE rebuild AS
SELECT DISTINCT org_id, day FROM (
  SELECT org_id, day FROM touched WHERE day < CAST($today AS DATE)
  UNION ALL SELECT CAST($org AS VARCHAR), CAST($today AS DATE)
)`,
  firstDay: 'SELECT CAST(min(day) AS VARCHAR) AS day FROM rebuild',
  monthByUserDay: userDaysSql('day >= CAST($month AS DATE)'),
  // Before the month the build's token rows are only the days it rebuilt (the batch's are not copied in).
  earlierDays: 'SELECT CAST(day AS VARCHAR) AS day FROM rebuild WHERE org_id = $org AND day < CAST($month AS DATE) ORDER BY day',
  earlierByUserDay: userDaysSql('day < CAST($month AS DATE)'),
  // Each agent session's dollars of today (the build's 32_session_cost rows): what today's landed commits
  // hold of a session is priced with them too (api/code/store.ts, landedCost).
  sessionCostsToday: `SELECT session_id, CASE WHEN bool_or(cost_usd IS NULL) THEN NULL ELSE sum(cost_usd) END AS cost_usd
                      FROM agg_session_cost_day WHERE org_id = $org AND day = CAST($today AS DATE) GROUP BY session_id`,
  asOfUsage: 'SELECT max(ts) AS as_of FROM usage WHERE ts >= CAST($today AS TIMESTAMP)',
  asOf: `SELECT greatest(
           (SELECT max(ts) FROM events WHERE ts >= CAST($today AS TIMESTAMP)),
           (SELECT max(ts) FROM usage WHERE ts >= CAST($today AS TIMESTAMP)),
           (SELECT max(ts) FROM assistant_messages WHERE ts >= CAST($today AS TIMESTAMP))) AS as_of`,
} as const;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const monthStartOf = (ms: number) => {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString().slice(0, 10);
};
const daysBefore = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000);

/** Builds the live figures of a scope (see the file header). One build at a time on `live`. */
export async function buildLiveFigures(
  live: Db,
  main: Db,
  scope: LiveScope,
  now: number,
  log: Logger,
  kind: BuildKind = 'all',
): Promise<LiveFigures> {
  const today = dayOf(now);
  const monthStart = monthStartOf(now);
  const windowStart = daysBefore(today, 29);
  const [from] = [monthStart, windowStart].sort() as [string, string];
  const [last] = await main.all<{ watermark: string | null }>(LIVE_SQL.lastWatermark);
  const watermark = last?.watermark ?? '1970-01-01 00:00:00';
  const started = performance.now();
  const params = { org: scope.orgId, users: scopeUsers(scope) };
  return live.transaction(async (tx) => {
    const [{ name: catalog } = { name: '' }] = await tx.all<{ name: string }>(LIVE_SQL.catalog);
    await tx.run(LIVE_SQL.scope, params);
    for (const table of RAW_TABLES) await tx.run(LIVE_SQL.rawView(catalog, table));
    for (const table of AGG_TABLES) await tx.run(LIVE_SQL.aggShadow(catalog, table));
    const [shadowed] = await tx.all<{ n: number }>(LIVE_SQL.shadowed, { tables: AGG_TABLES.join(',') });
    if (shadowed?.n !== AGG_TABLES.length)
      throw new Error(`live figures: not every table the build writes is shadowed (${AGG_TABLES.join(', ')})`);
    const all = kind === 'all';
    // A credits build reads no user days: only the tokens step runs.
    if (all) await tx.run(LIVE_SQL.seedUserDays(catalog), { ...params, today });
    await tx.run(LIVE_SQL.seedTokenDays(catalog), { ...params, today, from: monthStart });
    await tx.run(all ? LIVE_SQL.touched : LIVE_SQL.touchedUsage, { watermark, from });
    await tx.run(LIVE_SQL.rebuild, { org: scope.orgId, today });
    const [first] = await tx.all<{ day: string }>(LIVE_SQL.firstDay);
    await runBuildSteps(tx, first?.day ?? today, today, log, all ? undefined : CREDIT_STEPS);
    // Today's rows, read by the analytics row sets' own statements over the build's tables.
    const read = <K extends RowSet>(set: K): Promise<RowTypes[K][]> => {
      const { sql, params } = rowSetQuery(set, scope.orgId, today, today);
      return tx.all<RowTypes[K] & Record<string, unknown>>(sql, params);
    };
    const orgDays = all ? await read('orgDays') : [];
    const breakdowns = all ? await read('breakdown') : [];
    const hooks = all ? await read('hooks') : [];
    const tokens = await read('tokens');
    const monthParams = { org: scope.orgId, month: monthStart };
    const byUserDay = await readUserDays(tx, LIVE_SQL.monthByUserDay, monthParams);
    const byUser = new Map<string, number>();
    const usdByUser = new Map<string, number>();
    for (const r of byUserDay) {
      byUser.set(r.user_id, (byUser.get(r.user_id) ?? 0) + r.credits);
      usdByUser.set(r.user_id, (usdByUser.get(r.user_id) ?? 0) + r.usd);
    }
    const earlier: EarlierDays = {
      days: (await tx.all<{ day: string }>(LIVE_SQL.earlierDays, monthParams)).map((r) => r.day),
      byUserDay: await readUserDays(tx, LIVE_SQL.earlierByUserDay, monthParams),
    };
    const sessionCosts = all
      ? await tx.all<{ session_id: string; cost_usd: number | null }>(LIVE_SQL.sessionCostsToday, { org: scope.orgId, today })
      : [];
    const [asOf] = await tx.all<{ as_of: string | null }>(all ? LIVE_SQL.asOf : LIVE_SQL.asOfUsage, { today });
    log.debug(
      { org: scope.orgId, user: scope.userId, team: scope.userIds?.length, kind, ms: Math.round(performance.now() - started) },
      'live figures built',
    );
    return {
      kind,
      date: today,
      asOf: asOf?.as_of ?? null,
      orgDays,
      breakdowns,
      hooks,
      tokens,
      earlier,
      month: {
        start: monthStart,
        credits: [...byUser.values()].reduce((a, b) => a + b, 0),
        byUser,
        byUserDay,
        usd: [...usdByUser.values()].reduce((a, b) => a + b, 0),
        usdByUser,
      },
      sessionCosts: new Map(sessionCosts.map((r) => [r.session_id, r.cost_usd === null ? null : Number(r.cost_usd)])),
      builtAt: now,
    };
  });
}

/** The live day's rows as a source of the analytics reader (api/analytics/reader.ts): its day's rows of the sets it read. */
export function liveRows(f: LiveFigures): RowSource {
  const held: Partial<{ [K in RowSet]: RowTypes[K][] }> = { orgDays: f.orgDays, breakdown: f.breakdowns, hooks: f.hooks, tokens: f.tokens };
  return {
    async rows<K extends RowSet>(set: K, _org: string, from: string, to: string, users?: readonly string[]): Promise<RowTypes[K][]> {
      const rows = held[set] as RowTypes[K][] | undefined;
      if (!rows || (f.kind !== 'all' && set !== 'tokens')) throw new Error(`today's ${f.kind} build has no ${set} rows`);
      const wanted = users && new Set(users);
      return rows.filter((r) => r.day >= from && r.day <= to && (!wanted || wanted.has((r as { user_id?: string }).user_id as string)));
    },
  };
}

interface Cached {
  figures: LiveFigures;
  /** The organization's version when the build started: nothing newer is in it. */
  version: number;
}

/** Builds that run at once, each on a connection of its own, for different organizations. */
export const MAX_CONCURRENT_BUILDS = 2;

/** One organization's builds: one at a time, paced by its own last build. */
interface OrgBuilds {
  queue: Promise<unknown>;
  /** When its last build ended and how long it took (wall clock, ms): the pace of its next. */
  lastEnd: number;
  lastMs: number;
}

/** How a build is made: buildLiveFigures (a test gives its own, to hold one organization's build). */
export type LiveBuilder = typeof buildLiveFigures;

/**
 * A build asked for and not yet finished: the version asked for, and whether it has begun (read the
 * version it covers). One that has not begun covers whatever arrives until it does.
 */
interface PendingBuild {
  figures: Promise<LiveFigures>;
  version: number;
  begun: boolean;
}

/**
 * The live figures of each scope, built on demand on connections of their own and kept until new
 * records reach the organization or the day changes. Builds are queued per organization, so one
 * organization's heavy day (a build of many seconds, again and again while its records arrive) delays
 * only its own: another organization's build runs beside it, on another connection (at most
 * MAX_CONCURRENT_BUILDS at once).
 */
export class LiveFiguresStore implements Holder {
  /** A build counts the records as they arrive, copies the batch's days, prices usage and names users. */
  readonly reads: readonly Source[] = ['events', 'aggregates', 'prices', 'users'];
  private languagesLoaded: Promise<void> | undefined;
  private readonly versions = new Map<string, number>();
  private readonly cache = new Map<string, Cached>();
  /** Builds asked for and not yet finished, by key. */
  private readonly building = new Map<string, PendingBuild>();
  private readonly orgs = new Map<string, OrgBuilds>();
  /** Connections no build uses now, and how many were opened. */
  private readonly idle: Db[] = [];
  private opened = 0;
  /** Builds waiting for a connection, first come first served. */
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly build: LiveBuilder = buildLiveFigures,
  ) {}

  /** Bumped by a change of every organization: part of each organization's version. */
  private generation = 0;

  /** Something the organization's builds read changed (api/answers/changes.ts): they are built again at the next ask. */
  touch(orgId: string): void {
    this.versions.set(orgId, (this.versions.get(orgId) ?? 0) + 1);
  }

  /** Both parts only grow, so their sum changes with either: a build of an older version is never current. */
  version(orgId: string): number {
    return this.generation + (this.versions.get(orgId) ?? 0);
  }

  /** Forget every build, and builds under way of every organization (the batch rebuilt the days they copy). */
  clear(): void {
    this.generation++;
    this.cache.clear();
  }

  forget(org: string | undefined): void {
    if (org === undefined) this.clear();
    else this.touch(org);
  }

  /**
   * The figures of a scope with every record stored before the call: `all` for the /today records,
   * `credits` for the month's and today's credits only (a current `all` build answers those too).
   */
  figures(scope: LiveScope, kind: BuildKind = 'all'): Promise<LiveFigures> {
    return this.figuresOf(scope, kind, true);
  }

  /**
   * `joinWaiting`: the request may share a build that waits though it was asked for an older version. If
   * that build fails, the request asks once more without it, as it would have asked had it not joined:
   * a build's failure reaches only the requests of the version it was asked for.
   */
  private async figuresOf(scope: LiveScope, kind: BuildKind, joinWaiting: boolean): Promise<LiveFigures> {
    const base = `${scope.orgId}|${scope.userIds ? `team:${scope.userIds.join(',')}` : (scope.userId ?? '')}`;
    const key = `${base}|${kind}`;
    const today = dayOf(this.now());
    const version = this.version(scope.orgId);
    const current = (c: Cached | undefined) => c && c.figures.date === today && c.version === version;
    const cached = this.cache.get(key);
    if (current(cached)) return cached!.figures;
    const full = this.cache.get(`${base}|all`);
    if (kind === 'credits' && current(full)) return full!.figures;
    // A build that is running shares only with a request of what it covers; one still waiting (for the
    // organization's builds before it, or its pace) shares with every request, as it will cover them all.
    const pending = this.building.get(key);
    if (pending && pending.version === version) return pending.figures;
    if (pending && !pending.begun && joinWaiting) return pending.figures.catch(() => this.figuresOf(scope, kind, false));
    let org = this.orgs.get(scope.orgId);
    if (!org) this.orgs.set(scope.orgId, (org = { queue: Promise.resolve(), lastEnd: 0, lastMs: 0 }));
    const builds = org;
    let entry: PendingBuild | undefined;
    const build = (builds.queue = builds.queue
      .catch(() => undefined)
      .then(async () => {
        const wait = builds.lastEnd + PACE * builds.lastMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const live = await this.connection();
        // What arrives from here on is not in this build.
        const started = this.version(scope.orgId);
        if (entry) entry.begun = true;
        const t0 = Date.now();
        try {
          const figures = await this.build(live, this.db, scope, this.now(), this.log, kind);
          this.cache.set(key, { figures, version: started });
          return figures;
        } finally {
          builds.lastEnd = Date.now();
          builds.lastMs = builds.lastEnd - t0;
          this.release(live);
        }
      })
      .finally(() => {
        if (this.building.get(key)?.figures === build) this.building.delete(key);
      }));
    entry = { figures: build, version, begun: false };
    this.building.set(key, entry);
    return build;
  }

  /** A connection for one build: an idle one, a new one while fewer than MAX_CONCURRENT_BUILDS exist, or the next freed. */
  private async connection(): Promise<Db> {
    this.languagesLoaded ??= loadLanguageTable(this.db).catch((error: unknown) => {
      this.languagesLoaded = undefined;
      throw error;
    });
    await this.languagesLoaded;
    for (;;) {
      const idle = this.idle.pop();
      if (idle) return idle;
      if (this.opened < MAX_CONCURRENT_BUILDS) {
        this.opened++;
        try {
          return await this.db.connection();
        } catch (error) {
          this.opened--;
          throw error;
        }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private release(live: Db): void {
    this.idle.push(live);
    this.waiting.shift()?.();
  }
}
