// Query parameters shared by the paged routes of the organization API, and the one check every declared
// route makes of its query's names (declareRoute calls it).
import { z } from 'zod';
import { badRequest } from '../../common/errors.ts';
import { teamNameSchema } from '../../common/team-name.ts';

/** `limit` as the reference gives it: a string holding a whole number from 1 to 100. */
export const limitParam = z
  .string()
  .regex(/^\d+$/, 'limit must be a whole number from 1 to 100')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, 'limit must be a whole number from 1 to 100');

/**
 * A whole number in a query string, from min to max: digits only, bounded before it becomes a number, so
 * "99999999999999999999" is a 400 and never an overflow in a bound SQL parameter.
 */
export const wholeNumberParam = (min: number, max: number, message: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);

/**
 * `team=NAME`, the agentmeter extension of the analytics routes (docs/metrics.md §6): a team's name, which
 * each route looks up (400 for no such team, 403 below the minimum team size); `description` says what
 * the route then counts. Taken in NFC (common/team-name.ts), so a name sent decomposed finds its team; one
 * holding a character no team name may hold is a 400 saying so.
 */
export const teamParam = (description: string) => teamNameSchema('team').optional().describe(description);

/**
 * The query of a route that takes no parameters: any given is a 400 with the documented body, as on the
 * routes that take some, rather than ignored (a misspelled filter would otherwise look applied).
 */
export const NoQuery = z.strictObject({});

/**
 * The names of the query parameters a declared query schema takes: none without a schema, undefined (any)
 * for a schema that keeps unknown keys on purpose (z.looseObject: an OAuth redirect, whose provider may add
 * parameters the client must ignore; SCIM's listing) or that is not an object.
 */
export function queryNames(query: z.ZodType | undefined): readonly string[] | undefined {
  if (!query) return [];
  if (!(query instanceof z.ZodObject)) return undefined;
  const catchall = query.def.catchall;
  if (catchall && !(catchall instanceof z.ZodNever)) return undefined;
  return Object.keys(query.shape);
}

/**
 * A parameter the route does not take is the documented 400, rather than ignored: a misspelled filter
 * would otherwise look applied. `known` comes from queryNames.
 */
export function refuseUnknownQuery(query: unknown, known: readonly string[]): void {
  if (query === null || typeof query !== 'object') return;
  for (const key in query)
    if (!known.includes(key))
      throw badRequest(`unknown query parameter "${key}"; this endpoint takes ${known.length ? known.join(', ') : 'none'}`);
}

/**
 * A parameter given more than once is the documented 400 naming it, on every route that lists its
 * parameters (none takes a list): its schema would otherwise call it missing, or "expected string".
 */
export function refuseRepeatedQuery(query: unknown): void {
  if (query === null || typeof query !== 'object') return;
  for (const [key, value] of Object.entries(query)) if (Array.isArray(value)) throw badRequest(`"${key}" was given more than once`);
}

/** A query as Fastify parses it: a parameter given twice is a list. */
export const RawQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/**
 * The query of a route that checks it in its handler (queryCheckedBy: 'handler'; a name it does not take
 * was refused by declareRoute): every parameter given once, each as a string.
 */
export function singleValues(raw: unknown): Record<string, string> {
  const query = RawQuery.parse(raw ?? {});
  for (const [key, value] of Object.entries(query)) if (Array.isArray(value)) throw badRequest(`"${key}" was given more than once`);
  return query as Record<string, string>;
}

/** singleValues, then the route's schema: its first issue is the 400's detail. */
export function parseQuery<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const checked = schema.safeParse(singleValues(raw));
  if (!checked.success) throw badRequest(checked.error.issues[0]!.message);
  return checked.data;
}
