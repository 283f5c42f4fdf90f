// A directory's rename of an owner, held until an owner confirms it (migration 043). An owner's e-mail is
// who signs in as them with the identity provider: a SCIM token's holder who could rename an owner to an
// address they control there would sign in as that owner. So a SCIM rename of an owner is refused and
// recorded here; an owner confirms it with their own personal API key (POST .../confirm-rename,
// `agentmeter users confirm-rename`), and the directory's next sync finds the name already changed.
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError, notFound } from '../../common/errors.ts';
import { refuseAnAlias } from '../aliases/store.ts';

export interface PendingRename {
  userId: string;
  from: string;
  to: string;
  requestedAt: string;
}

const SQL = {
  hold: `INSERT INTO scim_pending_renames (org_id, user_id, email, requested_at) VALUES ($org, $user, lower($email), now())
    ON CONFLICT (org_id, user_id) DO UPDATE SET email = excluded.email, requested_at = excluded.requested_at`,
  list: `SELECT p.user_id AS "userId", u.email AS "from", p.email AS "to",
    strftime(p.requested_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "requestedAt"
    FROM scim_pending_renames p JOIN users u ON u.org_id = p.org_id AND u.id = p.user_id
    WHERE p.org_id = $org AND ($user IS NULL OR p.user_id = $user) ORDER BY p.requested_at, p.user_id`,
  taken: 'SELECT id FROM users WHERE org_id = $org AND email = $email AND id <> $user',
  setEmail: 'UPDATE users SET email = $email WHERE org_id = $org AND id = $user',
  drop: 'DELETE FROM scim_pending_renames WHERE org_id = $org AND user_id = $user',
  userId: 'SELECT id FROM users WHERE org_id = $org AND (id = $user OR email = lower($user))',
} as const;

/** The id of the user named by id or current e-mail, or undefined. */
export async function renamedUserId(db: Db, orgId: string, user: string): Promise<string | undefined> {
  return (await db.all<{ id: string }>(SQL.userId, { org: orgId, user }))[0]?.id;
}

/** Records (or replaces) the rename the directory asked for. */
export async function holdRename(db: Db, orgId: string, userId: string, email: string): Promise<void> {
  await db.run(SQL.hold, { org: orgId, user: userId, email });
}

/** The renames held in the organization (one user's when `userId` is given). */
export function pendingRenames(db: Db, orgId: string, userId: string | null = null): Promise<PendingRename[]> {
  return db.all<PendingRename & Record<string, unknown>>(SQL.list, { org: orgId, user: userId });
}

/**
 * Applies the rename held for `userId`: 404 when none is held, 409 when the new address became another
 * user's meanwhile (the rename stays held). One transaction.
 */
export async function confirmRename(db: Db, orgId: string, userId: string): Promise<PendingRename> {
  return db.transaction(async (tx) => {
    const [held] = await pendingRenames(tx, orgId, userId);
    if (!held) throw notFound('no directory rename of this user is waiting for confirmation');
    if ((await tx.all(SQL.taken, { org: orgId, email: held.to, user: userId })).length > 0)
      throw new HttpError(409, `${held.to} is already another user of this organization`);
    await refuseAnAlias(tx, orgId, held.to, userId);
    await tx.run(SQL.setEmail, { org: orgId, user: userId, email: held.to });
    await tx.run(SQL.drop, { org: orgId, user: userId });
    return held;
  });
}

/** Forgets a held rename (the user was removed, or the directory sent the current name back). */
export async function dropRename(db: Db, orgId: string, userId: string): Promise<void> {
  await db.run(SQL.drop, { org: orgId, user: userId });
}
