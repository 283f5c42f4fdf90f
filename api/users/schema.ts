// Users: the request schemas and answers of every users route (routes.ts), and their paths. Adding a
// user hands over their first key (api/keys/schema.ts, PublicKey); a key's hash never leaves the server.
import { z } from 'zod';
import { USER_ID_PATTERN } from '../../common/ids.ts';
import { ANALYTICS_QUERY, PersonTotals, UserRecord } from '../analytics/schema.ts';
import { Role } from '../auth/principal.ts';
import { Day, IsoTime } from '../http/dates.ts';
import { limitParam } from '../http/query.ts';
import { KeySecret, PublicKey } from '../keys/schema.ts';

export const USERS_PATH = '/api/v0/admin/users';
export const USER_PATH = '/api/v0/admin/users/:userId';
export const WHOAMI_PATH = '/api/v0/admin/whoami';
export const ORGANIZATION_USERS_PATH = '/api/v0/organization/users';
export const USER_USAGE_PATH = '/api/v0/usage/users/:userId';

export const CreateUserBody = z.strictObject({
  email: z.email(),
  role: Role,
  firstName: z.string().max(200).optional(),
  lastName: z.string().max(200).optional(),
  keyName: z.string().max(200).optional(),
});
/** A user id (usr_…), an e-mail address, or me (the caller). */
export const UserParams = z.strictObject({ userId: z.string().min(1).max(320) });
export const RemoveQuery = z.strictObject({ erase: z.enum(['true', 'false']).optional() });

export const PublicUser = z.strictObject({ id: z.string(), email: z.string(), role: Role, createdAt: IsoTime });
export const CreatedUser = z.strictObject({ user: PublicUser, apiKey: KeySecret, key: PublicKey });
export const WhoAmI = z.strictObject({ userId: z.string(), orgId: z.string(), email: z.string(), role: Role });

/** GET /api/v0/admin/users: the organization's users with their roles, last sign-in and active keys. */
export const UserListing = z.strictObject({
  id: z.string(),
  email: z.string(),
  role: Role,
  createdAt: IsoTime,
  lastSignInAt: IsoTime.nullable().describe(
    "The last dashboard sign-in (a key or JWT in its form, or the identity provider); a collector's deliveries do not count",
  ),
  activeKeys: z.number().int(),
});
export type UserListing = z.infer<typeof UserListing>;
export const UserListingList = z.strictObject({ users: z.array(UserListing) });

/** DELETE /api/v0/admin/users/{userId}: what the removal did (remove.ts). */
export const RemovedUser = z.strictObject({
  userId: z.string(),
  keysRevoked: z.number().int(),
  computersRevoked: z.number().int(),
  /** Rows deleted per kind; null when the user's data was kept (no ?erase=true). */
  erased: z
    .strictObject({
      events: z.number().int(),
      usage: z.number().int(),
      assistantMessages: z.number().int(),
      sessions: z.number().int(),
      sessionMessages: z.number().int(),
    })
    .nullable(),
  daysRebuilt: z.number().int().describe('days whose aggregates were rebuilt without the erased records'),
});

/** GET /api/v0/organization/users: a page of the organization's users, in the reference's shape. */
export const PageQuery = z.strictObject({
  limit: limitParam.optional(),
  // A user id taken from pagination.nextCursor; any other value would page from a place that is no user.
  cursor: z
    .string()
    .regex(USER_ID_PATTERN, 'cursor must be a user id (usr_ and 16 hex digits) taken from pagination.nextCursor')
    .optional(),
});
export const OrganizationUser = z.object({
  id: z.string(),
  email: z.email(),
  /** Not in the reference's shape: the dashboard's organization page shows each user's role. */
  role: z.enum(['owner', 'manager', 'member', 'guest']),
  createdAt: IsoTime,
  metadata: z.record(z.string(), z.unknown()),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  lastSignInAt: IsoTime.optional().describe('The last dashboard sign-in (form or identity provider); absent: never'),
});
export const UserList = z.strictObject({
  users: z.array(OrganizationUser),
  pagination: z.strictObject({ hasMore: z.boolean(), nextCursor: z.string().optional() }),
});

// GET /api/v0/usage/users/{userId|me}: one person's daily rows, in the records of /api/v1/analytics/users.
/** A user id, or `me` for the caller. */
export const UsageParams = z.strictObject({ userId: z.string().min(1).max(64) });
/**
 * The range only, each date by the analytics API's rule: one person's records have no grouping and no
 * team filter (taking /productivity's query, they took group_by and team= and ignored them).
 */
export const UsageQuery = z.strictObject({
  startDate: ANALYTICS_QUERY.productivity.shape['startDate']!,
  endDate: ANALYTICS_QUERY.productivity.shape['endDate']!,
});
export const UserUsage = z.strictObject({
  data: z.array(UserRecord),
  meta: z.strictObject({
    org_id: z.string(),
    start_date: Day,
    end_date: Day,
    user_id: z.string(),
    user_email: z.string(),
    role: Role,
    totals: PersonTotals.describe(
      "the person's range in one (an agentmeter extension): sums of the records, the active days and the range's primary model",
    ),
  }),
});
