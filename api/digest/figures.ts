// Pure: the weekly digest (docs/metrics.md §9). When it is due (Monday 09:00 UTC, for the Monday-to-Sunday
// week before), and its figures from the week's rows: cost and change, top teams, people and models by cost,
// the landed agent share, the week's anomalies and the budgets the month-end forecast puts at risk.

import { costOf, unpricedModels } from '../analytics/assemble.ts';
import type { AnomalyEvent } from '../anomalies/schema.ts';
import { agentShare } from '../code/assemble.ts';
import type { ForecastAnswer } from '../forecast/schema.ts';
import { addDays } from '../teams/figures.ts';
import type { DigestFigures } from './schema.ts';

/** The digest goes out at this hour (UTC) on Mondays. */
export const DIGEST_HOUR = 9;
export const TOP = 5;
const DAY_MS = 86_400_000;

/** The latest Monday 09:00 UTC at or before `now` (ms), and the week it reports (the 7 days before it). */
export function dueDigest(now: number): { at: number; week: { from: string; to: string } } {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  // getUTCDay: Sunday 0 … Saturday 6; days since Monday 0 … 6.
  let at = midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS + DIGEST_HOUR * 3_600_000;
  if (at > now) at -= 7 * DAY_MS;
  const monday = new Date(at).toISOString().slice(0, 10);
  return { at, week: { from: addDays(monday, -7), to: addDays(monday, -1) } };
}

/** The digest sent next: the due one when it is not sent yet (at the next tick), else next Monday's. */
export function nextDigest(now: number, dueSent: boolean): { at: number; week: { from: string; to: string } } {
  const due = dueDigest(now);
  if (!dueSent) return { ...due, at: now };
  const monday = addDays(due.week.to, 1);
  return { at: due.at + 7 * DAY_MS, week: { from: monday, to: addDays(monday, 6) } };
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/** The top `TOP` names by cost (ties by name), only those that cost something. */
export function top<K extends string>(costs: ReadonlyMap<string, number>, key: K): ({ [P in K]: string } & { cost_usd: number })[] {
  return [...costs]
    .map(([name, cost]) => [name, round4(cost)] as const)
    .filter(([, cost]) => cost > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP)
    .map(([name, cost]) => ({ [key]: name, cost_usd: cost }) as { [P in K]: string } & { cost_usd: number });
}

const sumBy = <T>(rows: readonly T[], key: (r: T) => string, value: (r: T) => number) => {
  const out = new Map<string, number>();
  for (const r of rows) out.set(key(r), (out.get(key(r)) ?? 0) + value(r));
  return out;
};

export interface DigestInput {
  week: { from: string; to: string };
  /** The week's token rows: one per user, day and model, dollars null when unpriced. */
  tokens: readonly { user_id: string; email: string | null; model: string; cost_usd: number | null }[];
  /** The week before's token rows: one per day and model, dollars null when unpriced (none: no usage). */
  previous: readonly { model: string; cost_usd: number | null }[];
  /** The week's group_by=team token rows (direct members; teams under the minimum size left out). */
  teams: readonly { group_key: string; cost_usd: number | null }[];
  /** The week's landed commits, per day and repository (as /code reads them). */
  landed: readonly { lines_added: number; agent_lines: number }[];
  anomalies: readonly AnomalyEvent[];
  forecast: ForecastAnswer;
}

/**
 * The change from the week before, in dollars and percent (1 decimal): none when either week's dollars are
 * unknown (usage, none of it priced: null), no percentage when the week before cost $0.
 */
export function weekChange(cost: number | null, previous: number | null): { change_usd: number | null; change_pct: number | null } {
  if (cost === null || previous === null) return { change_usd: null, change_pct: null };
  return {
    change_usd: round4(cost - previous),
    change_pct: previous > 0 ? Math.round(((cost - previous) / previous) * 1000) / 10 : null,
  };
}

export function digestFigures(input: DigestInput): DigestFigures {
  // As /tokens sums a range (docs/metrics.md §8): the priced rows' dollars, the unpriced rows' models named;
  // null when there was usage and none of it was priced, never a silent $0; $0 for a week without usage.
  const cost = costOf(input.tokens);
  const previous = costOf(input.previous);
  const lines = input.landed.reduce((a, r) => a + r.lines_added, 0);
  const agentLines = input.landed.reduce((a, r) => a + r.agent_lines, 0);
  const f = input.forecast;
  const atRisk: DigestFigures['budgets_at_risk'] = [];
  const risk = (who: { scope: 'org' | 'team' | 'user'; team?: string; email?: string }, p: ForecastAnswer['organization']) => {
    if (p.budget?.at_risk) atRisk.push({ ...who, unit: p.budget.unit, limit: p.budget.limit, forecast: p[p.budget.unit].forecast });
  };
  risk({ scope: 'org' }, f.organization);
  for (const t of f.teams) risk({ scope: 'team', team: t.team }, t);
  for (const u of f.users) risk({ scope: 'user', email: u.email }, u);
  return {
    week: input.week,
    cost_usd: cost,
    // Named, as the analytics answers' meta.unpriced_models: their usage adds nothing to the dollars (§8).
    unpriced_models: unpricedModels(input.tokens),
    previous_cost_usd: previous,
    previous_unpriced_models: unpricedModels(input.previous),
    ...weekChange(cost, previous),
    top_teams: top(
      sumBy(
        input.teams,
        (r) => r.group_key,
        (r) => r.cost_usd ?? 0,
      ),
      'team',
    ),
    top_people: top(
      sumBy(
        input.tokens,
        (r) => r.email ?? r.user_id,
        (r) => r.cost_usd ?? 0,
      ),
      'email',
    ),
    top_models: top(
      sumBy(
        input.tokens,
        (r) => r.model,
        (r) => r.cost_usd ?? 0,
      ),
      'model',
    ),
    landed: { lines_added: lines, agent_lines: agentLines, agent_share: agentShare(agentLines, lines) },
    anomalies: input.anomalies.map((a) => ({
      scope: a.scope,
      ...(a.email !== undefined ? { email: a.email } : {}),
      ...(a.team !== undefined ? { team: a.team } : {}),
      day: a.day,
      cost_usd: a.cost_usd,
      median_usd: a.median_usd,
    })),
    budgets_at_risk: atRisk,
    forecast_date: f.date,
  };
}
