// The device codes' records (migration 065): issuing a pair of codes (stored as hashes), a person's
// decision, and the machine's poll, which redeems an approved code once. Times are the server clock's
// epoch milliseconds, passed in.
import type { Db } from '../../common/db/duckdb.ts';
import type { KeyKind } from '../keys/schema.ts';
import { hashKey } from '../keys/secret.ts';

const SQL = {
  // A day after expiry a code is forgotten: long enough for a late poll to hear expired_token.
  purge: 'DELETE FROM device_codes WHERE expires_ms < $before',
  insert: `INSERT INTO device_codes (device_code_hash, user_code_hash, machine_name, requested_from, created_ms, expires_ms, interval_s)
           VALUES ($device, $user, $name, $from, $now, $expires, $interval)`,
  byUserCode: `SELECT d.*, u.email AS decided_by FROM device_codes d LEFT JOIN users u ON u.id = d.user_id AND u.org_id = d.org_id
               WHERE d.user_code_hash = $user`,
  decide: `UPDATE device_codes SET state = $state, org_id = $org, user_id = $uid, approver_credential = $credential, approver_key = $key, decided_ms = $now
           WHERE user_code_hash = $user AND state = 'pending' AND expires_ms > $now`,
  byDeviceCode: 'SELECT * FROM device_codes WHERE device_code_hash = $device',
  poll: 'UPDATE device_codes SET last_poll_ms = $now, interval_s = $interval WHERE device_code_hash = $device',
  redeem: `UPDATE device_codes SET redeemed_ms = $now WHERE device_code_hash = $device AND state = 'approved' AND redeemed_ms IS NULL
           AND expires_ms > $now`,
  keyOf: 'UPDATE device_codes SET key_id = $key WHERE device_code_hash = $device',
} as const;

export interface DeviceCodeRow {
  device_code_hash: string;
  user_code_hash: string;
  machine_name: string | null;
  requested_from: string | null;
  created_ms: number;
  expires_ms: number;
  state: 'pending' | 'approved' | 'denied';
  org_id: string | null;
  user_id: string | null;
  approver_credential: KeyKind | null;
  /** The key someone else minted the approval stood on (migration 120); null for the person's own credential. */
  approver_key: string | null;
  decided_ms: number | null;
  last_poll_ms: number | null;
  interval_s: number;
  redeemed_ms: number | null;
  key_id: string | null;
  decided_by?: string | null;
}

const PURGE_AFTER_MS = 24 * 3600_000;
const isUniqueViolation = (error: unknown) => /constraint|duplicate/i.test(String((error as Error)?.message));

export class DeviceCodeStore {
  constructor(private readonly db: Db) {}

  /**
   * Stores a new pair of codes (hashes only). `userCode()` draws a user code; a clash with a stored one
   * (one in 2.6e10 per stored code) draws again.
   */
  async issue(input: {
    deviceCode: string;
    userCode: () => string;
    machineName: string | null;
    requestedFrom: string | null;
    nowMs: number;
    ttlMs: number;
    intervalS: number;
  }): Promise<string> {
    await this.db.run(SQL.purge, { before: input.nowMs - PURGE_AFTER_MS });
    for (let attempt = 0; ; attempt++) {
      const userCode = input.userCode();
      try {
        await this.db.run(SQL.insert, {
          device: hashKey(input.deviceCode),
          user: hashKey(userCode),
          name: input.machineName,
          from: input.requestedFrom,
          now: input.nowMs,
          expires: input.nowMs + input.ttlMs,
          interval: input.intervalS,
        });
        return userCode;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
      }
    }
  }

  async byUserCode(userCode: string): Promise<DeviceCodeRow | undefined> {
    return (await this.db.all<DeviceCodeRow & Record<string, unknown>>(SQL.byUserCode, { user: hashKey(userCode) }))[0];
  }

  /** Records a person's decision on a pending, unexpired code; false when it was not pending any more. */
  async decide(
    userCode: string,
    decision: { state: 'approved' | 'denied'; orgId: string; userId: string; credential: KeyKind; heldWith?: string | undefined },
    nowMs: number,
  ): Promise<boolean> {
    const changed = await this.db.run(SQL.decide, {
      user: hashKey(userCode),
      state: decision.state,
      org: decision.orgId,
      uid: decision.userId,
      credential: decision.credential,
      key: decision.heldWith ?? null,
      now: nowMs,
    });
    return changed === 1;
  }

  async byDeviceCode(deviceCode: string): Promise<DeviceCodeRow | undefined> {
    return (await this.db.all<DeviceCodeRow & Record<string, unknown>>(SQL.byDeviceCode, { device: hashKey(deviceCode) }))[0];
  }

  async recordPoll(deviceCode: string, nowMs: number, intervalS: number): Promise<void> {
    await this.db.run(SQL.poll, { device: hashKey(deviceCode), now: nowMs, interval: intervalS });
  }

  /** Marks an approved code used; true for the one poll that gets to mint its key. */
  async redeem(deviceCode: string, nowMs: number): Promise<boolean> {
    return (await this.db.run(SQL.redeem, { device: hashKey(deviceCode), now: nowMs })) === 1;
  }

  async recordKey(deviceCode: string, keyId: string): Promise<void> {
    await this.db.run(SQL.keyOf, { device: hashKey(deviceCode), key: keyId });
  }
}
