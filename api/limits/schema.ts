// Credit limits at the boundary: the routes' paths, the PUT bodies (limits and enforcement) and the answers.
import { z } from 'zod';
import { Month } from '../http/dates.ts';

export const LIMITS_PATH = '/api/v0/organization/usage/limits/users';
export const ENFORCEMENT_PATH = '/api/v0/organization/usage/limits/enforcement';

/** One user's limit as the PUT sends it. */
export const Entry = z.strictObject({ email: z.email(), limit: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER) });

/**
 * An entry of the PUT's list as the envelope takes it: anything, so one bad entry is answered in `errors`
 * and does not sink the others (the route checks each with Entry); documented as an Entry.
 */
const { $schema: _, ...sentEntryDocument } = z.toJSONSchema(Entry, { io: 'input', target: 'draft-2020-12' });
const SentEntry = z.unknown().meta(sentEntryDocument);

export const LimitsBody = z.strictObject({
  users: z.array(SentEntry).min(1, 'users needs 1 to 100 entries').max(100, 'users takes at most 100 entries'),
});
export const EnforcementBody = z.strictObject({ enabled: z.boolean() });

export const LimitsUpdate = z.strictObject({
  updated: z.array(z.strictObject({ email: z.string(), limit: z.number() })),
  errors: z.array(z.strictObject({ email: z.string(), error: z.string() })),
});
export type LimitsUpdate = z.infer<typeof LimitsUpdate>;

export const LimitStatus = z.strictObject({
  month: Month.describe('the current UTC month, YYYY-MM'),
  enforced: z.boolean(),
  userId: z.string(),
  users: z.array(
    z.strictObject({ userId: z.string(), email: z.string(), limit: z.number().nullable(), used: z.number(), over: z.boolean() }),
  ),
});
export type LimitStatus = z.infer<typeof LimitStatus>;

export const EnforcementAnswer = z.strictObject({ enforced: z.boolean() });
export type EnforcementAnswer = z.infer<typeof EnforcementAnswer>;
