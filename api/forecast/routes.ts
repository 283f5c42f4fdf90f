// GET /api/v0/organization/forecast (docs/metrics.md §9): the month-end forecast of the organization, of
// each team and of each person with a budget, in dollars and in Standard Credits, from the live figures
// (this month, today included) and the batch's days before the month when the last 7 days reach into it.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { usd4 } from '../../common/money.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import { ADMIN_ROLES } from '../auth/principal.ts';
import { type BudgetStore, budgetLimit, type StoredBudget } from '../budgets/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import type { LiveFiguresStore, UserDayCredits } from '../today/store.ts';
import { FORECAST_PATH, ForecastAnswer, type Projection } from './schema.ts';
import { calendar, daysBefore, forecast } from './store.ts';

export interface ForecastDeps {
  db: Db;
  live: LiveFiguresStore;
  budgets: BudgetStore;
  teams: TeamAnalytics;
  clock: () => number;
}

/**
 * The month-end forecast of an organization (docs/metrics.md §9) at the clock's time: what the forecast route
 * answers and what the weekly digest's budgets at risk are read from.
 */
export async function monthEndForecast(deps: ForecastDeps, orgId: string): Promise<ForecastAnswer> {
  const { today, month, daysLeft, window } = calendar(deps.clock());
  const [figures, budgets, teamsOf] = await Promise.all([
    deps.live.figures({ orgId }, 'credits'),
    deps.budgets.list(orgId),
    deps.teams.membersOfTeams(orgId),
  ]);
  const monthStart = figures.month.start;
  const before = window.filter((d) => d < monthStart);
  const older = before.length ? await daysBefore(deps.db, orgId, before[0]!, before.at(-1)!, figures.earlier) : [];
  const rows: UserDayCredits[] = [...older, ...figures.month.byUserDay];
  const project = (counts: (r: UserDayCredits) => boolean, budget: StoredBudget | undefined): Projection => {
    const mine = rows.filter(counts);
    const of = (pick: (r: UserDayCredits) => number) => {
      const mtd = mine.filter((r) => r.day >= monthStart && r.day <= today).reduce((a, r) => a + pick(r), 0);
      const days = window.map((d) => mine.filter((r) => r.day === d).reduce((a, r) => a + pick(r), 0));
      return { mtd, days };
    };
    const usd = of((r) => r.usd);
    const credits = of((r) => r.credits);
    const amounts = {
      usd: forecast(usd.mtd, usd.days, daysLeft, (n) => usd4(n) ?? 0),
      credits: forecast(credits.mtd, credits.days, daysLeft, Math.round),
    };
    if (!budget) return { ...amounts, budget: null };
    const { unit, limit } = budgetLimit(budget);
    return { ...amounts, budget: { unit, limit, at_risk: amounts[unit].forecast > limit } };
  };
  const teamBudgets = budgets.filter((b) => b.scope === 'team');
  const userBudgets = budgets.filter((b) => b.scope === 'user' && b.userId);
  return {
    date: today,
    month,
    days_left: daysLeft,
    window: { from: window[0]!, to: window.at(-1)! },
    organization: project(
      () => true,
      budgets.find((b) => b.scope === 'org'),
    ),
    teams: teamBudgets.flatMap((b) => {
      const members = teamsOf(b.target);
      return members ? [{ team: b.team ?? b.target, ...project((r) => members(r.day).has(r.user_id), b) }] : [];
    }),
    users: userBudgets.map((b) => ({ email: b.email ?? b.userId!, ...project((r) => r.user_id === b.userId, b) })),
  };
}

/**
 * What the forecast is built from: this month's records as they arrive (today's included), the batch's
 * days before the month, prices, e-mails and the budgets; the teams through the key (`roster`).
 */
export const FORECAST_READS = ['events', 'aggregates', 'prices', 'users', 'budgets'] as const;

export function registerForecastRoutes(app: FastifyInstance, deps: ForecastDeps & { cache: ResponseCache }): void {
  const doc = {
    method: 'GET',
    path: FORECAST_PATH,
    freshness: 'cached',
    tag: 'Budgets',
    summary: 'Month-end forecast of the organization, each team and each person with a budget',
    description:
      "Month-to-date (today's included) plus the mean of the last 7 complete UTC days times the days left after today; low and high from the lowest and highest of those days. In US dollars and Standard Credits; `budget.at_risk` when the forecast passes the budget.",
    action: 'Forecast',
    access: { kind: 'user', roles: ADMIN_ROLES },
    responses: { 200: ForecastAnswer },
  } as const satisfies RouteDoc;
  declareRoute(app, doc, async ({ principal }, request, reply) => {
    const of = { org: principal.orgId, now: new Date(deps.clock()), reads: FORECAST_READS, teams: deps.teams, roster: true };
    return sendAnswer(deps.cache, request, reply, of, () => monthEndForecast(deps, principal.orgId));
  });
}
