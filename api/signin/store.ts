// Dashboard sessions (migration 012): a random token in the cookie, its SHA-256 in the table. A lookup
// joins the user (their current role, never more than the role granted at sign-in) and, for a session
// made from an API key, the key: revoking the key ends the session. Making one is its user's sign-in.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../common/db/duckdb.ts';
import type { ApiKeyId, OrgId, UserId } from '../../common/ids.ts';
import { type Principal, ROLE_RANK, type Role } from '../auth/principal.ts';
import type { KeyKind } from '../keys/schema.ts';
import { hashKey } from '../keys/secret.ts';

const SQL = {
  insert: `INSERT INTO dashboard_sessions VALUES ($hash, $org, $user, $key, $role, now()::TIMESTAMP, make_timestamp(CAST($expires AS BIGINT) * 1000))`,
  purgeExpired: 'DELETE FROM dashboard_sessions WHERE expires_at <= now()::TIMESTAMP',
  lookup: `SELECT s.org_id, s.user_id, u.email, u.role AS user_role, s.role AS granted_role, s.key_id,
                  coalesce(k.kind, 'personal') AS key_kind, epoch_ms(s.expires_at) AS expires_ms
           FROM dashboard_sessions s
           JOIN users u ON u.id = s.user_id AND u.org_id = s.org_id
           LEFT JOIN api_keys k ON k.id = s.key_id AND k.org_id = s.org_id
           WHERE s.token_hash = $hash AND s.expires_at > now()::TIMESTAMP
             AND (s.key_id IS NULL OR (k.id IS NOT NULL AND k.revoked_at IS NULL))`,
  remove: 'DELETE FROM dashboard_sessions WHERE token_hash = $hash',
  // "Last signed in" is a person opening the dashboard (a key or JWT in the form, or the identity
  // provider): the one place both make a session. A key's other uses (a collector's deliveries, scripts)
  // are its own last use, not its user's sign-in.
  signedIn: 'UPDATE users SET last_sign_in_at = now() WHERE id = $user AND org_id = $org',
} as const;

interface LookupRow {
  org_id: string;
  user_id: string;
  email: string;
  user_role: Role;
  granted_role: Role;
  key_id: string | null;
  key_kind: KeyKind;
  expires_ms: number | bigint;
}

export class SignInStore {
  constructor(private readonly db: Db) {}

  /** Stores a new session for the principal; returns the token for the cookie (never stored). */
  async create(principal: Principal, expiresAt: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.db.run(SQL.purgeExpired);
    await this.db.run(SQL.insert, {
      hash: hashKey(token),
      org: principal.orgId,
      user: principal.userId,
      key: principal.keyId ?? null,
      role: principal.role,
      expires: expiresAt,
    });
    await this.db.run(SQL.signedIn, { user: principal.userId, org: principal.orgId });
    return token;
  }

  async lookup(tokenHash: string): Promise<{ principal: Principal; expiresAt: number } | undefined> {
    const [row] = await this.db.all<LookupRow & Record<string, unknown>>(SQL.lookup, { hash: tokenHash });
    if (!row) return undefined;
    const role = ROLE_RANK[row.granted_role] <= ROLE_RANK[row.user_role] ? row.granted_role : row.user_role;
    return {
      // A browser session reads and administers; it never counts as the person's own credential, so it
      // cannot drive their computers or mint a personal key (api/keys/schema.ts, KeyKind).
      principal: {
        orgId: row.org_id as OrgId,
        userId: row.user_id as UserId,
        email: row.email,
        role,
        credential: 'delegated',
        via: 'session',
        // Signed in with a key someone else minted for its user: what the session mints ends with that key.
        ...(row.key_id !== null && row.key_kind !== 'personal' ? { heldWith: row.key_id as ApiKeyId } : {}),
      },
      expiresAt: Number(row.expires_ms),
    };
  }

  async remove(tokenHash: string): Promise<void> {
    await this.db.run(SQL.remove, { hash: tokenHash });
  }
}
