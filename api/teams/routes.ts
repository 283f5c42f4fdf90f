// The organization's teams: PUT /api/v0/organization/teams takes the roster (text/csv, owners only; the
// whole file or nothing, every bad line named), GET lists the teams with their members (owners and
// managers), PUT /api/v0/organization/teams/settings sets the minimum team size (owners only).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import { errorBody } from '../http/errors.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import { describeRosterErrors } from './roster.ts';
import { RosterImported, RosterRefused, TEAM_SETTINGS_PATH, TEAMS_PATH, TeamList, TeamSettings } from './schema.ts';
import { importRosterText, teamListing } from './service.ts';
import { TeamStore } from './store.ts';

/** The most bad lines a refusal lists. */
export const MAX_LISTED = 1000;
/** A roster of 100,000 lines of long e-mails and names fits. */
export const ROSTER_BODY_LIMIT = 16 * 1024 * 1024;

/** What the teams' listing is built from: the users' e-mails (the teams and members through the key's revision). */
const LISTING_READS = ['users'] as const;

export interface TeamRouteDeps {
  db: Db;
  /** The answer cache: the listing is kept under the teams revision until a person changes. */
  cache: ResponseCache;
  now?: () => Date;
}

const TAG = 'Organization';

export function registerTeamRoutes(app: FastifyInstance, deps: TeamRouteDeps): void {
  const teams = new TeamStore(deps.db);
  const listingDoc = {
    method: 'GET',
    path: TEAMS_PATH,
    freshness: 'cached',
    tag: TAG,
    summary: 'The teams, their parents and their dated members (docs/metrics.md §6)',
    action: 'Listing teams',
    access: { kind: 'user', roles: ADMIN_ROLES },
    responses: { 200: TeamList },
  } as const satisfies RouteDoc;
  declareRoute(app, listingDoc, async ({ principal }, request, reply) => {
    const of = { org: principal.orgId, now: (deps.now ?? (() => new Date()))(), reads: LISTING_READS, teams, roster: true };
    return sendAnswer(deps.cache, request, reply, of, () => teamListing(deps.db, principal.orgId));
  });

  declareRoute(
    app,
    {
      method: 'PUT',
      path: TEAM_SETTINGS_PATH,
      tag: TAG,
      summary: 'Set the minimum team size (teams below it on a day are left out of team figures)',
      action: 'Setting the minimum team size',
      access: { kind: 'user', roles: OWNERS },
      body: TeamSettings,
      responses: { 200: TeamSettings },
    },
    async ({ principal, body }, request) => {
      await new TeamStore(deps.db).setMinTeamSize(principal.orgId, body.minTeamSize);
      request.log.info({ org: principal.orgId, minTeamSize: body.minTeamSize }, 'minimum team size set');
      return body;
    },
  );

  // The roster's own scope: text/csv is parsed only here, with a body limit of its own.
  void app.register(async (scope) => {
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: ROSTER_BODY_LIMIT }, (_request, body, done) => done(null, body));
    declareRoute(
      scope,
      {
        method: 'PUT',
        path: TEAMS_PATH,
        tag: TAG,
        summary: 'Import the team roster (CSV: email,team,parent,from,to)',
        description:
          "Creates the teams the file names and replaces their memberships with the file's; teams it does not name are untouched. All or nothing: a bad line (unknown e-mail, bad date, from after to, a cycle, a parent that disagrees with another line, overlapping memberships) refuses the whole file with 400, every bad line in `errors` and in the detail. Dates are UTC days, inclusive; an empty `from` is a member since always, an empty `to` still a member; an empty `email` declares a team.",
        action: 'Importing the team roster',
        access: { kind: 'user', roles: OWNERS },
        bodyContent: {
          'text/csv': { schema: { type: 'string', description: 'The roster, with the header line email,team,parent,from,to' } },
        },
        responses: { 200: RosterImported, 400: RosterRefused },
        options: { bodyLimit: ROSTER_BODY_LIMIT },
      },
      async ({ principal }, request, reply) => {
        if (typeof request.body !== 'string') throw new HttpError(415, 'the roster is a CSV file: send it with Content-Type: text/csv');
        const result = await importRosterText(deps.db, principal.orgId, request.body);
        if ('errors' in result) {
          request.log.info({ org: principal.orgId, badLines: result.errors.length }, 'roster refused');
          // Every bad line up to MAX_LISTED (a file of the wrong kind would otherwise answer one per line).
          const errors = result.errors.slice(0, MAX_LISTED);
          const detail = describeRosterErrors(errors, result.errors.length);
          reply.status(400);
          return { ...errorBody(400, detail, String(request.id)), errors };
        }
        request.log.info({ org: principal.orgId, ...result.ok, created: result.ok.created.length }, 'roster imported');
        return result.ok;
      },
    );
  });
}
