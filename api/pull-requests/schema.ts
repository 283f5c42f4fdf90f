// Pull requests at the boundary: the webhook paths the code hosts call, the owners' routes that set each
// host's secret, and their answers (docs/pull-requests.md).
import { z } from 'zod';
import { Day, dayParamError, IsoTime, utcDay } from '../http/dates.ts';
import { teamParam } from '../http/query.ts';
import { CODE_HOSTS } from './payloads.ts';

export const GITHUB_HOOK_PATH = '/api/v1/hooks/github/:orgId';
export const GITLAB_HOOK_PATH = '/api/v1/hooks/gitlab/:orgId';
export const CODEHOSTS_PATH = '/api/v0/organization/codehosts';
export const CODEHOST_PATH = '/api/v0/organization/codehosts/:host';

/** The URL a host is given for an organization. */
export const hookPath = (host: 'github' | 'gitlab', orgId: string) =>
  (host === 'github' ? GITHUB_HOOK_PATH : GITLAB_HOOK_PATH).replace(':orgId', encodeURIComponent(orgId));

/** A delivery is JSON of at most this much (GitHub's pull_request payloads are tens of kilobytes). */
export const HOOK_BODY_LIMIT = 2 * 1024 * 1024;

export const HookParams = z.strictObject({ orgId: z.string().regex(/^org_[0-9a-f]{16}$/, 'an organization id (org_…)') });
export const HostParams = z.strictObject({ host: z.enum(CODE_HOSTS) });

export const DeliveryAnswer = z.object({
  status: z.enum(['accepted', 'ignored', 'duplicate']),
  detail: z.string(),
});
export type DeliveryAnswer = z.infer<typeof DeliveryAnswer>;

export const SetSecretBody = z.strictObject({
  secret: z
    .string()
    .min(16, 'a webhook secret has at least 16 characters')
    .max(1024)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'a webhook secret has no control characters'),
});

export const CodeHostView = z.object({
  host: z.enum(CODE_HOSTS),
  setBy: z.string(),
  setAt: IsoTime,
  /** The path to give the host, after the server's address. */
  webhookPath: z.string(),
});
export const CodeHostList = z.object({ codehosts: z.array(CodeHostView) });
export const RemovedAnswer = z.object({ removed: z.boolean() });

export const PR_ANALYTICS_PATH = '/api/v1/analytics/pull_requests';
export const PR_LIST_PATH = '/api/v0/code/pull_requests';

const usd = z.number().nullable().describe('US dollars, 4 decimals; null when a session it holds used a model without a price');
const dateParam = (name: 'startDate' | 'endDate', what: string) =>
  utcDay(dayParamError(name), `${what} is required (YYYY-MM-DD)`).describe(`YYYY-MM-DD (UTC), ${what}`);

export const PullRequestAnalyticsQuery = z.strictObject({
  startDate: dateParam('startDate', 'the first day of merge'),
  endDate: dateParam('endDate', 'the last day of merge, before today'),
  group_by: z
    .enum(['repo', 'team', 'agent'], { error: 'group_by must be one of repo, team, agent' })
    .optional()
    .describe(
      "repo: the pull request's repository (host/path); team: the teams of the people whose commits it holds; agent: each agent with lines in it",
    ),
  team: teamParam(
    "the pull requests holding commits of the people who were members of this team or of a team below it on the day of merge, and their sessions' cost that reached none (403 when fewer than the organization's minimum team size)",
  ),
});

export const PullRequestDay = z.strictObject({
  date: Day,
  merged: z.number().int(),
  merged_with_agent_lines: z.number().int(),
  lines_added: z.number().int(),
  agent_lines: z.number().int(),
  agent_share: z.number().describe('agent_lines / lines_added, 4 decimals (0 without lines)'),
  median_hours_to_merge: z.number().nullable(),
  cost_usd: usd,
  cost_per_merged_usd: usd.describe('cost_usd / merged; null without merged pull requests'),
  not_shipped_cost_usd: usd.describe("the day's cost of agent sessions whose lines reached no merged pull request"),
});
export const PullRequestGroupRow = z.strictObject({
  date: Day,
  group_key: z.string(),
  merged: z.number().int(),
  merged_with_agent_lines: z.number().int(),
  agent_lines: z.number().int(),
  median_hours_to_merge: z.number().nullable(),
  cost_usd: usd,
  cost_per_merged_usd: usd,
});
/** The range in one, so that no reader (the dashboard, a script) derives a ratio of its own. */
export const PullRequestTotals = z.strictObject({
  merged: z.number().int(),
  merged_with_agent_lines: z.number().int(),
  lines_added: z.number().int(),
  agent_lines: z.number().int(),
  agent_share: z.number().describe('agent_lines / lines_added over the range, 4 decimals (0 without lines)'),
  cost_usd: usd.describe("the range's dollars; null when a day's are"),
  cost_per_merged_usd: usd.describe('cost_usd / merged over the range, 4 decimals; null when cost_usd is, or nothing merged'),
  not_shipped_cost_usd: usd.describe("the range's cost of agent sessions whose lines reached no merged pull request"),
});
export const PullRequestAnalytics = z.strictObject({
  data: z.union([z.array(PullRequestDay), z.array(PullRequestGroupRow)]),
  meta: z.strictObject({
    org_id: z.string(),
    start_date: Day,
    end_date: Day,
    user_id: z.string().optional(),
    totals: PullRequestTotals.optional().describe('the range in one (an agentmeter extension), on the answer without group_by'),
    group_totals: z
      .array(
        z.strictObject({
          group_key: z.string(),
          merged: z.number().int(),
          merged_with_agent_lines: z.number().int(),
          agent_lines: z.number().int(),
          cost_usd: usd,
          cost_per_merged_usd: usd,
        }),
      )
      .optional()
      .describe('with group_by (an agentmeter extension): each group over the range, most merged first, then group_key'),
  }),
});
export type PullRequestAnalytics = z.infer<typeof PullRequestAnalytics>;

/**
 * `cursor`: meta.next_cursor of the page before: `<merged epoch ms>.<number>.<repo>`. The repository is
 * any name a pull request may be stored with (common/repo-id.ts repoNameProblem), so every page has one.
 */
export const PR_CURSOR = /^(\d{1,15})\.(\d{1,12})\.(.{1,512})$/s;

export const PullRequestListQuery = z.strictObject({
  startDate: dateParam('startDate', 'the first day of merge'),
  endDate: dateParam('endDate', 'the last day of merge (today included)'),
  limit: z
    .string()
    .regex(/^\d+$/, { error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"` })
    .refine((v) => Number(v) >= 1 && Number(v) <= 100, {
      error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"`,
    })
    .optional()
    .describe('page size, 1-100 (default 20)'),
  cursor: z.string().regex(PR_CURSOR, 'cursor must be meta.next_cursor of the previous page').optional(),
  team: teamParam(
    "an agentmeter extension: the pull requests holding commits of the people who were members of this team or of a team below it on the day of merge (owners and managers; 403 below the organization's minimum team size)",
  ),
});

export const PullRequestItem = z.strictObject({
  repo: z.string(),
  number: z.number().int(),
  host: z.enum(CODE_HOSTS),
  author: z.string().nullable().describe("the author's address as the host gives it (GitHub: the account's no-reply address)"),
  opened_at: IsoTime,
  merged_at: IsoTime,
  hours_to_merge: z.number(),
  commits: z.array(z.string()).describe('the landed commits it brought that agentmeter knows'),
  lines_added: z.number().int(),
  agent_lines: z.number().int(),
  agent_share: z.number(),
  by_agent: z.array(z.strictObject({ agent: z.string(), model_id: z.string(), lines: z.number().int() })),
  cost_usd: usd,
});
export const PullRequestPage = z.strictObject({
  data: z.array(PullRequestItem),
  meta: z.strictObject({
    org_id: z.string(),
    start_date: Day,
    end_date: Day,
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    user_id: z.string().optional(),
  }),
});
export type PullRequestPage = z.infer<typeof PullRequestPage>;
