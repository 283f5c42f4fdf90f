// SCIM Groups are agentmeter's teams (api/teams/store.ts, the one writer of teams): a group is the team
// of the same name (case-insensitive), its id the team id, its members the users whose membership lasts
// on or after today. Every change a directory makes to members applies from the day it arrives (UTC):
// someone added today is a member from today; someone removed today was a member until yesterday.
import type { Db } from '../../common/db/duckdb.ts';
import { type Day, type Team, TeamError, TeamStore } from '../teams/store.ts';
import { ScimError } from './schema.ts';

export interface GroupMember {
  value: string;
  display: string;
}

export interface ScimGroupRow {
  team: Team;
  members: GroupMember[];
}

const SQL = {
  emails: 'SELECT id, email FROM users WHERE org_id = $org',
} as const;

/** The team store's refusals as SCIM errors: a taken name is `uniqueness`, the rest invalid values. */
export function scimTeamError(error: unknown): never {
  if (error instanceof TeamError) {
    if (error.kind === 'name-taken') throw new ScimError(409, error.message, 'uniqueness');
    if (error.kind === 'unknown-team') throw new ScimError(404, error.message);
    throw new ScimError(400, error.message, 'invalidValue');
  }
  throw error;
}

export class ScimGroupStore {
  private readonly teams: TeamStore;

  constructor(private readonly db: Db) {
    this.teams = new TeamStore(db);
  }

  private async emails(orgId: string): Promise<Map<string, string>> {
    return new Map((await this.db.all<{ id: string; email: string }>(SQL.emails, { org: orgId })).map((r) => [r.id, r.email]));
  }

  /** The users whose membership of the team lasts on or after `day` (as setMembersFrom counts them). */
  private async membersOf(orgId: string, teamId: string, day: Day, emails: Map<string, string>): Promise<GroupMember[]> {
    const ids = new Set(
      (await this.teams.memberships(orgId, teamId)).filter((m) => m.lastDay === null || m.lastDay >= day).map((m) => m.userId),
    );
    return [...ids].filter((id) => emails.has(id)).map((id) => ({ value: id, display: emails.get(id)! }));
  }

  async list(
    orgId: string,
    filter: { attribute: string; value: string } | undefined,
    day: Day,
    startIndex: number,
    count: number,
  ): Promise<{ total: number; rows: ScimGroupRow[] }> {
    let teams: Team[];
    if (!filter) teams = await this.teams.listTeams(orgId);
    else {
      const found =
        filter.attribute === 'id' ? await this.teams.team(orgId, filter.value) : await this.teams.teamByName(orgId, filter.value);
      teams = found ? [found] : [];
    }
    const page = teams.slice(startIndex - 1, startIndex - 1 + count);
    const emails = await this.emails(orgId);
    const rows = [];
    for (const team of page) rows.push({ team, members: await this.membersOf(orgId, team.id, day, emails) });
    return { total: teams.length, rows };
  }

  async get(orgId: string, id: string, day: Day): Promise<ScimGroupRow | undefined> {
    const team = await this.teams.team(orgId, id);
    return team ? { team, members: await this.membersOf(orgId, team.id, day, await this.emails(orgId)) } : undefined;
  }

  /** Refuses member ids that are not users of the organization (another organization's included). */
  async checkMembers(orgId: string, ids: readonly string[]): Promise<void> {
    const emails = await this.emails(orgId);
    const unknown = ids.filter((id) => !emails.has(id));
    if (unknown.length)
      throw new ScimError(
        400,
        `members must be users of this organization by id; unknown: ${unknown.slice(0, 5).join(', ')}`,
        'invalidValue',
      );
  }

  /** Creates the team with its members from `day`, in one transaction. */
  async create(orgId: string, name: string, members: readonly string[], day: Day): Promise<ScimGroupRow> {
    await this.checkMembers(orgId, members);
    const team = await this.db
      .transaction(async (tx) => {
        const store = TeamStore.within(tx);
        const created = await store.createTeam(orgId, name);
        if (members.length) await store.setMembersFrom(orgId, created.id, members, day);
        return created;
      })
      .catch(scimTeamError);
    return (await this.get(orgId, team.id, day))!;
  }

  /** Renames the team (when the name changed) and makes `members` its members from `day`, in one transaction. */
  async update(orgId: string, before: ScimGroupRow, name: string, members: readonly string[], day: Day): Promise<ScimGroupRow> {
    await this.checkMembers(orgId, members);
    await this.db
      .transaction(async (tx) => {
        const store = TeamStore.within(tx);
        if (name !== before.team.name) await store.renameTeam(orgId, before.team.id, name);
        const current = before.members.map((m) => m.value);
        if (current.length !== members.length || current.some((id) => !members.includes(id)))
          await store.setMembersFrom(orgId, before.team.id, members, day);
      })
      .catch(scimTeamError);
    return (await this.get(orgId, before.team.id, day))!;
  }

  async remove(orgId: string, teamId: string): Promise<void> {
    await this.teams.deleteTeam(orgId, teamId).catch(scimTeamError);
  }
}
