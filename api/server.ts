// The HTTP server: the features of api/features.ts on one Fastify instance (api/http/app.ts) sharing one
// context (api/context.ts), and a graceful shutdown that finishes in-flight requests (so no acknowledged
// event is lost) before the database is checkpointed and closed.

import type { FastifyInstance } from 'fastify';
import type { OpenOptions } from '../common/db/duckdb.ts';
import { SHUTDOWN_GRACE_MS } from '../common/serve-defaults.ts';
import type { BatchReport } from '../pipeline/batch.ts';
import type { AccountStore } from './accounts/store.ts';
import type { AnalyticsReadModel } from './analytics/memory.ts';
import type { Authenticator } from './auth/authenticator.ts';
import type { BatchRequest } from './batch/runner.ts';
import type { AlertEngine } from './budgets/alerts.ts';
import { createContext } from './context.ts';
import { FEATURES } from './features.ts';
import { createApp } from './http/app.ts';
import type { IngestStore } from './ingest/store.ts';
import type { ServerOptions } from './options.ts';
import type { WorkSignal } from './sessions/work-signal.ts';
import type { LiveFiguresStore } from './today/store.ts';

export { CONNECTIONS_CHECK_MS, REQUEST_TIMEOUT_MS } from './http/app.ts';
export type { ServerOptions } from './options.ts';

/**
 * How the server opens its database.
 * - checkpointThreshold: ingest all day long rewrites the primary-key index at every checkpoint, so the
 *   server takes them less often (see OpenOptions.checkpointThreshold).
 * - threads: 1. The server's steady work is ingest batches and reads of small aggregates; DuckDB's
 *   parallel scan of a 10k-record batch only contends with the event loop for the same cores (on 2 cores
 *   one thread ingests more for less CPU: docs/design/duckdb-threads.md). A batch run raises it to every core
 *   for its duration (withAllThreads, api/batch/runner.ts).
 */
export const SERVER_DB_OPTIONS = { checkpointThreshold: '256MB', threads: 1 } as const satisfies OpenOptions;

export interface Services {
  accounts: AccountStore;
  auth: Authenticator;
  ingest: IngestStore;
  /**
   * Runs a batch through the server's runner (api/batch/runner.ts): one at a time, with the server's
   * pricing file and clock unless the options name their own, and the answers it made stale dropped.
   */
  runBatch: (options: BatchRequest) => Promise<BatchReport>;
  /** Removes sessions past their organization's sessionRetentionDays (the daily run does this too). */
  applySessionRetention: () => Promise<number>;
  /** Wakes computers' long-polls; tests read how many wait. */
  workSignal: WorkSignal;
  /** The analytics rows held in memory (tests wait for a load, and read what answered). */
  readModel: AnalyticsReadModel;
  /** Today's provisional figures and the month's credits (api/today/). */
  live: LiveFiguresStore;
  /** Budget alerts: firing and delivery (tests wait for it to be idle). */
  alerts: AlertEngine;
}

/** The server: the shared context, every feature of api/features.ts registered on it, and the schedule. */
export async function buildServer(options: ServerOptions): Promise<{ app: FastifyInstance; services: Services }> {
  const ctx = await createContext(options);
  const app = createApp(options);
  for (const feature of FEATURES) feature.register(app, ctx);
  const { batch, alerts, decoders, ingest } = ctx;
  if (options.batchAt) batch.startSchedule(options.batchAt);
  app.addHook('onClose', async () => {
    await ctx.readModel.close();
    batch.stopSchedule();
    alerts.close();
    await alerts.idle();
    await batch.idle();
    await decoders?.close();
    ingest.close();
  });
  await app.ready();
  // Budgets past a threshold while the server was down fire now; deliveries a stop left pending resume.
  alerts.start().catch((error) => options.log.error({ err: error }, 'budget alerts: start failed'));
  return {
    app,
    services: {
      accounts: ctx.accounts,
      auth: ctx.auth,
      ingest,
      runBatch: (opts) => batch.run(opts),
      applySessionRetention: ctx.retention,
      workSignal: ctx.workSignal,
      readModel: ctx.readModel,
      live: ctx.live,
      alerts,
    },
  };
}

export interface RunningServer {
  app: FastifyInstance;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/** Listens and installs SIGINT/SIGTERM handlers that close the server, then the database. */
export async function startServer(
  options: ServerOptions & {
    host: string;
    port: number;
    handleSignals?: boolean;
    /** Runs right before listening: the CLI lets go of the port it held while the database opened. */
    beforeListen?: () => Promise<void>;
    /** How long close() lets in-flight requests finish before it closes their connections (default SHUTDOWN_GRACE_MS). */
    shutdownGraceMs?: number;
  },
): Promise<RunningServer> {
  const { app, services } = await buildServer(options);
  // The analytics rows, loaded in the background: the first cold answers find them held.
  services.readModel.preload().catch((error: unknown) => options.log.error({ err: error }, 'analytics read model: preloading failed'));
  await options.beforeListen?.();
  let address: string;
  try {
    address = await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const graceMs = options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS;
      options.log.info({ graceMs }, 'shutting down: finishing in-flight requests');
      // A client that sent headers and nothing more (or reads its answer slowly) must not hold the
      // shutdown: after the grace period every connection still open is closed.
      const force = setTimeout(() => {
        options.log.warn({ graceMs }, 'shutdown: grace period over, closing the connections still open');
        app.server.closeAllConnections();
      }, graceMs);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await options.db.close();
      options.log.info('server stopped');
    })());
  if (options.handleSignals !== false) {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        void close().then(() => process.exit(0));
      });
    }
  }
  return { app, services, url: address, close };
}
