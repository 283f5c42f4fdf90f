// Registered computers: registration (the computer's token is returned once and stored as a hash), the
// lookup of a computer by its token, and what its agent reports (start-up checks, connections).
import { randomBytes } from 'node:crypto';
import { type Check, COMPUTER_TOKEN_PREFIX, type RegisterBody } from '../../common/computer-protocol.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { newComputerId } from '../../common/ids.ts';
import { hashKey } from '../keys/secret.ts';
import { type ComputerTimes, computerStatus, provisioningSteps } from './status.ts';

const SQL = {
  // Only while its user and the key registering it stand: a removal (or the key's revocation) that
  // committed after the request was authenticated finds no computer to revoke, so none may appear after it.
  insert: `INSERT INTO computers (id, org_id, user_id, name, provider_type, host_id, hostname, remote_user, token_hash, created_ms, minted_with)
           SELECT $id, $org, $user, $name, 'byom', $host_id, $hostname, $remote_user, $hash, $now, $minted_with
           WHERE EXISTS (SELECT 1 FROM users WHERE org_id = $org AND id = $user)
             AND EXISTS (SELECT 1 FROM api_keys WHERE org_id = $org AND id = $minted_with AND revoked_at IS NULL)`,
  byId: `SELECT * FROM computers WHERE org_id = $org AND id = $id`,
  // A computer of a user who is gone never authenticates, whatever became of its row.
  byToken: `SELECT c.* FROM computers c JOIN users u ON u.org_id = c.org_id AND u.id = c.user_id WHERE c.token_hash = $hash`,
  // By id: a stable order, so a cursor walk never skips or repeats a computer.
  list: `SELECT * FROM computers WHERE org_id = $org AND ($user IS NULL OR user_id = $user) AND ($cursor IS NULL OR id > $cursor)
         ORDER BY id LIMIT $limit`,
  times: `SELECT created_ms, checks_ms, checks_error, first_seen_ms, last_seen_ms FROM computers
          WHERE org_id = $org AND ($user IS NULL OR user_id = $user)`,
  hello: `UPDATE computers SET checks_ms = $now, checks_error = $error, first_seen_ms = coalesce(first_seen_ms, $now), last_seen_ms = $now WHERE id = $id`,
  seen: `UPDATE computers SET last_seen_ms = $now WHERE id = $id`,
} as const;

/**
 * Revokes the tokens of the computers registered with a key that is revoked now (run in the transaction
 * that revokes keys): a computer lasts no longer than the credential that registered it. A revoked token
 * hashes to no value a token can have (a SHA-256 hex digest never contains ':').
 */
export const REVOKE_COMPUTERS_OF_REVOKED_KEYS = `UPDATE computers SET token_hash = 'revoked:' || id
  WHERE org_id = $org AND token_hash NOT LIKE 'revoked:%'
    AND minted_with IN (SELECT id FROM api_keys WHERE org_id = $org AND revoked_at IS NOT NULL)`;

export interface ComputerRow extends ComputerTimes {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  provider_type: 'byom' | 'hosted';
  host_id: string | null;
  hostname: string | null;
  remote_user: string | null;
}

export interface Computer {
  id: string;
  name: string;
  providerType: 'byom' | 'hosted';
  createdAt: number;
  hostId?: string;
  hostname?: string;
  status: 'provisioning' | 'active' | 'error';
  provisioningSteps: ReturnType<typeof provisioningSteps>;
  remoteUser?: string;
}

export function toComputer(row: ComputerRow, now: number): Computer {
  return {
    id: row.id,
    name: row.name,
    providerType: row.provider_type,
    createdAt: row.created_ms,
    ...(row.host_id ? { hostId: row.host_id } : {}),
    ...(row.hostname ? { hostname: row.hostname } : {}),
    status: computerStatus(row, now).status,
    provisioningSteps: provisioningSteps(row, now),
    ...(row.remote_user ? { remoteUser: row.remote_user } : {}),
  };
}

export class ComputerStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /**
   * `mintedWith`: the personal key that registers it, whose revocation revokes the computer's token.
   * Undefined when the user was removed, or the key revoked, since the request was authenticated.
   */
  async register(
    org: string,
    user: string,
    body: RegisterBody,
    mintedWith: string,
  ): Promise<{ row: ComputerRow; token: string } | undefined> {
    const id = newComputerId();
    const token = `${COMPUTER_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
    const inserted = await this.db.run(SQL.insert, {
      id,
      org,
      user,
      name: body.name,
      host_id: body.hostId ?? null,
      hostname: body.hostname ?? null,
      remote_user: body.remoteUser ?? null,
      hash: hashKey(token),
      now: this.now(),
      minted_with: mintedWith,
    });
    if (inserted === 0) return undefined;
    return { row: (await this.get(org, id))!, token };
  }

  async get(org: string, id: string): Promise<ComputerRow | undefined> {
    const [row] = await this.db.all<ComputerRow & Record<string, unknown>>(SQL.byId, { org, id });
    return row;
  }

  /** A page of the organization's computers (one user's, when `user` is set), in id order. */
  async list(org: string, user: string | null, cursor: string | null, limit: number): Promise<ComputerRow[]> {
    return this.db.all<ComputerRow & Record<string, unknown>>(SQL.list, { org, user, cursor, limit });
  }

  /** Every computer of the organization (one user's, when `user` is set): what its status is derived from. */
  times(org: string, user: string | null): Promise<ComputerTimes[]> {
    return this.db.all<ComputerTimes & Record<string, unknown>>(SQL.times, { org, user });
  }

  async byToken(token: string): Promise<ComputerRow | undefined> {
    const [row] = await this.db.all<ComputerRow & Record<string, unknown>>(SQL.byToken, { hash: hashKey(token) });
    return row;
  }

  /** The agent started and ran its checks: the first one that failed becomes the computer's error. */
  async hello(id: string, checks: Check[]): Promise<void> {
    const failed = checks.find((c) => !c.ok);
    await this.db.run(SQL.hello, { id, now: this.now(), error: failed ? `${failed.name}: ${failed.error ?? 'failed'}` : null });
  }

  async seen(id: string): Promise<void> {
    await this.db.run(SQL.seen, { id, now: this.now() });
  }
}
