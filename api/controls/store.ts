// Enterprise controls in DuckDB: one row per revision (from 1), never updated. The organization's
// current settings (the latest revision) serve the routes that obey them (computers:
// byomComputersEnabled and byomComputersAllowedEmails; sessions: sessionDefaultSettings).
import type { Db } from '../../common/db/duckdb.ts';
import type { Settings } from './schema.ts';

const SQL = {
  latest: `SELECT revision, CAST(settings AS VARCHAR) AS settings FROM enterprise_controls WHERE org_id = $org ORDER BY revision DESC LIMIT 1`,
  insert: `INSERT INTO enterprise_controls VALUES ($org, $revision, $settings, $user, $email, $name, now()::TIMESTAMP)`,
  page: `SELECT revision, CAST(settings AS VARCHAR) AS settings, user_id, user_email, user_name,
                strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS updated_at
         FROM enterprise_controls WHERE org_id = $org AND ($cursor IS NULL OR revision < $cursor)
         ORDER BY revision DESC LIMIT $limit`,
} as const;

/** One stored revision; `settings` is the JSON text as stored, secrets included. */
export interface ControlRow {
  revision: number;
  settings: string;
  user_id: string;
  user_email: string;
  user_name: string;
  updated_at: string;
}

export async function currentControls(db: Db, org: string): Promise<Settings | undefined> {
  const [row] = await db.all<{ settings: string }>(SQL.latest, { org });
  return row ? (JSON.parse(row.settings) as Settings) : undefined;
}

/** Revisions below `cursor` (all when null), newest first, at most `limit`. */
export function controlRevisions(db: Db, org: string, cursor: number | null, limit: number): Promise<ControlRow[]> {
  return db.all<ControlRow & Record<string, unknown>>(SQL.page, { org, cursor, limit });
}

/**
 * Stores the next revision in one transaction with the read of the latest, so two writers never take the
 * same number: `settings` receives the latest revision's settings (undefined before the first) and
 * answers the ones to store. Returns the new revision.
 */
export function addControlRevision(
  db: Db,
  org: string,
  author: { userId: string; email: string; name: string },
  settings: (previous: Settings | undefined) => Settings,
): Promise<number> {
  return db.transaction(async (tx) => {
    const [latest] = await tx.all<{ revision: number; settings: string }>(SQL.latest, { org });
    const revision = (latest?.revision ?? 0) + 1;
    const full = settings(latest ? (JSON.parse(latest.settings) as Settings) : undefined);
    await tx.run(SQL.insert, {
      org,
      revision,
      settings: JSON.stringify(full),
      user: author.userId,
      email: author.email,
      name: author.name,
    });
    return revision;
  });
}
