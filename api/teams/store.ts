// The teams of an organization and their dated memberships (docs/metrics.md §6; tables in migration 020). Every
// method takes the organization first and touches only its rows. Days are UTC calendar days written
// `YYYY-MM-DD`; a membership covers first_day..last_day inclusive, last_day null while it lasts. The roster
// import (api/teams/roster.ts plans it) and the directory (SCIM groups, OIDC group claims) both write
// through here, so the rules that keep the data sound live in one place: names in NFC and unique by their
// key (composed, case-insensitive: common/team-name.ts), no cycle of parents, no overlapping periods of one
// user in one team.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../common/db/duckdb.ts';
import { normalizeTeamName, teamNameKey, teamNameProblem } from '../../common/team-name.ts';
import { TEAM_BUDGET_DELETE_SQL, TEAM_BUDGET_RENAME_SQL } from '../budgets/store.ts';

export type Day = string;

/** first_day of a membership whose start is not known (a roster line with an empty `from`). */
export const SINCE_ALWAYS: Day = '1970-01-01';

export interface Team {
  id: string;
  name: string;
  parentId: string | null;
}

export interface Membership {
  teamId: string;
  userId: string;
  firstDay: Day;
  lastDay: Day | null;
}

/** One membership as a roster states it: the user, the first day (SINCE_ALWAYS when unknown), the last. */
export interface RosterMembership {
  userId: string;
  firstDay: Day;
  lastDay: Day | null;
}

/** A roster to apply: the teams it names (created when missing) with their parent and memberships. */
export interface RosterPlan {
  teams: { name: string; parent: string | null; members: RosterMembership[] }[];
  /** Teams named only as a parent: created when missing, otherwise untouched. */
  parentsOnly: string[];
}

export type TeamErrorKind = 'name-taken' | 'cycle' | 'unknown-team' | 'invalid';

/** A change the store refuses; routes map `kind` to a status (409 for name-taken, else 400 or 404). */
export class TeamError extends Error {
  constructor(
    readonly kind: TeamErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export const newTeamId = (): string => `team_${randomBytes(8).toString('hex')}`;

/** The day before `day` (UTC). */
export function dayBefore(day: Day): Day {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

const FAR_FUTURE: Day = '9999-12-31';

const SQL = {
  list: `SELECT team_id AS id, name, parent_id AS "parentId" FROM teams WHERE org_id = $org ORDER BY name_key`,
  byId: `SELECT team_id AS id, name, parent_id AS "parentId" FROM teams WHERE org_id = $org AND team_id = $team`,
  byKey: `SELECT team_id AS id, name, parent_id AS "parentId" FROM teams WHERE org_id = $org AND name_key = $key`,
  insert: 'INSERT INTO teams (org_id, team_id, name, name_key, parent_id) VALUES ($org, $team, $name, $key, $parent)',
  rename: 'UPDATE teams SET name = $name, name_key = $key WHERE org_id = $org AND team_id = $team',
  setParent: 'UPDATE teams SET parent_id = $parent WHERE org_id = $org AND team_id = $team',
  // A deleted team's children move up to its parent, so they stay under the same ancestors.
  reparentChildren: 'UPDATE teams SET parent_id = $parent WHERE org_id = $org AND parent_id = $team',
  deleteTeam: 'DELETE FROM teams WHERE org_id = $org AND team_id = $team',
  deleteTeamMembers: 'DELETE FROM team_members WHERE org_id = $org AND team_id = $team',
  memberships: `SELECT team_id AS "teamId", user_id AS "userId", CAST(first_day AS VARCHAR) AS "firstDay",
                  CAST(last_day AS VARCHAR) AS "lastDay"
                FROM team_members WHERE org_id = $org AND ($team IS NULL OR team_id = $team)
                ORDER BY team_id, user_id, first_day`,
  userPeriods: `SELECT CAST(first_day AS VARCHAR) AS "firstDay", CAST(last_day AS VARCHAR) AS "lastDay"
                FROM team_members WHERE org_id = $org AND team_id = $team AND user_id = $user ORDER BY first_day`,
  insertMember:
    'INSERT INTO team_members (org_id, team_id, user_id, first_day, last_day) VALUES ($org, $team, $user, CAST($first AS DATE), CAST($last AS DATE))',
  setLastDay:
    'UPDATE team_members SET last_day = CAST($last AS DATE) WHERE org_id = $org AND team_id = $team AND user_id = $user AND first_day = CAST($first AS DATE)',
  deletePeriod: 'DELETE FROM team_members WHERE org_id = $org AND team_id = $team AND user_id = $user AND first_day = CAST($first AS DATE)',
  deleteUser: 'DELETE FROM team_members WHERE org_id = $org AND user_id = $user',
  openOfUser: `SELECT team_id AS "teamId", CAST(first_day AS VARCHAR) AS "firstDay" FROM team_members
               WHERE org_id = $org AND user_id = $user AND last_day IS NULL`,
  membersOn: `SELECT team_id AS "teamId", user_id AS "userId" FROM team_members
              WHERE org_id = $org AND first_day <= CAST($day AS DATE) AND coalesce(last_day, DATE '${FAR_FUTURE}') >= CAST($day AS DATE)
              ORDER BY team_id, user_id`,
  minSize: 'SELECT min_team_size AS n FROM team_settings WHERE org_id = $org',
  users: 'SELECT id, email FROM users WHERE org_id = $org',
  revision: 'SELECT revision AS n FROM team_settings WHERE org_id = $org',
  bumpRevision: `INSERT INTO team_settings (org_id, revision) VALUES ($org, 1)
                 ON CONFLICT (org_id) DO UPDATE SET revision = team_settings.revision + 1`,
  setMinSize: `INSERT INTO team_settings (org_id, min_team_size) VALUES ($org, $n)
               ON CONFLICT (org_id) DO UPDATE SET min_team_size = excluded.min_team_size`,
} as const;

/** Pure: the team ids from `team` up through its ancestors, or the first repeated id when they form a cycle. */
export function ancestry(parents: ReadonlyMap<string, string | null>, team: string): { chain: string[]; cycle: boolean } {
  const chain: string[] = [];
  const seen = new Set<string>();
  for (let at: string | null | undefined = team; at; at = parents.get(at)) {
    if (seen.has(at)) return { chain, cycle: true };
    seen.add(at);
    chain.push(at);
  }
  return { chain, cycle: false };
}

/** Pure: `team` and every team below it (children, their children, …), `team` first. */
export function descendants(teams: readonly Pick<Team, 'id' | 'parentId'>[], team: string): string[] {
  const children = new Map<string, string[]>();
  for (const t of teams) if (t.parentId) children.set(t.parentId, [...(children.get(t.parentId) ?? []), t.id]);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const queue = [team]; queue.length > 0; ) {
    const id = queue.shift() as string;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

export class TeamStore {
  /** `inTransaction`: `db` is already a transaction (DuckDB does not nest them), so methods run in it. */
  constructor(
    private readonly db: Db,
    private readonly inTransaction = false,
  ) {}

  /** The store over a transaction the caller holds: its changes commit or roll back with the caller's. */
  static within(tx: Db): TeamStore {
    return new TeamStore(tx, true);
  }

  /**
   * Runs a change of `org`'s teams in one transaction (the caller's, when this store is within one) and
   * bumps the organization's teams revision with it, so answers cached for the old memberships are not
   * used again (the revision is part of their cache key).
   */
  private atomically<T>(org: string, fn: (store: TeamStore, tx: Db) => Promise<T>): Promise<T> {
    const change = async (store: TeamStore, tx: Db) => {
      const result = await fn(store, tx);
      await tx.run(SQL.bumpRevision, { org });
      return result;
    };
    if (this.inTransaction) return change(this, this.db);
    return this.db.transaction((tx) => change(TeamStore.within(tx), tx));
  }

  /** The organization's teams revision: a number that changes with every change of its teams or members. */
  async revision(org: string): Promise<number> {
    return (await this.db.all<{ n: number }>(SQL.revision, { org }))[0]?.n ?? 0;
  }

  listTeams(org: string): Promise<Team[]> {
    return this.db.all<Team & Record<string, unknown>>(SQL.list, { org });
  }

  async team(org: string, teamId: string): Promise<Team | undefined> {
    return (await this.db.all<Team & Record<string, unknown>>(SQL.byId, { org, team: teamId }))[0];
  }

  /** The team whose name matches `name` case-insensitively. */
  async teamByName(org: string, name: string): Promise<Team | undefined> {
    return (await this.db.all<Team & Record<string, unknown>>(SQL.byKey, { org, key: teamNameKey(name) }))[0];
  }

  /** Creates a team; refuses a name already taken (case-insensitively) or a parent that does not exist. */
  async createTeam(org: string, name: string, parentId: string | null = null): Promise<Team> {
    return this.atomically(org, async (store, tx) => {
      const clean = checkName(name);
      if (await store.teamByName(org, clean)) throw new TeamError('name-taken', `a team named "${clean}" already exists`);
      if (parentId && !(await store.team(org, parentId))) throw new TeamError('unknown-team', `no team ${parentId}`);
      const team: Team = { id: newTeamId(), name: clean, parentId };
      await tx.run(SQL.insert, { org, team: team.id, name: clean, key: teamNameKey(clean), parent: parentId });
      return team;
    });
  }

  async renameTeam(org: string, teamId: string, name: string): Promise<Team> {
    return this.atomically(org, async (store, tx) => {
      const team = await store.required(org, teamId);
      const clean = checkName(name);
      const holder = await store.teamByName(org, clean);
      if (holder && holder.id !== teamId) throw new TeamError('name-taken', `a team named "${clean}" already exists`);
      if (clean !== team.name) {
        await tx.run(SQL.rename, { org, team: teamId, name: clean, key: teamNameKey(clean) });
        const moved = { org, from: teamNameKey(team.name), to: teamNameKey(clean) };
        if (moved.to !== moved.from) {
          await tx.run(TEAM_BUDGET_RENAME_SQL.budgets, { ...moved, name: clean });
          await tx.run(TEAM_BUDGET_RENAME_SQL.alerts, moved);
        }
      }
      return { ...team, name: clean };
    });
  }

  /** Deletes a team, its memberships and its budget; its children move up to its parent. */
  async deleteTeam(org: string, teamId: string): Promise<void> {
    await this.atomically(org, async (store, tx) => {
      const team = await store.required(org, teamId);
      await tx.run(SQL.reparentChildren, { org, team: teamId, parent: team.parentId });
      await tx.run(SQL.deleteTeamMembers, { org, team: teamId });
      await tx.run(SQL.deleteTeam, { org, team: teamId });
      const key = teamNameKey(team.name);
      await tx.run(TEAM_BUDGET_DELETE_SQL.budgets, { org, key });
      await tx.run(TEAM_BUDGET_DELETE_SQL.alerts, { org, key, team: teamId });
    });
  }

  /** Sets or clears a team's parent; refuses a parent that is the team itself or one of its descendants. */
  async setParent(org: string, teamId: string, parentId: string | null): Promise<void> {
    await this.atomically(org, async (store, tx) => {
      await store.required(org, teamId);
      if (parentId) {
        await store.required(org, parentId);
        const parents = new Map((await store.listTeams(org)).map((t) => [t.id, t.parentId] as const));
        parents.set(teamId, parentId);
        if (ancestry(parents, teamId).cycle) throw new TeamError('cycle', 'a team cannot be its own ancestor');
      }
      await tx.run(SQL.setParent, { org, team: teamId, parent: parentId });
    });
  }

  /** Every membership period of the organization (or of one team), by team, user and first day. */
  memberships(org: string, teamId?: string): Promise<Membership[]> {
    return this.db.all<Membership & Record<string, unknown>>(SQL.memberships, { org, team: teamId ?? null });
  }

  /** (team, user) for every membership that covers `day`. */
  membersOn(org: string, day: Day): Promise<{ teamId: string; userId: string }[]> {
    return this.db.all<{ teamId: string; userId: string }>(SQL.membersOn, { org, day });
  }

  /**
   * Makes `userId` a member of the team from `fromDay` on. Nothing changes when a period already covers
   * that day and lasts; a period that ended the day before or later is continued instead of a new one.
   */
  async addMember(org: string, teamId: string, userId: string, fromDay: Day): Promise<void> {
    await this.atomically(org, async (store, tx) => {
      await store.required(org, teamId);
      const periods = await tx.all<{ firstDay: Day; lastDay: Day | null }>(SQL.userPeriods, { org, team: teamId, user: userId });
      const last = periods.at(-1);
      if (last && last.lastDay === null) return;
      if (last && last.lastDay !== null && last.lastDay >= dayBefore(fromDay)) {
        await tx.run(SQL.setLastDay, { org, team: teamId, user: userId, first: last.firstDay, last: null });
        return;
      }
      await tx.run(SQL.insertMember, { org, team: teamId, user: userId, first: fromDay, last: null });
    });
  }

  /**
   * Ends the user's lasting membership of the team on `lastDay` (inclusive). A membership that began after
   * `lastDay` never took effect and is removed. No lasting membership: nothing changes.
   */
  async endMembership(org: string, teamId: string, userId: string, lastDay: Day): Promise<void> {
    await this.atomically(org, async (_store, tx) => {
      const periods = await tx.all<{ firstDay: Day; lastDay: Day | null }>(SQL.userPeriods, { org, team: teamId, user: userId });
      for (const p of periods) {
        if (p.lastDay !== null) continue;
        if (p.firstDay > lastDay) await tx.run(SQL.deletePeriod, { org, team: teamId, user: userId, first: p.firstDay });
        else await tx.run(SQL.setLastDay, { org, team: teamId, user: userId, first: p.firstDay, last: lastDay });
      }
    });
  }

  /**
   * The team's members from `day` on are exactly `userIds` (a directory replacing a group's members): the
   * others' lasting memberships end the day before, the missing ones start on `day`.
   */
  async setMembersFrom(org: string, teamId: string, userIds: readonly string[], day: Day): Promise<void> {
    await this.atomically(org, async (store) => {
      const current = new Set(
        (await store.memberships(org, teamId)).filter((m) => m.lastDay === null || m.lastDay >= day).map((m) => m.userId),
      );
      const wanted = new Set(userIds);
      for (const user of current) if (!wanted.has(user)) await store.endMembership(org, teamId, user, dayBefore(day));
      for (const user of wanted) await store.addMember(org, teamId, user, day);
    });
  }

  /** Ends every lasting membership of the user on `lastDay` (a person leaving the organization's directory). */
  async endAllMemberships(org: string, userId: string, lastDay: Day): Promise<void> {
    await this.atomically(org, async (store, tx) => {
      for (const m of await tx.all<{ teamId: string }>(SQL.openOfUser, { org, user: userId }))
        await store.endMembership(org, m.teamId, userId, lastDay);
    });
  }

  /** Deletes every membership of the user (the user is removed from the organization). */
  async forgetUser(org: string, userId: string): Promise<void> {
    await this.atomically(org, (_store, tx) => tx.run(SQL.deleteUser, { org, user: userId }));
  }

  /**
   * Applies a validated roster in one transaction: creates the teams it names (and the parents it names)
   * when missing, sets each named team's parent, and replaces each named team's memberships with the
   * roster's. Teams it does not name keep everything. Refuses (and changes nothing) when the parents would
   * form a cycle with the teams already there.
   */
  async importRoster(org: string, plan: RosterPlan): Promise<{ created: string[]; teams: number; memberships: number }> {
    return this.atomically(org, async (store, tx) => {
      const created: string[] = [];
      const ids = new Map<string, string>();
      const ensure = async (name: string) => {
        const key = teamNameKey(name);
        const known = ids.get(key) ?? (await store.teamByName(org, name))?.id;
        if (known) return ids.set(key, known).get(key) as string;
        const id = newTeamId();
        const clean = checkName(name);
        await tx.run(SQL.insert, { org, team: id, name: clean, key, parent: null });
        created.push(clean);
        return ids.set(key, id).get(key) as string;
      };
      for (const name of plan.parentsOnly) await ensure(name);
      for (const t of plan.teams) await ensure(t.name);
      for (const t of plan.teams) if (t.parent) await ensure(t.parent);
      const parents = new Map((await store.listTeams(org)).map((t) => [t.id, t.parentId] as const));
      for (const t of plan.teams)
        parents.set(ids.get(teamNameKey(t.name)) as string, t.parent ? (ids.get(teamNameKey(t.parent)) as string) : null);
      for (const t of plan.teams) {
        const id = ids.get(teamNameKey(t.name)) as string;
        if (ancestry(parents, id).cycle) throw new TeamError('cycle', `the parent of "${t.name}" would make a cycle`);
      }
      let memberships = 0;
      for (const t of plan.teams) {
        const id = ids.get(teamNameKey(t.name)) as string;
        checkPeriods(t.name, t.members);
        await tx.run(SQL.setParent, { org, team: id, parent: parents.get(id) ?? null });
        await tx.run(SQL.deleteTeamMembers, { org, team: id });
        for (const m of t.members) {
          await tx.run(SQL.insertMember, { org, team: id, user: m.userId, first: m.firstDay, last: m.lastDay });
          memberships++;
        }
      }
      return { created, teams: plan.teams.length, memberships };
    });
  }

  /** The organization's users and their e-mails (a roster names people by e-mail; the listing shows them so). */
  async users(org: string): Promise<{ id: string; email: string }[]> {
    return this.db.all<{ id: string; email: string }>(SQL.users, { org });
  }

  async minTeamSize(org: string): Promise<number> {
    return (await this.db.all<{ n: number }>(SQL.minSize, { org }))[0]?.n ?? 1;
  }

  async setMinTeamSize(org: string, size: number): Promise<void> {
    if (!Number.isInteger(size) || size < 1 || size > 10_000)
      throw new TeamError('invalid', 'the minimum team size is a whole number from 1 to 10000');
    await this.atomically(org, (_store, tx) => tx.run(SQL.setMinSize, { org, n: size }));
  }

  private async required(org: string, teamId: string): Promise<Team> {
    const team = await this.team(org, teamId);
    if (!team) throw new TeamError('unknown-team', `no team ${teamId}`);
    return team;
  }
}

/** A team name as stored: trimmed and composed (NFC), 1 to 128 characters, none unshown (common/team-name.ts). */
export function checkName(name: string): string {
  const clean = normalizeTeamName(name);
  const problem = teamNameProblem(clean);
  if (problem) throw new TeamError('invalid', problem);
  return clean;
}

/** Refuses a period that ends before it starts, or two periods of one user in one team that overlap. */
function checkPeriods(team: string, members: readonly RosterMembership[]): void {
  const byUser = new Map<string, RosterMembership[]>();
  for (const m of members) {
    if (m.lastDay !== null && m.lastDay < m.firstDay) throw new TeamError('invalid', `a membership of "${team}" ends before it starts`);
    byUser.set(m.userId, [...(byUser.get(m.userId) ?? []), m]);
  }
  for (const periods of byUser.values()) {
    const sorted = [...periods].sort((a, b) => a.firstDay.localeCompare(b.firstDay));
    for (let i = 1; i < sorted.length; i++) {
      const before = sorted[i - 1] as RosterMembership;
      if (before.lastDay === null || before.lastDay >= (sorted[i] as RosterMembership).firstDay)
        throw new TeamError('invalid', `two memberships of one user in "${team}" overlap`);
    }
  }
}
