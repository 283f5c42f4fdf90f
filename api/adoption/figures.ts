// Pure: the adoption answer from the roster, the teams on the day, and each person's activity by agent
// (first and last event, whether one fell in the 7- and 28-day windows). Counts are of people: a person
// active with two agents counts once in the totals and once under each agent.
import { type Adoption, type AdoptionPerson, QUIET_DAYS } from './schema.ts';

export interface RosterRow {
  userId: string;
  email: string;
  role: string;
}
export interface TeamRow {
  userId: string;
  teamId: string;
  name: string;
}
export interface ActivityRow {
  userId: string;
  agent: string;
  /** ISO instants. */
  firstAt: string;
  lastAt: string;
  active7: boolean;
  active28: boolean;
}

const DAY_MS = 86_400_000;
export const NO_TEAM = '(no team)';

export function adoptionFigures(
  roster: readonly RosterRow[],
  teams: readonly TeamRow[],
  activity: readonly ActivityRow[],
  now: Date,
): Adoption {
  const quietBefore = now.getTime() - QUIET_DAYS * DAY_MS;
  const byUser = new Map<string, ActivityRow[]>();
  for (const row of activity) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), row]);
  const teamsOf = new Map<string, TeamRow[]>();
  for (const row of teams) teamsOf.set(row.userId, [...(teamsOf.get(row.userId) ?? []), row]);

  const people: AdoptionPerson[] = roster.map((r) => {
    const rows = byUser.get(r.userId) ?? [];
    const first = rows.map((a) => a.firstAt).sort()[0] ?? null;
    const last =
      rows
        .map((a) => a.lastAt)
        .sort()
        .at(-1) ?? null;
    const state = last === null ? 'never' : Date.parse(last) <= quietBefore ? 'quiet' : 'active';
    return {
      userId: r.userId,
      email: r.email,
      role: r.role,
      teams: (teamsOf.get(r.userId) ?? []).map((t) => t.name).sort(),
      agents: [...new Set(rows.map((a) => a.agent))].sort(),
      firstEventAt: first,
      lastEventAt: last,
      active7: rows.some((a) => a.active7),
      active28: rows.some((a) => a.active28),
      state,
    };
  });

  const count = (group: readonly AdoptionPerson[]) => ({
    activated: group.filter((p) => p.state !== 'never').length,
    active7: group.filter((p) => p.active7).length,
    active28: group.filter((p) => p.active28).length,
  });

  const onRoster = new Set(roster.map((r) => r.userId));
  const agents = [...new Set(activity.filter((a) => onRoster.has(a.userId)).map((a) => a.agent))].sort();
  const byAgent = agents.map((agent) => {
    const rows = activity.filter((a) => a.agent === agent && onRoster.has(a.userId));
    return {
      agent,
      activated: new Set(rows.map((a) => a.userId)).size,
      active7: new Set(rows.filter((a) => a.active7).map((a) => a.userId)).size,
      active28: new Set(rows.filter((a) => a.active28).map((a) => a.userId)).size,
    };
  });

  const teamNames = new Map<string, string>();
  for (const t of teams) if (onRoster.has(t.userId)) teamNames.set(t.teamId, t.name);
  const byTeam: Adoption['byTeam'] = [...teamNames]
    .sort((a, b) => a[1].localeCompare(b[1]))
    .map(([teamId, team]) => {
      const members = people.filter((p) => (teamsOf.get(p.userId) ?? []).some((t) => t.teamId === teamId));
      return { teamId, team, people: members.length, ...count(members) };
    });
  const teamless = people.filter((p) => p.teams.length === 0);
  if (teamless.length > 0 && teamNames.size > 0) byTeam.push({ teamId: null, team: NO_TEAM, people: teamless.length, ...count(teamless) });

  return {
    asOf: now.toISOString(),
    quietDays: QUIET_DAYS,
    totals: {
      people: people.length,
      ...count(people),
      neverActivated: people.filter((p) => p.state === 'never').length,
      quiet: people.filter((p) => p.state === 'quiet').length,
    },
    byAgent,
    byTeam,
    people,
  };
}
