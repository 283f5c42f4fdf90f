// Small pure helpers for UTC days and timestamps.

/**
 * The first day the analytics can be asked for (docs/metrics.md): the API refuses an earlier startDate,
 * the batch counts no record before it and the dashboard's ranges start no earlier.
 */
export const EARLIEST_DATE = '2026-01-14';

/** Parses an ISO-8601 string or epoch milliseconds (as text or number) to epoch ms; null when impossible. */
export function parseEventTime(value: string | number | undefined | null): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null;
  const trimmed = value.trim();
  if (/^\d{1,16}$/.test(trimmed)) return Number(trimmed);
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? null : ms;
}

/** The UTC calendar day (YYYY-MM-DD) of an epoch-ms time. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A YYYY-MM-DD that names a real day (2026-02-30 and 0000-00-00 do not), as epoch ms at 00:00 UTC. */
export function parseDay(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return undefined;
  return ms;
}
