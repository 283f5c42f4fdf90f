// Removing a user, and erasing their data (the right to erasure). Removal revokes every credential of the
// user (API keys; the computers they registered stop authenticating) and deletes the user row, so a JWT
// naming them no longer finds a user either. Erasure also deletes what the user's agents sent (hook
// events, token usage, assistant messages), the sessions they ran with their messages, their computers,
// and their name and e-mail in the enterprise-controls history (the revision keeps the user id); the
// caller then rebuilds the aggregates of the days those records were on (`erasureDays`), so no figure
// counts them. Kept: readiness reports they uploaded (they describe repositories; `uploaded_by` holds only
// the user id, which names nobody once the user row is gone).
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { Role } from '../auth/principal.ts';
import { REVOKE_KEYS_AND_MINTED, REVOKE_USER_KEYS_AND_MINTED, revokeWhatRevokedKeysMinted } from '../keys/store.ts';
import { REVOKE_SCIM_TOKENS_OF_USER } from '../scim/tokens.ts';
import type { User } from './store.ts';

export interface RemovalReport {
  userId: string;
  keysRevoked: number;
  computersRevoked: number;
  /** Rows deleted per kind; null when the data was kept (removal without erasure). */
  erased: { events: number; usage: number; assistantMessages: number; sessions: number; sessionMessages: number } | null;
  /** The days whose aggregates held the user's records (to rebuild, with the 29 days after each). */
  erasureDays: string[];
}

const SQL = {
  // Owners the directory has not deactivated: the ones who can still administer the organization.
  activeOwners: `SELECT count(*)::INTEGER AS n FROM users u LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id
    WHERE u.org_id = $org AND u.role = 'owner' AND coalesce(s.active, true)`,
  days: `SELECT DISTINCT CAST(CAST(ts AS DATE) AS VARCHAR) AS day FROM (
           SELECT ts FROM events WHERE org_id = $org AND user_id = $user
           UNION ALL SELECT ts FROM usage WHERE org_id = $org AND user_id = $user
           UNION ALL SELECT ts FROM assistant_messages WHERE org_id = $org AND user_id = $user
           UNION ALL SELECT ts FROM landed_commits WHERE org_id = $org AND user_id = $user
           UNION ALL SELECT ts FROM edit_decisions WHERE org_id = $org AND user_id = $user
         ) ORDER BY day`,
  revokeKeys: 'UPDATE api_keys SET revoked_at = now() WHERE org_id = $org AND user_id = $user AND revoked_at IS NULL',
  // No computer token hashes to this value (a SHA-256 hex digest never contains ':').
  revokeComputers:
    "UPDATE computers SET token_hash = 'revoked:' || id WHERE org_id = $org AND user_id = $user AND token_hash NOT LIKE 'revoked:%'",
  deleteLimits: 'DELETE FROM credit_limits WHERE org_id = $org AND user_id = $user',
  deleteOtlpTotals: 'DELETE FROM otlp_cumulative WHERE org_id = $org AND user_id = $user',
  // Dashboard sign-ins die with the user anyway (their lookup joins users); their rows go too.
  deleteDashboardSessions: 'DELETE FROM dashboard_sessions WHERE org_id = $org AND user_id = $user',
  // Team memberships name the user row, so they go with it (the team keeps its other members).
  deleteTeamMemberships: 'DELETE FROM team_members WHERE org_id = $org AND user_id = $user',
  deleteUser: 'DELETE FROM users WHERE org_id = $org AND id = $user',
  deletePendingRename: 'DELETE FROM scim_pending_renames WHERE org_id = $org AND user_id = $user',
  // Every key the user minted for someone else, of any scope: nothing they handed out outlives their access.
  mintedForOthers: `SELECT id FROM api_keys WHERE org_id = $org AND created_by = $user AND user_id <> $user`,
  eraseEvents: 'DELETE FROM events WHERE org_id = $org AND user_id = $user',
  eraseUsage: 'DELETE FROM usage WHERE org_id = $org AND user_id = $user',
  eraseMessages: 'DELETE FROM assistant_messages WHERE org_id = $org AND user_id = $user',
  eraseLandedCommits: 'DELETE FROM landed_commits WHERE org_id = $org AND user_id = $user',
  eraseEditDecisions: 'DELETE FROM edit_decisions WHERE org_id = $org AND user_id = $user',
  eraseSessionMessages:
    'DELETE FROM session_messages WHERE org_id = $org AND session_id IN (SELECT id FROM sessions WHERE org_id = $org AND user_id = $user)',
  eraseSessions: 'DELETE FROM sessions WHERE org_id = $org AND user_id = $user',
  eraseComputers: 'DELETE FROM computers WHERE org_id = $org AND user_id = $user',
  eraseControlsAuthor:
    "UPDATE enterprise_controls SET user_email = 'erased', user_name = 'erased user' WHERE org_id = $org AND user_id = $user",
} as const;

/**
 * Why `actor` may not remove users (undefined: allowed). Only owners remove users: removal and erasure
 * cannot be undone, and managers, who add members and guests, would otherwise be able to erase the records
 * of people they supervise. With --db the operator holding the database file acts as an owner. That the
 * last active owner stays is checked in the removal's own transaction (keepAnActiveOwner).
 */
export function removalRefusal(actor: { role: Role } | 'operator'): string | undefined {
  if (actor !== 'operator' && actor.role !== 'owner') return `only an owner may remove users; this credential has ${actor.role}`;
  return undefined;
}

export const LAST_OWNER =
  'this is the last owner of the organization still active (owners the directory deactivated do not count); make another user owner first';

/** 409: the change would leave the organization without an active owner. */
export class LastOwnerError extends HttpError {
  constructor() {
    super(409, LAST_OWNER);
  }
}

export async function activeOwnerCount(db: Db, orgId: string): Promise<number> {
  return (await db.all<{ n: number }>(SQL.activeOwners, { org: orgId }))[0]?.n ?? 0;
}

/**
 * The one rule of every path that deactivates, removes or demotes a person: run `change` in a transaction
 * and roll it back (LastOwnerError) when it takes the organization's last active owner away. Transactions
 * run one at a time on the writer connection, so two changes at once (two directory deactivations) see
 * each other: the second finds one owner fewer.
 */
export function keepAnActiveOwner<T>(db: Db, orgId: string, change: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const before = await activeOwnerCount(tx, orgId);
    const result = await change(tx);
    if (before > 0 && (await activeOwnerCount(tx, orgId)) === 0) throw new LastOwnerError();
    return result;
  });
}

/**
 * Revokes every credential of the user at once: API keys, the tokens of the computers they registered,
 * their dashboard sessions. Their data stays. Run inside the caller's transaction (removal, or a SCIM
 * deactivation, api/scim/store.ts).
 */
export async function revokeAccess(
  tx: Db,
  target: Pick<User, 'id' | 'org_id'>,
): Promise<{ keysRevoked: number; computersRevoked: number }> {
  const p = { org: target.org_id, user: target.id };
  const keysRevoked = await tx.run(SQL.revokeKeys, p);
  // And what they minted with them, but collector keys (the rule of revoking one key).
  await tx.run(REVOKE_USER_KEYS_AND_MINTED, p);
  // And every key they minted for someone else, collector keys included (a manager's enrolments of
  // members' machines), with the personal keys minted with those: a key lasts no longer than its minter's access.
  await tx.run(REVOKE_KEYS_AND_MINTED(SQL.mintedForOthers), p);
  // And the directory tokens they minted; and the directory tokens and computers minted with a key now
  // revoked (a member's computer registered with a key this user minted for them).
  await tx.run(REVOKE_SCIM_TOKENS_OF_USER, p);
  await revokeWhatRevokedKeysMinted(tx, target.org_id);
  const computersRevoked = await tx.run(SQL.revokeComputers, p);
  await tx.run(SQL.deleteDashboardSessions, p);
  return { keysRevoked, computersRevoked };
}

/**
 * Revokes the user's credentials and deletes them; with `erase`, also their data. One transaction, refused
 * (LastOwnerError) when it would leave no active owner.
 */
export async function removeUser(db: Db, target: Pick<User, 'id' | 'org_id'>, erase: boolean): Promise<RemovalReport> {
  const p = { org: target.org_id, user: target.id };
  return keepAnActiveOwner(db, target.org_id, async (tx) => {
    const erasureDays = erase ? (await tx.all<{ day: string }>(SQL.days, p)).map((r) => r.day) : [];
    const { keysRevoked, computersRevoked } = await revokeAccess(tx, target);
    await tx.run(SQL.deleteLimits, p);
    await tx.run(SQL.deleteOtlpTotals, p);
    await tx.run(SQL.deleteTeamMemberships, p);
    await tx.run(SQL.deletePendingRename, p);
    await tx.run(SQL.deleteUser, p);
    let erased: RemovalReport['erased'] = null;
    if (erase) {
      const events = await tx.run(SQL.eraseEvents, p);
      const usage = await tx.run(SQL.eraseUsage, p);
      const assistantMessages = await tx.run(SQL.eraseMessages, p);
      // Landed commits are the user's records too (their days are among erasureDays, rebuilt after).
      await tx.run(SQL.eraseLandedCommits, p);
      await tx.run(SQL.eraseEditDecisions, p);
      const sessionMessages = await tx.run(SQL.eraseSessionMessages, p);
      const sessions = await tx.run(SQL.eraseSessions, p);
      await tx.run(SQL.eraseComputers, p);
      await tx.run(SQL.eraseControlsAuthor, p);
      erased = { events, usage, assistantMessages, sessions, sessionMessages };
    }
    return { userId: target.id, keysRevoked, computersRevoked, erased, erasureDays };
  });
}

/** The one log line of a removal: ids and counts, no e-mail or name. */
export function logRemoval(log: Logger, orgId: string, report: RemovalReport, daysRebuilt: number, actor?: string): void {
  log.info(
    {
      orgId,
      userId: report.userId,
      ...(actor ? { actor } : {}),
      erase: report.erased !== null,
      keysRevoked: report.keysRevoked,
      computersRevoked: report.computersRevoked,
      ...(report.erased ? { erased: report.erased, daysRebuilt } : {}),
    },
    'user removed',
  );
}
