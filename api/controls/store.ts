// The organization's current enterprise-control settings (the latest revision), for the routes that obey
// them (computers: byomComputersEnabled and byomComputersAllowedEmails; sessions: sessionDefaultSettings).
import type { Db } from '../../common/db/duckdb.ts';
import type { Settings } from './schema.ts';

export const LATEST_CONTROLS = `SELECT revision, CAST(settings AS VARCHAR) AS settings FROM enterprise_controls WHERE org_id = $org ORDER BY revision DESC LIMIT 1`;

export async function currentControls(db: Db, org: string): Promise<Settings | undefined> {
  const [row] = await db.all<{ settings: string }>(LATEST_CONTROLS, { org });
  return row ? (JSON.parse(row.settings) as Settings) : undefined;
}
