// The organization's teams: PUT /api/v0/organization/teams takes the roster (text/csv, owners only; the
// whole file or nothing, every bad line named), GET lists the teams with their members (owners and
// managers), PUT /api/v0/organization/teams/settings sets the minimum team size (owners only).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { requireRole } from '../auth/principal.ts';
import { errorBody } from '../errors.ts';
import { describeRosterErrors } from './roster.ts';
import { TeamSettings } from './schema.ts';
import { importRosterText, teamListing } from './service.ts';
import { TeamStore } from './store.ts';

export const TEAMS_PATH = '/api/v0/organization/teams';
export const TEAM_SETTINGS_PATH = '/api/v0/organization/teams/settings';
/** The most bad lines a refusal lists. */
export const MAX_LISTED = 1000;
/** A roster of 100,000 lines of long e-mails and names fits. */
export const ROSTER_BODY_LIMIT = 16 * 1024 * 1024;

export interface TeamRouteDeps {
  db: Db;
  auth: Authenticator;
}

export function registerTeamRoutes(app: FastifyInstance, deps: TeamRouteDeps): void {
  app.get(TEAMS_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager'], 'Listing teams');
    return teamListing(deps.db, principal.orgId);
  });

  app.put(TEAM_SETTINGS_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner'], 'Setting the minimum team size');
    const body = TeamSettings.parse(request.body);
    await new TeamStore(deps.db).setMinTeamSize(principal.orgId, body.minTeamSize);
    request.log.info({ org: principal.orgId, minTeamSize: body.minTeamSize }, 'minimum team size set');
    return body;
  });

  // The roster's own scope: text/csv is parsed only here, with a body limit of its own.
  void app.register(async (scope) => {
    scope.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: ROSTER_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.put(TEAMS_PATH, { bodyLimit: ROSTER_BODY_LIMIT }, async (request, reply) => {
      const principal = await deps.auth.authenticate(request);
      requireRole(principal, ['owner'], 'Importing the team roster');
      if (typeof request.body !== 'string') throw new HttpError(415, 'the roster is a CSV file: send it with Content-Type: text/csv');
      const result = await importRosterText(deps.db, principal.orgId, request.body);
      if ('errors' in result) {
        request.log.info({ org: principal.orgId, badLines: result.errors.length }, 'roster refused');
        // Every bad line up to MAX_LISTED (a file of the wrong kind would otherwise answer one per line).
        const errors = result.errors.slice(0, MAX_LISTED);
        const detail = describeRosterErrors(errors, result.errors.length);
        return reply.status(400).send({ ...errorBody(400, detail, String(request.id)), errors });
      }
      request.log.info({ org: principal.orgId, ...result.ok, created: result.ok.created.length }, 'roster imported');
      return result.ok;
    });
  });
}
