// Finds the dates and times of an OpenAPI document that do not say their format: every string a client
// would read as a UTC day must say `format: date`, every instant `format: date-time`, in path and query
// parameters, request bodies and answers alike. What counts as date-like: the day pattern, a name
// (startDate, end_date, firstDay, createdAt, fired_at, asOf…) or a description (YYYY-MM-DD, ISO-8601).
// Times sent as epoch milliseconds are numbers and are not concerned. A UTC month (YYYY-MM), for which
// JSON Schema has no format, must carry the month pattern instead; month-like: a name (month,
// startMonth, budget_month) or a description saying YYYY-MM.
import { MONTH_PATTERN } from '../../api/http/dates.ts';

type Json = Record<string, unknown>;
export type DateFormat = 'date' | 'date-time';

/** The day pattern as it reaches the document (api/http/dates.ts's DAY_PATTERN, and any copy of it). */
const DAY_PATTERN_SOURCE = String.raw`^\d{4}-\d{2}-\d{2}$`;
const DAY_NAME = /(^date|_date|Date|^day|_day|Day)$/;
const TIME_NAME = /(_at|At|^ts|_ts|Ts|^asOf|^as_of)$/;

const isString = (schema: Json) => schema['type'] === 'string' || (Array.isArray(schema['type']) && schema['type'].includes('string'));

/** The format a string schema named `name` should carry, or undefined when it is not date-like. */
export function expectedFormat(schema: Json, name: string | undefined): DateFormat | undefined {
  const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : '';
  const description = typeof schema['description'] === 'string' ? schema['description'] : '';
  if (pattern === DAY_PATTERN_SOURCE) return 'date';
  // A pattern with a day, a T and a time of day: an ISO instant however it is spelled.
  if (/\\d\{4\}/.test(pattern) && pattern.includes('T') && pattern.includes(':')) return 'date-time';
  if (name !== undefined && TIME_NAME.test(name)) return 'date-time';
  if (name !== undefined && DAY_NAME.test(name)) return 'date';
  if (/ISO[- ]?8601/.test(description)) return 'date-time';
  if (/YYYY-MM-DD(?!T)/.test(description)) return 'date';
  return undefined;
}

/** What a string schema named `name` (described by `description`) lacks, or undefined. */
type Check = (schema: Json, name: string | undefined, description: string) => string | undefined;

const dateCheck: Check = (schema, name, description) => {
  const expected = expectedFormat({ ...schema, description }, name);
  return expected && schema['format'] !== expected ? `format ${String(schema['format'] ?? 'missing')}, expected ${expected}` : undefined;
};

/** The month pattern as it reaches the document (api/http/dates.ts's MONTH_PATTERN). */
export const MONTH_PATTERN_SOURCE = MONTH_PATTERN.source;
const MONTH_NAME = /(^month|_month|Month)$/;

/** Whether a string schema named `name` is a month: by its name, or a description saying YYYY-MM (not a day). */
export const isMonthLike = (schema: Json, name: string | undefined, description: string): boolean =>
  (name !== undefined && MONTH_NAME.test(name)) ||
  /YYYY-MM(?!-DD)/.test(description) ||
  (typeof schema['pattern'] === 'string' && /^\^\\d\{4\}-[^-]*\$$/.test(schema['pattern']));

const monthCheck: Check = (schema, name, description) =>
  isMonthLike(schema, name, description) && schema['pattern'] !== MONTH_PATTERN_SOURCE
    ? `pattern ${String(schema['pattern'] ?? 'missing')}, expected ${MONTH_PATTERN_SOURCE}`
    : undefined;

/**
 * Walks one schema: each string schema `check` finds lacking adds "<where>: <what it lacks>". `name` is
 * the property or parameter the schema is the value of (kept through nullable and union branches,
 * arrays' items).
 */
function walk(schema: unknown, where: string, name: string | undefined, out: string[], check: Check, description = ''): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Json;
  // A branch of a nullable field has no description of its own: the field's speaks for it.
  const said = typeof s['description'] === 'string' ? (s['description'] as string) : description;
  if (isString(s)) {
    const lacking = check(s, name, said);
    if (lacking) out.push(`${where}: ${lacking}`);
  }
  for (const [key, value] of Object.entries((s['properties'] as Json | undefined) ?? {})) walk(value, `${where}.${key}`, key, out, check);
  walk(s['items'], `${where}[]`, name, out, check, said);
  for (const [i, value] of ((s['prefixItems'] as unknown[] | undefined) ?? []).entries()) walk(value, `${where}[${i}]`, name, out, check);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const [i, value] of ((s[key] as unknown[] | undefined) ?? []).entries())
      walk(value, `${where}|${key}${i}`, name, out, check, said);
  walk(s['additionalProperties'], `${where}{}`, undefined, out, check);
  for (const [key, value] of Object.entries((s['$defs'] as Json | undefined) ?? {})) walk(value, `${where}#${key}`, undefined, out, check);
}

type Document = { paths: Record<string, Record<string, unknown>>; components?: Json };

/** Every parameter, body field and answer field of the document that `check` finds lacking. */
function lacking(document: Document, check: Check): string[] {
  const out: string[] = [];
  for (const [path, operations] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(operations as Record<string, Json>)) {
      const id = `${method.toUpperCase()} ${path}`;
      for (const p of (operation['parameters'] as Json[] | undefined) ?? [])
        walk(p['schema'], `${id} ${String(p['in'])} ${String(p['name'])}`, String(p['name']), out, check, String(p['description'] ?? ''));
      const body = operation['requestBody'] as { content?: Record<string, Json> } | undefined;
      for (const [type, media] of Object.entries(body?.content ?? {})) walk(media['schema'], `${id} body ${type}`, undefined, out, check);
      for (const [status, answer] of Object.entries((operation['responses'] as Record<string, Json> | undefined) ?? {}))
        for (const [type, media] of Object.entries((answer['content'] as Record<string, Json> | undefined) ?? {}))
          walk(media['schema'], `${id} ${status} ${type}`, undefined, out, check);
    }
  for (const [key, value] of Object.entries((document.components?.['schemas'] as Json | undefined) ?? {}))
    walk(value, `components.schemas.${key}`, undefined, out, check);
  return out;
}

/** Every date-like parameter, body field or answer field of the document without its format. */
export const undatedFields = (document: Document): string[] => lacking(document, dateCheck);

/** Every month-like parameter, body field or answer field of the document without the month pattern. */
export const unpatternedMonths = (document: Document): string[] => lacking(document, monthCheck);
