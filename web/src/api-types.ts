// The types of every API answer the dashboard reads, taken from the zod schemas the server answers with
// (and /openapi.json is generated from), so a page cannot expect a field the server does not send. One
// module, so a schema that moves changes one import here. Type-only imports: Vite erases them, and no
// server code reaches the bundle (test/unit/boundaries.unit.test.ts refuses a value import from api/).
import type { z } from 'zod';
import type { Adoption as AdoptionSchema } from '../../api/adoption/schema.ts';
import type { AlertSettingsView } from '../../api/alert-settings/schema.ts';
import type {
  ActivityAgentRow,
  ActivityRecord,
  ActivityResponse,
  ActivityTeamRow,
  ProductivityDecisionRow,
  ProductivityRecord,
  ProductivityResponse,
  ProductivityTeamRow,
  TokenAgentRow,
  TokenGroupedRow,
  TokensResponse,
  TokenTeamRow,
  ToolRecord,
  ToolsResponse,
  ToolTeamRow,
  UserRecord,
  UsersResponse,
} from '../../api/analytics/schema.ts';
import type { BatchRunList } from '../../api/batch/schema.ts';
import type { AlertList, BudgetList } from '../../api/budgets/schema.ts';
import type { CodeGroupedRow, CodeRecord, CodeResponse, CommitPage } from '../../api/code/schema.ts';
import type { ComputerPage } from '../../api/computers/schema.ts';
import type { ControlHistory } from '../../api/controls/schema.ts';
import type { DeviceRequest as DeviceRequestSchema } from '../../api/device/schema.ts';
import type { DigestPreview as DigestPreviewSchema } from '../../api/digest/schema.ts';
import type { ForecastAnswer } from '../../api/forecast/schema.ts';
import type { CreatedKey, KeyList } from '../../api/keys/schema.ts';
import type { LimitStatus, LimitsUpdate } from '../../api/limits/schema.ts';
import type { MachineList } from '../../api/machines/schema.ts';
import type { SignInOptions } from '../../api/oidc/schema.ts';
import type { PullRequestAnalytics, PullRequestDay, PullRequestGroupRow } from '../../api/pull-requests/schema.ts';
import type { SessionPage } from '../../api/sessions/schema.ts';
import type { Me as MeSchema, SignInState as SignInStateSchema } from '../../api/signin/schema.ts';
import type { TeamList } from '../../api/teams/schema.ts';
import type { TodayResponse } from '../../api/today/schema.ts';
import type { UserList, UserUsage } from '../../api/users/schema.ts';
import type { ReadinessList } from '../../common/readiness.ts';

/** An analytics answer asked with one `group_by` (or none): its `data` holds rows of that one kind, one the answer may hold. */
type Rows<Answer extends { data: readonly unknown[] }, Row extends Answer['data'][number]> = Omit<Answer, 'data'> & { data: Row[] };

// ------------------------------------------------------------------ sign-in
export type Me = z.output<typeof MeSchema>;
export type SignInState = z.output<typeof SignInStateSchema>;
export type SignInChoices = z.output<typeof SignInOptions>;

// ------------------------------------------------------------------ analytics (/api/v1/analytics/…)
export type TokenGroupRow = z.output<typeof TokenGroupedRow>;
export type TokenAgentGroupRow = z.output<typeof TokenAgentRow>;
export type ActivityDay = z.output<typeof ActivityRecord>;
export type ActivityAgentGroupRow = z.output<typeof ActivityAgentRow>;
export type ToolDay = z.output<typeof ToolRecord>;
export type ProductivityDay = z.output<typeof ProductivityRecord>;
export type UserDay = z.output<typeof UserRecord>;
export type TokenTeamGroupRow = z.output<typeof TokenTeamRow>;
export type ToolTeamGroupRow = z.output<typeof ToolTeamRow>;
export type ActivityTeamGroupRow = z.output<typeof ActivityTeamRow>;
export type ProductivityTeamGroupRow = z.output<typeof ProductivityTeamRow>;
/** group_by=agent|tool_name|language of /productivity: edit decisions (docs/metrics.md §11). */
export type EditDecisionGroupRow = z.output<typeof ProductivityDecisionRow>;
export type CodeDay = z.output<typeof CodeRecord>;
export type CodeGroupRow = z.output<typeof CodeGroupedRow>;

export type TokensByModel = Rows<z.output<typeof TokensResponse>, TokenGroupRow>;
export type TokensByAgent = Rows<z.output<typeof TokensResponse>, TokenAgentGroupRow>;
export type TokensByTeam = Rows<z.output<typeof TokensResponse>, TokenTeamGroupRow>;
export type Activity = Rows<z.output<typeof ActivityResponse>, ActivityDay>;
export type ActivityByAgent = Rows<z.output<typeof ActivityResponse>, ActivityAgentGroupRow>;
export type ActivityByTeam = Rows<z.output<typeof ActivityResponse>, ActivityTeamGroupRow>;
export type Tools = Rows<z.output<typeof ToolsResponse>, ToolDay>;
export type ToolsByTeam = Rows<z.output<typeof ToolsResponse>, ToolTeamGroupRow>;
export type Productivity = Rows<z.output<typeof ProductivityResponse>, ProductivityDay>;
export type ProductivityByTeam = Rows<z.output<typeof ProductivityResponse>, ProductivityTeamGroupRow>;
export type EditDecisionsByAgent = Rows<z.output<typeof ProductivityResponse>, EditDecisionGroupRow>;
export type Code = Rows<z.output<typeof CodeResponse>, CodeDay>;
/** group_by=repo and group_by=team of /api/v1/analytics/code. */
export type CodeGrouped = Rows<z.output<typeof CodeResponse>, CodeGroupRow>;
export type UsersPage = z.output<typeof UsersResponse>;
export type Today = z.output<typeof TodayResponse>;
export type Commits = z.output<typeof CommitPage>;
export type PullRequestDays = Rows<z.output<typeof PullRequestAnalytics>, z.output<typeof PullRequestDay>>;
/** group_by=repo|team|agent of /api/v1/analytics/pull_requests. */
export type PullRequestGroups = Rows<z.output<typeof PullRequestAnalytics>, z.output<typeof PullRequestGroupRow>>;

// ------------------------------------------------------------------ people, teams, the organization
export type PersonUsage = z.output<typeof UserUsage>;
export type Teams = z.output<typeof TeamList>;
export type OrganizationUsers = z.output<typeof UserList>;
export type OrganizationUser = OrganizationUsers['users'][number];
export type Limits = z.output<typeof LimitStatus>;
export type LimitsSaved = z.output<typeof LimitsUpdate>;
export type ControlChanges = z.output<typeof ControlHistory>;
export type ControlChange = ControlChanges['changes'][number];
export type Adoption = z.output<typeof AdoptionSchema>;
export type Budgets = z.output<typeof BudgetList>;
export type Budget = Budgets['budgets'][number];
export type Alerts = z.output<typeof AlertList>;
export type Forecast = z.output<typeof ForecastAnswer>;
export type Alert = Alerts['alerts'][number];
export type AlertSettings = z.output<typeof AlertSettingsView>;
export type DigestPreview = z.output<typeof DigestPreviewSchema>;

// ------------------------------------------------------------------ machines, keys, pipeline, sessions
export type Keys = z.output<typeof KeyList>;
export type Key = Keys['keys'][number];
export type NewKey = z.output<typeof CreatedKey>;
export type DeviceRequest = z.output<typeof DeviceRequestSchema>;
export type Machines = z.output<typeof MachineList>;
export type Machine = Machines['machines'][number];
export type BatchRuns = z.output<typeof BatchRunList>;
export type BatchRun = BatchRuns['runs'][number];
export type Sessions = z.output<typeof SessionPage>;
export type Session = Sessions['sessions'][number];
export type Computers = z.output<typeof ComputerPage>;
export type Computer = Computers['computers'][number];
export type ReadinessReports = z.output<typeof ReadinessList>;
export type ReadinessReport = ReadinessReports['reports'][number];
