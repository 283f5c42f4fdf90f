// Team figures for the analytics endpoints (docs/metrics.md §6): who a `team=NAME` filter counts (the team
// and its descendants, members on each day), the input of the figures' one reader (api/analytics/reader.ts),
// and `group_by=team` (direct members), with the organization's minimum team size. The rows are the
// analytics row sets (api/analytics/store.ts) from the read model; the figures are derived by the pure
// functions of figures.ts. The answer cache holds team answers under the organization's teams revision,
// which every change of its teams bumps.
import type { Db } from '../../common/db/duckdb.ts';
import { badRequest, forbidden } from '../../common/errors.ts';
import { teamNameKey } from '../../common/team-name.ts';
import type { RowSource, UserDayRow } from '../analytics/store.ts';
import {
  ACTIVITY_FIELDS,
  addDays,
  belowMinimum,
  membersByDay,
  PRODUCTIVITY_FIELDS,
  TOOL_FIELDS,
  teamsOnDays,
  tokensByTeam,
  userFiguresByTeam,
} from './figures.ts';
import { descendants, type Membership, TeamStore } from './store.ts';

/** The users a team= filter counts on each day, and all of them in the range and its 29 days before. */
export interface TeamScope {
  members: (day: string) => ReadonlySet<string>;
  users: string[];
  /** The memberships counted (of the team and the teams below it), for filters written in SQL. */
  periods: { user: string; from: string; to: string | null }[];
}

export type TeamGroupedEndpoint = 'tokens' | 'tools' | 'activity' | 'productivity';

/** Every user who was a member (of `teams`) on some day from `from` to `to`. */
function usersInRange(memberships: readonly Membership[], teams: ReadonlySet<string>, from: string, to: string): string[] {
  return [
    ...new Set(
      memberships.filter((m) => teams.has(m.teamId) && m.firstDay <= to && (m.lastDay === null || m.lastDay >= from)).map((m) => m.userId),
    ),
  ];
}

const daysFrom = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
};

export class TeamAnalytics {
  private readonly teams: TeamStore;
  constructor(
    db: Db,
    /** The analytics rows (the read model). */
    private readonly rows: RowSource,
  ) {
    this.teams = new TeamStore(db);
  }

  /** The organization's teams revision (part of the cache key of team answers). */
  revision(org: string): Promise<number> {
    return this.teams.revision(org);
  }

  /** The organization's teams, and its minimum team size (the privacy setting of grouped figures). */
  async teamsAndMinSize(org: string): Promise<{ teams: { name: string; key: string }[]; minSize: number }> {
    const [teams, minSize] = await Promise.all([this.teams.listTeams(org), this.teams.minTeamSize(org)]);
    return { teams: teams.map((t) => ({ name: t.name, key: teamNameKey(t.name) })), minSize };
  }

  /** The organization's team of that name (compared case-insensitively). */
  teamByName(org: string, name: string) {
    return this.teams.teamByName(org, name);
  }

  /**
   * Who a `team=` filter counts: the members of `teamName` and its descendants on each day, and every user
   * who was one from 29 days before `from` (the weekly and monthly windows) to `to`. 400 for an unknown
   * team; 403 when the members on a day of the range are fewer than the minimum team size (but not none).
   */
  async scope(org: string, teamName: string, from: string, to: string): Promise<TeamScope> {
    const team = await this.teams.teamByName(org, teamName);
    if (!team) throw badRequest(`team "${teamName.slice(0, 100)}" is not a team of this organization`);
    const [all, memberships, minSize] = await Promise.all([
      this.teams.listTeams(org),
      this.teams.memberships(org),
      this.teams.minTeamSize(org),
    ]);
    const covered = new Set(descendants(all, team.id));
    const members = membersByDay(memberships, covered);
    const small = belowMinimum(daysFrom(from, to), members, minSize);
    if (small)
      throw forbidden(
        `team "${team.name}" had fewer members on ${small} than the organization's minimum team size (${minSize}); its figures are not shown`,
      );
    // Weekly and monthly active users look 29 days back.
    const windowFrom = addDays(from, -29);
    return {
      members,
      users: usersInRange(memberships, covered, windowFrom, to),
      periods: memberships.filter((m) => covered.has(m.teamId)).map((m) => ({ user: m.userId, from: m.firstDay, to: m.lastDay })),
    };
  }

  /**
   * Who each team of the organization counts on each day, itself and the teams below it (a team budget's
   * rule, the same as team='s), by the team's name in lower case; undefined for a name that is no team.
   */
  async membersOfTeams(org: string): Promise<(teamKey: string) => ((day: string) => ReadonlySet<string>) | undefined> {
    const [teams, memberships] = await Promise.all([this.teams.listTeams(org), this.teams.memberships(org)]);
    const byKey = new Map(teams.map((t) => [teamNameKey(t.name), t.id]));
    const memo = new Map<string, (day: string) => ReadonlySet<string>>();
    return (key) => {
      const id = byKey.get(key);
      if (!id) return undefined;
      let members = memo.get(id);
      if (!members) memo.set(id, (members = membersByDay(memberships, new Set(descendants(teams, id)))));
      return members;
    };
  }

  /**
   * Each day's teams with their direct members (teams below the minimum size that day left out), and every
   * user who was a member of some team in the range.
   */
  async teamDays(org: string, days: readonly string[], from: string, to: string) {
    const [teams, memberships, minSize] = await Promise.all([
      this.teams.listTeams(org),
      this.teams.memberships(org),
      this.teams.minTeamSize(org),
    ]);
    return {
      days: teamsOnDays(days, teams, memberships, minSize),
      users: usersInRange(memberships, new Set(teams.map((t) => t.id)), from, to),
    };
  }

  /** group_by=team: one row per day and team with a non-zero figure, over direct members, teams of the minimum size. */
  async grouped(endpoint: TeamGroupedEndpoint, org: string, days: readonly string[], from: string, to: string) {
    const [teams, memberships, minSize] = await Promise.all([
      this.teams.listTeams(org),
      this.teams.memberships(org),
      this.teams.minTeamSize(org),
    ]);
    const users = usersInRange(memberships, new Set(teams.map((t) => t.id)), from, to);
    if (endpoint === 'tokens') {
      const [tokens, raw] = await Promise.all([
        this.rows.rows('tokens', org, from, to, users),
        this.rows.rows('rawBillable', org, from, to, users),
      ]);
      return tokensByTeam(days, teams, memberships, minSize, tokens, raw);
    }
    const userDays = await this.rows.rows('userDays', org, from, to, users);
    const fields = endpoint === 'tools' ? TOOL_FIELDS : endpoint === 'activity' ? ACTIVITY_FIELDS : PRODUCTIVITY_FIELDS;
    return userFiguresByTeam(days, teams, memberships, minSize, userDays, fields as Record<string, (rows: UserDayRow[]) => number>);
  }
}
