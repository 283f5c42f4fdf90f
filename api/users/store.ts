// The users' records: creating and finding a user of an organization, recording their sign-in, and the
// two listings (the admin one with roles and active keys, the organization page's one in the reference's
// shape, paged by user id). Removal and erasure, which reach every table naming a user, are in remove.ts.
import type { Db } from '../../common/db/duckdb.ts';
import { newUserId, type OrgId, type UserId } from '../../common/ids.ts';
import type { Role } from '../../common/roles.ts';
import { refuseAnAlias } from '../aliases/store.ts';
import type { UserListing } from './schema.ts';

export interface User {
  id: UserId;
  org_id: OrgId;
  email: string;
  role: Role;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  last_sign_in_at: string | null;
}

/** A row of the organization page's listing (GET /api/v0/organization/users), before it is shaped. */
export interface OrganizationUserRow {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  metadata: string | null;
  first_name: string | null;
  last_name: string | null;
  last_sign_in_at: string | null;
}

const SQL = {
  insertUser: 'INSERT INTO users (id, org_id, email, role, first_name, last_name) VALUES ($id, $org, $email, $role, $first, $last)',
  userColumns: `SELECT id, org_id, email, role, first_name, last_name, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at,
    strftime(last_sign_in_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS last_sign_in_at FROM users`,
  deactivated: 'SELECT NOT active AS inactive FROM scim_users WHERE org_id = $org AND user_id = $id',
  list: `SELECT u.id, u.email, u.role, strftime(u.created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "createdAt",
           strftime(u.last_sign_in_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "lastSignInAt",
           (SELECT count(*) FROM api_keys k WHERE k.org_id = u.org_id AND k.user_id = u.id AND k.revoked_at IS NULL)::INTEGER AS "activeKeys"
         FROM users u WHERE u.org_id = $org ORDER BY u.email, u.id`,
  // Paged by user id, a stable order: a walk never skips or repeats a user, whatever is added meanwhile.
  page: `
SELECT id, email, role, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, CAST(metadata AS VARCHAR) AS metadata,
       first_name, last_name, strftime(last_sign_in_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS last_sign_in_at
FROM users
WHERE org_id = $org AND ($only IS NULL OR id = $only) AND ($cursor IS NULL OR id > $cursor)
ORDER BY id
LIMIT $limit`,
} as const;

export class UserStore {
  constructor(private readonly db: Db) {}

  /** 409 when the e-mail is another user's alias (api/aliases/store.ts): an address belongs to one user. */
  async createUser(input: { orgId: OrgId; email: string; role: Role; firstName?: string; lastName?: string }): Promise<User> {
    const id = newUserId();
    await this.db.transaction(async (tx) => {
      await refuseAnAlias(tx, input.orgId, input.email);
      await tx.run(SQL.insertUser, {
        id,
        org: input.orgId,
        email: input.email.toLowerCase(),
        role: input.role,
        first: input.firstName ?? null,
        last: input.lastName ?? null,
      });
    });
    return (await this.getUser(input.orgId, id))!;
  }

  async getUser(orgId: string, id: string): Promise<User | undefined> {
    return (
      await this.db.all<User & Record<string, unknown>>(`${SQL.userColumns} WHERE org_id = $org AND id = $id`, { org: orgId, id })
    )[0];
  }

  /** Whether the directory (SCIM) deactivated the user; false for a user it does not provision. */
  async deactivated(orgId: string, id: string): Promise<boolean> {
    const [row] = await this.db.all<{ inactive: boolean }>(SQL.deactivated, { org: orgId, id });
    return row?.inactive === true;
  }

  async findUserByEmail(orgId: string, email: string): Promise<User | undefined> {
    return (
      await this.db.all<User & Record<string, unknown>>(`${SQL.userColumns} WHERE org_id = $org AND email = $email`, {
        org: orgId,
        email: email.toLowerCase(),
      })
    )[0];
  }
}

/** The organization's users with their roles and number of active keys, by e-mail. */
export function listUsers(db: Db, orgId: string): Promise<UserListing[]> {
  return db.all<UserListing & Record<string, unknown>>(SQL.list, { org: orgId });
}

/** Up to `limit` users after `cursor` (a user id), only `only` when given. */
export function userPage(
  db: Db,
  orgId: string,
  page: { only: string | null; cursor: string | null; limit: number },
): Promise<OrganizationUserRow[]> {
  return db.all<OrganizationUserRow & Record<string, unknown>>(SQL.page, {
    org: orgId,
    only: page.only,
    cursor: page.cursor,
    limit: page.limit,
  });
}
