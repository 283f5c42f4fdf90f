// The server's features, in the order they register: each takes the Fastify instance and the shared
// context (api/context.ts) and declares its routes. Order matters where a comment says so; a new feature
// is one more entry here.

import type { FastifyInstance } from 'fastify';
import { COMPUTER_TOKEN_PREFIX } from '../common/computer-protocol.ts';
import { unauthorized } from '../common/errors.ts';
import { registerAdoptionRoutes } from './adoption/routes.ts';
import { AdoptionStore } from './adoption/store.ts';
import { registerAlertSettingsRoutes } from './alert-settings/routes.ts';
import { registerAliasRoutes } from './aliases/routes.ts';
import { AnalyticsReader } from './analytics/reader.ts';
import { registerAnalyticsRoutes } from './analytics/routes.ts';
import { AnalyticsStore } from './analytics/store.ts';
import { bearerToken } from './auth/authenticator.ts';
import { installAuthentication } from './auth/hook.ts';
import { registerBatchRoutes } from './batch/routes.ts';
import { BatchStore } from './batch/store.ts';
import { registerBudgetRoutes } from './budgets/routes.ts';
import { registerCodeRoutes } from './code/routes.ts';
import { CodeStore } from './code/store.ts';
import { decorateComputer } from './computers/access.ts';
import { registerComputerRoutes } from './computers/routes.ts';
import type { ServerContext } from './context.ts';
import { registerControlRoutes } from './controls/routes.ts';
import { registerDashboard } from './dashboard/routes.ts';
import { registerDeviceRoutes } from './device/routes.ts';
import { DeviceCodeStore } from './device/store.ts';
import { registerDigestRoutes } from './digest/routes.ts';
import { registerForecastRoutes } from './forecast/routes.ts';
import { installAnswerHeaders } from './http/app.ts';
import { registerIngestRoutes } from './ingest/routes.ts';
import { registerInstallRoutes } from './install/routes.ts';
import { registerKeyRoutes } from './keys/routes.ts';
import { registerLimitRoutes } from './limits/routes.ts';
import { registerLivenessRoutes } from './liveness/routes.ts';
import { registerMachineRoutes } from './machines/routes.ts';
import { registerMeRoutes } from './me/routes.ts';
import { registerMetricsRoutes } from './metrics/routes.ts';
import { registerOidcRoutes } from './oidc/routes.ts';
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
import { registerSessionRoutes } from './sessions/routes.ts';
import { registerSignInRoutes } from './signin/routes.ts';
import { registerTeamRoutes } from './teams/routes.ts';
import { registerTodayRoutes } from './today/routes.ts';
import { registerUserRoutes } from './users/routes.ts';

export interface Feature {
  name: string;
  register(app: FastifyInstance, ctx: ServerContext): void;
}

/**
 * Before any body is read: a person's credential, or a computer agent's token, looked up once and put on
 * the request (`request.computer`; its routes check it is the computer of their path, and the people's
 * routes refuse it as a person's credential).
 */
function authenticateRequests(app: FastifyInstance, { auth, computers }: ServerContext): void {
  decorateComputer(app);
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
}

/** What an accepted ingest request makes stale or worth checking: today's figures and the budgets. */
function afterIngest(ctx: ServerContext, orgId: string): void {
  ctx.changes.changed({ kind: 'events', org: orgId });
  ctx.alerts.touch(orgId);
}

export const FEATURES: readonly Feature[] = [
  { name: 'metrics', register: (app, ctx) => registerMetricsRoutes(app, ctx.metrics, ctx.options.metricsToken) },
  { name: 'openapi', register: (app) => registerOpenApiRoutes(app) },
  { name: 'answer headers', register: (app) => installAnswerHeaders(app) },
  { name: 'authentication', register: authenticateRequests },
  // The dashboard: its pages and files, its sign-in, and the routes only it needs.
  { name: 'dashboard', register: (app, ctx) => registerDashboard(app, { dir: ctx.options.webDist }) },
  {
    name: 'sign-in',
    register: (app, { auth, accounts, signIns, options }) =>
      registerSignInRoutes(app, { auth, accounts, sessions: signIns, publicUrl: options.publicUrl }),
  },
  { name: 'machines', register: (app, { machines, accounts }) => registerMachineRoutes(app, { machines, accounts }) },
  // What a developer's machine downloads to enrol: the installer, the laptop bundle and the hook.
  {
    name: 'install',
    register: (app, { options }) => registerInstallRoutes(app, { dir: options.laptopDist, publicUrl: options.publicUrl }),
  },
  {
    name: 'device',
    register: (app, { db, accounts, clock, options }) =>
      registerDeviceRoutes(app, { accounts, codes: new DeviceCodeStore(db), now: clock, publicUrl: options.publicUrl }),
  },
  { name: 'liveness', register: (app, { db }) => registerLivenessRoutes(app, { db }) },
  {
    name: 'today',
    register: (app, { db, live, analytics, cache, teams, pinnedNow }) =>
      registerTodayRoutes(app, { live, analytics, cache, teams, code: new CodeStore(db), ...pinnedNow }),
  },
  { name: 'me', register: (app, { db, live, cache, clock }) => registerMeRoutes(app, { db, live, cache, now: () => new Date(clock()) }) },
  { name: 'aliases', register: (app, { db, accounts, changes }) => registerAliasRoutes(app, { db, accounts, changes }) },
  {
    name: 'budgets',
    register: (app, { budgets, live, alerts, teams, anomalies, digests, cache, changes, clock }) =>
      registerBudgetRoutes(app, { budgets, live, alerts, teams, anomalies, digests, cache, changes, now: () => new Date(clock()) }),
  },
  { name: 'forecast', register: (app, { forecast, cache }) => registerForecastRoutes(app, { ...forecast, cache }) },
  {
    name: 'alert-settings',
    register: (app, { alertSettings, digests, alerts, clock }) =>
      registerAlertSettingsRoutes(app, { settings: alertSettings, digests, alerts, now: clock }),
  },
  { name: 'digest', register: (app, { digest }) => registerDigestRoutes(app, digest) },
  {
    name: 'ingest',
    register: (app, ctx) =>
      registerIngestRoutes(app, {
        ingest: ctx.ingest,
        decoders: ctx.decoders,
        gate: ctx.ingestGate,
        onStored: (principal, r) => {
          afterIngest(ctx, principal.orgId);
          ctx.machines.recordDelivery(principal, r.headers);
        },
      }),
  },
  {
    name: 'otlp',
    register: (app, ctx) =>
      registerOtlpRoutes(app, {
        ingest: ctx.ingest,
        db: ctx.db,
        gate: ctx.ingestGate,
        onStored: (principal) => afterIngest(ctx, principal.orgId),
      }),
  },
  {
    name: 'readiness',
    register: (app, { db, cache, changes }) => registerReadinessRoutes(app, { readiness: new ReadinessStore(db), cache, changes }),
  },
  { name: 'controls', register: (app, { db, accounts }) => registerControlRoutes(app, { db, accounts }) },
  {
    name: 'limits',
    register: (app, { db, live, cache, changes, pinnedNow }) => registerLimitRoutes(app, { db, live, cache, changes, ...pinnedNow }),
  },
  { name: 'computers', register: (app, { db, computers, clock }) => registerComputerRoutes(app, { db, computers, now: clock }) },
  {
    name: 'sessions',
    register: (app, { db, computers, sessions, workSignal, clock }) => {
      const deps = { db, computers, sessions, signal: workSignal };
      registerComputerAgentRoutes(app, { ...deps, now: clock });
      registerSessionRoutes(app, deps);
      // Long-polls end at once when the server closes, so a shutdown never waits for them.
      app.addHook('preClose', async () => workSignal.close());
    },
  },
  {
    name: 'analytics',
    register: (app, { cache, analytics, pieces, teams, pinnedNow }) =>
      registerAnalyticsRoutes(app, { cache, analytics, pieces, teams, ...pinnedNow }),
  },
  // Team answers are cached under the organization's teams revision (api/teams/store.ts bumps it).
  { name: 'teams', register: (app, { db, cache, pinnedNow }) => registerTeamRoutes(app, { db, cache, ...pinnedNow }) },
  {
    name: 'adoption',
    register: (app, { db, clock, cache, teams }) =>
      registerAdoptionRoutes(app, { store: new AdoptionStore(db), now: () => new Date(clock()), cache, teams }),
  },
  {
    name: 'code',
    register: (app, { db, cache, teams, pinnedNow }) => registerCodeRoutes(app, { cache, teams, code: new CodeStore(db), ...pinnedNow }),
  },
  // The code hosts' pull request webhooks and their secrets (docs/pull-requests.md), and the figures.
  {
    name: 'pull requests',
    register: (app, { db, live, teams, cache, changes, pinnedNow }) => {
      registerPullRequestRoutes(app, { store: new PullRequestStore(db), dbPath: db.path, changes });
      registerPullRequestReadRoutes(app, { reads: new PullRequestReads(db), live, teams, cache, ...pinnedNow });
    },
  },
  { name: 'batch', register: (app, { db, batch }) => registerBatchRoutes(app, { runner: batch, store: new BatchStore(db) }) },
  {
    name: 'pricing',
    register: (app, { db, batch, changes, cache, alerts }) =>
      registerPricingRoutes(app, { pricing: new PricingStore(db), runner: batch, changes, cache, alerts }),
  },
  // After the batch lock: removing a user with erasure rebuilds the days it touched through it.
  { name: 'keys', register: (app, { accounts, auth }) => registerKeyRoutes(app, { accounts, auth }) },
  {
    name: 'users',
    register: (app, { db, ingest, accounts, auth, changes, batch, cache, pinnedNow }) =>
      registerUserRoutes(app, {
        accounts,
        cache,
        auth,
        db,
        ingest,
        analytics: new AnalyticsReader(new AnalyticsStore(db)),
        ...pinnedNow,
        // A removed user's e-mail leaves the answers (their rows stay, as in SQL's LEFT JOIN).
        changes,
        runBatch: (opts) => batch.run(opts),
      }),
  },
  // The directory's provisioning (SCIM 2.0): /scim/v2 with its own token, and the owners' token routes.
  {
    name: 'scim',
    register: (app, { db, ingest, accounts, auth, changes, pinnedNow }) =>
      registerScimRoutes(app, {
        db,
        ingest,
        accounts,
        auth,
        changes,
        ...pinnedNow,
      }),
  },
  // Sign-in with the organization's identity provider (OIDC), giving the same session cookie.
  {
    name: 'oidc',
    register: (app, { db, accounts, signIns, options, pinnedNow }) =>
      registerOidcRoutes(app, {
        db,
        accounts,
        sessions: signIns,
        allowPrivate: options.allowPrivateOidc ?? false,
        publicUrl: options.publicUrl,
        ...pinnedNow,
      }),
  },
];
