// The API keys' records: minting (its secret returned once), listing, revoking with what was minted with
// a key, binding a collector key to its machine, and finding the principal a key stands for. The rules of
// who may mint what are in minting.ts; the secret and its hash in secret.ts.
import type { Db } from '../../common/db/duckdb.ts';
import { unauthorized } from '../../common/errors.ts';
import { type ApiKeyId, newApiKeyId, type OrgId, type UserId } from '../../common/ids.ts';
import type { KeyScope } from '../../common/key-scopes.ts';
import type { Role } from '../../common/roles.ts';
import type { Principal } from '../auth/principal.ts';
import { REVOKE_COMPUTERS_OF_REVOKED_KEYS } from '../computers/store.ts';
import { REVOKE_SCIM_TOKENS_OF_REVOKED_KEYS } from '../scim/tokens.ts';
import type { User } from '../users/store.ts';
import { keyKindFor, type Minter } from './minting.ts';
import type { KeyKind } from './schema.ts';
import { generateKey, hashKey, KEY_PREFIX, keyDisplayPrefix } from './secret.ts';

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

/**
 * Revokes the keys `seed` selects (their ids; parameters $org and the seed's own) and every active key
 * minted with them, and with those, and so on. A collector key is durable: it records what it was minted
 * with only when that was a key someone else minted for its user (KeyStore.createKey), and ends with it.
 */
const revokeMintedFrom = (seed: string) => `UPDATE api_keys SET revoked_at = now()
    WHERE org_id = $org AND revoked_at IS NULL AND id IN (
      WITH RECURSIVE minted(id) AS (
        ${seed}
        UNION SELECT k.id FROM api_keys k JOIN minted m ON k.minted_with = m.id
        WHERE k.org_id = $org
      ) SELECT id FROM minted)`;

/**
 * A removed user's keys ($org, $user), all of them, and the personal keys minted with any of them (an
 * invitation not yet exchanged, a key minted for someone else): nothing they minted outlives them.
 */
export const REVOKE_USER_KEYS_AND_MINTED = revokeMintedFrom('SELECT id FROM api_keys WHERE org_id = $org AND user_id = $user');

/** The keys `seed` selects (a SELECT of ids over $org and its own parameters) and the personal keys minted with them. */
export const REVOKE_KEYS_AND_MINTED = (seed: string) => revokeMintedFrom(seed);

const SQL = {
  insertKey:
    'INSERT INTO api_keys (id, user_id, org_id, name, prefix, hash, created_by, kind, scope, minted_with) VALUES ($id, $user, $org, $name, $prefix, $hash, $created_by, $kind, $scope, $minted_with)',
  keyColumns:
    "SELECT id, user_id, org_id, name, prefix, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, strftime(last_used_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS last_used_at, strftime(revoked_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS revoked_at, created_by, coalesce(kind, 'personal') AS kind, coalesce(scope, 'personal') AS scope, machine_id FROM api_keys",
  // Whether the directory deactivated the user comes along: a key minted for them meanwhile refuses too.
  principalByHash: `SELECT k.id AS key_id, coalesce(k.kind, 'personal') AS kind, coalesce(k.scope, 'personal') AS scope, u.id AS user_id, u.org_id, u.email, u.role,
      coalesce(s.active, true) AS active
    FROM api_keys k JOIN users u ON u.id = k.user_id AND u.org_id = k.org_id
    LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id
    WHERE k.hash = $hash AND k.revoked_at IS NULL`,
  revokeKey: 'UPDATE api_keys SET revoked_at = now() WHERE id = $id AND org_id = $org AND revoked_at IS NULL',
  revokeWithMinted: revokeMintedFrom('SELECT CAST($id AS VARCHAR)'),
  // At an invitation's exchange its user takes over the collector keys minted with it (install.sh run with
  // the invitation): they stand alone from then on, as the key it is exchanged for does.
  detachCollectorKeys: "UPDATE api_keys SET minted_with = NULL WHERE org_id = $org AND minted_with = $id AND scope = 'collector'",
  // And the machines approved with it that have not fetched their key yet (api/device/routes.ts).
  detachDeviceApprovals: 'UPDATE device_codes SET approver_key = NULL WHERE approver_key = $id',
  bindMachine: "UPDATE api_keys SET machine_id = $machine WHERE id = $id AND scope = 'collector' AND machine_id IS NULL",
  touchKey: 'UPDATE api_keys SET last_used_at = now() WHERE id = $id',
} as const;

/**
 * Revokes what the organization's revoked keys minted besides keys: directory (SCIM) tokens and the tokens
 * of computers registered with them. Run in every transaction that revokes keys.
 */
export async function revokeWhatRevokedKeysMinted(tx: Db, org: string): Promise<void> {
  await tx.run(REVOKE_SCIM_TOKENS_OF_REVOKED_KEYS, { org });
  await tx.run(REVOKE_COMPUTERS_OF_REVOKED_KEYS, { org });
}

export class KeyStore {
  constructor(private readonly db: Db) {}

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
      await tx.run(SQL.detachCollectorKeys, { id: invitationKeyId, org: user.org_id });
      await tx.run(SQL.detachDeviceApprovals, { id: invitationKeyId });
      // What else was minted with the invitation ends with it, as when any key is revoked.
      await tx.run(SQL.revokeWithMinted, { id: invitationKeyId, org: user.org_id });
      await revokeWhatRevokedKeysMinted(tx, user.org_id);
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
   * with it (and theirs in turn); collector keys minted with it stay, unless it was a key someone else
   * minted for their user (a delegated or invitation key), whose minter holds it too.
   */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const revoked = (await tx.run(SQL.revokeKey, { id: keyId, org: orgId })) > 0;
      if (revoked) {
        await tx.run(SQL.revokeWithMinted, { id: keyId, org: orgId });
        await revokeWhatRevokedKeysMinted(tx, orgId);
      }
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

  /** The principal of an active key; 401 when its user is deactivated by the directory. */
  async principalForKey(key: string): Promise<Principal | undefined> {
    if (!key.startsWith(KEY_PREFIX)) return undefined;
    const row = (
      await this.db.all<{
        key_id: string;
        kind: KeyKind;
        scope: KeyScope;
        user_id: string;
        org_id: string;
        email: string;
        role: Role;
        active: boolean;
      }>(SQL.principalByHash, { hash: hashKey(key) })
    )[0];
    if (!row) return undefined;
    if (!row.active)
      throw unauthorized('This user was deactivated by the organization directory (SCIM); their keys work again once it reactivates them');
    return {
      orgId: row.org_id as OrgId,
      userId: row.user_id as UserId,
      email: row.email,
      role: row.role,
      keyId: row.key_id as ApiKeyId,
      credential: row.kind,
      scope: row.scope,
      via: 'key',
      // A key someone else minted for this user (a collector key mints nothing, so it stands on nothing).
      ...(row.kind === 'personal' || row.scope === 'collector' ? {} : { heldWith: row.key_id as ApiKeyId }),
    };
  }

  /** Records the key's use (not its user's sign-in: a dashboard session records that, api/signin/store.ts). */
  async touchKey(keyId: string): Promise<void> {
    await this.db.run(SQL.touchKey, { id: keyId });
  }
}
