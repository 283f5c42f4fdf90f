// Every route of the public API with the zod schemas its handler validates with and the schemas of its
// answers. A route added to the server without an entry here fails test/integration/openapi.integration.test.ts.
import type { z } from 'zod';
import { ANALYTICS_QUERY, type Endpoint } from '../analytics/query.ts';
import { ActivityResponse, ProductivityResponse, TokensResponse, ToolsResponse, UsersResponse } from '../analytics/schema.ts';
import type { Role } from '../auth/principal.ts';
import { ADMIN_ROLES, ANALYTICS_ROLES } from '../auth/principal.ts';
import { CODE_PATH, CODE_ROLES, COMMITS_PATH } from '../code/routes.ts';
import { CodeResponse, CommitPage, CommitsQuery } from '../code/schema.ts';
import { CLIENT_ROUTES } from '../dashboard/static.ts';
import { TEAM_SETTINGS_PATH, TEAMS_PATH } from '../teams/routes.ts';
import { RosterImported, RosterRefused, TeamList, TeamSettings } from '../teams/schema.ts';
import { TODAY_PATH } from '../today/routes.ts';
import { TodayQuery, TodayResponse } from '../today/schema.ts';
import type { RouteDoc } from './registry.ts';

const PEOPLE: readonly Role[] = ['owner', 'manager', 'member'];
const user = (roles?: readonly Role[]) => ({ kind: 'user' as const, ...(roles ? { roles } : {}) });

const analytics = (endpoint: Endpoint, response: z.ZodType, summary: string): RouteDoc => ({
  method: 'GET',
  path: `/api/v1/analytics/${endpoint}`,
  tag: 'Analytics',
  summary,
  description:
    'Figures from the daily aggregates (docs/metrics.md §4), one record per day of the range (UTC). The latest queryable day is yesterday; data of a day is complete after the nightly batch.',
  access: user(ANALYTICS_ROLES),
  query: ANALYTICS_QUERY[endpoint],
  responses: { 200: response },
});

export const CATALOG: RouteDoc[] = [
  {
    method: 'GET',
    path: TEAMS_PATH,
    tag: 'Organization',
    summary: 'The teams, their parents and their dated members (docs/metrics.md §6)',
    access: user(ADMIN_ROLES),
    responses: { 200: TeamList },
  },
  {
    method: 'PUT',
    path: TEAMS_PATH,
    tag: 'Organization',
    summary: 'Import the team roster (CSV: email,team,parent,from,to)',
    description:
      "Creates the teams the file names and replaces their memberships with the file's; teams it does not name are untouched. All or nothing: a bad line (unknown e-mail, bad date, from after to, a cycle, a parent that disagrees with another line, overlapping memberships) refuses the whole file with 400, every bad line in `errors` and in the detail. Dates are UTC days, inclusive; an empty `from` is a member since always, an empty `to` still a member; an empty `email` declares a team.",
    access: user(['owner']),
    bodyContent: { 'text/csv': { schema: { type: 'string', description: 'The roster, with the header line email,team,parent,from,to' } } },
    responses: { 200: RosterImported, 400: RosterRefused },
  },
  {
    method: 'PUT',
    path: TEAM_SETTINGS_PATH,
    tag: 'Organization',
    summary: 'Set the minimum team size (teams below it on a day are left out of team figures)',
    access: user(['owner']),
    body: TeamSettings,
    responses: { 200: TeamSettings },
  },
  analytics(
    'tokens',
    TokensResponse,
    'Standard Credits and tokens per day, by model and by user (group_by=model: per model; group_by=agent, an agentmeter extension: per agent)',
  ),
  analytics(
    'tools',
    ToolsResponse,
    'Tool calls, MCP servers, skills, slash commands, hooks and autonomy per day (group_by=tool_name; group_by=agent, an agentmeter extension)',
  ),
  analytics(
    'activity',
    ActivityResponse,
    'Active users, sessions and messages per day (group_by=client; group_by=agent, an agentmeter extension)',
  ),
  analytics('productivity', ProductivityResponse, 'Files created and edited, by extension and language, commits and PRs per day'),
  analytics('users', UsersResponse, 'One record per user and active day, paged by user'),
  {
    method: 'GET',
    path: CODE_PATH,
    tag: 'Analytics',
    summary: 'Code the agents wrote: edit lines, landed lines and the agent share per day (an agentmeter extension)',
    description:
      'docs/metrics.md §5. Ungrouped: one record per day with zeros; group_by=agent, model or repo: rows per day and non-zero group. Owners and managers see the organization; a member sees only their own figures (meta.user_id). docs/impact.md describes the method.',
    access: user(CODE_ROLES),
    query: ANALYTICS_QUERY.code,
    responses: { 200: CodeResponse },
  },
  {
    method: 'GET',
    path: COMMITS_PATH,
    tag: 'Analytics',
    summary: 'Landed commits with their lines and agent lines by agent and model, newest first, paged',
    description:
      'Commits dated by committer time from startDate to endDate. next_cursor is the last commit of the page. A member sees only their own commits.',
    access: user(CODE_ROLES),
    query: CommitsQuery,
    responses: { 200: CommitPage },
  },
  {
    method: 'GET',
    path: TODAY_PATH,
    tag: 'Analytics',
    summary: "Today so far: the current UTC day's tokens, tools, activity and productivity records, provisional",
    description:
      "The records of /tokens, /tools, /activity and /productivity for the current UTC day, computed by the same rules (the nightly batch's own build steps) over what has arrived; an event is counted within seconds of reaching the server (at most 60 s). Owners and managers get the organization's figures; a member gets the same records over their own records only. With team=NAME (owners and managers), the records over today's members of that team and the teams below it (400 for an unknown team, 403 below the minimum team size). `code` is null until the code-impact figures (/code) are served. The daily endpoints keep refusing today.",
    access: user(PEOPLE),
    query: TodayQuery,
    responses: { 200: TodayResponse },
  },
];

const exactly = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/**
 * Routes that are not part of the API and so not in the document, matched on the Fastify path: the docs
 * page and its assets, and the dashboard's static files: its client-side pages (CLIENT_ROUTES, so a new
 * page is left out on its own), its hashed assets and its icon.
 */
export const NOT_IN_DOCUMENT: readonly RegExp[] = [
  /^\/docs(\/.*)?$/,
  // The SCIM 2.0 service describes itself to directories (/scim/v2/ServiceProviderConfig, /Schemas) and
  // answers SCIM bodies, not this document's; docs/scim.md describes it.
  /^\/scim\/v2(\/.*)?$/,
  ...CLIENT_ROUTES.map(exactly),
  /^\/assets\/\*$/,
  exactly('/favicon.svg'),
  /^\/\*$/,
];
