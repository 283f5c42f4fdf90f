// The roles of a user in an organization. Here rather than in api/auth/principal.ts (which re-exports
// them) so the CLI can offer them as choices without loading the account store and its database layer.
import { z } from 'zod';

export const ROLES = ['owner', 'manager', 'member', 'guest'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;
