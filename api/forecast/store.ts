// Pure forecast arithmetic (docs/metrics.md §9) and the SQL of the days before this month it reads.
import type { Db } from '../../common/db/duckdb.ts';
import { type EarlierDays, readUserDays, type UserDayCredits, userDaysSql } from '../today/store.ts';

export interface Amounts {
  month_to_date: number;
  forecast: number;
  low: number;
  high: number;
}

/**
 * Month-end forecast: month-to-date plus the mean of the last 7 complete days times the days left, and a
 * low and high from the lowest and highest of those 7 days (a day without usage counts as 0). `round`
 * rounds the figures (dollars to 4 decimals, credits to whole ones).
 */
export function forecast(monthToDate: number, lastDays: readonly number[], daysLeft: number, round: (n: number) => number): Amounts {
  const days = lastDays.length ? lastDays : [0];
  const mean = days.reduce((a, b) => a + b, 0) / days.length;
  return {
    month_to_date: round(monthToDate),
    forecast: round(monthToDate + mean * daysLeft),
    low: round(monthToDate + Math.min(...days) * daysLeft),
    high: round(monthToDate + Math.max(...days) * daysLeft),
  };
}

const DAY_MS = 86_400_000;
export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Today, the month, the days left after today and the 7 complete days before today (UTC). */
export function calendar(now: number): { today: string; month: string; daysLeft: number; window: string[] } {
  const d = new Date(now);
  const lastOfMonth = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  const today = isoDay(now);
  const window = Array.from({ length: 7 }, (_, i) => isoDay(Date.parse(`${today}T00:00:00Z`) - (7 - i) * DAY_MS));
  return { today, month: today.slice(0, 7), daysLeft: lastOfMonth - d.getUTCDate(), window };
}

/** Each user's credits and dollars of the days before this month (the window's days the live figures lack). */
export const FORECAST_SQL = {
  days: userDaysSql('day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)'),
} as const;

/**
 * Each user's credits and dollars of the days from `from` to `to` (before this month): the batch's rows,
 * and, given the live figures' `earlier`, the days the live build rebuilt in their place.
 */
export async function daysBefore(db: Db, orgId: string, from: string, to: string, rebuilt?: EarlierDays): Promise<UserDayCredits[]> {
  if (from > to) return [];
  const stored = await readUserDays(db, FORECAST_SQL.days, { org: orgId, from, to });
  if (!rebuilt) return stored;
  // The days the live build rebuilt are read from it: the batch's rows of them are stale, or not there yet.
  const fresh = new Set(rebuilt.days);
  return [...stored.filter((r) => !fresh.has(r.day)), ...rebuilt.byUserDay.filter((r) => r.day >= from && r.day <= to)];
}
