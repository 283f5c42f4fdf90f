// `agentmeter teams` works like the other admin commands: on the database file (--db, server stopped) or
// through a running server (--server/--key; importing needs an owner's key, listing an owner's or a
// manager's). Both import a roster whole or not at all, with every bad line named.
import { z } from 'zod';
import type { RosterError } from '../api/teams/roster.ts';
import { RosterImported, TeamList, TeamSettings } from '../api/teams/schema.ts';
import type { Db } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';
import { callServer } from './server-call.ts';

export type Imported = z.infer<typeof RosterImported>;
export type Listing = z.infer<typeof TeamList>;

export interface TeamsBackend {
  importRoster(csv: string): Promise<Imported>;
  list(): Promise<Listing>;
  setMinTeamSize(size: number): Promise<void>;
  close(): Promise<void>;
}

class LocalTeams implements TeamsBackend {
  constructor(
    private readonly db: Db,
    private readonly org: string,
  ) {}

  async importRoster(csv: string) {
    const { importRosterText } = await import('../api/teams/service.ts');
    const result = await importRosterText(this.db, this.org, csv);
    if ('errors' in result) throw new UserError(linesOf(result.errors));
    return result.ok;
  }

  async list() {
    const { teamListing } = await import('../api/teams/service.ts');
    return teamListing(this.db, this.org);
  }

  async setMinTeamSize(size: number) {
    const { TeamStore, TeamError } = await import('../api/teams/store.ts');
    await new TeamStore(this.db).setMinTeamSize(this.org, size).catch((error: unknown) => {
      throw error instanceof TeamError ? new UserError(error.message) : error;
    });
  }

  close() {
    return this.db.close();
  }
}

/** Every bad line on a line of its own, for the terminal. */
const linesOf = (errors: readonly RosterError[]) =>
  `the roster was not imported (nothing changed):\n${errors.map((e) => `  line ${e.line}: ${e.reason}`).join('\n')}`;

class RemoteTeams implements TeamsBackend {
  constructor(
    private readonly server: string,
    private readonly apiKey: string,
  ) {}

  async importRoster(csv: string) {
    let response: Response;
    try {
      response = await fetch(new URL('/api/v0/organization/teams', this.server), {
        method: 'PUT',
        headers: { authorization: `Bearer ${this.apiKey}`, 'content-type': 'text/csv' },
        body: csv,
      });
    } catch (error) {
      throw new UserError(`cannot reach ${this.server}: ${(error as Error).message}`);
    }
    const json: unknown = await response.json().catch(() => ({}));
    if (response.ok) return RosterImported.parse(json);
    const refused = z.object({ errors: z.array(z.object({ line: z.number(), reason: z.string() })) }).safeParse(json);
    if (refused.success) throw new UserError(linesOf(refused.data.errors));
    throw new UserError(`server answered ${response.status}: ${(json as { detail?: string }).detail ?? response.statusText}`);
  }

  list() {
    return callServer(this.server, this.apiKey, 'GET', '/api/v0/organization/teams', TeamList);
  }

  async setMinTeamSize(size: number) {
    await callServer(this.server, this.apiKey, 'PUT', '/api/v0/organization/teams/settings', TeamSettings, { minTeamSize: size });
  }

  async close() {}
}

export async function teamsBackend(args: { db?: string; server?: string; key?: string; org?: string }): Promise<TeamsBackend> {
  if (args.db) {
    if (!args.org) throw new UserError('--org is required with --db');
    const { openExistingDb } = await import('../common/db/duckdb.ts');
    const db = await openExistingDb(args.db);
    const [org] = await db.all('SELECT id FROM orgs WHERE id = $org', { org: args.org });
    if (!org) {
      await db.close();
      throw new UserError(`no organization ${args.org} in ${args.db}`);
    }
    return new LocalTeams(db, args.org);
  }
  if (args.server && args.key) return new RemoteTeams(args.server, args.key);
  throw new UserError('give --db FILE --org ORG (server stopped) or --server URL --key OWNER_KEY (server running)');
}
