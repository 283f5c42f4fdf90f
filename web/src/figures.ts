// Pure: the analytics API's records → the figures the dashboard shows. No DOM here, so the unit tests
// check these on fixtures (test/unit/dashboard-figures.unit.test.ts). Every figure is a sum or a list of
// the API's own numbers for the same range, so what the page shows equals what the API answers.
import { guardCsvText } from '../../common/csv-cells.ts';
import { EARLIEST_DATE } from '../../common/time.ts';
import type { Adoption, TokenGroupRow, UserDay } from './api-types.ts';

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

export const sum = <T>(rows: readonly T[], f: (row: T) => number) => rows.reduce((acc, row) => acc + f(row), 0);

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

/** Standard Credits per day and model (models by their total, largest first), from tokens?group_by=model. */
export function creditsByModel(days: string[], rows: TokenGroupRow[]): { models: string[]; values: number[][] } {
  const { groups, values } = seriesByGroup(days, rows, (r) => r.billable_tokens);
  return { models: groups, values };
}

/** A breakdown summed over the range, largest first (ties by name). */
export function topOf<T>(rows: readonly T[], pick: (row: T) => { name: string; count: number }[]): { name: string; count: number }[] {
  const totals = new Map<string, number>();
  for (const row of rows) for (const { name, count } of pick(row)) totals.set(name, (totals.get(name) ?? 0) + count);
  return [...totals.entries()].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}

/** The mean of the days that had any activity (quiet days report 0 and would pull the mean down). */
export function meanOfActiveDays<T>(rows: readonly T[], value: (row: T) => number, active: (row: T) => boolean): number {
  const days = rows.filter(active);
  return days.length === 0 ? 0 : sum(days, value) / days.length;
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

/** One row per person over the range, from the /users records (one per person and active day). */
export function peopleTotals(rows: readonly UserDay[]): PersonTotals[] {
  const people = new Map<string, { totals: PersonTotals; models: Map<string, number> }>();
  for (const r of rows) {
    let p = people.get(r.user_id);
    if (!p) {
      p = {
        totals: {
          userId: r.user_id,
          email: r.user_email ?? r.user_id,
          activeDays: 0,
          credits: 0,
          toolCalls: 0,
          sessions: 0,
          messages: 0,
          filesCreated: 0,
          filesEdited: 0,
          commits: 0,
          prs: 0,
          primaryModel: '',
        },
        models: new Map(),
      };
      people.set(r.user_id, p);
    }
    const t = p.totals;
    t.activeDays += 1;
    t.credits += r.billable_tokens;
    t.toolCalls += r.tool_calls;
    t.sessions += r.sessions;
    t.messages += r.messages;
    t.filesCreated += r.files_created;
    t.filesEdited += r.files_edited;
    t.commits += r.git_commits;
    t.prs += r.git_prs_created;
    if (r.primary_model) p.models.set(r.primary_model, (p.models.get(r.primary_model) ?? 0) + r.billable_tokens);
  }
  return [...people.values()].map(({ totals, models }) => {
    // The model that was primary on the days with the most credits.
    const best = [...models.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
    return { ...totals, primaryModel: best?.[0] ?? '' };
  });
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

/**
 * Pure: a range's pull request figures from the server's daily records: merged, with agent lines, and
 * the cost per merged pull request (null when a day's cost is unknown or nothing merged).
 */
export function pullRequestTotals(rows: readonly { merged: number; merged_with_agent_lines: number; cost_usd: number | null }[]) {
  const merged = rows.reduce((n, r) => n + r.merged, 0);
  const withAgent = rows.reduce((n, r) => n + r.merged_with_agent_lines, 0);
  const cost = rows.some((r) => r.cost_usd === null) ? null : rows.reduce((n, r) => n + (r.cost_usd ?? 0), 0);
  return { merged, withAgent, costPerMerged: cost === null || merged === 0 ? null : Math.round((cost / merged) * 10_000) / 10_000 };
}

/** One agent's edit decisions over a range; `rate` null when the agent reported none ("not reported"). */
export interface AgentDecisions {
  agent: string;
  accepted: number;
  rejected: number;
  rate: number | null;
}

/**
 * Pure: each agent that was active or reported a decision in the range, with its edit decisions summed over
 * the days and its acceptance rate accepted / (accepted + rejected) (docs/metrics.md §11). An agent with no
 * decision gets a null rate: it does not report them, which is not 0%.
 */
export function decisionsByAgent(
  active: readonly { group_key: string }[],
  decisions: readonly { group_key: string; edits_accepted: number; edits_rejected: number }[],
): AgentDecisions[] {
  const byAgent = new Map<string, { accepted: number; rejected: number }>();
  for (const row of active) if (!byAgent.has(row.group_key)) byAgent.set(row.group_key, { accepted: 0, rejected: 0 });
  for (const row of decisions) {
    const totals = byAgent.get(row.group_key) ?? { accepted: 0, rejected: 0 };
    totals.accepted += row.edits_accepted;
    totals.rejected += row.edits_rejected;
    byAgent.set(row.group_key, totals);
  }
  return [...byAgent.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([agent, t]) => ({ agent, ...t, rate: t.accepted + t.rejected > 0 ? t.accepted / (t.accepted + t.rejected) : null }));
}
