// SCIM bearer tokens (migration 025): what a directory (Okta, Microsoft Entra ID) sends on /scim/v2/*.
// An owner mints one per directory connection; it is printed once and stored only as a SHA-256 hash. Its
// prefix differs from an API key's and it lives in its own table, so neither is ever taken for the other:
// an API key finds no row here, and a SCIM token starts with neither "am_" nor a JWT's shape.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../common/db/duckdb.ts';
import type { OrgId } from '../../common/ids.ts';
import { hashKey } from '../keys/secret.ts';

export const SCIM_TOKEN_PREFIX = 'amscim_';

/**
 * Revokes the SCIM tokens ($org) whose minting key is revoked: run after any key revocation, so a token
 * lives no longer than the key that minted it.
 */
export const REVOKE_SCIM_TOKENS_OF_REVOKED_KEYS = `UPDATE scim_tokens SET revoked_at = now()
  WHERE org_id = $org AND revoked_at IS NULL AND minted_with IN (SELECT id FROM api_keys WHERE org_id = $org AND revoked_at IS NOT NULL)`;
/** Revokes the SCIM tokens a person ($org, $user) minted: removed or deactivated, what they minted ends. */
export const REVOKE_SCIM_TOKENS_OF_USER =
  'UPDATE scim_tokens SET revoked_at = now() WHERE org_id = $org AND created_by = $user AND revoked_at IS NULL';
export const newScimTokenId = () => `sct_${randomBytes(8).toString('hex')}`;
export const generateScimToken = () => `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

/** A token as listings show it (never the token or its hash). */
export interface ScimTokenView {
  id: string;
  name: string | null;
  prefix: string;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const COLUMNS = `SELECT id, name, prefix, created_by AS "createdBy",
  strftime(created_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "createdAt",
  strftime(last_used_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "lastUsedAt",
  strftime(revoked_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "revokedAt"
  FROM scim_tokens`;

const SQL = {
  insert:
    'INSERT INTO scim_tokens (id, org_id, name, prefix, hash, created_by, minted_with) VALUES ($id, $org, $name, $prefix, $hash, $by, $with)',
  byId: `${COLUMNS} WHERE org_id = $org AND id = $id`,
  list: `${COLUMNS} WHERE org_id = $org ORDER BY created_at, id`,
  revoke: 'UPDATE scim_tokens SET revoked_at = now() WHERE org_id = $org AND id = $id AND revoked_at IS NULL',
  orgByHash: 'SELECT id, org_id FROM scim_tokens WHERE hash = $hash AND revoked_at IS NULL',
  touch: 'UPDATE scim_tokens SET last_used_at = now() WHERE id = $id',
} as const;

export class ScimTokenStore {
  constructor(private readonly db: Db) {}

  /**
   * Mints a token for the organization; the clear token is returned once, never stored. `mintedWith`: the
   * API key it was minted with, whose revocation revokes it (null: the operator's, on the database file).
   */
  async create(
    orgId: string,
    name: string | undefined,
    createdBy: string | null,
    mintedWith: string | null = null,
  ): Promise<{ token: string; view: ScimTokenView }> {
    const token = generateScimToken();
    const id = newScimTokenId();
    await this.db.run(SQL.insert, {
      id,
      org: orgId,
      name: name ?? null,
      prefix: token.slice(0, SCIM_TOKEN_PREFIX.length + 6),
      hash: hashKey(token),
      by: createdBy,
      with: mintedWith,
    });
    return { token, view: (await this.get(orgId, id))! };
  }

  async get(orgId: string, id: string): Promise<ScimTokenView | undefined> {
    return (await this.db.all<ScimTokenView & Record<string, unknown>>(SQL.byId, { org: orgId, id }))[0];
  }

  list(orgId: string): Promise<ScimTokenView[]> {
    return this.db.all<ScimTokenView & Record<string, unknown>>(SQL.list, { org: orgId });
  }

  /** true when the token existed in the organization and was active. */
  async revoke(orgId: string, id: string): Promise<boolean> {
    return (await this.db.run(SQL.revoke, { org: orgId, id })) > 0;
  }

  /** The organization and token id of an active token, or undefined. */
  async lookup(token: string): Promise<{ tokenId: string; orgId: OrgId } | undefined> {
    if (!token.startsWith(SCIM_TOKEN_PREFIX)) return undefined;
    const [row] = await this.db.all<{ id: string; org_id: string }>(SQL.orgByHash, { hash: hashKey(token) });
    return row ? { tokenId: row.id, orgId: row.org_id as OrgId } : undefined;
  }

  async touch(id: string): Promise<void> {
    await this.db.run(SQL.touch, { id });
  }
}
