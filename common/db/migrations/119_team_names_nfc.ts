// Team names stored before they were taken in Unicode NFC and without unshown characters
// (common/team-name.ts): each becomes the name that rule gives (unshown characters removed, then trimmed
// and composed), with its key. When two teams of an organization would then share a key ("É" typed and
// "E" + U+0301 sent by a directory were two teams), nothing is merged: the team already in the rule, or
// else the oldest, keeps the name, and each other one is renamed with a visible suffix, "Équipe (2)",
// and logged: the roster or directory that still sends the old spelling must be changed too, or its next
// update moves those people into the team that kept the name. A name left empty is replaced by the team's id. Memberships and parents are by team id and
// do not move; a team budget, its month's alerts and the anomalies fired for the team follow the key, as
// on a rename.
import { createLogger } from '../../logger.ts';
import { normalizeTeamName, TEAM_NAME_MAX, teamNameKey } from '../../team-name.ts';
import { MISLEADING_CHARACTERS } from '../../unshown.ts';
import type { Db } from '../duckdb.ts';

interface StoredTeam {
  org_id: string;
  team_id: string;
  name: string;
  name_key: string;
}

const TEAMS = 'SELECT org_id, team_id, name, name_key FROM teams ORDER BY org_id, created_at, team_id';
// Two steps through a key no team has (chr(2) and the id), so that no update meets a key another team
// still holds until its own update.
const SQL = {
  parkTeam: 'UPDATE teams SET name_key = chr(2) || team_id WHERE org_id = $org AND team_id = $team',
  setTeam: 'UPDATE teams SET name = $name, name_key = $key WHERE org_id = $org AND team_id = $team',
  parkBudget: "UPDATE budgets SET target = chr(2) || $team WHERE org_id = $org AND scope = 'team' AND target = $from",
  setBudget: "UPDATE budgets SET target = $to, team = $name WHERE org_id = $org AND scope = 'team' AND target = chr(2) || $team",
  parkAlerts: "UPDATE budget_alerts SET target = chr(2) || $team WHERE org_id = $org AND scope = 'team' AND target = $from",
  setAlerts: "UPDATE budget_alerts SET target = $to WHERE org_id = $org AND scope = 'team' AND target = chr(2) || $team",
  // An anomaly of a deleted team may hold the new key on the same day: that one keeps the old key.
  moveAnomalies: `UPDATE anomaly_alerts SET target = $to WHERE org_id = $org AND scope = 'team' AND target = $from
                  AND NOT EXISTS (SELECT 1 FROM anomaly_alerts o WHERE o.org_id = $org AND o.scope = 'team' AND o.target = $to
                                  AND o.day = anomaly_alerts.day)`,
} as const;

/** Pure: the name a stored name becomes (misleading characters removed, trimmed, NFC); '' when nothing shown is left. */
export const cleanTeamName = (name: string): string => {
  const clean = normalizeTeamName(name.replace(MISLEADING_CHARACTERS, ''));
  // Joiners and direction marks alone show nothing: as empty.
  return teamNameKey(clean) === '' ? '' : clean;
};

/** Pure: `name (n)` for the first n from 2 whose key is not in `taken`, at most TEAM_NAME_MAX characters. */
export function suffixedTeamName(name: string, taken: ReadonlySet<string>): string {
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    let base = [...name];
    while (base.join('').length + suffix.length > TEAM_NAME_MAX) base = base.slice(0, -1);
    const candidate = normalizeTeamName(`${base.join('').trimEnd()}${suffix}`);
    if (!taken.has(teamNameKey(candidate))) return candidate;
  }
}

export interface Renamed {
  team: StoredTeam;
  name: string;
  key: string;
  /** Another team of the organization kept the name. */
  suffixed: boolean;
}

/**
 * Pure: the new name and key of each of one organization's teams whose name or key changes. Every team
 * whose rule name is free takes it (teams already in the rule first, then the others in the order given,
 * oldest first); only then do the ones left over take a suffix, so that no team is renamed for a suffix.
 */
export function renamedTeams(teams: readonly StoredTeam[]): Renamed[] {
  const inRule = (t: StoredTeam) => cleanTeamName(t.name) === t.name;
  const order = [...teams.filter(inRule), ...teams.filter((t) => !inRule(t))];
  const taken = new Set<string>();
  const named = new Map<StoredTeam, { name: string; suffixed: boolean }>();
  const left: StoredTeam[] = [];
  for (const team of order) {
    const name = cleanTeamName(team.name) || team.team_id;
    if (taken.has(teamNameKey(name))) left.push(team);
    else {
      taken.add(teamNameKey(name));
      named.set(team, { name, suffixed: false });
    }
  }
  for (const team of left) {
    const name = suffixedTeamName(cleanTeamName(team.name) || team.team_id, taken);
    taken.add(teamNameKey(name));
    named.set(team, { name, suffixed: true });
  }
  return teams.flatMap((team) => {
    const { name, suffixed } = named.get(team)!;
    const key = teamNameKey(name);
    return name !== team.name || key !== team.name_key ? [{ team, name, key, suffixed }] : [];
  });
}

export async function up(tx: Db): Promise<void> {
  const byOrg = new Map<string, StoredTeam[]>();
  for (const t of await tx.all<StoredTeam & Record<string, unknown>>(TEAMS)) {
    const teams = byOrg.get(t.org_id) ?? [];
    teams.push(t);
    byOrg.set(t.org_id, teams);
  }
  const changes = [...byOrg.values()].flatMap(renamedTeams);
  if (changes.length === 0) return;
  const log = createLogger({ name: 'migrations' });
  for (const { team } of changes) {
    const at = { org: team.org_id, team: team.team_id };
    await tx.run(SQL.parkTeam, at);
    await tx.run(SQL.parkBudget, { ...at, from: team.name_key });
    await tx.run(SQL.parkAlerts, { ...at, from: team.name_key });
  }
  for (const { team, name, key, suffixed } of changes) {
    const at = { org: team.org_id, team: team.team_id };
    await tx.run(SQL.setTeam, { ...at, name, key });
    await tx.run(SQL.setBudget, { ...at, name, to: key });
    await tx.run(SQL.setAlerts, { ...at, to: key });
    await tx.run(SQL.moveAnomalies, { org: at.org, from: team.name_key, to: key });
    const fields = { migration: 119, org: team.org_id, team: team.team_id, from: team.name, to: name };
    // The roster or directory that made the team still sends its old spelling, which now names the team
    // that kept the name: the next import, sign-in or SCIM update moves its people there unless the
    // operator renames it at the source first.
    if (suffixed)
      log.warn(
        fields,
        'team renamed: its name in NFC is another team’s, and teams are not merged; rename it in the roster or directory too, or their next update moves its people into the other team',
      );
    else log.info(fields, 'team name stored in NFC without unshown characters');
  }
}
