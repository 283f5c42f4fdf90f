// GET /api/v0/usage/users/{userId|me}: one person's daily rows, in the records of /api/v1/analytics/users.
import { z } from 'zod';
import { UserRecord } from '../analytics/schema.ts';
import { Role } from '../auth/principal.ts';

/** A user id, or `me` for the caller. */
export const UsageParams = z.strictObject({ userId: z.string().min(1).max(64) });

export const UserUsage = z.strictObject({
  data: z.array(UserRecord),
  meta: z.strictObject({
    org_id: z.string(),
    start_date: z.string(),
    end_date: z.string(),
    user_id: z.string(),
    user_email: z.string(),
    role: Role,
  }),
});
