// Query parameters shared by the paged routes of the organization API.
import { z } from 'zod';

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
 * The query of a route that takes no parameters: any given is a 400 with the documented body, as on the
 * routes that take some, rather than ignored (a misspelled filter would otherwise look applied).
 */
export const NoQuery = z.strictObject({});
