// The daily batch: rebuilds the aggregates of every day that received records since the last run (and
// the 29 days after each, whose weekly and monthly active users they change), plus yesterday; or of an
// explicit range. Days are rebuilt in chunks, oldest first, each chunk in one transaction, so readers see
// a day either before or after, and a long backfill shows progress. Running it twice gives the same tables.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Db, Params } from '../common/db/duckdb.ts';
import { languageTable } from '../common/languages.ts';
import type { Logger } from '../common/logger.ts';
import { EARLIEST_DATE, parseDay } from '../common/time.ts';
import { priceUsage } from './cost.ts';

const SQL_DIR = join(dirname(fileURLToPath(import.meta.url)), 'sql');
export const DEFAULT_PRICING_FILE = join(dirname(fileURLToPath(import.meta.url)), 'pricing.json');

/** The build steps, in order; each file may hold several statements. */
const BUILD_STEPS = [
  '20_normalized_events',
  '21_session_starts',
  '22_file_touches',
  '30_tokens',
  '31_tokens_repo',
  '32_session_cost',
  '40_user_day',
  '45_user_breakdowns',
  '46_code',
  '50_breakdowns',
  '51_hooks',
  '60_org_day',
] as const;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const PricingFile = z.object({
  about: z.string().optional(),
  prices: z.array(
    z.strictObject({
      match: z.string().min(1),
      multiplier: z.number().nonnegative(),
      effective_from: z.string().regex(DAY, 'effective_from must be YYYY-MM-DD'),
    }),
  ),
});
export type PricingFile = z.infer<typeof PricingFile>;

export interface BatchOptions {
  /** Rebuild this range (YYYY-MM-DD, inclusive) instead of what changed. */
  from?: string;
  to?: string;
  /**
   * Rebuild these days of one organization and the 29 days after each, up to yesterday (after records
   * were erased: their days and the weekly and monthly active users that counted them).
   */
  days?: { orgId: string; days: string[] };
  /**
   * Rebuild only this organization (a run started through the API): its range is clamped to the days
   * that can hold its data (clampRange), and the incremental watermark does not move (the next run of
   * every organization still rebuilds the others' new days). The run is recorded as this organization's.
   */
  orgId?: string;
  /** "Now", for tests; the last day rebuilt in incremental mode is the day before it (UTC). */
  now?: Date;
  pricingFile?: string;
  trigger: 'cli' | 'server' | 'schedule' | 'api' | 'demo' | 'erase';
  log: Logger;
  /** Days per transaction (and per progress line). */
  chunkDays?: number;
}

export interface BatchReport {
  runId: number;
  mode: 'incremental' | 'range' | 'days';
  days: number;
  firstDay: string | null;
  lastDay: string | null;
  unpricedModels: string[];
  /** Models with no dollar price (list or the organization's): their cost is null (docs/metrics.md §8). */
  unpricedUsdModels: string[];
  ms: number;
}

const sqlCache = new Map<string, string[]>();

/**
 * The statements of SQL text: split on ";" at line ends (our SQL never has one inside a string), with
 * whole-line comments removed (so a "$name" in a comment is no parameter).
 */
export function splitStatements(text: string): string[] {
  return text
    .split(/;\s*\n/)
    .map((s) =>
      s
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter((s) => s !== '');
}

function statements(name: string): string[] {
  let cached = sqlCache.get(name);
  if (!cached) {
    cached = splitStatements(readFileSync(join(SQL_DIR, `${name}.sql`), 'utf8'));
    sqlCache.set(name, cached);
  }
  return cached;
}

/** Only the named parameters a statement uses: DuckDB refuses unused ones. */
function paramsFor(sql: string, all: Record<string, string | number | null>): Params {
  const used: Record<string, string | number | null> = {};
  for (const match of sql.matchAll(/\$([a-z_]+)/g)) if (match[1]! in all) used[match[1]!] = all[match[1]!]!;
  return used as Params;
}

async function runFile(db: Db, name: string, params: Record<string, string | number | null>, log: Logger): Promise<void> {
  const started = performance.now();
  for (const sql of statements(name)) await db.run(sql, paramsFor(sql, params));
  log.debug({ query: name, ms: Math.round(performance.now() - started) }, 'pipeline step');
}

/**
 * The build steps over the temp table `rebuild` (org_id, day), whose days lie from `first` to `last`: the
 * aggregates of those days, replaced. The live figures (api/today/) run the same steps on their own
 * connection, over temp tables that shadow the raw and aggregate tables.
 */
export async function runBuildSteps(
  db: Db,
  first: string,
  last: string,
  log: Logger,
  steps: readonly BuildStep[] = BUILD_STEPS,
): Promise<void> {
  for (const step of steps) {
    // The tokens step sums each record's dollars, which are priced here, in code (pipeline/cost.ts).
    if (step === '30_tokens') await priceUsage(db, first, last, log);
    await runFile(db, step, { chunk_first: first, chunk_last: last }, log);
  }
}

export type BuildStep = (typeof BUILD_STEPS)[number];

/**
 * The database tables the build steps write (DELETE FROM / INSERT INTO a name the steps do not create
 * as a temp table): what the live figures (api/today/) must shadow so they never write the batch's own.
 */
export function buildStepTargets(steps: readonly BuildStep[] = BUILD_STEPS): string[] {
  const text = steps.flatMap((step) => statements(step)).join(';\n');
  const temp = new Set([...text.matchAll(/CREATE\s+OR\s+REPLACE\s+TEMP\s+TABLE\s+(\w+)/gi)].map((m) => m[1]!.toLowerCase()));
  const written = [...text.matchAll(/(?:DELETE\s+FROM|INSERT\s+INTO|UPDATE)\s+(\w+)/gi)].map((m) => m[1]!.toLowerCase());
  return [...new Set(written.filter((t) => !temp.has(t)))].sort();
}

export function loadPricing(file: string): PricingFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`pricing file ${file} is not readable JSON: ${(error as Error).message}`);
  }
  const parsed = PricingFile.safeParse(json);
  if (!parsed.success)
    throw new Error(`pricing file ${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** Replaces the pricing table with the file's prices (the batch, and the sessions API, read it). */
export async function loadPricingTable(db: Db, pricing: PricingFile): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run('DELETE FROM pricing');
    for (const p of pricing.prices) {
      await tx.run('INSERT INTO pricing VALUES ($match, $multiplier, CAST($from AS DATE))', {
        match: p.match,
        multiplier: p.multiplier,
        from: p.effective_from,
      });
    }
  });
}

async function loadReferenceTables(db: Db, pricing: PricingFile): Promise<void> {
  await loadPricingTable(db, pricing);
  await loadLanguageTable(db);
}

/**
 * The language loads of this process, one after another: the batch (on the writer) and the live figures
 * (on a connection of their own) both load the table into a new database, and two loads at once would
 * both find it empty and both append it, the second failing on the first's keys. One process holds a
 * database file, so serializing within it is enough.
 */
let languageLoads: Promise<unknown> = Promise.resolve();

/** Fills the languages table (file extension or name → language) when it is not already full. */
export function loadLanguageTable(db: Db): Promise<void> {
  const load = languageLoads.then(() => fillLanguageTable(db));
  languageLoads = load.catch(() => undefined);
  return load;
}

async function fillLanguageTable(db: Db): Promise<void> {
  const [count] = await db.all<{ n: number }>('SELECT count(*) AS n FROM languages');
  const rows = languageTable();
  if (count!.n === rows.length) return;
  await db.run('DELETE FROM languages');
  await db.exclusive(async (conn) => {
    const appender = await conn.createAppender('languages');
    for (const row of rows) {
      appender.appendVarchar(row.kind);
      appender.appendVarchar(row.key);
      appender.appendVarchar(row.language);
      appender.endRow();
    }
    appender.flushSync();
    appender.closeSync();
  });
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** The day before now (UTC): the last day a batch rebuilds, and a range's default end. */
export const yesterdayOf = (now: Date) => isoDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1)));

/** The longest range one batch rebuilds; a longer backfill is a loop of ranges (docs/operations.md, "The daily batch and pricing"). */
export const MAX_BATCH_DAYS = 400;

/**
 * What is wrong with an explicit range (from and to: YYYY-MM-DD, inclusive; to defaults to yesterday,
 * from to to), or undefined. Pure. The HTTP route answers it as a 400, the CLI as its error.
 */
export function batchRangeProblem(from: string | undefined, to: string | undefined, yesterday: string): string | undefined {
  if (from !== undefined && parseDay(from) === undefined) return 'from must be a real calendar day, YYYY-MM-DD';
  if (to !== undefined && parseDay(to) === undefined) return 'to must be a real calendar day, YYYY-MM-DD';
  if (from === undefined && to === undefined) return undefined;
  const first = from ?? to!;
  const last = to ?? yesterday;
  if (first > last) return `from ${first} is after to ${last}`;
  const days = (parseDay(last)! - parseDay(first)!) / 86_400_000 + 1;
  if (days > MAX_BATCH_DAYS)
    return `a batch rebuilds at most ${MAX_BATCH_DAYS} days; ${first} to ${last} is ${days}: run a longer backfill as several ranges`;
  return undefined;
}

/** The first day analytics can be asked for (common/time.ts): no record before it is counted. */
export const EARLIEST_BATCH_DAY = EARLIEST_DATE;

/**
 * A range narrowed to the days that can hold an organization's data: not before its first record
 * (`firstRecordDay`, null when it has none) nor EARLIEST_BATCH_DAY, not after yesterday. undefined when
 * no day is left. Pure; the range was checked by batchRangeProblem.
 */
export function clampRange(
  from: string | undefined,
  to: string | undefined,
  firstRecordDay: string | null,
  yesterday: string,
): { from: string; to: string } | undefined {
  if (firstRecordDay === null) return undefined;
  const first = [from ?? to!, firstRecordDay, EARLIEST_BATCH_DAY].reduce((a, b) => (a > b ? a : b));
  const last = [to ?? yesterday, yesterday].reduce((a, b) => (a < b ? a : b));
  return first <= last ? { from: first, to: last } : undefined;
}

const BATCH_SQL = {
  firstRecordDay: `SELECT CAST(least((SELECT min(ts) FROM events WHERE org_id = $org), (SELECT min(ts) FROM usage WHERE org_id = $org),
                          (SELECT min(ts) FROM assistant_messages WHERE org_id = $org)) AS DATE)::VARCHAR AS day`,
  otherOrgs: 'DELETE FROM rebuild WHERE org_id <> $org',
  // One row per organization the run covered (every organization, or the one of an org-scoped run).
  runOrgs: `INSERT INTO batch_run_orgs
            SELECT $run, o.id, count(r.day), min(r.day), max(r.day),
                   (SELECT max(received_at) FROM (
                      SELECT received_at FROM events WHERE org_id = o.id AND received_at <= CAST($watermark AS TIMESTAMP)
                      UNION ALL SELECT received_at FROM usage WHERE org_id = o.id AND received_at <= CAST($watermark AS TIMESTAMP)
                      UNION ALL SELECT received_at FROM assistant_messages WHERE org_id = o.id AND received_at <= CAST($watermark AS TIMESTAMP)
                      UNION ALL SELECT received_at FROM edit_decisions WHERE org_id = o.id AND received_at <= CAST($watermark AS TIMESTAMP)))
            FROM orgs o LEFT JOIN rebuild_all r ON r.org_id = o.id
            WHERE $org IS NULL OR o.id = $org
            GROUP BY o.id`,
} as const;

export async function runBatch(db: Db, options: BatchOptions): Promise<BatchReport> {
  const started = performance.now();
  const { log } = options;
  const problem = batchRangeProblem(options.from, options.to, yesterdayOf(options.now ?? new Date()));
  if (problem) throw new Error(problem);
  if (options.days && (options.from || options.to)) throw new Error('a batch takes a range or a list of days, not both');
  if (options.days?.days.some((d) => !DAY.test(d))) throw new Error('days are YYYY-MM-DD');
  if (options.days && options.orgId && options.days.orgId !== options.orgId)
    throw new Error('a batch of days rebuilds their own organization');
  // The one organization this run rebuilds, if only one.
  const orgId = options.orgId ?? options.days?.orgId ?? null;
  const pricing = loadPricing(options.pricingFile ?? DEFAULT_PRICING_FILE);
  await loadReferenceTables(db, pricing);
  // Every query that needs an order says so; not keeping insertion order lets DuckDB build in parallel.
  await db.run('SET preserve_insertion_order = false');

  const now = options.now ?? new Date();
  const yesterday = yesterdayOf(now);
  const [{ id: runId } = { id: 1 }] = await db.all<{ id: number }>('SELECT coalesce(max(id), 0) + 1 AS id FROM batch_runs');
  const [last] = await db.all<{ watermark: string | null }>(
    'SELECT CAST(watermark AS VARCHAR) AS watermark FROM batch_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1',
  );
  // Everything received up to this moment is covered by this run; later arrivals wait for the next.
  const [{ watermark } = { watermark: null }] = await db.all<{ watermark: string | null }>(
    `SELECT CAST(greatest((SELECT max(received_at) FROM events), (SELECT max(received_at) FROM usage), (SELECT max(received_at) FROM assistant_messages), (SELECT max(received_at) FROM landed_commits), (SELECT max(received_at) FROM edit_decisions)) AS VARCHAR) AS watermark`,
  );
  await db.run('INSERT INTO batch_runs (id, started_at, trigger, org_id) VALUES ($id, now()::TIMESTAMP, $trigger, $org)', {
    id: runId,
    trigger: options.trigger,
    org: orgId,
  });

  const mode: BatchReport['mode'] = options.days ? 'days' : options.from || options.to ? 'range' : 'incremental';
  if (options.days) {
    // An empty list rebuilds nothing (string_split of '' would give one empty day).
    await runFile(
      db,
      '13_rebuild_days',
      { org: options.days.orgId, days: options.days.days.length ? options.days.days.join(',') : '1970-01-01', last_day: yesterday },
      log,
    );
    if (!options.days.days.length) await db.run('DELETE FROM rebuild');
  } else if (mode === 'range') {
    let range: { from: string; to: string } | undefined = { from: options.from ?? options.to!, to: options.to ?? yesterday };
    if (options.orgId) {
      const [first] = await db.all<{ day: string | null }>(BATCH_SQL.firstRecordDay, { org: options.orgId });
      range = clampRange(options.from, options.to, first?.day ?? null, yesterday);
    }
    // No day left: an empty rebuild set (a range of one day before any organization's data, then emptied).
    await runFile(db, '12_rebuild_range', { from_day: range?.from ?? yesterday, to_day: range?.to ?? yesterday }, log);
    if (!range) await db.run('DELETE FROM rebuild');
  } else {
    await runFile(db, '10_touched_days', { watermark: last?.watermark ?? '1970-01-01 00:00:00' }, log);
    await runFile(db, '11_rebuild_incremental', { last_day: yesterday }, log);
  }
  if (options.orgId) await db.run(BATCH_SQL.otherOrgs, { org: options.orgId });
  await db.run('CREATE OR REPLACE TEMP TABLE rebuild_all AS SELECT * FROM rebuild');
  const days = (await db.all<{ day: string }>('SELECT DISTINCT CAST(day AS VARCHAR) AS day FROM rebuild_all ORDER BY day')).map(
    (r) => r.day,
  );
  const chunk = options.chunkDays ?? 15;
  const unpriced = new Set<string>();
  const unpricedUsd = new Set<string>();
  log.info({ runId, mode, days: days.length, first: days[0], last: days.at(-1) }, 'batch started');
  for (let i = 0; i < days.length; i += chunk) {
    const slice = days.slice(i, i + chunk);
    const chunkStarted = performance.now();
    await db.transaction(async (tx) => {
      await tx.run(
        'CREATE OR REPLACE TEMP TABLE rebuild AS SELECT * FROM rebuild_all WHERE day BETWEEN CAST($a AS DATE) AND CAST($b AS DATE)',
        { a: slice[0]!, b: slice.at(-1)! },
      );
      await runBuildSteps(tx, slice[0]!, slice.at(-1)!, log);
      for (const row of await tx.all<{ model: string }>('SELECT DISTINCT model FROM usage_priced WHERE unpriced ORDER BY model'))
        unpriced.add(row.model);
      for (const row of await tx.all<{ model: string }>('SELECT DISTINCT model FROM usage_raw WHERE cost_usd IS NULL ORDER BY model'))
        unpricedUsd.add(row.model);
    });
    log.info(
      {
        runId,
        done: Math.min(i + chunk, days.length),
        of: days.length,
        through: slice.at(-1),
        ms: Math.round(performance.now() - chunkStarted),
      },
      'batch progress',
    );
  }
  const unpricedModels = [...unpriced].sort();
  const unpricedUsdModels = [...unpricedUsd].sort();
  // Only a run of every organization moves the watermark: one organization's run leaves the others' new
  // records for the next.
  const newWatermark = mode === 'incremental' && !orgId ? watermark : (last?.watermark ?? null);
  await db.transaction(async (tx) => {
    await tx.run(BATCH_SQL.runOrgs, { run: runId, org: orgId, watermark: newWatermark });
    await tx.run(
      `UPDATE batch_runs SET finished_at = now()::TIMESTAMP, watermark = CAST($watermark AS TIMESTAMP), days_rebuilt = $days, unpriced_models = $unpriced,
           unpriced_usd_models = $unpriced_usd WHERE id = $id`,
      {
        id: runId,
        watermark: newWatermark,
        days: days.length,
        unpriced: JSON.stringify(unpricedModels),
        unpriced_usd: JSON.stringify(unpricedUsdModels),
      },
    );
  });
  if (unpricedModels.length)
    log.warn({ runId, models: unpricedModels }, 'models without a price counted at 1x: add them to the pricing file');
  if (unpricedUsdModels.length)
    log.warn({ runId, models: unpricedUsdModels }, 'models without a dollar price have no cost: set one with agentmeter pricing set');
  const report: BatchReport = {
    runId,
    mode,
    days: days.length,
    firstDay: days[0] ?? null,
    lastDay: days.at(-1) ?? null,
    unpricedModels,
    unpricedUsdModels,
    ms: Math.round(performance.now() - started),
  };
  log.info(report, 'batch finished');
  return report;
}
