// The one writer of user_aliases (migration 055): a user's other addresses. An address belongs to one user
// of an organization, and is never another user's e-mail.
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';

export const ALIAS_SQL = {
  list: `SELECT email, source, strftime(created_at, '%Y-%m-%dT%H:%M:%S.000Z') AS created_at FROM user_aliases
         WHERE org_id = $org AND user_id = $user ORDER BY email`,
  owner: `SELECT user_id AS id FROM user_aliases WHERE org_id = $org AND email = $email
          UNION ALL SELECT id FROM users WHERE org_id = $org AND lower(email) = $email`,
  add: `INSERT INTO user_aliases (org_id, email, user_id, source, created_at) VALUES ($org, $email, $user, $source, now()::TIMESTAMP)`,
  remove: 'DELETE FROM user_aliases WHERE org_id = $org AND user_id = $user AND email = $email RETURNING email',
  directory: "SELECT email FROM user_aliases WHERE org_id = $org AND user_id = $user AND source = 'directory'",
  addresses: `SELECT lower(email) AS email, 0 AS o FROM users WHERE org_id = $org AND id = $user
              UNION ALL SELECT email, 1 FROM user_aliases WHERE org_id = $org AND user_id = $user ORDER BY o, email`,
} as const;

const ALIAS_HOLDER = `SELECT user_id FROM user_aliases WHERE org_id = $org AND email = lower($email) AND ($except IS NULL OR user_id <> $except)
  LIMIT 1`;

/**
 * The user (other than `except`) whose alias `email` is, or undefined. An address belongs to one user:
 * whatever gives a user an e-mail (adding them, the directory, a sign-in that provisions them, a rename)
 * asks this first, as adding an alias asks the users' e-mails.
 */
export async function aliasHolder(db: Db, org: string, email: string, except?: string): Promise<string | undefined> {
  return (await db.all<{ user_id: string }>(ALIAS_HOLDER, { org, email, except: except ?? null }))[0]?.user_id;
}

/** Why an address cannot be a user's e-mail: it is another user's alias. */
export const aliasTaken = (email: string) =>
  `${email.toLowerCase()} is another user's alias (an address their commits carry): an owner removes it from them first (agentmeter users alias remove)`;

/** 409: the address is another user's alias (a SCIM route answers it as `uniqueness`). */
export class AliasTakenError extends HttpError {
  constructor(email: string) {
    super(409, aliasTaken(email));
  }
}

/**
 * Refuses (AliasTakenError) to give `email` to a user (other than `except`) while it is another user's
 * alias. Run in the transaction that writes the e-mail: the writer takes one transaction at a time, so no
 * alias can be added between this check and the write (AliasStore.add checks the e-mails in its own).
 */
export async function refuseAnAlias(tx: Db, org: string, email: string, except?: string): Promise<void> {
  if (await aliasHolder(tx, org, email, except)) throw new AliasTakenError(email);
}

export interface AliasRow {
  email: string;
  source: 'owner' | 'directory';
  created_at: string;
}

export class AliasStore {
  constructor(private readonly db: Db) {}

  list(org: string, user: string): Promise<AliasRow[]> {
    return this.db.all<AliasRow & Record<string, unknown>>(ALIAS_SQL.list, { org, user });
  }

  /**
   * Gives `user` the address `email` (lower case). 'taken' when it is another user's e-mail or alias,
   * 'exists' when it is already theirs.
   */
  async add(org: string, user: string, email: string, source: AliasRow['source']): Promise<'added' | 'exists' | 'taken'> {
    return this.db.transaction(async (tx) => {
      const owners = await tx.all<{ id: string }>(ALIAS_SQL.owner, { org, email });
      if (owners.some((o) => o.id !== user)) return 'taken';
      if (owners.length) return 'exists';
      await tx.run(ALIAS_SQL.add, { org, email, user, source });
      return 'added';
    });
  }

  async remove(org: string, user: string, email: string): Promise<boolean> {
    return (await this.db.all(ALIAS_SQL.remove, { org, user, email })).length > 0;
  }

  /**
   * Makes the directory's extra e-mails of a user (SCIM `emails` other than `userName`) their 'directory'
   * aliases: those no longer listed go, new ones come (an address of another user is left out). An
   * owner's aliases are not touched.
   */
  async setDirectory(org: string, user: string, emails: readonly string[]): Promise<void> {
    const wanted = new Set(emails);
    const current = (await this.db.all<{ email: string }>(ALIAS_SQL.directory, { org, user })).map((r) => r.email);
    for (const email of current) if (!wanted.has(email)) await this.remove(org, user, email);
    for (const email of wanted) if (!current.includes(email)) await this.add(org, user, email, 'directory');
  }

  /** The user's e-mail, then their aliases, lower case. */
  async addresses(org: string, user: string): Promise<string[]> {
    return (await this.db.all<{ email: string }>(ALIAS_SQL.addresses, { org, user })).map((r) => r.email);
  }
}
