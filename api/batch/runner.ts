// The daily batch as this server runs it. Every run of the server goes through one BatchRunner: the
// batch route, an erasure's rebuild, the daily schedule and in-process callers (services.runBatch: the
// demo, the tests). It owns what they must agree on:
// - one run at a time (the next waits for the one before, even a failed one), with DuckDB on every core
//   for its duration and timed for /metrics;
// - the answers a run made stale, dropped when it is done: every organization's after a run of all,
//   only its organization's after a run of one;
// - the options every run gets from the server: its pricing file, its clock (which decides yesterday,
//   the last day rebuilt) and its logger;
// - at most one run asked through the API queued or running per organization (409 for another);
// - the daily schedule, and session retention after each scheduled run.
import { availableParallelism } from 'node:os';
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { type BatchOptions, type BatchReport, runBatch } from '../../pipeline/batch.ts';
import type { Changes } from '../answers/changes.ts';

/** What a caller decides of a run; the pricing file, the clock and the logger are the server's unless it names its own. */
export type BatchRequest = Omit<BatchOptions, 'log'> & { log?: Logger | undefined };

export interface BatchRunnerOptions {
  db: Db;
  log: Logger;
  /** Told when a run is done: what was built from the aggregates it rewrote is dropped (api/answers/changes.ts). */
  changes: Pick<Changes, 'changed'>;
  /** serve --pricing (default: pipeline/pricing.json). */
  pricingFile?: string | undefined;
  /** The server's clock (tests pin it): it decides yesterday, the last day a run rebuilds. */
  now?: (() => Date) | undefined;
  /** Times each run (the batch histogram of /metrics). */
  timeBatch?: <T>(run: () => Promise<T>) => Promise<T>;
  /** Runs after each scheduled run, whether it succeeded or not. */
  afterScheduledRun?: () => Promise<unknown>;
  /** The batch itself (pipeline/batch.ts's runBatch); a test gives one it controls. */
  batch?: (db: Db, options: BatchOptions) => Promise<BatchReport>;
}

export const BATCH_CONFLICT = 'a batch of this organization is already queued or running; ask again when it has finished';

export class BatchRunner {
  /** The last run queued: the next one starts when it has settled. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Organizations with a run asked through the API queued or running. */
  private readonly asked = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private scheduled = false;

  constructor(private readonly options: BatchRunnerOptions) {}

  /** The server's "now". */
  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /**
   * Runs one batch after every run queued before it. When it is done (or failed), the answers it made
   * stale are dropped: only its organization's when it rebuilt one organization (`orgId`, or the `days`
   * of an erasure), everyone's otherwise.
   */
  run(request: BatchRequest): Promise<BatchReport> {
    const options = this.optionsOf(request);
    const orgId = request.orgId ?? request.days?.orgId;
    const batch = this.options.batch ?? runBatch;
    const timed = this.options.timeBatch ?? ((run) => run());
    const run = this.tail
      .catch(() => undefined)
      .then(() => withAllThreads(this.options.db, () => timed(() => batch(this.options.db, options))))
      .finally(() => this.options.changes.changed({ kind: 'batch', org: orgId }));
    this.tail = run;
    return run;
  }

  /**
   * A run of one organization asked through the API: refused with a 409 while another asked this way is
   * queued or running, so a caller cannot stack runs behind the lock. An erasure's rebuild is never
   * refused: the records are gone already and their days must be rebuilt.
   */
  async runForOrganization(orgId: string, request: Omit<BatchRequest, 'orgId' | 'days'>): Promise<BatchReport> {
    if (this.asked.has(orgId)) throw new HttpError(409, BATCH_CONFLICT);
    this.asked.add(orgId);
    try {
      return await this.run({ ...request, orgId });
    } finally {
      this.asked.delete(orgId);
    }
  }

  /**
   * Runs the batch of every organization each day at `at` (HH:MM UTC), then `afterScheduledRun`. The
   * wait is measured on the wall clock, as timers run on it (a pinned server clock would fire again at
   * once); the run itself takes the server's clock like any other.
   */
  startSchedule(at: string): void {
    this.stopSchedule();
    this.scheduled = true;
    const arm = () => {
      if (!this.scheduled) return;
      this.timer = setTimeout(() => void this.scheduledRun().finally(arm), msUntil(at, new Date()));
      this.timer.unref();
    };
    arm();
    this.options.log.info({ at: `${at} UTC` }, 'daily batch scheduled');
  }

  /** No scheduled run starts after this (one in progress finishes; idle() waits for it). */
  stopSchedule(): void {
    this.scheduled = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Settles when every run queued so far has (the server's shutdown waits for it before closing the database). */
  async idle(): Promise<void> {
    await this.tail.catch(() => undefined);
  }

  private async scheduledRun(): Promise<void> {
    const { log, afterScheduledRun } = this.options;
    await this.run({ trigger: 'schedule' }).catch((error: unknown) => log.error({ err: error }, 'scheduled batch failed'));
    await afterScheduledRun?.().catch((error: unknown) => log.error({ err: error }, 'session retention failed'));
  }

  private optionsOf(request: BatchRequest): BatchOptions {
    const pricingFile = request.pricingFile ?? this.options.pricingFile;
    const now = request.now ?? this.options.now?.();
    return {
      ...request,
      log: request.log ?? this.options.log,
      ...(pricingFile ? { pricingFile } : {}),
      ...(now ? { now } : {}),
    };
  }
}

/** Milliseconds from `now` to the next HH:MM UTC (a whole day when it is HH:MM now). */
export function msUntil(hhmm: string, now: Date): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m);
  return next > now.getTime() ? next - now.getTime() : next + 86_400_000 - now.getTime();
}

/**
 * Runs fn with DuckDB using every core, then puts the thread count back. The server keeps DuckDB on one
 * thread (SERVER_DB_OPTIONS in api/server.ts); a batch run is the work that gains from all of them.
 */
export async function withAllThreads<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const [row] = await db.all<{ threads: string }>("SELECT current_setting('threads')::VARCHAR AS threads");
  const before = Number(row?.threads);
  const all = availableParallelism();
  if (!Number.isInteger(before) || before >= all) return fn();
  await db.run(`SET threads = ${all}`);
  try {
    return await fn();
  } finally {
    await db.run(`SET threads = ${before}`).catch(() => undefined);
  }
}
