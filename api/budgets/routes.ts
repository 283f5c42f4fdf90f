// Budgets and their alerts: PUT /api/v0/organization/budgets replaces the whole list (owners), GET answers
// it with each budget's credits this month and their share (owners and managers), GET
// /api/v0/organization/alerts lists fired alerts with each delivery's state (owners and managers).
// A team budget counts the team's members on each day, the teams below it included (api/teams/).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { badRequest, notFound } from '../../common/errors.ts';
import { teamNameKey } from '../../common/team-name.ts';
import type { AnomalyStore } from '../anomalies/store.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import type { DigestStore } from '../digest/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import type { LiveFiguresStore } from '../today/store.ts';
import { type AlertEngine, budgetUsage } from './alerts.ts';
import { keptDestinations } from './destination.ts';
import { percentage } from './messages.ts';
import {
  ALERTS_PATH,
  AlertList,
  AlertsQuery,
  BUDGETS_PATH,
  type Budget,
  BudgetList,
  BudgetPatch,
  BudgetsBody,
  DEFAULT_THRESHOLDS,
} from './schema.ts';
import { storedDestinationView } from './sealed-destinations.ts';
import { type BudgetStore, budgetLimit, type StoredBudget, type StoredDestination } from './store.ts';

export interface BudgetDeps {
  budgets: BudgetStore;
  live: LiveFiguresStore;
  alerts: AlertEngine;
  /** Team budgets: the team by name, and who it counts on each day. */
  teams: TeamAnalytics;
  /** Listed with the alerts: cost anomalies and weekly digests. */
  anomalies: AnomalyStore;
  digests: DigestStore;
  /** The answer cache: the budgets' usage is kept until what it reads changes. */
  cache: ResponseCache;
  /** Told when the budgets change: the answers that name them are stale. */
  changes: Pick<Changes, 'changed'>;
  /** The server clock: the month and the key's day. */
  now: () => Date;
}

/**
 * What the budgets' usage is built from: this month's records (today's as they arrive), prices, e-mails and
 * the budgets; the teams through the key (`roster`).
 */
const BUDGET_READS = ['events', 'aggregates', 'prices', 'users', 'budgets'] as const;

export function registerBudgetRoutes(app: FastifyInstance, deps: BudgetDeps): void {
  const answer = async (orgId: string): Promise<BudgetList> => {
    const [budgets, figures, teams] = await Promise.all([
      deps.budgets.list(orgId),
      deps.live.figures({ orgId }, 'credits'),
      deps.teams.membersOfTeams(orgId),
    ]);
    return {
      month: figures.month.start.slice(0, 7),
      budgets: budgets.map((b) => {
        const usage = budgetUsage(b, figures.month, teams) ?? 0;
        const { unit, limit } = budgetLimit(b);
        return {
          scope: b.scope,
          ...(b.team ? { team: b.team } : {}),
          ...(b.scope === 'user' && b.email ? { email: b.email } : {}),
          ...(unit === 'usd' ? { monthlyUsd: limit } : { monthlyCredits: limit }),
          unit,
          thresholds: b.thresholds,
          destinations: b.destinations.map(storedDestinationView),
          usage,
          percentage: percentage(usage, limit),
        };
      }),
    };
  };

  /**
   * A budget of a request as stored: its team or user found in the organization, its destinations checked
   * (the SSRF guard), a webhook URL it already had keeping its secret when given without one, then sealed.
   * `at` names it in a 400.
   */
  const resolver = async (orgId: string, log: FastifyBaseLogger) => {
    const users = await deps.budgets.usersByEmail(orgId);
    const before = new Map((await deps.budgets.list(orgId)).map((b) => [`${b.scope}|${b.target}`, b]));
    return async (b: Budget, at: string): Promise<StoredBudget> => {
      let userId: string | null = null;
      let team: string | null = null;
      if (b.scope === 'team') {
        team = (await deps.teams.teamByName(orgId, b.team!))?.name ?? null;
        if (!team) throw badRequest(`${at}.team: no team named "${b.team!.slice(0, 100)}" in the organization`);
      }
      if (b.scope === 'user') {
        userId = users.get(b.email!.toLowerCase()) ?? null;
        // The same answer whether the address is unknown or belongs to another organization.
        if (!userId) throw badRequest(`${at}.email: no user with this email in the organization`);
      }
      // A team budget is known by its team's name in lower case (migration 030).
      const target = b.scope === 'org' ? 'org' : b.scope === 'team' ? teamNameKey(team!) : userId!;
      const key = `${b.scope}|${target}`;
      let destinations: StoredDestination[];
      try {
        const { kept, unopened } = deps.budgets.seal.openToReplace(before.get(key)?.destinations ?? [], log);
        destinations = deps.budgets.seal.seal(
          await keptDestinations(b.destinations, kept, deps.alerts.allowPrivate, `${at}.destinations`, unopened),
        );
      } catch (error) {
        throw badRequest((error as Error).message);
      }
      return {
        scope: b.scope,
        target,
        team,
        userId,
        email: b.email?.toLowerCase() ?? null,
        monthlyCredits: b.monthlyCredits ?? null,
        monthlyUsd: b.monthlyUsd ?? null,
        thresholds: [...(b.thresholds ?? DEFAULT_THRESHOLDS)].sort((x, y) => x - y),
        destinations,
      };
    };
  };

  /** Stores the organization's budgets, and says so: the forecast and the budgets' answers are stale. */
  const replace = async (orgId: string, budgets: StoredBudget[], by: string) => {
    await deps.budgets.replace(orgId, budgets, by);
    deps.changes.changed({ kind: 'budget', org: orgId });
  };

  const listDoc = {
    method: 'GET',
    path: BUDGETS_PATH,
    freshness: 'cached',
    tag: 'Budgets',
    summary: "The organization's budgets, each with its credits this UTC month (today's included) and their share",
    description:
      'Webhook secrets are never answered (`secret: "set"`); a destination URL is shown as its scheme and host only (`https://hooks.slack.com/…`): its path and query often hold its secret.',
    action: 'Budgets',
    access: { kind: 'user', roles: ADMIN_ROLES },
    responses: { 200: BudgetList },
  } as const satisfies RouteDoc;
  declareRoute(app, listDoc, async ({ principal }, request, reply) => {
    const of = { org: principal.orgId, now: deps.now(), reads: BUDGET_READS, teams: deps.teams, roster: true };
    return sendAnswer(deps.cache, request, reply, of, () => answer(principal.orgId));
  });

  declareRoute(
    app,
    {
      method: 'PUT',
      path: BUDGETS_PATH,
      tag: 'Budgets',
      summary: 'Replace the whole list of budgets (organization, team or user)',
      description:
        'A budget counts Standard Credits (monthlyCredits) or US dollars (monthlyUsd, docs/metrics.md §8) per UTC month. Each threshold (percent, default 50, 75, 90, 100) fires one alert per month, delivered to every destination: `webhook` POSTs the `budget.threshold` event signed with `X-Agentmeter-Signature-V1: t=<unix seconds>,v1=<HMAC-SHA256 of "<t>.<body>">` (a receiver refuses one older than 5 minutes: docs/budgets.md), `X-Agentmeter-Signature: sha256=<HMAC-SHA256 of the body>` (kept for one release), and `X-Agentmeter-Event-Id` (the alert id, an idempotency key); `slack` POSTs `{"text": …}`. Destinations resolving to private, loopback or link-local addresses are refused (400) unless the server runs with `--allow-private-webhooks`; redirects are not followed. Answers as GET.',
      action: 'Setting budgets',
      access: { kind: 'user', roles: OWNERS },
      body: BudgetsBody,
      responses: { 200: BudgetList },
    },
    async ({ principal, body }, request) => {
      const resolve = await resolver(principal.orgId, request.log);
      const seen = new Set<string>();
      const budgets: StoredBudget[] = [];
      for (const [i, b] of body.budgets.entries()) {
        const at = `budgets[${i}]`;
        const stored = await resolve(b, at);
        const key = `${stored.scope}|${stored.target}`;
        if (seen.has(key))
          throw badRequest(
            `${at}: a second budget for the same ${b.scope === 'org' ? 'organization' : b.scope === 'team' ? 'team' : 'user'}`,
          );
        seen.add(key);
        budgets.push(stored);
      }
      await replace(principal.orgId, budgets, principal.userId);
      request.log.info({ budgets: budgets.length }, 'budgets replaced');
      // A budget already past a threshold fires it now, not at the next record.
      deps.alerts.touch(principal.orgId);
      return answer(principal.orgId);
    },
  );

  declareRoute(
    app,
    {
      method: 'PATCH',
      path: BUDGETS_PATH,
      tag: 'Budgets',
      summary: 'Set one budget, or remove one, leaving the others as they are',
      description:
        '`{"budget": …}` adds the budget or replaces the one of the same organization, team or user (its destinations as given; a webhook URL it had keeps its secret); `{"remove": {"scope", "team"?, "email"?}}` removes one (404 when there is none). What `agentmeter budgets set` and the Budgets page send. Answers as GET.',
      action: 'Setting a budget',
      access: { kind: 'user', roles: OWNERS },
      body: BudgetPatch,
      responses: { 200: BudgetList },
    },
    async ({ principal, body }, request) => {
      const current = await deps.budgets.list(principal.orgId);
      let budgets: StoredBudget[];
      if (body.budget) {
        const stored = await (await resolver(principal.orgId, request.log))(body.budget, 'budget');
        const at = current.findIndex((b) => b.scope === stored.scope && b.target === stored.target);
        budgets = at < 0 ? [...current, stored] : current.map((b, i) => (i === at ? stored : b));
      } else {
        const r = body.remove!;
        const same = (b: StoredBudget) =>
          b.scope === r.scope &&
          (r.scope === 'org' ||
            (r.scope === 'team' && b.target === teamNameKey(r.team ?? '')) ||
            (r.scope === 'user' && (b.email ?? '').toLowerCase() === (r.email ?? '').toLowerCase()));
        if (!current.some(same)) throw notFound('no such budget in the organization');
        budgets = current.filter((b) => !same(b));
      }
      await replace(principal.orgId, budgets, principal.userId);
      request.log.info({ budgets: budgets.length, change: body.budget ? 'set' : 'remove' }, 'budget changed');
      deps.alerts.touch(principal.orgId);
      return answer(principal.orgId);
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: ALERTS_PATH,
      freshness: 'live',
      tag: 'Budgets',
      summary: 'Fired budget alerts, cost anomalies and weekly digests, newest first, with the state of each delivery',
      action: 'Budget alerts',
      access: { kind: 'user', roles: ADMIN_ROLES },
      query: AlertsQuery,
      responses: { 200: AlertList },
    },
    async ({ principal, query }): Promise<AlertList> => {
      const [rows, anomalies, digests] = await Promise.all([
        deps.budgets.alerts(principal.orgId, query.month),
        deps.anomalies.list(principal.orgId, query.month),
        deps.digests.list(principal.orgId, query.month),
      ]);
      return {
        anomalies,
        digests,
        alerts: rows.map((r) => ({
          id: r.id,
          budget: JSON.parse(r.budget),
          month: r.month,
          threshold: r.threshold,
          unit: r.unit,
          usage: Number(r.usage),
          limit: Number(r.credit_limit),
          fired_at: r.fired_at,
          deliveries: r.deliveries,
        })),
      };
    },
  );
}
