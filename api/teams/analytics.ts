// Team figures for the analytics endpoints (docs/metrics.md §6): `team=NAME` (the team and its descendants,
// members on each day) and `group_by=team` (direct members), with the organization's minimum team size.
// Read by SQL from the per-user aggregates (agg_user_day, agg_tokens_day, and migration 021's per-user
// breakdowns, hook counts and unrounded billable tokens), only for the users who were members in the
// range, then derived by the pure functions of figures.ts. Both analytics readers (SQL and the in-memory
// read model) answer team queries through here, so they agree by construction; the answer cache holds
// the results under the organization's teams revision, which every change of its teams bumps.
import type { Db } from '../../common/db/duckdb.ts';
import { badRequest, forbidden } from '../../common/errors.ts';
import type { AnalyticsReader, BreakdownRow, HookRow, OrgDayRow, TokenRow, UserDayRow } from '../analytics/store.ts';
import {
  ACTIVITY_FIELDS,
  addDays,
  belowMinimum,
  membersByDay,
  PRODUCTIVITY_FIELDS,
  type RawBillableRow,
  restrictRows,
  type TeamUserDayRow,
  TOOL_FIELDS,
  teamBreakdowns,
  teamHooks,
  teamOrgDays,
  teamsOnDays,
  teamTokenRows,
  tokensByTeam,
  type UserBreakdownRow,
  type UserHookRow,
  userFiguresByTeam,
} from './figures.ts';
import { descendants, type Membership, TeamStore, teamNameKey } from './store.ts';

const RANGE =
  "a.org_id = $org AND a.day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) AND a.user_id IN (SELECT unnest(string_split($users, ',')))";

export const TEAM_ANALYTICS_SQL = {
  userDays: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.active, a.tool_calls, a.user_turns, a.mcp_calls,
                    a.skill_calls, a.slash_commands, a.hooks, a.sessions, a.user_messages, a.assistant_messages, a.files_created,
                    a.files_edited, a.git_commits, a.git_prs_created, a.billable_tokens, a.primary_model, a.primary_model_tier,
                    a.autonomy_ratio, a.delegation_level, a.languages, a.clients, a.sessions_with_events, a.calls_auto_high,
                    a.calls_auto_medium, a.calls_auto_low, a.calls_manual, a.lines_added, a.landed_agent_lines, a.cost_usd
             FROM agg_user_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id
             WHERE ${RANGE} ORDER BY a.user_id, a.day`,
  breakdown: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.kind, a.key, a.count FROM agg_user_breakdown_day a
              WHERE ${RANGE} AND a.kind IN (SELECT unnest(string_split($kinds, ',')))`,
  hooks: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.event, a.matcher, a.command, a.count FROM agg_user_hooks_day a WHERE ${RANGE}`,
  tokens: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, u.email AS user_email, a.agent, a.model, a.thinking, a.input_tokens, a.output_tokens,
                  a.cache_read_tokens, a.cache_write_tokens, a.billable_tokens, a.cost_usd
           FROM agg_tokens_day a LEFT JOIN users u ON u.id = a.user_id AND u.org_id = a.org_id WHERE ${RANGE}`,
  rawBillable: `SELECT CAST(a.day AS VARCHAR) AS day, a.user_id, a.model, a.raw_billable FROM agg_user_model_day a WHERE ${RANGE}`,
} as const;

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
  constructor(private readonly db: Db) {
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

  private read<T>(sql: string, params: Record<string, string>): Promise<T[]> {
    return this.db.all<T & Record<string, unknown>>(sql, params);
  }

  /**
   * The analytics rows of the organization restricted to `teamName` and its descendants' members on each
   * day. 400 for an unknown team; 403 when the members on a day of the range are fewer than the minimum
   * team size (but not none).
   */
  async filtered(org: string, teamName: string, from: string, to: string): Promise<AnalyticsReader> {
    const { members, users: windowUsers } = await this.scope(org, teamName, from, to);
    const users = windowUsers.join(',');
    const p = (a: string, b: string, extra: Record<string, string> = {}) => ({ org, from: a, to: b, users, ...extra });
    const self = this;
    return {
      async orgDays(_org, a, b): Promise<OrgDayRow[]> {
        // Not restricted to membership days: D's weekly and monthly users are its members' days before it too.
        const rows = await self.read<TeamUserDayRow>(TEAM_ANALYTICS_SQL.userDays, p(addDays(a, -29), b));
        return teamOrgDays(daysFrom(a, b), rows, members);
      },
      async breakdown(_org, a, b, kinds): Promise<BreakdownRow[]> {
        return teamBreakdowns(
          restrictRows(await self.read<UserBreakdownRow>(TEAM_ANALYTICS_SQL.breakdown, p(a, b, { kinds: kinds.join(',') })), members),
        );
      },
      async hooks(_org, a, b): Promise<HookRow[]> {
        return teamHooks(restrictRows(await self.read<UserHookRow>(TEAM_ANALYTICS_SQL.hooks, p(a, b)), members));
      },
      async tokens(_org, a, b): Promise<TokenRow[]> {
        const [tokens, raw] = await Promise.all([
          self.read<TokenRow>(TEAM_ANALYTICS_SQL.tokens, p(a, b)),
          self.read<RawBillableRow>(TEAM_ANALYTICS_SQL.rawBillable, p(a, b)),
        ]);
        return teamTokenRows(restrictRows(tokens, members), restrictRows(raw, members));
      },
      async userPage(_org, a, b, cursor, limit): Promise<string[]> {
        const rows = restrictRows(await self.read<TeamUserDayRow>(TEAM_ANALYTICS_SQL.userDays, p(a, b)), members);
        const ids = [...new Set(rows.map((r) => r.user_id))].filter((id) => cursor === undefined || id > cursor).sort();
        return ids.slice(0, limit + 1);
      },
      async userRows(_org, a, b, page): Promise<UserDayRow[]> {
        if (page.length === 0) return [];
        const rows = await self.read<TeamUserDayRow>(TEAM_ANALYTICS_SQL.userDays, { org, from: a, to: b, users: page.join(',') });
        // Only the columns of the users endpoint's rows.
        return restrictRows(rows, members).map(
          ({ sessions_with_events: _s, calls_auto_high: _h, calls_auto_medium: _m, calls_auto_low: _l, calls_manual: _n, ...row }) => row,
        );
      },
    };
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
    const users = usersInRange(memberships, new Set(teams.map((t) => t.id)), from, to).join(',');
    const p = { org, from, to, users };
    if (endpoint === 'tokens') {
      const [tokens, raw] = await Promise.all([
        this.read<TokenRow>(TEAM_ANALYTICS_SQL.tokens, p),
        this.read<RawBillableRow>(TEAM_ANALYTICS_SQL.rawBillable, p),
      ]);
      return tokensByTeam(days, teams, memberships, minSize, tokens, raw);
    }
    const userDays = await this.read<TeamUserDayRow>(TEAM_ANALYTICS_SQL.userDays, p);
    const fields = endpoint === 'tools' ? TOOL_FIELDS : endpoint === 'activity' ? ACTIVITY_FIELDS : PRODUCTIVITY_FIELDS;
    return userFiguresByTeam(days, teams, memberships, minSize, userDays, fields as Record<string, (rows: UserDayRow[]) => number>);
  }
}
