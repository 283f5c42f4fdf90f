// What every feature of the server shares: the database, the logger, the clock, the stores more than one
// feature writes or reads (accounts, live figures, teams, budgets, alert settings), the answer cache and read
// model, the batch runner, and the background work the server owns (decode workers, alerts with their
// anomaly and digest checks, the work signal). Built
// once by createContext; each feature in api/features.ts takes what it needs from it.

import type { Db } from '../common/db/duckdb.ts';
import type { Logger } from '../common/logger.ts';
import { DEFAULT_PRICING_FILE, loadPricing, loadPricingTable } from '../pipeline/batch.ts';
import { AccountStore } from './accounts/store.ts';
import { AlertSettingsStore } from './alert-settings/store.ts';
import { AnalyticsReadModel, DEFAULT_READ_MODEL_LIMITS } from './analytics/memory.ts';
import { AnswerPieces } from './analytics/pieces.ts';
import { AnalyticsReader } from './analytics/reader.ts';
import { AnalyticsStore } from './analytics/store.ts';
import { AnomalyCheck } from './anomalies/check.ts';
import { AnomalyStore } from './anomalies/store.ts';
import { ResponseCache } from './answers/cache.ts';
import { Changes } from './answers/changes.ts';
import { Authenticator } from './auth/authenticator.ts';
import { BatchRunner } from './batch/runner.ts';
import { AlertEngine } from './budgets/alerts.ts';
import { BudgetStore } from './budgets/store.ts';
import { CodeStore } from './code/store.ts';
import { ComputerStore } from './computers/store.ts';
import { DigestCheck, type DigestDeps } from './digest/check.ts';
import { DigestStore } from './digest/store.ts';
import type { ForecastDeps } from './forecast/routes.ts';
import { DecodePool, defaultDecodeWorkers } from './ingest/decode-pool.ts';
import { IngestGate } from './ingest/gate.ts';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from './ingest/limits.ts';
import { IngestStore } from './ingest/store.ts';
import { MachineStore } from './machines/store.ts';
import { ServerMetrics } from './metrics/metrics.ts';
import type { ServerOptions } from './options.ts';
import { applySessionRetention } from './sessions/retention.ts';
import { SessionStore } from './sessions/store.ts';
import { WorkSignal } from './sessions/work-signal.ts';
import { SignInStore } from './signin/store.ts';
import { TeamAnalytics } from './teams/analytics.ts';
import { LiveFiguresStore } from './today/store.ts';

export interface ServerContext {
  options: ServerOptions;
  db: Db;
  log: Logger;
  /** The server's clock in milliseconds: options.now when a test pins it, else the wall clock. */
  clock: () => number;
  /** The pinned clock as the routes take it: `{now}` when a test pinned one, else nothing. */
  pinnedNow: { now?: () => Date };
  accounts: AccountStore;
  auth: Authenticator;
  signIns: SignInStore;
  machines: MachineStore;
  computers: ComputerStore;
  ingest: IngestStore;
  ingestLimits: IngestLimits;
  /** Who may send records now: one quota and one count of requests for the ingest and OTLP routes. */
  ingestGate: IngestGate;
  /** Worker threads decoding ingest bodies; none when options.decodeWorkers is 0. */
  decoders: DecodePool | undefined;
  /** Today's provisional figures and the month's credits (api/today/). */
  live: LiveFiguresStore;
  teams: TeamAnalytics;
  budgets: BudgetStore;
  alerts: AlertEngine;
  /** Where anomalies and the Monday digest go, and the organization's anomaly floor (docs/metrics.md §9). */
  alertSettings: AlertSettingsStore;
  anomalies: AnomalyStore;
  digests: DigestStore;
  /** What the month-end forecast reads: the forecast route and the digest's budgets at risk. */
  forecast: ForecastDeps;
  /** What the weekly digest is built from, for its check and its preview route. */
  digest: DigestDeps;
  /** Analytics and code answers, dropped by what made them stale. */
  cache: ResponseCache;
  /** Every writer says what it changed here; api/answers/changes.ts says what that makes stale. */
  changes: Changes;
  /** The aggregate rows held in memory that cold analytics answers come from (api/analytics/memory.ts). */
  readModel: AnalyticsReadModel;
  /** The analytics figures' one reader, over the read model (api/analytics/reader.ts). */
  analytics: AnalyticsReader;
  /** The ungrouped analytics answers' pieces, kept with the read model's rows (api/analytics/pieces.ts). */
  pieces: AnswerPieces;
  metrics: ServerMetrics;
  sessions: SessionStore;
  /** Wakes computers' long-polls. */
  workSignal: WorkSignal;
  /** Every batch run of this process goes through it (api/batch/runner.ts). */
  batch: BatchRunner;
  /** Removes sessions past their organization's sessionRetentionDays. */
  retention: () => Promise<number>;
}

export async function createContext(options: ServerOptions): Promise<ServerContext> {
  const { db, log } = options;
  const clock = () => (options.now ?? (() => new Date()))().getTime();
  // Sessions price their token usage with the same table as the batch: load it now, not only at a batch
  // (first, so a bad pricing file fails before a decode worker starts).
  await loadPricingTable(db, loadPricing(options.pricingFile ?? DEFAULT_PRICING_FILE));
  const accounts = new AccountStore(db);
  const cache = new ResponseCache(options.cache);
  // Cold answers come from the aggregate rows held in memory, refreshed after every batch (api/analytics/memory.ts).
  const readModel = new AnalyticsReadModel(db, new AnalyticsStore(db), {
    maxRows: options.readModel?.maxRows ?? DEFAULT_READ_MODEL_LIMITS.maxRows,
  });
  readModel.onLoadError = (error) => log.error({ err: error }, 'analytics read model: loading failed; answering from SQL');
  const ingest = new IngestStore(db);
  if (ingest.swept > 0) log.info({ swept: ingest.swept }, 'ingest: removed the temporary files a server that stopped mid-batch left');
  const metrics = new ServerMetrics({
    dbPath: db.path,
    cache: () => cache.stats,
    readModelRows: () => readModel.heldRows,
    ingestTransactions: () => ingest.transactions,
  });
  const live = new LiveFiguresStore(db, log, clock);
  // The answer cache, the read model and today's figures hold figures built from stored data: they drop
  // what each change makes stale.
  const changes = new Changes([cache, readModel, live]);
  accounts.onUserAdded = (org) => changes.changed({ kind: 'user', org });
  const teams = new TeamAnalytics(db, readModel);
  const analytics = new AnalyticsReader(readModel);
  const budgets = new BudgetStore(db);
  const ingestLimits = { ...DEFAULT_INGEST_LIMITS, ...options.ingestLimits };
  const workers = options.decodeWorkers ?? defaultDecodeWorkers();
  const sessions = new SessionStore(db, clock);
  const retention = () => applySessionRetention(db, sessions, log);
  const batch = new BatchRunner({
    db,
    log,
    changes,
    pricingFile: options.pricingFile,
    now: options.now,
    timeBatch: (run) => metrics.timeBatch(run),
    afterScheduledRun: retention,
  });
  const alerts = new AlertEngine(budgets, live, teams, log, clock, options.alerts);
  // Anomalies and the Monday digest: checks of the same engine, delivered through its queue (docs/metrics.md §9).
  const alertSettings = new AlertSettingsStore(db);
  const anomalies = new AnomalyStore(db);
  const digests = new DigestStore(db);
  alerts.add(
    new AnomalyCheck({
      db,
      store: anomalies,
      settings: alertSettings,
      live,
      teams,
      log,
      now: clock,
      intervalMs: alerts.options.anomalyIntervalMs,
    }),
  );
  const forecast: ForecastDeps = { db, live, budgets, teams, clock };
  const digest: DigestDeps = {
    store: digests,
    settings: alertSettings,
    anomalies,
    code: new CodeStore(db),
    teams,
    forecast,
    log,
    now: clock,
    runBatch: (orgId: string) => batch.run({ trigger: 'server', orgId }),
  };
  alerts.add(new DigestCheck(digest));
  return {
    options,
    db,
    log,
    clock,
    pinnedNow: options.now ? { now: options.now } : {},
    accounts,
    auth: new Authenticator(accounts, log, options.jwtSecret, options.jwtMaxLifetimeSeconds),
    signIns: new SignInStore(db),
    machines: new MachineStore(db, accounts),
    computers: new ComputerStore(db, clock),
    ingest,
    ingestLimits,
    ingestGate: new IngestGate(ingestLimits),
    decoders: workers > 0 ? new DecodePool(workers, ingestLimits.maxDecodeQueue) : undefined,
    live,
    teams,
    budgets,
    alerts,
    alertSettings,
    anomalies,
    digests,
    forecast,
    digest,
    cache,
    changes,
    readModel,
    analytics,
    pieces: new AnswerPieces(readModel, analytics),
    metrics,
    sessions,
    workSignal: new WorkSignal(),
    batch,
    retention,
  };
}
