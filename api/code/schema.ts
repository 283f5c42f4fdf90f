// The paths of GET /api/v1/analytics/code and GET /api/v0/code/commits (docs/metrics.md §5, our extension),
// their answers and the commits endpoint's query (the code endpoint's is ANALYTICS_QUERY.code, in
// api/analytics/schema.ts), as zod: the OpenAPI document is generated from these, and test servers check
// every answer against them.
import { z } from 'zod';
import { AgentName } from '../../common/wire.ts';
import { Day, dayParamError, IsoTime, utcDay } from '../http/dates.ts';
import { teamParam } from '../http/query.ts';

export const CODE_PATH = '/api/v1/analytics/code';
export const COMMITS_PATH = '/api/v0/code/commits';

const count = z.number().int().nonnegative();
const Meta = z.strictObject({ org_id: z.string(), start_date: Day, end_date: Day });

const EditSplit = { lines_added: count, lines_deleted: count };

export const CodeRecord = z.strictObject({
  date: Day,
  edits: z.strictObject({
    ...EditSplit,
    by_agent: z.array(z.strictObject({ agent: AgentName, ...EditSplit })),
    by_model: z.array(z.strictObject({ model_id: z.string(), ...EditSplit })),
    by_language: z.array(z.strictObject({ language: z.string(), ...EditSplit })),
  }),
  landed: z.strictObject({
    commits: count,
    commits_with_agent_lines: count,
    lines_added: count,
    lines_deleted: count,
    agent_lines_added: count,
    agent_share: z.number().min(0).max(1).describe('agent_lines_added / lines_added, 4 decimals (0 when no lines)'),
    cost_usd: z
      .number()
      .nullable()
      .describe(
        "US dollars, 4 decimals: for each agent session whose lines the day's landed commits hold, its cost times the share of its credited lines they hold; null when such a session used a model without a price",
      ),
    by_agent: z.array(z.strictObject({ agent: AgentName, lines: count })),
    by_model: z.array(z.strictObject({ model_id: z.string(), lines: count })),
  }),
});
export type CodeRecord = z.infer<typeof CodeRecord>;

export const CodeGroupedRow = z.strictObject({
  date: Day,
  group_key: z.string().describe("the agent, the model id, the repository (normalized host/path), or the team's name"),
  edit_lines_added: count.describe(
    'edit lines added; for group_by=repo, those of files inside a work tree of that repository (edits outside any repository belong to no row)',
  ),
  landed_lines_added: count.describe('0 for group_by=agent and model'),
  landed_agent_lines: count,
});
export type CodeGroupedRow = z.infer<typeof CodeGroupedRow>;

/** The range's figures in one, so that no reader (the dashboard, a script) derives a ratio of its own. */
export const CodeTotals = z.strictObject({
  edit_lines_added: count.describe('edit lines added over the range'),
  landed_lines_added: count,
  agent_lines_added: count.describe('landed agent lines over the range'),
  commits: count,
  commits_with_agent_lines: count,
  agent_share: z.number().min(0).max(1).describe('agent_lines_added / landed_lines_added, 4 decimals (0 when no lines)'),
  landed_rate: z
    .number()
    .min(0)
    .describe('agent_lines_added / edit_lines_added: how much of what the agents wrote landed, 4 decimals (0 when no edit lines)'),
});
export type CodeTotals = z.infer<typeof CodeTotals>;

export const CodeResponse = z.strictObject({
  data: z.union([z.array(CodeRecord), z.array(CodeGroupedRow)]),
  meta: Meta.extend({
    user_id: z.string().optional().describe('set when the answer is one member’s own figures'),
    totals: CodeTotals.optional().describe('the range in one, on the answer without group_by'),
    landed_by_agent: z
      .array(z.strictObject({ agent: AgentName, lines: count }))
      .optional()
      .describe(
        "without group_by (an agentmeter extension): the days' landed.by_agent summed over the range, most lines first, then agent",
      ),
    landed_by_model: z
      .array(z.strictObject({ model_id: z.string(), lines: count }))
      .optional()
      .describe(
        "without group_by (an agentmeter extension): the days' landed.by_model summed over the range, most lines first, then model",
      ),
    group_totals: z
      .array(z.strictObject({ group_key: z.string(), edit_lines_added: count, landed_lines_added: count, landed_agent_lines: count }))
      .optional()
      .describe('with group_by (an agentmeter extension): each group over the range, most landed agent lines first, then group_key'),
  }),
});

export const LandedCommit = z.strictObject({
  repo_id: z.string(),
  repo: z.string().describe('normalized host/path of the remote'),
  commit: z.string(),
  user_id: z.string(),
  user_email: z.string().nullable(),
  committed_at: IsoTime.describe('committer time, ISO-8601 UTC'),
  lines_added: count,
  lines_deleted: count,
  agent_lines: count,
  by_agent: z.array(z.strictObject({ agent: AgentName, model_id: z.string(), lines: count })),
  author: z.string().describe("the commit's author address, one of the user's addresses ('' for commits stored before records named it)"),
  by_session: z
    .array(z.strictObject({ agent: AgentName, session_id: z.string(), lines: count }))
    .describe('the agent lines by the agent session that wrote them (empty for commits stored before the ledger kept sessions)'),
});
export type LandedCommit = z.infer<typeof LandedCommit>;

export const CommitPage = z.strictObject({
  data: z.array(LandedCommit),
  meta: Meta.extend({ has_more: z.boolean(), next_cursor: z.string().nullable(), user_id: z.string().optional() }),
});
export type CommitPage = z.infer<typeof CommitPage>;

/** `cursor`: meta.next_cursor of the page before: `<committer epoch ms>.<repo_id>.<commit>`. */
export const COMMIT_CURSOR = /^(\d{1,15})\.(repo_[0-9a-f]{16})\.([0-9a-f]{40}|[0-9a-f]{64})$/;

export const CommitsQuery = z.strictObject({
  team: teamParam(
    "an agentmeter extension: the commits of the users who were members of this team or of a team below it on the commit's day (owners and managers; 403 below the minimum team size)",
  ),
  startDate: utcDay(dayParamError('startDate'), 'startDate is required (YYYY-MM-DD)').describe(
    'YYYY-MM-DD (UTC), the first committer day; the analytics date rules apply',
  ),
  endDate: utcDay(dayParamError('endDate'), 'endDate is required (YYYY-MM-DD)').describe(
    'YYYY-MM-DD (UTC), the last committer day (today included)',
  ),
  limit: z
    .string()
    .regex(/^\d+$/, { error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"` })
    .refine((v) => Number(v) >= 1 && Number(v) <= 100, {
      error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"`,
    })
    .optional()
    .describe('page size, 1-100 (default 20)'),
  cursor: z
    .string()
    .regex(COMMIT_CURSOR, 'cursor must be meta.next_cursor of the previous page')
    .optional()
    .describe('meta.next_cursor of the previous page'),
});
