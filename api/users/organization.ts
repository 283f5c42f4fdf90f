// GET /api/v0/organization/users: the organization's users in the reference's shape, paged by user id
// (a stable order: a walk never skips or repeats a user, whatever is added meanwhile). Owners and managers
// see everyone; a member sees only themself; guests get 403.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden } from '../../common/errors.ts';
import { USER_ID_PATTERN } from '../../common/ids.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { limitParam } from '../query.ts';

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
  createdAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  lastSignInAt: z.string().optional(),
});
export const UserList = z.strictObject({
  users: z.array(OrganizationUser),
  pagination: z.strictObject({ hasMore: z.boolean(), nextCursor: z.string().optional() }),
});

const LIST_USERS = `
SELECT id, email, role, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, CAST(metadata AS VARCHAR) AS metadata,
       first_name, last_name, strftime(last_sign_in_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS last_sign_in_at
FROM users
WHERE org_id = $org AND ($only IS NULL OR id = $only) AND ($cursor IS NULL OR id > $cursor)
ORDER BY id
LIMIT $limit`;

interface Row {
  id: string;
  email: string;
  role: 'owner' | 'manager' | 'member' | 'guest';
  created_at: string;
  metadata: string | null;
  first_name: string | null;
  last_name: string | null;
  last_sign_in_at: string | null;
}

export function registerOrganizationRoutes(app: FastifyInstance, deps: { db: Db; auth: Authenticator }): void {
  app.get('/api/v0/organization/users', async (request) => {
    const principal = await deps.auth.authenticate(request);
    if (principal.role === 'guest') throw forbidden('Listing users requires the owner, manager or member role; this credential has guest');
    const query = PageQuery.parse(request.query ?? {});
    const limit = query.limit ?? 20;
    const rows = await deps.db.all<Row & Record<string, unknown>>(LIST_USERS, {
      org: principal.orgId,
      only: principal.role === 'member' ? principal.userId : null,
      cursor: query.cursor ?? null,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return {
      users: page.map((r) => ({
        id: r.id,
        email: r.email,
        role: r.role,
        createdAt: r.created_at,
        metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : {},
        ...(r.first_name ? { firstName: r.first_name } : {}),
        ...(r.last_name ? { lastName: r.last_name } : {}),
        ...(r.last_sign_in_at ? { lastSignInAt: r.last_sign_in_at } : {}),
      })),
      pagination: { hasMore: rows.length > limit, ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}) },
    };
  });
}
