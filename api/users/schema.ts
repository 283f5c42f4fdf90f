// The answers of GET /api/v0/admin/users and DELETE /api/v0/admin/users/{userId} (api/users/remove.ts).
import { z } from 'zod';
import { Role } from '../auth/principal.ts';

export const UserListing = z.strictObject({
  id: z.string(),
  email: z.string(),
  role: Role,
  createdAt: z.string(),
  lastSignInAt: z.string().nullable(),
  activeKeys: z.number().int(),
});
export const UserListingList = z.strictObject({ users: z.array(UserListing) });

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
