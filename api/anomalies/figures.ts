// Pure: the anomaly rule of docs/metrics.md §9. A subject's (a person's or a team's) dollars on a UTC day are
// an anomaly when above both 3 × their median day of the 28 days before it with usage (days without usage
// are not in the median) and the organization's floor. With fewer than MIN_DAYS_WITH_USAGE such days the
// median says too little (a first day of use would always be "3 × nothing"), so nothing fires.
import { addDays } from '../teams/figures.ts';

/** How many days before a day its median looks at. */
export const HISTORY_DAYS = 28;
/** Above this multiple of the median. */
export const MULTIPLE = 3;
/** Days with usage, of the 28 before, a subject needs before an anomaly can fire for them. */
export const MIN_DAYS_WITH_USAGE = 7;
export const DEFAULT_FLOOR_USD = 20;

/** Dollars as whole hundredths of a cent (the 4 decimals the answers carry): no rounding decides a comparison. */
const units = (usd: number) => Math.round(usd * 10_000);

/** The median of some values (the mean of the two middle ones for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The dollars of each day with usage of the HISTORY_DAYS before `day` (`days`: a subject's dollars by UTC
 * day, holding only the days they had usage, a day of unpriced usage at 0).
 */
export function history(days: ReadonlyMap<string, number>, day: string): number[] {
  const out: number[] = [];
  for (let i = HISTORY_DAYS; i >= 1; i--) {
    const usd = days.get(addDays(day, -i));
    if (usd !== undefined) out.push(usd);
  }
  return out;
}

export type Verdict =
  | { fires: true; median: number; daysWithUsage: number }
  | {
      fires: false;
      reason: 'too little history' | 'not above 3 × the median' | 'not above the floor';
      median: number | null;
      daysWithUsage: number;
    };

/** Is `cost` on a day an anomaly, given the subject's days with usage before it and the floor? */
export function verdict(cost: number, before: readonly number[], floorUsd: number): Verdict {
  const daysWithUsage = before.length;
  const m = median(before);
  if (m === null || daysWithUsage < MIN_DAYS_WITH_USAGE) return { fires: false, reason: 'too little history', median: m, daysWithUsage };
  // Compared in integers: 2 × cost > 3 × (2 × median), the median's halves kept whole.
  const sorted = [...before].map(units).sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const twiceMedian = sorted.length % 2 ? 2 * sorted[mid]! : sorted[mid - 1]! + sorted[mid]!;
  const c = units(cost);
  if (2 * c <= MULTIPLE * twiceMedian)
    return { fires: false, reason: 'not above 3 × the median', median: twiceMedian / 20_000, daysWithUsage };
  if (c <= units(floorUsd)) return { fires: false, reason: 'not above the floor', median: twiceMedian / 20_000, daysWithUsage };
  return { fires: true, median: twiceMedian / 20_000, daysWithUsage };
}

/** A user's dollars on a day (a row per user and day with usage, as the live figures and aggregates give). */
export interface UserDayCost {
  user_id: string;
  day: string;
  usd: number;
}

/** Each user's dollars by day, only the days they had usage. */
export function byUser(rows: readonly UserDayCost[]): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const r of rows) {
    let days = out.get(r.user_id);
    if (!days) out.set(r.user_id, (days = new Map()));
    days.set(r.day, (days.get(r.day) ?? 0) + r.usd);
  }
  return out;
}

/**
 * A team's dollars by day: the sum over the users it counted that day (`members`), only the days one of
 * them had usage. `minSize`: a day with fewer members than the organization's minimum team size is left out
 * (the privacy rule of grouped team figures, docs/metrics.md §6).
 */
export function teamDays(
  rows: readonly UserDayCost[],
  members: (day: string) => ReadonlySet<string>,
  minSize: number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const on = members(r.day);
    if (on.size < minSize || !on.has(r.user_id)) continue;
    out.set(r.day, (out.get(r.day) ?? 0) + r.usd);
  }
  return out;
}

/** An anomaly found on one of the days looked at. */
export interface Found {
  day: string;
  cost: number;
  median: number;
  daysWithUsage: number;
}

/** The anomalies of one subject on the days looked at (today, and yesterday for usage that arrived late). */
export function anomalies(days: ReadonlyMap<string, number>, lookAt: readonly string[], floorUsd: number): Found[] {
  const out: Found[] = [];
  for (const day of lookAt) {
    const cost = days.get(day);
    if (cost === undefined) continue;
    const v = verdict(cost, history(days, day), floorUsd);
    if (v.fires) out.push({ day, cost: Math.round(cost * 10_000) / 10_000, median: v.median, daysWithUsage: v.daysWithUsage });
  }
  return out;
}
