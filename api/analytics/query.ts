// Query parameters of the analytics endpoints and their rules (METRICS.md §4): dates are real calendar
// days, startDate ≤ endDate < today (UTC), startDate ≥ 2026-01-14, a span of at most 366 days, a known
// group_by, limit 1-100. Pure: "today" is passed in.
import { z } from 'zod';
import { badRequest } from '../../common/errors.ts';
import { isUserId } from '../../common/ids.ts';

export const EARLIEST_DATE = '2026-01-14';
export const MAX_SPAN_DAYS = 366;
const DAY_MS = 86_400_000;

export const GROUP_BY = {
  tokens: ['model'],
  tools: ['tool_name'],
  activity: ['client'],
  productivity: [],
  users: [],
} as const;
export type Endpoint = keyof typeof GROUP_BY;

/** A YYYY-MM-DD that names a real day (2026-02-30 does not). */
export function parseDay(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return undefined;
  return ms;
}

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function daysBetween(start: number, end: number): string[] {
  const days: string[] = [];
  for (let ms = start; ms <= end; ms += DAY_MS) days.push(isoDay(ms));
  return days;
}

export interface AnalyticsQuery {
  startDate: string;
  endDate: string;
  /** Every day from startDate to endDate. */
  readonly days: string[];
  groupBy?: string;
  limit: number;
  cursor?: string;
}

const RawQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

export function parseAnalyticsQuery(endpoint: Endpoint, raw: unknown, now: Date): AnalyticsQuery {
  const query = RawQuery.parse(raw ?? {});
  const allowed = new Set([
    'startDate',
    'endDate',
    ...(GROUP_BY[endpoint].length ? ['group_by'] : []),
    ...(endpoint === 'users' ? ['limit', 'cursor'] : []),
  ]);
  for (const key of Object.keys(query)) {
    if (!allowed.has(key)) throw badRequest(`unknown query parameter "${key}"; this endpoint takes ${[...allowed].join(', ')}`);
  }
  const one = (key: string): string | undefined => {
    const value = query[key];
    if (Array.isArray(value)) throw badRequest(`"${key}" was given more than once`);
    return value;
  };
  const startDate = one('startDate');
  const endDate = one('endDate');
  if (!startDate) throw badRequest('startDate is required (YYYY-MM-DD)');
  if (!endDate) throw badRequest('endDate is required (YYYY-MM-DD)');
  const start = parseDay(startDate);
  if (start === undefined) throw badRequest(`startDate "${startDate}" is not a valid date (YYYY-MM-DD)`);
  const end = parseDay(endDate);
  if (end === undefined) throw badRequest(`endDate "${endDate}" is not a valid date (YYYY-MM-DD)`);
  if (start > end) throw badRequest(`startDate ${startDate} is after endDate ${endDate}`);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (end >= today)
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
  if (groupBy !== undefined) {
    const options: readonly string[] = GROUP_BY[endpoint];
    if (!options.includes(groupBy))
      throw badRequest(`group_by "${groupBy}" is not supported here; use ${options.map((o) => `"${o}"`).join(' or ')}`);
    result.groupBy = groupBy;
  }
  if (endpoint === 'users') {
    const limit = one('limit');
    if (limit !== undefined) {
      if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)
        throw badRequest(`limit must be a whole number from 1 to 100; got "${limit}"`);
      result.limit = Number(limit);
    }
    const cursor = one('cursor');
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
