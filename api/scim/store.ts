// What SCIM reads and writes about people: agentmeter's users (the e-mail is the SCIM userName, first
// and last name are name.givenName/familyName) joined with scim_users (externalId, displayName, active;
// migration 025). A user no directory has touched is active. Deactivating or deleting a person revokes
// every credential they have at once (api/users/remove.ts, revokeAccess) and keeps their usage: a
// directory's delete removes the user row as `users remove` without --erase does.
import type { Db } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { AccountStore } from '../accounts/store.ts';
import { refuseAnAlias } from '../aliases/store.ts';
import type { Role } from '../auth/principal.ts';
import { keepAnActiveOwner, type RemovalReport, removeUser, revokeAccess } from '../users/remove.ts';
import type { User } from '../users/store.ts';
import type { UserFields } from './patch.ts';

export interface ScimUserRow {
  id: string;
  email: string;
  role: Role;
  first_name: string | null;
  last_name: string | null;
  external_id: string | null;
  display_name: string | null;
  active: boolean;
  created: string;
  last_modified: string;
}

/** The filterable attributes of a User (lowercase, as filter.ts gives them) and the column each compares. */
export const USER_FILTERS: Record<string, string> = {
  username: 'u.email = lower($value)',
  'emails.value': 'u.email = lower($value)',
  'emails[type eq "work"].value': 'u.email = lower($value)',
  externalid: 's.external_id = $value',
  id: 'u.id = $value',
};

const FROM = `FROM users u LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id WHERE u.org_id = $org`;
const SELECT = `SELECT u.id, u.email, u.role, u.first_name, u.last_name, s.external_id, s.display_name, coalesce(s.active, true) AS active,
  strftime(u.created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created,
  strftime(coalesce(s.updated_at, u.created_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS last_modified ${FROM}`;

const SQL = {
  upsertScim: `INSERT INTO scim_users (org_id, user_id, external_id, display_name, active, updated_at)
    VALUES ($org, $user, $external, $display, $active, now())
    ON CONFLICT (org_id, user_id) DO UPDATE SET external_id = excluded.external_id, display_name = excluded.display_name,
      active = excluded.active, updated_at = excluded.updated_at`,
  setEmail: 'UPDATE users SET email = $email WHERE org_id = $org AND id = $user',
  setNames: 'UPDATE users SET first_name = $first, last_name = $last WHERE org_id = $org AND id = $user',
  deleteScim: 'DELETE FROM scim_users WHERE org_id = $org AND user_id = $user',
} as const;

export const fieldsOf = (row: ScimUserRow): UserFields => ({
  userName: row.email,
  externalId: row.external_id,
  displayName: row.display_name,
  givenName: row.first_name,
  familyName: row.last_name,
  active: row.active,
});

export class ScimUserStore {
  constructor(
    private readonly db: Db,
    private readonly accounts: AccountStore,
  ) {}

  async list(
    orgId: string,
    filter: { where: string; value: string } | undefined,
    startIndex: number,
    count: number,
  ): Promise<{ total: number; rows: ScimUserRow[] }> {
    const where = filter ? ` AND ${filter.where}` : '';
    const params = { org: orgId, ...(filter ? { value: filter.value } : {}) };
    const [total] = await this.db.all<{ n: number }>(`SELECT count(*)::INTEGER AS n ${FROM}${where}`, params);
    const rows =
      count === 0
        ? []
        : await this.db.all<ScimUserRow & Record<string, unknown>>(`${SELECT}${where} ORDER BY u.id LIMIT $limit OFFSET $offset`, {
            ...params,
            limit: count,
            offset: startIndex - 1,
          });
    return { total: total?.n ?? 0, rows };
  }

  async get(orgId: string, id: string): Promise<ScimUserRow | undefined> {
    return (await this.db.all<ScimUserRow & Record<string, unknown>>(`${SELECT} AND u.id = $id`, { org: orgId, id }))[0];
  }

  async byEmail(orgId: string, email: string): Promise<ScimUserRow | undefined> {
    return (await this.db.all<ScimUserRow & Record<string, unknown>>(`${SELECT} AND u.email = lower($email)`, { org: orgId, email }))[0];
  }

  /** A new member with no key (they sign in with the identity provider, or an owner gives them a key). */
  async create(orgId: OrgId, fields: UserFields): Promise<ScimUserRow> {
    const user = await this.accounts.createUser({
      orgId,
      email: fields.userName,
      role: 'member',
      ...(fields.givenName ? { firstName: fields.givenName } : {}),
      ...(fields.familyName ? { lastName: fields.familyName } : {}),
    });
    await this.db.run(SQL.upsertScim, {
      org: orgId,
      user: user.id,
      external: fields.externalId,
      display: fields.displayName,
      active: fields.active,
    });
    if (!fields.active) await revokeAccess(this.db, user);
    return (await this.get(orgId, user.id))!;
  }

  /**
   * Writes the new fields of an existing user. Going from active to inactive revokes their keys, their
   * computers' tokens and their dashboard sessions in the same transaction; `revoked` says so.
   */
  async update(orgId: string, before: ScimUserRow, fields: UserFields): Promise<{ row: ScimUserRow; revoked: boolean }> {
    const user = { id: before.id, org_id: orgId } as Pick<User, 'id' | 'org_id'>;
    const revoked = before.active && !fields.active;
    // Deactivating the last active owner rolls back (LastOwnerError), whatever else runs at the same time.
    await keepAnActiveOwner(this.db, orgId, async (tx) => {
      const p = { org: orgId, user: before.id };
      if (fields.userName !== before.email) {
        await refuseAnAlias(tx, orgId, fields.userName, before.id);
        await tx.run(SQL.setEmail, { ...p, email: fields.userName });
      }
      if (fields.givenName !== before.first_name || fields.familyName !== before.last_name)
        await tx.run(SQL.setNames, { ...p, first: fields.givenName, last: fields.familyName });
      await tx.run(SQL.upsertScim, { ...p, external: fields.externalId, display: fields.displayName, active: fields.active });
      if (revoked) await revokeAccess(tx, user);
    });
    return { row: (await this.get(orgId, before.id))!, revoked };
  }

  /** Deletes the user as `users remove` does without --erase: credentials revoked, usage kept. */
  async remove(orgId: string, row: ScimUserRow): Promise<RemovalReport> {
    const report = await removeUser(this.db, { id: row.id as UserId, org_id: orgId as OrgId }, false);
    await this.db.run(SQL.deleteScim, { org: orgId, user: row.id });
    return report;
  }
}
