// The zod schemas of the API's dates and times, the only ones routes use for them: a UTC day, a UTC month
// and an ISO time. Each carries its JSON Schema format (date, date-time) into the OpenAPI document, so that
// clients generated from it get dates rather than bare strings; a month, which JSON Schema has no format
// for, carries its pattern.
import { z } from 'zod';

/** YYYY-MM-DD: a UTC day's shape (common/time.ts's parseDay says whether it names a real day). */
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

type PatternError = Parameters<z.ZodString['regex']>[1];

/**
 * A UTC day, YYYY-MM-DD, documented as `format: date`; `error` is what a query or body that is not one
 * is told, `missing` what a required one that is absent is told (zod's own wording when not given). A
 * route that must refuse 2026-02-30 refines it with parseDay.
 */
export const utcDay = (error?: PatternError, missing?: string) =>
  z
    .string(missing === undefined ? undefined : { error: missing })
    .regex(DAY_PATTERN, error)
    .meta({ format: 'date' });

/** YYYY-MM with a month 01 to 12: a UTC month. */
export const MONTH_PATTERN = /^\d{4}-(?:0[1-9]|1[0-2])$/;

/**
 * A UTC month, YYYY-MM, documented by its pattern (JSON Schema has no month format); `error` is what a
 * query that is not one is told.
 */
export const utcMonth = (error?: PatternError) => z.string().regex(MONTH_PATTERN, error).meta({ description: 'a UTC month, YYYY-MM' });

/** A UTC month, YYYY-MM (its pattern in the OpenAPI document). */
export const Month = utcMonth();

/** The analytics' words for a day parameter that is not one (api/analytics/query.ts says the same). */
export const dayParamError = (name: string): PatternError => ({
  error: (issue) => `${name} "${String(issue.input)}" is not a valid date (YYYY-MM-DD)`,
});

/** A UTC day, YYYY-MM-DD (format: date). */
export const Day = utcDay();

/**
 * An instant as ISO-8601 with its offset (the server writes Z): `2026-11-28T01:50:00.123Z`, documented as
 * `format: date-time` (RFC 3339). Answers are checked against it on test servers, so a time written
 * any other way (DuckDB's `2026-11-28 01:50:00`) fails there.
 */
export const IsoTime = z.iso.datetime({ offset: true });
