// The rules of the analytics endpoints' query parameters (docs/metrics.md §4): dates are real calendar days,
// startDate ≤ endDate < today (UTC), startDate ≥ 2026-01-14, a span of at most 366 days, a known group_by,
// limit 1-100. Each parameter's own rule is its schema's (schema.ts, ANALYTICS_QUERY); the rules across
// parameters and against today are here. Pure: "today" is passed in.
import type { z } from 'zod';
import { badRequest } from '../../common/errors.ts';
import { isUserId } from '../../common/ids.ts';
import { parseDay } from '../../common/time.ts';
import { singleValues } from '../http/query.ts';
import { ANALYTICS_QUERY, EARLIEST_DATE, type Endpoint, MAX_SPAN_DAYS } from './schema.ts';

const DAY_MS = 86_400_000;

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The YYYY-MM-DD of each day asked for, made once: every answer built lists its range's days, and the
 * days a query may name are a few hundred (from EARLIEST_DATE to today).
 */
const DAY_NAMES = new Map<number, string>();

function daysBetween(start: number, end: number): string[] {
  const days: string[] = [];
  for (let ms = start; ms <= end; ms += DAY_MS) {
    let day = DAY_NAMES.get(ms);
    if (day === undefined) DAY_NAMES.set(ms, (day = isoDay(ms)));
    days.push(day);
  }
  return days;
}

export interface AnalyticsQuery {
  startDate: string;
  endDate: string;
  /** Every day from startDate to endDate. */
  readonly days: string[];
  groupBy?: string;
  /** team=: the name of the team whose members (and its descendants') the answer is restricted to. */
  team?: string;
  limit: number;
  cursor?: string;
}

/**
 * `throughToday`: the endpoint reads rows as stored (commits, pull requests), so today may be asked for;
 * the daily figures end yesterday.
 */
export function parseAnalyticsQuery(endpoint: Endpoint, raw: unknown, now: Date, { throughToday = false } = {}): AnalyticsQuery {
  const query = singleValues(raw);
  const fields = ANALYTICS_QUERY[endpoint].shape as Record<string, z.ZodType>;
  /** The parameter's value, checked with its schema (undefined when absent). */
  const one = (key: string): string | undefined => {
    if (!Object.hasOwn(fields, key)) return undefined;
    const value = query[key];
    if (value === undefined) return undefined;
    const checked = fields[key]!.safeParse(value);
    if (!checked.success) throw badRequest(checked.error.issues[0]!.message);
    // As the schema gives it: a team name in NFC.
    return checked.data as string;
  };
  const startDate = one('startDate');
  const endDate = one('endDate');
  if (!startDate) throw badRequest('startDate is required (YYYY-MM-DD)');
  if (!endDate) throw badRequest('endDate is required (YYYY-MM-DD)');
  const start = parseDay(startDate)!;
  const end = parseDay(endDate)!;
  if (start > end) throw badRequest(`startDate ${startDate} is after endDate ${endDate}`);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (throughToday && end > today) throw badRequest(`endDate must be today (${isoDay(today)} UTC) or earlier`);
  if (!throughToday && end >= today)
    throw badRequest(`endDate must be before today (${isoDay(today)} UTC): data is aggregated daily and available the following day`);
  if (startDate < EARLIEST_DATE) throw badRequest(`startDate must be ${EARLIEST_DATE} or later`);
  const span = (end - start) / DAY_MS + 1;
  if (span > MAX_SPAN_DAYS) throw badRequest(`the range spans ${span} days; at most ${MAX_SPAN_DAYS}`);

  // The day list is only needed to build a response, not to answer one from the cache: made on first use.
  let days: string[] | undefined;
  const result: AnalyticsQuery = {
    startDate,
    endDate,
    get days() {
      return (days ??= daysBetween(start, end));
    },
    limit: 20,
  };
  const groupBy = one('group_by');
  if (groupBy !== undefined) result.groupBy = groupBy;
  const team = one('team');
  if (team !== undefined) result.team = team;
  if (team !== undefined && groupBy === 'team') throw badRequest('group_by=team and team= cannot be combined');
  if (endpoint === 'users') {
    const limit = one('limit');
    if (limit !== undefined) result.limit = Number(limit);
    const cursor = one('cursor');
    if (cursor !== undefined) result.cursor = cursor;
    if (cursor !== undefined) {
      // The cursor is the last user id of a page; anything else would silently page from a place that
      // is no user (before every id: the first page again; after every id: an empty one).
      if (!isUserId(cursor))
        throw badRequest(`cursor must be a user id (usr_ and 16 hex digits) taken from meta.next_cursor; got "${cursor.slice(0, 40)}"`);
      result.cursor = cursor;
    }
  }
  return result;
}
