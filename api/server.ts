// The HTTP server: Fastify with pino request logs and request ids, zod validation on every route, body
// size caps, and a graceful shutdown that finishes in-flight requests (so no acknowledged event is lost)
// before the database is checkpointed and closed.

import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { COMPUTER_TOKEN_PREFIX } from '../common/computer-protocol.ts';
import type { Db, OpenOptions } from '../common/db/duckdb.ts';
import { unauthorized } from '../common/errors.ts';
import { newRequestId } from '../common/ids.ts';
import type { Logger } from '../common/logger.ts';
import { SHUTDOWN_GRACE_MS } from '../common/serve-defaults.ts';
import { type BatchReport, DEFAULT_PRICING_FILE, loadPricing, loadPricingTable } from '../pipeline/batch.ts';
import { AccountStore } from './accounts/store.ts';
import { registerAdoptionRoutes } from './adoption/routes.ts';
import { AdoptionStore } from './adoption/store.ts';
import { registerAliasRoutes } from './aliases/routes.ts';
import { AnalyticsReadModel, DEFAULT_READ_MODEL_LIMITS, type ReadModelLimits } from './analytics/memory.ts';
import { registerAnalyticsRoutes } from './analytics/routes.ts';
import { AnalyticsStore } from './analytics/store.ts';
import { type CacheLimits, ResponseCache } from './answers/cache.ts';
import { Changes } from './answers/changes.ts';
import { Authenticator, bearerToken } from './auth/authenticator.ts';
import { installAuthentication } from './auth/hook.ts';
import { registerBatchRoutes } from './batch/routes.ts';
import { type BatchRequest, BatchRunner } from './batch/runner.ts';
import { BatchStore } from './batch/store.ts';
import { AlertEngine, type AlertOptions } from './budgets/alerts.ts';
import { registerBudgetRoutes } from './budgets/routes.ts';
import { BudgetStore } from './budgets/store.ts';
import { registerCodeRoutes } from './code/routes.ts';
import { CodeStore } from './code/store.ts';
import { decorateComputer } from './computers/access.ts';
import { registerComputerRoutes } from './computers/routes.ts';
import { ComputerStore } from './computers/store.ts';
import { registerControlRoutes } from './controls/routes.ts';
import { registerDashboard } from './dashboard/routes.ts';
import { registerDeviceRoutes } from './device/routes.ts';
import { DeviceCodeStore } from './device/store.ts';
import { registerForecastRoutes } from './forecast/routes.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/errors.ts';
import { requestSerializer } from './http/request-log.ts';
import { DecodePool, defaultDecodeWorkers } from './ingest/decode-pool.ts';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from './ingest/limits.ts';
import { registerIngestRoutes } from './ingest/routes.ts';
import { IngestStore } from './ingest/store.ts';
import { registerInstallRoutes } from './install/routes.ts';
import { registerKeyRoutes } from './keys/routes.ts';
import { registerLimitRoutes } from './limits/routes.ts';
import { registerLivenessRoutes } from './liveness/routes.ts';
import { registerMachineRoutes } from './machines/routes.ts';
import { MachineStore } from './machines/store.ts';
import { registerMeRoutes } from './me/routes.ts';
import { ServerMetrics } from './metrics/metrics.ts';
import { registerMetricsRoutes } from './metrics/routes.ts';
import { registerOidcRoutes } from './oidc/routes.ts';
import { checkAnswers } from './openapi/declare.ts';
import { trackRoutes } from './openapi/registry.ts';
import { registerOpenApiRoutes } from './openapi/routes.ts';
import { registerOtlpRoutes } from './otlp/routes.ts';
import { registerPricingRoutes } from './pricing/routes.ts';
import { PricingStore } from './pricing/store.ts';
import { registerPullRequestReadRoutes, registerPullRequestRoutes } from './pull-requests/routes.ts';
import { PullRequestReads, PullRequestStore } from './pull-requests/store.ts';
import { registerReadinessRoutes } from './readiness/routes.ts';
import { ReadinessStore } from './readiness/store.ts';
import { registerScimRoutes } from './scim/routes.ts';
import { registerComputerAgentRoutes } from './sessions/agent-routes.ts';
import { applySessionRetention } from './sessions/retention.ts';
import { registerSessionRoutes } from './sessions/routes.ts';
import { SessionStore } from './sessions/store.ts';
import { WorkSignal } from './sessions/work-signal.ts';
import { registerSignInRoutes } from './signin/routes.ts';
import { SignInStore } from './signin/store.ts';
import { TeamAnalytics } from './teams/analytics.ts';
import { registerTeamRoutes } from './teams/routes.ts';
import { registerTodayRoutes } from './today/routes.ts';
import { LiveFiguresStore } from './today/store.ts';
import { registerUserRoutes } from './users/routes.ts';

/**
 * How the server opens its database.
 * - checkpointThreshold: ingest all day long rewrites the primary-key index at every checkpoint, so the
 *   server takes them less often (see OpenOptions.checkpointThreshold).
 * - threads: 1. The server's steady work is ingest batches and reads of small aggregates; DuckDB's
 *   parallel scan of a 10k-record batch only contends with the event loop for the same cores (measured
 *   on 2 cores: ~10% more ingest and ~15% less CPU with one thread). A batch run raises it to every core
 *   for its duration (withAllThreads, api/batch/runner.ts).
 */
export const SERVER_DB_OPTIONS = { checkpointThreshold: '256MB', threads: 1 } as const satisfies OpenOptions;

export interface ServerOptions {
  db: Db;
  log: Logger;
  /** HS256 secret for JWT bearer tokens; JWTs are refused when absent. */
  jwtSecret?: string | undefined;
  /** Longest accepted JWT lifetime (exp - iat, or exp - now without iat), in seconds (default 24 h). */
  jwtMaxLifetimeSeconds?: number | undefined;
  /** The clock of the analytics date rules (tests pin it). */
  now?: () => Date;
  pricingFile?: string | undefined;
  /** Daily batch time, HH:MM UTC; null turns the schedule off. */
  batchAt?: string | null;
  /** Limits of the analytics response cache (default DEFAULT_CACHE_LIMITS; a 0 turns it off). */
  cache?: Partial<CacheLimits>;
  /** Limits of the analytics read model (default DEFAULT_READ_MODEL_LIMITS; maxRows 0: every answer reads DuckDB). */
  readModel?: Partial<ReadModelLimits> | undefined;
  /** Worker threads that decode ingest bodies (0: decode on the event loop; default: defaultDecodeWorkers()). */
  decodeWorkers?: number | undefined;
  /** Limits of one ingest request (default DEFAULT_INGEST_LIMITS, api/ingest/limits.ts). */
  ingestLimits?: Partial<IngestLimits> | undefined;
  /**
   * Longest a client may take to send a whole request, headers and body (default REQUEST_TIMEOUT_MS);
   * Node checks every CONNECTIONS_CHECK_MS, so a stalled request is answered 408 and closed within the sum.
   */
  requestTimeoutMs?: number | undefined;
  /** How often Node looks for requests past their timeout (default CONNECTIONS_CHECK_MS). */
  connectionsCheckMs?: number | undefined;
  /** Turns GET /metrics on, for this bearer token (at least 32 characters); off when absent. */
  metricsToken?: string | undefined;
  /**
   * Addresses of the reverse proxies in front of this server (comma-separated IPs or CIDRs). Only their
   * X-Forwarded-Proto/-Host/-For are believed: the sign-in cookie is then Secure behind a TLS proxy, and
   * the dashboard's same-origin check compares with the host the browser used. Unset: none is believed.
   */
  trustProxy?: string | undefined;
  /** The built dashboard (default web/dist of the checkout). */
  webDist?: string | undefined;
  /** The built laptop bundle that /install/<version>/ serves (default dist/laptop of the checkout). */
  laptopDist?: string | undefined;
  /** The URL developer machines reach this server at, written into /install.sh (default: the request's Host). */
  publicUrl?: string | undefined;
  /** Identity providers may be http and on private or loopback addresses (serve --allow-private-oidc; api/oidc/guard.ts). */
  allowPrivateOidc?: boolean | undefined;
  /** Budget alert delivery: `allowPrivate` is serve --allow-private-webhooks; retries and timeouts for tests. */
  alerts?: AlertOptions | undefined;
  /** Check every answer of a declared route against its declared schema (tests; api/openapi/declare.ts). */
  checkAnswers?: boolean | undefined;
}

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

/** Requests that change nothing: their authenticated answers are `private`; every other is `no-store`. */
const READ_METHODS = new Set(['GET', 'HEAD']);
/** Longest a client may take to send one whole request (the ingest body has its own, shorter, deadline). */
export const REQUEST_TIMEOUT_MS = 60_000;
export const CONNECTIONS_CHECK_MS = 5_000;

export async function buildServer(options: ServerOptions): Promise<{ app: FastifyInstance; services: Services }> {
  const app = Fastify({
    // Typed as Fastify's base logger so the instance is the plain FastifyInstance the routes take.
    // Its request lines never hold an OAuth code, a state or a token from a query (request-log.ts).
    loggerInstance: options.log.child({}, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    trustProxy: options.trustProxy ?? false,
    // JSON bodies are parsed on the event loop: 1 MiB is a few milliseconds of it. Routes that take more
    // say so (docs/ingest-limits.md lists them); ingest bodies are never parsed on the loop.
    bodyLimit: 1024 * 1024,
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    // Given to Node's constructor as well: Node 20 reads requestTimeout there, not when set afterwards.
    http: {
      requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: options.connectionsCheckMs ?? CONNECTIONS_CHECK_MS,
    },
    // Errors met before a route runs answer with the documented body too (api/http/errors.ts).
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(options.log),
  });
  const accounts = new AccountStore(options.db);
  const auth = new Authenticator(accounts, options.log, options.jwtSecret, options.jwtMaxLifetimeSeconds);
  const ingest = new IngestStore(options.db);
  installErrorHandling(app);
  if (options.checkAnswers) checkAnswers(app);
  // Before any route: the OpenAPI test compares what is registered with the document.
  trackRoutes(app);
  const metrics = new ServerMetrics({
    dbPath: options.db.path,
    cache: () => cache.stats,
    readModelRows: () => readModel.heldRows,
  });
  registerMetricsRoutes(app, metrics, options.metricsToken);
  registerOpenApiRoutes(app);
  const clock = () => (options.now ?? (() => new Date()))().getTime();
  // Once close() has begun, every answer ends its connection: a kept-alive client would otherwise hold the
  // shutdown for the whole grace period after its last answer (Fastify closes only connections idle then).
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  // A callback hook, not an async one: it runs on every response, and needs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', String(request.id));
    if (draining) void reply.header('connection', 'close');
    // An answer to a credential is no shared cache's to keep (private); one to a change (POST, PUT, PATCH,
    // DELETE), which is where keys and tokens are handed out, nobody's to store (no-store). Public routes
    // and routes that chose their own policy (sign-in, the dashboard's files) keep theirs.
    if (request.routeOptions.url !== undefined && request.routeOptions.config.public !== true && !reply.hasHeader('cache-control'))
      void reply.header('cache-control', READ_METHODS.has(request.method) ? 'private' : 'no-store');
    done(null, payload);
  });

  const computers = new ComputerStore(options.db, clock);
  decorateComputer(app);
  // Before any body is read: a person's credential, or a computer agent's token, looked up once and put
  // on the request (`request.computer`; its routes check it is the computer of their path, and the
  // people's routes refuse it as a person's credential).
  installAuthentication(app, async (request) => {
    // No Authorization header: the dashboard's session cookie, or the 401.
    if (!request.headers.authorization) return auth.authenticate(request);
    const token = bearerToken(request);
    if (!token.startsWith(COMPUTER_TOKEN_PREFIX)) return auth.authenticate(request);
    // A computer's token is good only on the computer agent's own routes: elsewhere it is refused here,
    // before a body up to that route's limit is read.
    if (request.routeOptions.config.doc?.access.kind !== 'computer')
      throw unauthorized("A computer's token is accepted only on the computer agent's routes");
    const computer = await computers.byToken(token);
    if (!computer) throw unauthorized('Computer token unknown (the computer may have been registered again)');
    request.computer = computer;
    return undefined;
  });

  // The dashboard: its pages and files, its sign-in, and the routes only it needs.
  registerDashboard(app, { dir: options.webDist });
  const signIns = new SignInStore(options.db);
  registerSignInRoutes(app, { auth, accounts, sessions: signIns });
  const machines = new MachineStore(options.db, accounts);
  registerMachineRoutes(app, { machines, accounts });
  // What a developer's machine downloads to enrol: the installer, the laptop bundle and the hook.
  registerInstallRoutes(app, { dir: options.laptopDist, publicUrl: options.publicUrl });
  registerDeviceRoutes(app, { accounts, codes: new DeviceCodeStore(options.db), now: clock, publicUrl: options.publicUrl });

  registerLivenessRoutes(app, { db: options.db });
  const live = new LiveFiguresStore(options.db, options.log, clock);
  // The answer cache of every read route, and what holds figures built from stored data: every writer
  // says what it changed, and the table of api/answers/changes.ts says what that makes stale.
  const cache = new ResponseCache(options.cache);
  // Cold answers come from the aggregate rows held in memory, refreshed after every batch (api/analytics/memory.ts).
  const readModel = new AnalyticsReadModel(options.db, new AnalyticsStore(options.db), {
    maxRows: options.readModel?.maxRows ?? DEFAULT_READ_MODEL_LIMITS.maxRows,
  });
  readModel.onLoadError = (error) => options.log.error({ err: error }, 'analytics read model: loading failed; answering from SQL');
  const changes = new Changes([cache, readModel, live]);
  const teamAnalytics = new TeamAnalytics(options.db);
  registerTodayRoutes(app, {
    live,
    cache,
    teams: teamAnalytics,
    code: new CodeStore(options.db),
    ...(options.now ? { now: options.now } : {}),
  });
  registerMeRoutes(app, { db: options.db, live });
  registerAliasRoutes(app, { db: options.db, accounts, changes });
  const budgets = new BudgetStore(options.db);
  const alerts = new AlertEngine(budgets, live, teamAnalytics, options.log, clock, options.alerts);
  registerBudgetRoutes(app, { budgets, live, alerts, teams: teamAnalytics });
  registerForecastRoutes(app, { db: options.db, live, budgets, teams: teamAnalytics, clock });
  const workers = options.decodeWorkers ?? defaultDecodeWorkers();
  const ingestLimits = { ...DEFAULT_INGEST_LIMITS, ...options.ingestLimits };
  const decoders = workers > 0 ? new DecodePool(workers, ingestLimits.maxDecodeQueue) : undefined;
  registerIngestRoutes(app, {
    ingest,
    decoders,
    limits: ingestLimits,
    onStored: (principal, r) => {
      changes.changed({ kind: 'events', org: principal.orgId });
      alerts.touch(principal.orgId);
      machines.recordDelivery(principal, r.headers);
    },
  });
  registerOtlpRoutes(app, {
    ingest,
    onStored: (principal) => {
      changes.changed({ kind: 'events', org: principal.orgId });
      alerts.touch(principal.orgId);
    },
  });
  registerReadinessRoutes(app, { readiness: new ReadinessStore(options.db) });
  registerControlRoutes(app, { db: options.db, accounts });
  registerLimitRoutes(app, { db: options.db, live, ...(options.now ? { now: options.now } : {}) });
  // Sessions price their token usage with the same table as the batch: load it now, not only at a batch.
  await loadPricingTable(options.db, loadPricing(options.pricingFile ?? DEFAULT_PRICING_FILE));
  const sessionDeps = {
    db: options.db,
    computers,
    sessions: new SessionStore(options.db, clock),
    signal: new WorkSignal(),
  };
  registerComputerRoutes(app, { db: options.db, computers, now: clock });
  registerComputerAgentRoutes(app, { ...sessionDeps, now: clock });
  registerSessionRoutes(app, sessionDeps);
  // Long-polls end at once when the server closes, so a shutdown never waits for them.
  app.addHook('preClose', async () => sessionDeps.signal.close());
  registerAnalyticsRoutes(app, {
    cache,
    analytics: readModel,
    repos: new AnalyticsStore(options.db),
    teams: teamAnalytics,
    ...(options.now ? { now: options.now } : {}),
  });
  // Team answers are cached under the organization's teams revision (api/teams/store.ts bumps it).
  registerTeamRoutes(app, { db: options.db });
  registerAdoptionRoutes(app, { store: new AdoptionStore(options.db), now: () => new Date(clock()) });
  registerCodeRoutes(app, {
    cache,
    teams: teamAnalytics,
    code: new CodeStore(options.db),
    ...(options.now ? { now: options.now } : {}),
  });
  // The code hosts' pull request webhooks and their secrets (docs/pull-requests.md).
  registerPullRequestRoutes(app, { store: new PullRequestStore(options.db), dbPath: options.db.path, changes });
  registerPullRequestReadRoutes(app, {
    reads: new PullRequestReads(options.db),
    teams: teamAnalytics,
    cache,
    ...(options.now ? { now: options.now } : {}),
  });
  const retention = () => applySessionRetention(options.db, sessionDeps.sessions, options.log);
  // Every batch run in this process goes through the runner: one at a time, with the server's options,
  // dropping the answers it made stale (api/batch/runner.ts).
  const batch = new BatchRunner({
    db: options.db,
    log: options.log,
    changes,
    pricingFile: options.pricingFile,
    now: options.now,
    timeBatch: (run) => metrics.timeBatch(run),
    afterScheduledRun: retention,
  });
  registerBatchRoutes(app, { runner: batch, store: new BatchStore(options.db) });
  registerPricingRoutes(app, { pricing: new PricingStore(options.db), runner: batch, changes });
  // After the batch lock: removing a user with erasure rebuilds the days it touched through it.
  registerKeyRoutes(app, { accounts, auth });
  registerUserRoutes(app, {
    accounts,
    auth,
    db: options.db,
    analytics: new AnalyticsStore(options.db),
    ...(options.now ? { now: options.now } : {}),
    // A removed user's e-mail leaves the answers (their rows stay, as in SQL's LEFT JOIN).
    changes,
    runBatch: (opts) => batch.run(opts),
  });
  // The directory's provisioning (SCIM 2.0): /scim/v2 with its own token, and the owners' token routes.
  registerScimRoutes(app, {
    db: options.db,
    accounts,
    auth,
    changes,
    ...(options.now ? { now: options.now } : {}),
  });
  // Sign-in with the organization's identity provider (OIDC), giving the same session cookie.
  registerOidcRoutes(app, {
    db: options.db,
    accounts,
    sessions: signIns,
    allowPrivate: options.allowPrivateOidc ?? false,
    publicUrl: options.publicUrl,
    ...(options.now ? { now: options.now } : {}),
  });
  if (options.batchAt) batch.startSchedule(options.batchAt);
  app.addHook('onClose', async () => {
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
      accounts,
      auth,
      ingest,
      runBatch: (opts) => batch.run(opts),
      applySessionRetention: retention,
      workSignal: sessionDeps.signal,
      readModel,
      live,
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
