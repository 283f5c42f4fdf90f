// Adoption's reads: the roster (users the directory has not deactivated), the teams each person is in on
// a day, and each person's activity by agent from the raw events and token usage (so a person counts as
// soon as their first event is stored, before any daily batch).
import type { Db } from '../../common/db/duckdb.ts';
import type { ActivityRow, RosterRow, TeamRow } from './figures.ts';

const ISO = `'%Y-%m-%dT%H:%M:%S.%gZ'`;

export const ADOPTION_SQL = {
  roster: `SELECT u.id AS "userId", u.email, u.role FROM users u
           LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id
           WHERE u.org_id = $org AND coalesce(s.active, true)
           ORDER BY u.email, u.id`,
  teams: `SELECT m.user_id AS "userId", t.team_id AS "teamId", t.name
          FROM team_members m JOIN teams t ON t.org_id = m.org_id AND t.team_id = m.team_id
          WHERE m.org_id = $org AND m.first_day <= CAST($day AS DATE) AND (m.last_day IS NULL OR m.last_day >= CAST($day AS DATE))`,
  // Windows end at $now (later events, from a machine whose clock is ahead, count as activation only).
  activity: `WITH acts AS (
               SELECT user_id, agent, ts FROM events WHERE org_id = $org
               UNION ALL SELECT user_id, agent, ts FROM usage WHERE org_id = $org
             )
             SELECT user_id AS "userId", agent, strftime(min(ts), ${ISO}) AS "firstAt", strftime(max(ts), ${ISO}) AS "lastAt",
                    bool_or(ts > CAST($since7 AS TIMESTAMP) AND ts <= CAST($now AS TIMESTAMP)) AS active7,
                    bool_or(ts > CAST($since28 AS TIMESTAMP) AND ts <= CAST($now AS TIMESTAMP)) AS active28
             FROM acts GROUP BY user_id, agent ORDER BY user_id, agent`,
} as const;

/** A UTC instant as DuckDB's TIMESTAMP text. */
const ts = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export class AdoptionStore {
  constructor(private readonly db: Db) {}

  async read(orgId: string, now: Date): Promise<{ roster: RosterRow[]; teams: TeamRow[]; activity: ActivityRow[] }> {
    const at = now.getTime();
    const [roster, teams, activity] = [
      await this.db.all<RosterRow & Record<string, unknown>>(ADOPTION_SQL.roster, { org: orgId }),
      await this.db.all<TeamRow & Record<string, unknown>>(ADOPTION_SQL.teams, { org: orgId, day: now.toISOString().slice(0, 10) }),
      await this.db.all<ActivityRow & Record<string, unknown>>(ADOPTION_SQL.activity, {
        org: orgId,
        now: ts(at),
        since7: ts(at - 7 * 86_400_000),
        since28: ts(at - 28 * 86_400_000),
      }),
    ];
    return { roster, teams, activity };
  }
}
