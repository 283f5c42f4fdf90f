// Pure: how the dashboard lays out the API's answers: ranges, daily series for the charts, the People
// table's rows and order, CSV, number formats and the forms' requests. No DOM here, so the unit tests check
// these on fixtures (test/unit/dashboard-figures.unit.test.ts). No figure is computed here: totals, means
// and ratios of a range are the server's (meta.totals, api/analytics/totals.ts), so what a page shows is
// what the API answers.
import { guardCsvText } from '../../common/csv-cells.ts';
import { EARLIEST_DATE } from '../../common/time.ts';
import type { Adoption, DigestPreview, TokenGroupRow, UsersPage } from './api-types.ts';

/** The dashboard's formatting locale, whatever the browser's: figures read as the API's docs write them. */
export const DISPLAY_LOCALE = 'en-US';

export { EARLIEST_DATE };

const DAY_MS = 86_400_000;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The default range: the 30 days up to yesterday (UTC), never before the API's earliest date. */
export function defaultRange(now: Date): { from: string; to: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const to = isoDay(today - DAY_MS);
  const from = isoDay(today - 30 * DAY_MS);
  // biome-ignore lint/complexity/useMathMinMax: ISO day strings, compared as text, not numbers
  return { from: from < EARLIEST_DATE ? EARLIEST_DATE : from, to: to < EARLIEST_DATE ? EARLIEST_DATE : to };
}

/** The range of the URL if it is well formed, else the default. */
export function rangeOf(params: URLSearchParams, now: Date): { from: string; to: string } {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const from = params.get('from');
  const to = params.get('to');
  if (from && to && day.test(from) && day.test(to) && from <= to) return { from, to };
  return defaultRange(now);
}

// ------------------------------------------------------------------ derivations

/** Every day of the range, in order. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += DAY_MS) days.push(isoDay(ms));
  return days;
}

/**
 * One daily series per group of grouped rows (groups by their total, largest first; ties by name), zeros
 * on the days a group has no row (grouped answers leave out zero groups).
 */
export function seriesByGroup<R extends { date: string; group_key: string }>(
  days: string[],
  rows: readonly R[],
  value: (row: R) => number,
): { groups: string[]; values: number[][] } {
  const index = new Map(days.map((d, i) => [d, i]));
  const inRange = rows.filter((r) => index.has(r.date));
  const totals = new Map<string, number>();
  for (const r of inRange) totals.set(r.group_key, (totals.get(r.group_key) ?? 0) + value(r));
  const groups = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || (a < b ? -1 : 1));
  const values = groups.map(() => days.map(() => 0));
  for (const r of inRange) values[groups.indexOf(r.group_key)]![index.get(r.date)!]! += value(r);
  return { groups, values };
}

/**
 * Dollars per day and group (groups by their total, largest first): null where a group's usage that day had
 * no price (a gap, never $0), and a group none of whose usage had a price left out (docs/metrics.md §8).
 */
export function dollarsByGroup<R extends { date: string; group_key: string; cost_usd?: number | null | undefined }>(
  days: string[],
  rows: readonly R[],
): { groups: string[]; values: (number | null)[][] } {
  const priced = rows.filter((r) => r.cost_usd !== null && r.cost_usd !== undefined);
  const { groups, values } = seriesByGroup(days, priced, (r) => r.cost_usd!);
  const key = (group: string, day: string) => `${group}\n${day}`;
  // The group's days with usage none of which had a price.
  const unpriced = new Set(rows.filter((r) => r.cost_usd === null || r.cost_usd === undefined).map((r) => key(r.group_key, r.date)));
  for (const r of priced) unpriced.delete(key(r.group_key, r.date));
  return { groups, values: values.map((series, g) => series.map((v, i) => (unpriced.has(key(groups[g]!, days[i]!)) ? null : v))) };
}

/** Standard Credits per day and model (models by their total, largest first), from tokens?group_by=model. */
export function creditsByModel(days: string[], rows: TokenGroupRow[]): { models: string[]; values: number[][] } {
  const { groups, values } = seriesByGroup(days, rows, (r) => r.billable_tokens);
  return { models: groups, values };
}

export interface PersonTotals {
  userId: string;
  email: string;
  activeDays: number;
  credits: number;
  toolCalls: number;
  sessions: number;
  messages: number;
  filesCreated: number;
  filesEdited: number;
  commits: number;
  prs: number;
  primaryModel: string;
}

/** One person's row of the People table: the server's totals of the range (/users meta.people), renamed. */
export function personRow(p: UsersPage['meta']['people'][number]): PersonTotals {
  return {
    userId: p.user_id,
    email: p.user_email ?? p.user_id,
    activeDays: p.active_days,
    credits: p.billable_tokens,
    toolCalls: p.tool_calls,
    sessions: p.sessions,
    messages: p.messages,
    filesCreated: p.files_created,
    filesEdited: p.files_edited,
    commits: p.git_commits,
    prs: p.git_prs_created,
    primaryModel: p.primary_model ?? '',
  };
}

export type SortDir = 'asc' | 'desc';
export function sortPeople(rows: readonly PersonTotals[], key: keyof PersonTotals, dir: SortDir): PersonTotals[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), DISPLAY_LOCALE);
    return sign * c || a.email.localeCompare(b.email, DISPLAY_LOCALE);
  });
}

/** RFC 4180 CSV; a cell that starts like a formula is prefixed so a spreadsheet shows it as text (common/csv-cells.ts). */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => {
    const s = typeof v === 'string' ? guardCsvText(v) : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return `${[header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
}

export const formatNumber = (n: number) => n.toLocaleString(DISPLAY_LOCALE, { maximumFractionDigits: 0 });
export const formatDecimal = (n: number, digits = 2) =>
  n.toLocaleString(DISPLAY_LOCALE, { minimumFractionDigits: digits, maximumFractionDigits: digits });
/** US dollars with cents ($1,234.56); "—" for no price (null), never $0.00. */
export const formatUsd = (n: number | null | undefined) =>
  n === null || n === undefined
    ? '—'
    : n.toLocaleString(DISPLAY_LOCALE, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** A sent digest's week in dollars, as `agentmeter alerts list` says it: "no price" when none of its usage had one. */
export const digestCostText = (cost: number | null) => (cost === null ? 'no price' : formatUsd(cost));
/**
 * The note beside a cost tile naming the models without a price (docs/metrics.md §8: never priced at zero
 * silently): the whole cost when none of the usage had one (the tile shows no dollars), else what the
 * dollars leave out.
 */
export function unpricedNote(cost: number | null, unpricedModels: readonly string[]): string | undefined {
  if (unpricedModels.length === 0) return undefined;
  return cost === null ? `no price (${unpricedModels.join(', ')})` : `without ${unpricedModels.join(', ')} (no price)`;
}

/**
 * The weekly digest's change from the week before, as the Budgets page words it. A week whose usage had no
 * price at all has no dollars (null, docs/metrics.md §8): no change to show, never one from or to a $0.
 */
export function digestChangeText(d: DigestPreview['digest']): string {
  const earlier = d.previous_unpriced_models ?? [];
  const without = earlier.length ? `, without ${earlier.join(', ')} (no price)` : '';
  if (d.previous_cost_usd === null)
    return `no change to show: the week before's usage${earlier.length ? ` (${earlier.join(', ')})` : ''} had no price`;
  if (d.change_usd === null) return `no change to show (the week before: ${formatUsd(d.previous_cost_usd)}${without})`;
  const sign = d.change_usd >= 0 ? '+' : '';
  // No percentage of $0. Said as the amount: the week before may have had no usage or usage priced at $0.
  if (d.change_pct === null) return `${sign}${formatUsd(d.change_usd)} (${formatUsd(d.previous_cost_usd)} the week before${without})`;
  return `${sign}${formatUsd(d.change_usd)} (${d.change_pct >= 0 ? '+' : ''}${d.change_pct}%) vs the week before${without}`;
}
/** An amount in a budget's unit: dollars, or Standard Credits. */
export const formatAmount = (n: number, unit: 'credits' | 'usd') => (unit === 'usd' ? formatUsd(n) : `${formatNumber(n)} Standard Credits`);
export const formatCompact = (n: number) => n.toLocaleString(DISPLAY_LOCALE, { notation: 'compact', maximumFractionDigits: 1 });
export const formatPercent = (share: number) => `${(share * 100).toLocaleString(DISPLAY_LOCALE, { maximumFractionDigits: 1 })}%`;

/**
 * Pure: the agent share of landed lines on each day, null on a day without landed lines (no commit, or
 * commits without lines): a gap in the chart, not a 0% the team did not earn.
 */
export function landedShareByDay(
  days: string[],
  rows: readonly { date: string; landed: { lines_added: number; agent_share: number } }[],
): (number | null)[] {
  const byDay = new Map(rows.map((r) => [r.date, r.landed]));
  return days.map((d) => {
    const landed = byDay.get(d);
    return landed && landed.lines_added > 0 ? landed.agent_share : null;
  });
}

/** The Budgets form's fields (web/src/pages/Budgets.tsx). */
export interface BudgetFields {
  scope: 'org' | 'team' | 'user';
  who: string;
  unit: 'usd' | 'credits';
  amount: string;
  thresholds: string;
  slack: string;
  webhook: string;
  secret: string;
}

/**
 * Pure: the PATCH body of the Budgets form, or what is wrong with it in words. `remove`: the body that
 * removes the budget the form names.
 */
export function budgetRequest(f: BudgetFields, remove: boolean): { body: Record<string, unknown> } | { problem: string } {
  const who = f.who.trim();
  if (f.scope !== 'org' && !who) return { problem: f.scope === 'team' ? 'Name the team' : 'Give the person’s e-mail' };
  const named = { scope: f.scope, ...(f.scope === 'team' ? { team: who } : f.scope === 'user' ? { email: who } : {}) };
  if (remove) return { body: { remove: named } };
  const amount = Number(f.amount.trim().replace(/^\$/, '').replaceAll(',', ''));
  if (!f.amount.trim() || !Number.isFinite(amount) || amount <= 0)
    return { problem: `The monthly amount must be a number above 0; got "${f.amount}"` };
  if (f.unit === 'credits' && !Number.isInteger(amount)) return { problem: 'Standard Credits are whole numbers' };
  const parts = f.thresholds
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (parts.some((t) => !/^\d+$/.test(t) || Number(t) < 1 || Number(t) > 1000))
    return { problem: 'Alert thresholds are whole percentages from 1 to 1000, separated by commas' };
  const destinations = [
    ...(f.slack.trim() ? [{ type: 'slack', url: f.slack.trim() }] : []),
    ...(f.webhook.trim() ? [{ type: 'webhook', url: f.webhook.trim(), ...(f.secret ? { secret: f.secret } : {}) }] : []),
  ];
  return {
    body: {
      budget: {
        ...named,
        ...(f.unit === 'usd' ? { monthlyUsd: amount } : { monthlyCredits: amount }),
        ...(parts.length ? { thresholds: parts.map(Number) } : {}),
        destinations,
      },
    },
  };
}

/** The anomaly and digest settings form's fields (web/src/pages/Budgets.tsx). */
export interface AlertSettingsFields {
  floor: string;
  anomalySlack: string;
  anomalyWebhook: string;
  anomalySecret: string;
  digestSlack: string;
  digestWebhook: string;
  digestSecret: string;
}

/**
 * Pure: the PATCH body of the anomaly and digest settings form (both parts: an empty URL field is no
 * destination of that kind), or what is wrong with it in words.
 */
export function alertSettingsRequest(f: AlertSettingsFields): { body: Record<string, unknown> } | { problem: string } {
  const floor = Number(f.floor.trim().replace(/^\$/, '').replaceAll(',', ''));
  if (!f.floor.trim() || !Number.isFinite(floor) || floor < 0)
    return { problem: `The floor must be a number of dollars, 0 or more; got "${f.floor}"` };
  const destinations = (slack: string, webhook: string, secret: string) => [
    ...(slack.trim() ? [{ type: 'slack', url: slack.trim() }] : []),
    ...(webhook.trim() ? [{ type: 'webhook', url: webhook.trim(), ...(secret ? { secret } : {}) }] : []),
  ];
  return {
    body: {
      anomalies: { floorUsd: floor, destinations: destinations(f.anomalySlack, f.anomalyWebhook, f.anomalySecret) },
      digest: { destinations: destinations(f.digestSlack, f.digestWebhook, f.digestSecret) },
    },
  };
}

/** The adoption page's CSV: one line per person on the roster, as GET /api/v0/organization/adoption names them. */
export function adoptionCsv(people: readonly Adoption['people'][number][]): string {
  return toCsv(
    ['user_id', 'email', 'role', 'teams', 'agents', 'state', 'first_event_at', 'last_event_at', 'active_7_days', 'active_28_days'],
    people.map((p) => [
      p.userId,
      p.email,
      p.role,
      p.teams.join('; '),
      p.agents.join('; '),
      p.state,
      p.firstEventAt ?? '',
      p.lastEventAt ?? '',
      p.active7 ? 'yes' : 'no',
      p.active28 ? 'yes' : 'no',
    ]),
  );
}

/**
 * The tick steps a chart of people (or any count) may use: whole numbers only, so an axis never reads
 * 0.5 users. uPlot picks the smallest step that leaves room between ticks.
 */
export const WHOLE_INCRS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7,
];

/** Pure: an axis's labels when it counts whole things: a split that is not whole (the range's edge) is left blank. */
export const wholeAxisLabels = (splits: readonly number[], format: (n: number) => string) =>
  splits.map((v) => (Number.isInteger(v) ? format(v) : ''));
