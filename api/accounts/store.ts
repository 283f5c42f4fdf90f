// Organizations, users and API keys. API keys are random, prefixed "am_", shown once and stored only as
// a SHA-256 hash (they carry 256 bits of entropy, so a fast hash is enough to make a stolen table useless).
import { hash, randomBytes } from 'node:crypto';
import type { Db } from '../../common/db/duckdb.ts';
import { type ApiKeyId, newApiKeyId, newOrgId, newUserId, type OrgId, type UserId } from '../../common/ids.ts';
import type { KeyScope } from '../../common/key-scopes.ts';
import type { Role } from '../../common/roles.ts';
import type { Principal } from '../auth/principal.ts';

/**
 * What a credential may do on its user's behalf. Only a personal credential drives the user's computers
 * (registers one, creates sessions on one, sends it messages): whoever mints a key for someone else holds
 * it too, and must not be able to run commands on that person's machine with it.
 *   personal    minted by the operator on the database file (created_by NULL), by the user with a personal
 *               credential (their key, or a JWT: only the operator's sign-in can sign one), or in exchange
 *               for their invitation
 *   invitation  the key handed over when someone created the user through the server; its user exchanges
 *               it once for a personal key (POST /admin/users/{own id}/keys with it), which revokes it
 *   delegated   minted through the server by another person, or by the user with a delegated key
 */
export const KEY_KINDS = ['personal', 'invitation', 'delegated'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/**
 * What a key may do (migration 016). A collector key is what sits on a developer machine: it ingests,
 * reads its own user's credit-limit state and usage, says whose it is and registers its machine (the
 * routes with `config: { collectorKey: true }`), and gets 403 everywhere else. A personal key does what
 * its user's role allows. Minting a personal key needs a personal key; a JWT or a dashboard session
 * mints collector keys only (docs/keys.md).
 */
export { KEY_SCOPES, type KeyScope } from '../../common/key-scopes.ts';

export const KEY_PREFIX = 'am_';
// One-shot `hash` (Node 20.12+): every authenticated request hashes its credential to find it in the
// principal cache, and this is half the cost of createHash().update().digest().
export const hashKey = (key: string) => hash('sha256', key, 'hex');
export const generateKey = () => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
/** The part of a key shown in listings: enough to tell keys apart, useless to an attacker. */
export const keyDisplayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 6);

export interface Org {
  id: OrgId;
  name: string;
  created_at: string;
}
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
export interface ApiKeyInfo {
  id: ApiKeyId;
  user_id: UserId;
  org_id: OrgId;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Who minted it; null: the operator, on the database file (or before migration 011). */
  created_by: string | null;
  kind: KeyKind;
  scope: KeyScope;
  /** A collector key's machine (the first it delivered from); null until then, and for personal keys. */
  machine_id: string | null;
}
/** A key as the API and the CLI show it (never its hash). */
export interface KeyView {
  id: string;
  userId: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Who minted it (null: the operator, on the database file) and what that makes it (docs/operations.md, "Whose key drives a computer"). */
  createdBy: string | null;
  kind: KeyKind;
  scope: KeyScope;
  machineId: string | null;
}

export const keyView = (k: Omit<ApiKeyInfo, 'org_id'>): KeyView => ({
  id: k.id,
  userId: k.user_id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.created_at,
  lastUsedAt: k.last_used_at,
  revokedAt: k.revoked_at,
  createdBy: k.created_by,
  kind: k.kind,
  scope: k.scope,
  machineId: k.machine_id,
});

/** Who mints a key: a person through the server (with the credential they used), or the operator. */
export type Minter = { userId: string; credential: KeyKind } | 'operator';

/**
 * Revokes the keys `seed` selects (their ids; parameters $org and the seed's own) and every active
 * personal key minted with them, and with those, and so on: collector keys are durable, they stay.
 */
const revokeMintedFrom = (seed: string) => `UPDATE api_keys SET revoked_at = now()
    WHERE org_id = $org AND revoked_at IS NULL AND id IN (
      WITH RECURSIVE minted(id) AS (
        ${seed}
        UNION SELECT k.id FROM api_keys k JOIN minted m ON k.minted_with = m.id
        WHERE k.org_id = $org AND coalesce(k.scope, 'personal') <> 'collector'
      ) SELECT id FROM minted)`;

/**
 * A removed user's keys ($org, $user), all of them, and the personal keys minted with any of them (an
 * invitation not yet exchanged, a key minted for someone else): nothing they minted outlives them.
 */
export const REVOKE_USER_KEYS_AND_MINTED = revokeMintedFrom('SELECT id FROM api_keys WHERE org_id = $org AND user_id = $user');

const SQL = {
  insertOrg: 'INSERT INTO orgs (id, name) VALUES ($id, $name)',
  orgById: 'SELECT id, name, CAST(created_at AS VARCHAR) AS created_at FROM orgs WHERE id = $id',
  listOrgs: 'SELECT id, name, CAST(created_at AS VARCHAR) AS created_at FROM orgs ORDER BY created_at, id',
  insertUser: 'INSERT INTO users (id, org_id, email, role, first_name, last_name) VALUES ($id, $org, $email, $role, $first, $last)',
  userColumns:
    'SELECT id, org_id, email, role, first_name, last_name, CAST(created_at AS VARCHAR) AS created_at, CAST(last_sign_in_at AS VARCHAR) AS last_sign_in_at FROM users',
  insertKey:
    'INSERT INTO api_keys (id, user_id, org_id, name, prefix, hash, created_by, kind, scope, minted_with) VALUES ($id, $user, $org, $name, $prefix, $hash, $created_by, $kind, $scope, $minted_with)',
  keyColumns:
    "SELECT id, user_id, org_id, name, prefix, CAST(created_at AS VARCHAR) AS created_at, CAST(last_used_at AS VARCHAR) AS last_used_at, CAST(revoked_at AS VARCHAR) AS revoked_at, created_by, coalesce(kind, 'personal') AS kind, coalesce(scope, 'personal') AS scope, machine_id FROM api_keys",
  principalByHash: `SELECT k.id AS key_id, coalesce(k.kind, 'personal') AS kind, coalesce(k.scope, 'personal') AS scope, u.id AS user_id, u.org_id, u.email, u.role
    FROM api_keys k JOIN users u ON u.id = k.user_id AND u.org_id = k.org_id
    WHERE k.hash = $hash AND k.revoked_at IS NULL`,
  revokeKey: 'UPDATE api_keys SET revoked_at = now() WHERE id = $id AND org_id = $org AND revoked_at IS NULL',
  revokeWithMinted: revokeMintedFrom('SELECT CAST($id AS VARCHAR)'),
  bindMachine: "UPDATE api_keys SET machine_id = $machine WHERE id = $id AND scope = 'collector' AND machine_id IS NULL",
  touchKey: 'UPDATE api_keys SET last_used_at = now() WHERE id = $id',
  touchUser: 'UPDATE users SET last_sign_in_at = now() WHERE id = $id',
} as const;

export class AccountStore {
  constructor(private readonly db: Db) {}

  async createOrg(name: string): Promise<Org> {
    const id = newOrgId();
    await this.db.run(SQL.insertOrg, { id, name });
    return (await this.getOrg(id))!;
  }

  async getOrg(id: string): Promise<Org | undefined> {
    return (await this.db.all<Org & Record<string, unknown>>(SQL.orgById, { id }))[0];
  }

  listOrgs(): Promise<Org[]> {
    return this.db.all<Org & Record<string, unknown>>(SQL.listOrgs);
  }

  async createUser(input: { orgId: OrgId; email: string; role: Role; firstName?: string; lastName?: string }): Promise<User> {
    const id = newUserId();
    await this.db.run(SQL.insertUser, {
      id,
      org: input.orgId,
      email: input.email.toLowerCase(),
      role: input.role,
      first: input.firstName ?? null,
      last: input.lastName ?? null,
    });
    return (await this.getUser(input.orgId, id))!;
  }

  async getUser(orgId: string, id: string): Promise<User | undefined> {
    return (
      await this.db.all<User & Record<string, unknown>>(`${SQL.userColumns} WHERE org_id = $org AND id = $id`, { org: orgId, id })
    )[0];
  }

  async findUserByEmail(orgId: string, email: string): Promise<User | undefined> {
    return (
      await this.db.all<User & Record<string, unknown>>(`${SQL.userColumns} WHERE org_id = $org AND email = $email`, {
        org: orgId,
        email: email.toLowerCase(),
      })
    )[0];
  }

  /**
   * Creates a key and returns it in clear text: the only time it is ever seen. Its kind follows from who
   * mints it (`keyKindFor`); the default minter is the operator (the CLI on the database file, the demo).
   * `invitation`: the first key of a user someone else just created.
   */
  async createKey(
    user: Pick<User, 'id' | 'org_id'>,
    name?: string,
    minter: Minter = 'operator',
    options: { invitation?: boolean; scope?: KeyScope; mintedWith?: string | undefined } = {},
  ): Promise<{ key: string; info: ApiKeyInfo }> {
    return this.insertKey(this.db, user, name, minter, options.invitation ? 'invitation' : keyKindFor(minter, user.id), {
      scope: options.scope ?? 'personal',
      mintedWith: options.mintedWith ?? null,
    });
  }

  /**
   * Exchanges an invitation for a personal key of the same user: the invitation is revoked and the new key
   * created in one transaction, so an invitation yields at most one personal key. undefined when the
   * invitation was already used or revoked.
   */
  async exchangeInvitation(
    user: Pick<User, 'id' | 'org_id'>,
    invitationKeyId: string,
    name?: string,
  ): Promise<{ key: string; info: ApiKeyInfo } | undefined> {
    return this.db.transaction(async (tx) => {
      const revoked = await tx.run(`${SQL.revokeKey} AND user_id = $user AND kind = 'invitation'`, {
        id: invitationKeyId,
        org: user.org_id,
        user: user.id,
      });
      if (revoked !== 1) return undefined;
      // What was minted with the invitation ends with it, as when any key is revoked.
      await tx.run(SQL.revokeWithMinted, { id: invitationKeyId, org: user.org_id });
      // Not linked to the invitation it replaces: that one is revoked now, and this key is the user's own.
      return this.insertKey(tx, user, name, { userId: user.id, credential: 'personal' }, 'personal', {
        scope: 'personal',
        mintedWith: null,
      });
    });
  }

  private async insertKey(
    db: Db,
    user: Pick<User, 'id' | 'org_id'>,
    name: string | undefined,
    minter: Minter,
    kind: KeyKind,
    how: { scope: KeyScope; mintedWith: string | null },
  ): Promise<{ key: string; info: ApiKeyInfo }> {
    const key = generateKey();
    const id = newApiKeyId();
    await db.run(SQL.insertKey, {
      id,
      user: user.id,
      org: user.org_id,
      name: name ?? null,
      prefix: keyDisplayPrefix(key),
      hash: hashKey(key),
      created_by: minter === 'operator' ? null : minter.userId,
      kind,
      scope: how.scope,
      minted_with: how.mintedWith,
    });
    const info = (await db.all<ApiKeyInfo & Record<string, unknown>>(`${SQL.keyColumns} WHERE id = $id`, { id }))[0]!;
    return { key, info };
  }

  listKeys(orgId: string, userId: string): Promise<ApiKeyInfo[]> {
    return this.db.all<ApiKeyInfo & Record<string, unknown>>(
      `${SQL.keyColumns} WHERE org_id = $org AND user_id = $user ORDER BY created_at, id`,
      {
        org: orgId,
        user: userId,
      },
    );
  }

  async getKey(orgId: string, keyId: string): Promise<ApiKeyInfo | undefined> {
    return (
      await this.db.all<ApiKeyInfo & Record<string, unknown>>(`${SQL.keyColumns} WHERE org_id = $org AND id = $id`, {
        org: orgId,
        id: keyId,
      })
    )[0];
  }

  /**
   * true when the key existed in the org and was active. The personal keys minted with it are revoked
   * with it (and theirs in turn); collector keys minted with it stay.
   */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const revoked = (await tx.run(SQL.revokeKey, { id: keyId, org: orgId })) > 0;
      if (revoked) await tx.run(SQL.revokeWithMinted, { id: keyId, org: orgId });
      return revoked;
    });
  }

  /** The organization's collector keys, active and revoked, with their machines; only one user's when `userId` is given. */
  listCollectorKeys(orgId: string, userId: string | null): Promise<ApiKeyInfo[]> {
    return this.db.all<ApiKeyInfo & Record<string, unknown>>(
      `${SQL.keyColumns} WHERE org_id = $org AND ($user IS NULL OR user_id = $user) AND scope = 'collector' ORDER BY machine_id NULLS FIRST, created_at, id`,
      { org: orgId, user: userId },
    );
  }

  /** Records the machine a collector key delivers from, the first time only; true when it was recorded now. */
  async bindMachine(keyId: string, machineId: string): Promise<boolean> {
    return (await this.db.run(SQL.bindMachine, { id: keyId, machine: machineId })) > 0;
  }

  async principalForKey(key: string): Promise<Principal | undefined> {
    if (!key.startsWith(KEY_PREFIX)) return undefined;
    const row = (
      await this.db.all<{ key_id: string; kind: KeyKind; scope: KeyScope; user_id: string; org_id: string; email: string; role: Role }>(
        SQL.principalByHash,
        { hash: hashKey(key) },
      )
    )[0];
    if (!row) return undefined;
    return {
      orgId: row.org_id as OrgId,
      userId: row.user_id as UserId,
      email: row.email,
      role: row.role,
      keyId: row.key_id as ApiKeyId,
      credential: row.kind,
      scope: row.scope,
      via: 'key',
    };
  }

  async touchKey(keyId: string, userId: string): Promise<void> {
    await this.db.run(SQL.touchKey, { id: keyId });
    await this.db.run(SQL.touchUser, { id: userId });
  }
}

/**
 * The kind of a key `minter` mints for `userId`. Pure. The operator's keys are personal (whoever holds the
 * database can do anything anyway); a person's key for themselves is as strong as the credential they used
 * (a delegated or invitation key cannot mint a personal one, else its holder could); for anyone else it
 * is delegated.
 */
export function keyKindFor(minter: Minter, userId: string): KeyKind {
  if (minter === 'operator') return 'personal';
  return minter.userId === userId && minter.credential === 'personal' ? 'personal' : 'delegated';
}
