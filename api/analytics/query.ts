// Query parameters of the analytics endpoints and their rules (docs/metrics.md §4): dates are real calendar
// days, startDate ≤ endDate < today (UTC), startDate ≥ 2026-01-14, a span of at most 366 days, a known
// group_by, limit 1-100. Pure: "today" is passed in.
import { z } from 'zod';
import { badRequest } from '../../common/errors.ts';
import { isUserId } from '../../common/ids.ts';
import { parseDay } from '../../common/time.ts';

export const EARLIEST_DATE = '2026-01-14';
export const MAX_SPAN_DAYS = 366;
const DAY_MS = 86_400_000;

/**
 * The reference's group_by of each endpoint, then ours: `agent` (docs/metrics.md §1) and `team` (§6) are
 * agentmeter extensions.
 */
export const GROUP_BY = {
  tokens: ['model', 'agent', 'team'],
  tools: ['tool_name', 'agent', 'team'],
  activity: ['client', 'agent', 'team'],
  productivity: ['team'],
  users: [],
  code: ['agent', 'model', 'repo', 'team'],
} as const;
export type Endpoint = keyof typeof GROUP_BY;

const GROUP_BY_DESCRIPTION: Partial<Record<Endpoint, string>> = {
  tokens: 'model: one row per day and model',
  tools: 'tool_name: one row per day and tool (its tool_calls)',
  activity: 'client: one row per day and client type (its daily_active_users; a user of two clients counts under each)',
  code: 'model: one row per day and model (docs/metrics.md §5); repo: one row per day and repository (its normalized host/path)',
};
const AGENT_DESCRIPTION =
  'agent, an agentmeter extension (not in the reference): one row per day and agent (droid, claude, codex, gemini, qwen) with the same fields';
const TEAM_DESCRIPTION =
  "team, an agentmeter extension: one row per day and team (group_key: the team's name) over its direct members that day, teams below the minimum team size left out";

export { parseDay };

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
  /** team=: the name of the team whose members (and its descendants') the answer is restricted to. */
  team?: string;
  limit: number;
  cursor?: string;
}

const RawQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const dayParam = (name: string) =>
  z
    .string()
    .regex(DAY_PATTERN, { error: (issue) => `${name} "${String(issue.input)}" is not a valid date (YYYY-MM-DD)` })
    .refine((value) => parseDay(value) !== undefined, {
      error: (issue) => `${name} "${String(issue.input)}" is not a valid date (YYYY-MM-DD)`,
    })
    .describe(`YYYY-MM-DD (UTC), from ${EARLIEST_DATE} to yesterday; a span of at most ${MAX_SPAN_DAYS} days`);

/**
 * Each endpoint's query parameters: which it takes and the rule of each value (the OpenAPI document is
 * generated from these). The rules across parameters and the date of today are parseAnalyticsQuery's.
 */
export const ANALYTICS_QUERY = Object.fromEntries(
  (Object.keys(GROUP_BY) as Endpoint[]).map((endpoint) => {
    const options = GROUP_BY[endpoint] as readonly string[];
    const shape: Record<string, z.ZodType> = { startDate: dayParam('startDate'), endDate: dayParam('endDate') };
    if (options.length)
      shape['group_by'] = z
        .enum(options as [string, ...string[]], {
          error: (issue) => `group_by "${String(issue.input)}" is not supported here; use ${options.map((o) => `"${o}"`).join(' or ')}`,
        })
        .optional()
        .describe(
          `${[GROUP_BY_DESCRIPTION[endpoint], options.includes('agent') ? AGENT_DESCRIPTION : undefined, TEAM_DESCRIPTION].filter(Boolean).join('; or ')}. Grouped rows: only non-zero groups, by date then group_key`,
        );
    shape['team'] = z
      .string()
      .min(1, 'team must be the name of a team of the organization')
      .max(128, 'team must be the name of a team of the organization')
      .optional()
      .describe(
        "an agentmeter extension: the answer over the users who were members of this team or of a team below it on each day (403 when fewer than the organization's minimum team size)",
      );
    if (endpoint === 'users') {
      shape['limit'] = z
        .string()
        .regex(/^\d+$/, { error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"` })
        .refine((v) => Number(v) >= 1 && Number(v) <= 100, {
          error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"`,
        })
        .optional()
        .describe('page size, 1-100 (default 20)');
      shape['cursor'] = z
        .string()
        .min(1, 'cursor must be a user id taken from meta.next_cursor')
        .max(64, 'cursor must be a user id taken from meta.next_cursor')
        .optional()
        .describe('meta.next_cursor of the previous page');
    }
    return [endpoint, z.strictObject(shape)];
  }),
) as Record<Endpoint, z.ZodObject>;

export function parseAnalyticsQuery(endpoint: Endpoint, raw: unknown, now: Date): AnalyticsQuery {
  const query = RawQuery.parse(raw ?? {});
  const fields = ANALYTICS_QUERY[endpoint].shape as Record<string, z.ZodType>;
  for (const key of Object.keys(query)) {
    if (!Object.hasOwn(fields, key))
      throw badRequest(`unknown query parameter "${key}"; this endpoint takes ${Object.keys(fields).join(', ')}`);
  }
  /** The parameter's value, checked with its schema (undefined when absent). */
  const one = (key: string): string | undefined => {
    const value = query[key];
    if (Array.isArray(value)) throw badRequest(`"${key}" was given more than once`);
    if (value === undefined) return undefined;
    const checked = fields[key]!.safeParse(value);
    if (!checked.success) throw badRequest(checked.error.issues[0]!.message);
    return value;
  };
  const startDate = one('startDate');
  const endDate = one('endDate');
  if (!startDate) throw badRequest('startDate is required (YYYY-MM-DD)');
  if (!endDate) throw badRequest('endDate is required (YYYY-MM-DD)');
  const start = parseDay(startDate)!;
  const end = parseDay(endDate)!;
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
