// Registered computers: registration (the computer's token is returned once and stored as a hash), the
// lookup of a computer by its token, and what its agent reports (start-up checks, connections).
import { randomBytes } from 'node:crypto';
import { type Check, COMPUTER_TOKEN_PREFIX, type RegisterBody } from '../../common/computer-protocol.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { newComputerId } from '../../common/ids.ts';
import { hashKey } from '../keys/secret.ts';
import { type ComputerTimes, computerStatus, provisioningSteps } from './status.ts';

const SQL = {
  insert: `INSERT INTO computers VALUES ($id, $org, $user, $name, 'byom', $host_id, $hostname, $remote_user, $hash, $now, NULL, NULL, NULL, NULL)`,
  byId: `SELECT * FROM computers WHERE org_id = $org AND id = $id`,
  byToken: `SELECT * FROM computers WHERE token_hash = $hash`,
  // By id: a stable order, so a cursor walk never skips or repeats a computer.
  list: `SELECT * FROM computers WHERE org_id = $org AND ($user IS NULL OR user_id = $user) AND ($cursor IS NULL OR id > $cursor)
         ORDER BY id LIMIT $limit`,
  times: `SELECT created_ms, checks_ms, checks_error, first_seen_ms, last_seen_ms FROM computers
          WHERE org_id = $org AND ($user IS NULL OR user_id = $user)`,
  hello: `UPDATE computers SET checks_ms = $now, checks_error = $error, first_seen_ms = coalesce(first_seen_ms, $now), last_seen_ms = $now WHERE id = $id`,
  seen: `UPDATE computers SET last_seen_ms = $now WHERE id = $id`,
} as const;

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

  async register(org: string, user: string, body: RegisterBody): Promise<{ row: ComputerRow; token: string }> {
    const id = newComputerId();
    const token = `${COMPUTER_TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
    await this.db.run(SQL.insert, {
      id,
      org,
      user,
      name: body.name,
      host_id: body.hostId ?? null,
      hostname: body.hostname ?? null,
      remote_user: body.remoteUser ?? null,
      hash: hashKey(token),
      now: this.now(),
    });
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
