// The groups claim of an ID token setting the person's teams (`orgs oidc --groups-claim`): from the day of
// the sign-in (UTC), they are members of exactly the teams the claim names, created when missing; their
// other memberships end the day before. The same teams SCIM groups and the roster are (api/teams/store.ts).
import type { Db } from '../../common/db/duckdb.ts';
import { normalizeTeamName } from '../../common/team-name.ts';
import { type Day, dayBefore, TeamError, TeamStore } from '../teams/store.ts';

/** The group names in a claim's value (in NFC, as team names are): a list of strings (others ignored), or one string. Pure. */
export function groupNames(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [normalizeTeamName(value)];
  if (!Array.isArray(value)) return undefined;
  return [...new Set(value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map(normalizeTeamName))].slice(0, 200);
}

export async function setTeamsFromClaim(db: Db, orgId: string, userId: string, names: readonly string[], day: Day): Promise<number> {
  return db.transaction(async (tx) => {
    const teams = TeamStore.within(tx);
    const wanted = new Set<string>();
    for (const name of names) {
      // A name no team may have (too long, unshown characters) is skipped, not a failed sign-in.
      const team = (await teams.teamByName(orgId, name)) ?? (await teams.createTeam(orgId, name).catch(skipInvalid));
      if (!team) continue;
      wanted.add(team.id);
      await teams.addMember(orgId, team.id, userId, day);
    }
    const current = (await teams.memberships(orgId)).filter((m) => m.userId === userId && (m.lastDay === null || m.lastDay >= day));
    for (const m of current) if (!wanted.has(m.teamId)) await teams.endMembership(orgId, m.teamId, userId, dayBefore(day));
    return wanted.size;
  });
}

const skipInvalid = (error: unknown): undefined => {
  if (error instanceof TeamError && error.kind === 'invalid') return undefined;
  throw error;
};
