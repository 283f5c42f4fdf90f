// Query parameters shared by the paged routes of the organization API.
import { z } from 'zod';

/** `limit` as the reference gives it: a string holding a whole number from 1 to 100. */
export const limitParam = z
  .string()
  .regex(/^\d+$/, 'limit must be a whole number from 1 to 100')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, 'limit must be a whole number from 1 to 100');
