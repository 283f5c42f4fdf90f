// The teams resource as the API shows it: its paths and its zod schemas (the routes declare them; the CLI
// reads them too).
import { z } from 'zod';
import { Day } from '../http/dates.ts';

export const TEAMS_PATH = '/api/v0/organization/teams';
export const TEAM_SETTINGS_PATH = '/api/v0/organization/teams/settings';

export const TeamMemberView = z.strictObject({
  email: z.string().describe("the member's e-mail"),
  from: Day.nullable().describe('first day of the membership (UTC, inclusive); null: since always'),
  to: Day.nullable().describe('last day (UTC, inclusive); null: still a member'),
});

export const TeamView = z.strictObject({
  name: z.string(),
  parent: z.string().nullable().describe("the parent team's name"),
  members: z.array(TeamMemberView).describe('every membership period, by e-mail then first day'),
});

export const TeamList = z.strictObject({
  teams: z.array(TeamView).describe('by name, case-insensitively'),
  minTeamSize: z.number().int().positive().describe('teams with fewer members on a day are left out of the figures (docs/metrics.md §6)'),
});

export const RosterImported = z.strictObject({
  created: z.array(z.string()).describe('teams the roster created'),
  teams: z.number().int().nonnegative().describe('teams whose memberships the roster replaced'),
  memberships: z.number().int().nonnegative(),
});

export const RosterRefused = z.strictObject({
  title: z.string(),
  detail: z.string(),
  status: z.literal(400),
  requestId: z.string(),
  errors: z.array(z.strictObject({ line: z.number().int().positive(), reason: z.string() })).describe('every bad line of the file'),
});

export const TeamSettings = z.strictObject({
  minTeamSize: z.number().int().min(1).max(10_000).describe('the minimum team size (default 1)'),
});
