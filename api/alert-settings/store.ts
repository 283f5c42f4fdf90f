// The organization's anomaly and digest settings (migration 090): the anomaly floor and where anomalies and
// the weekly digest go, each destination's URL and secret sealed. No row: the defaults (a $20 floor, no
// destination, so no digest).
import type { Db } from '../../common/db/duckdb.ts';
import { DEFAULT_FLOOR_USD } from '../anomalies/figures.ts';
import { DestinationSeal, type StoredDestination } from '../budgets/sealed-destinations.ts';

export interface AlertSettings {
  anomalyFloorUsd: number;
  anomalyDestinations: StoredDestination[];
  digestDestinations: StoredDestination[];
  /** When the digest was turned on (ms): the first digest is the first Monday 09:00 at or after it. */
  digestSince: number | null;
  updatedAt: string | null;
}

export const DEFAULT_SETTINGS: AlertSettings = {
  anomalyFloorUsd: DEFAULT_FLOOR_USD,
  anomalyDestinations: [],
  digestDestinations: [],
  digestSince: null,
  updatedAt: null,
};

export const ALERT_SETTINGS_SQL = {
  get: `SELECT anomaly_floor_usd, CAST(anomaly_destinations AS VARCHAR) AS anomaly_destinations,
               CAST(digest_destinations AS VARCHAR) AS digest_destinations, epoch_ms(digest_since) AS digest_since,
               CAST(updated_at AS VARCHAR) AS updated_at
        FROM alert_settings WHERE org_id = $org`,
  put: `INSERT OR REPLACE INTO alert_settings VALUES ($org, $floor, CAST($anomalies AS JSON), CAST($digest AS JSON),
        CAST(make_timestamp(CAST($since AS BIGINT) * 1000) AS TIMESTAMP), now()::TIMESTAMP, $by)`,
  withDigest: `SELECT org_id FROM alert_settings WHERE json_array_length(digest_destinations) > 0 ORDER BY org_id`,
} as const;

export class AlertSettingsStore {
  /** Seals and opens destinations under the database's key (stored sealed: sealed-destinations.ts). */
  readonly seal: DestinationSeal;

  constructor(private readonly db: Db) {
    this.seal = new DestinationSeal(db.path);
  }

  async get(orgId: string): Promise<AlertSettings> {
    const [row] = await this.db.all<{
      anomaly_floor_usd: number;
      anomaly_destinations: string;
      digest_destinations: string;
      digest_since: number | bigint | null;
      updated_at: string;
    }>(ALERT_SETTINGS_SQL.get, { org: orgId });
    if (!row) return DEFAULT_SETTINGS;
    return {
      anomalyFloorUsd: Number(row.anomaly_floor_usd),
      anomalyDestinations: JSON.parse(row.anomaly_destinations) as StoredDestination[],
      digestDestinations: JSON.parse(row.digest_destinations) as StoredDestination[],
      digestSince: row.digest_since === null ? null : Number(row.digest_since),
      updatedAt: row.updated_at,
    };
  }

  async put(orgId: string, settings: Omit<AlertSettings, 'updatedAt'>, by: string): Promise<void> {
    await this.db.run(ALERT_SETTINGS_SQL.put, {
      org: orgId,
      since: settings.digestSince,
      floor: settings.anomalyFloorUsd,
      anomalies: JSON.stringify(settings.anomalyDestinations),
      digest: JSON.stringify(settings.digestDestinations),
      by,
    });
  }

  /** The organizations that send a weekly digest (a digest destination set). */
  async orgsWithDigest(): Promise<string[]> {
    return (await this.db.all<{ org_id: string }>(ALERT_SETTINGS_SQL.withDigest)).map((r) => r.org_id);
  }
}
