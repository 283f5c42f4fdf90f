// The analytics endpoints' request and answer schemas: their paths, each endpoint's query parameters
// (docs/metrics.md §4; query.ts holds the rules across parameters) and the responses (service-api.md
// "Analytics envelope" and the records after it) as zod. The OpenAPI document is generated from these,
// and test servers check every answer against them. assemble.ts builds the records; a field added there
// goes here too.
import { z } from 'zod';
import { AGENTS } from '../../common/agents.ts';
import { USER_ID_PATTERN } from '../../common/ids.ts';
import { EARLIEST_DATE, parseDay } from '../../common/time.ts';
import { AgentName, AUTONOMY_LEVELS } from '../../common/wire.ts';
import { Day, dayParamError, utcDay } from '../http/dates.ts';
import { teamParam } from '../http/query.ts';
import { CLIENTS } from './assemble.ts';

/** The path of each daily analytics endpoint. */
export const analyticsPath = (endpoint: Endpoint) => `/api/v1/analytics/${endpoint}` as const;

export { EARLIEST_DATE };
export const MAX_SPAN_DAYS = 366;

/**
 * The reference's group_by of each endpoint, then ours: `agent` (docs/metrics.md §1) and `team` (§6) are
 * agentmeter extensions.
 */
export const GROUP_BY = {
  tokens: ['model', 'agent', 'team', 'repo'],
  tools: ['tool_name', 'agent', 'team'],
  activity: ['client', 'agent', 'team'],
  productivity: ['agent', 'tool_name', 'language', 'team'],
  users: [],
  code: ['agent', 'model', 'repo', 'team'],
} as const;
export type Endpoint = keyof typeof GROUP_BY;

const GROUP_BY_DESCRIPTION: Partial<Record<Endpoint, string>> = {
  tokens:
    'model: one row per day and model; repo (ours): one row per day and repository of the sessions’ working directory (its normalized host/path, as /code names it; sessions outside a repository are in no row)',
  tools: 'tool_name: one row per day and tool (its tool_calls)',
  activity: 'client: one row per day and client type (its daily_active_users; a user of two clients counts under each)',
  code: 'model: one row per day and model (docs/metrics.md §5); repo: one row per day and repository (its normalized host/path)',
  productivity:
    'tool_name, language: one row per day and edit tool or language with its edit decisions (docs/metrics.md §11); agent rows carry the edit decisions too',
};
const AGENT_DESCRIPTION = `agent, an agentmeter extension (not in the reference): one row per day and agent (${AGENTS.join(', ')}) with the same fields`;
const TEAM_DESCRIPTION =
  "team, an agentmeter extension: one row per day and team (group_key: the team's name) over its direct members that day, teams below the minimum team size left out";

const dayParam = (name: string) =>
  utcDay(dayParamError(name))
    .refine((value) => parseDay(value) !== undefined, {
      error: (issue) => `${name} "${String(issue.input)}" is not a valid date (YYYY-MM-DD)`,
    })
    .describe(`YYYY-MM-DD (UTC), from ${EARLIEST_DATE} to yesterday; a span of at most ${MAX_SPAN_DAYS} days`);

/**
 * Each endpoint's query parameters: which it takes and the rule of each value (the OpenAPI document is
 * generated from these). The rules across parameters and the date of today are parseAnalyticsQuery's.
 */
export const ANALYTICS_QUERY = Object.fromEntries(
  (Object.keys(GROUP_BY) as Endpoint[]).map((endpoint) => {
    const options = GROUP_BY[endpoint] as readonly string[];
    const shape: Record<string, z.ZodType> = { startDate: dayParam('startDate'), endDate: dayParam('endDate') };
    if (options.length)
      shape['group_by'] = z
        .enum(options as [string, ...string[]], {
          error: (issue) => `group_by "${String(issue.input)}" is not supported here; use ${options.map((o) => `"${o}"`).join(' or ')}`,
        })
        .optional()
        .describe(
          `${[GROUP_BY_DESCRIPTION[endpoint], options.includes('agent') ? AGENT_DESCRIPTION : undefined, TEAM_DESCRIPTION].filter(Boolean).join('; or ')}. Grouped rows: only non-zero groups, by date then group_key`,
        );
    shape['team'] = teamParam(
      "an agentmeter extension: the answer over the users who were members of this team or of a team below it on each day (403 when fewer than the organization's minimum team size)",
    );
    if (endpoint === 'users') {
      shape['limit'] = z
        .string()
        .regex(/^\d+$/, { error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"` })
        .refine((v) => Number(v) >= 1 && Number(v) <= 100, {
          error: (issue) => `limit must be a whole number from 1 to 100; got "${String(issue.input)}"`,
        })
        .optional()
        .describe('page size, 1-100 (default 20)');
      // The rule parseAnalyticsQuery enforces, here too so that the document says it.
      shape['cursor'] = z
        .string()
        .regex(USER_ID_PATTERN, {
          error: (issue) =>
            `cursor must be a user id (usr_ and 16 hex digits) taken from meta.next_cursor; got "${String(issue.input).slice(0, 40)}"`,
        })
        .optional()
        .describe('meta.next_cursor of the previous page: a user id');
    }
    return [endpoint, z.strictObject(shape)];
  }),
) as Record<Endpoint, z.ZodObject>;

const count = z.number().int().nonnegative();
const ModelTier = z.enum(['standard', 'thinking']);
/** group_by=agent is an agentmeter extension: the reference's grouped row with the agent as group_key. */
const AgentKey = AgentName.describe('the agent (group_by=agent, an agentmeter extension)');

/** US dollars (docs/metrics.md §8, an agentmeter extension): 4 decimals; null when nothing of it has a price. */
export const CostUsd = z
  .number()
  .nullable()
  .describe(
    'US dollars at list price (or the organization’s own price), 4 decimals; an agentmeter extension. The sum of the priced usage; null when none of it has a price (the models without one are in meta.unpriced_models)',
  );

const ModelTotals = z.strictObject({
  model_id: z.string(),
  model_tier: ModelTier,
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: CostUsd,
});

export const TokenRecord = z.strictObject({
  date: Day,
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  cost_usd: CostUsd,
  by_model: z.array(ModelTotals),
  by_user: z.array(
    z.strictObject({
      user_id: z.string(),
      user_email: z.string().nullable(),
      billable_tokens: z.number(),
      cost_usd: CostUsd,
      by_model: z.array(ModelTotals),
    }),
  ),
});
export const TokenGroupedRow = z.strictObject({
  date: Day,
  group_key: z.string().describe('model id'),
  billable_tokens: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: CostUsd,
});
export const TokenAgentRow = TokenGroupedRow.extend({ group_key: AgentKey });

const named = <K extends string, V extends string>(key: K, value: V) =>
  z.strictObject({ [key]: z.string(), [value]: count } as { [P in K | V]: P extends K ? z.ZodString : typeof count });

export const ToolRecord = z.strictObject({
  date: Day,
  tool_calls: count,
  by_tool: z.array(named('tool', 'invocations')),
  mcp_users_with_mcp: count,
  mcp_by_server: z.array(named('server', 'invocations')),
  skills_invocations: count,
  skills_by_name: z.array(named('name', 'count')),
  slash_commands_invocations: count,
  slash_commands_by_name: z.array(named('name', 'count')),
  hooks_invocations: count,
  hooks_by_event: z.array(z.strictObject({ event: z.string(), matcher: z.string(), command: z.string(), count })),
  web_users: count,
  autonomy_ratio_avg: z.number(),
  autonomy_ratio_p50: z.number(),
  autonomy_ratio_p90: z.number(),
  tool_calls_per_session_avg: z.number(),
  user_turns_per_session_avg: z.number(),
  tool_autonomy_level_ratio: z.strictObject({ auto_high: z.number(), auto_medium: z.number(), auto_low: z.number(), manual: z.number() }),
});
export const ToolGroupedRow = z.strictObject({ date: Day, group_key: z.string().describe('tool name'), tool_calls: count });
export const ToolAgentRow = ToolGroupedRow.extend({ group_key: AgentKey });

export const ActivityRecord = z.strictObject({
  date: Day,
  daily_active_users: count,
  weekly_active_users: count,
  monthly_active_users: count,
  daily_active_users_by_client: z.strictObject(
    Object.fromEntries(CLIENTS.map((c) => [c, count])) as Record<(typeof CLIENTS)[number], typeof count>,
  ),
  sessions: count,
  messages: count,
  user_messages: count,
});
export const ActivityGroupedRow = z.strictObject({ date: Day, group_key: z.enum(CLIENTS), daily_active_users: count });
export const ActivityAgentRow = ActivityGroupedRow.extend({ group_key: AgentKey });

/** Edit decisions an agent reported (docs/metrics.md §11, an agentmeter extension). */
const editDecisions = {
  edits_accepted: count.describe('proposed edits the person accepted, as the agents reported them through OpenTelemetry'),
  edits_rejected: count.describe('proposed edits the person rejected'),
  edit_acceptance_rate: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe('edits_accepted / (edits_accepted + edits_rejected), to 4 decimals; null when no decision was reported'),
};

export const ProductivityRecord = z.strictObject({
  date: Day,
  files_created: count,
  files_edited: count,
  by_extension: z.array(named('extension', 'count')),
  by_language: z.array(named('language', 'count')),
  git_commits: count,
  git_prs_created: count,
  ...editDecisions,
});

/** group_by=agent|tool_name|language on /productivity: the edit decisions of one agent, edit tool or language. */
export const ProductivityDecisionRow = z.strictObject({ date: Day, group_key: z.string(), ...editDecisions });

export const UserRecord = z.strictObject({
  user_id: z.string(),
  user_email: z.string().nullable(),
  date: Day,
  tool_calls: count,
  billable_tokens: z.number(),
  primary_model: z.string().nullable(),
  primary_model_tier: ModelTier.nullable(),
  files_created: count,
  files_edited: count,
  git_commits: count,
  git_prs_created: count,
  mcp_calls: count,
  skill_calls: count,
  slash_commands: count,
  hooks: count,
  sessions: count,
  messages: count,
  user_messages: count,
  assistant_messages: count,
  autonomy_ratio: z.number().nullable(),
  delegation_level: z.enum(AUTONOMY_LEVELS).nullable(),
  languages: z.array(z.string()),
  lines_added: count.describe('lines the agents added in edits this day (docs/metrics.md §5, an agentmeter extension)'),
  landed_agent_lines: count.describe("agent-written lines of this user's commits that landed this day (docs/metrics.md §5)"),
  cost_usd: CostUsd,
});

const Meta = z.strictObject({ org_id: z.string(), start_date: Day, end_date: Day });

// meta.totals (an agentmeter extension): the range in one, computed by the server (api/analytics/totals.ts)
// so that no reader sums, averages or divides the daily records itself.
const TOTALS = 'the range in one (an agentmeter extension): sums of the records, and each ratio over those sums';
const RangeCost = CostUsd.describe(
  'US dollars of the range, 4 decimals: the sum of its priced usage; null when there was usage and none of it had a price; 0 without usage',
);
export const TokenTotals = z.strictObject({ billable_tokens: z.number(), cost_usd: RangeCost });
export const TokenGroupTotals = z.array(TokenTotals.extend({ group_key: z.string() }));
export const ToolTotals = z.strictObject({
  tool_calls: count,
  skills_invocations: count,
  slash_commands_invocations: count,
  hooks_invocations: count,
  autonomy_ratio_avg: z
    .number()
    .describe("the mean of the days' autonomy_ratio_avg over the days with a tool call (a quiet day would pull it down); 0 without one"),
  by_tool: z.array(named('tool', 'invocations')),
  mcp_by_server: z.array(named('server', 'invocations')),
  skills_by_name: z.array(named('name', 'count')),
  slash_commands_by_name: z.array(named('name', 'count')),
  hooks_by_event: z.array(z.strictObject({ event: z.string(), matcher: z.string(), command: z.string(), count })),
});
export const ActivityTotals = z.strictObject({ sessions: count, messages: count, user_messages: count });
const GROUP_TOTALS = 'each group over the range (an agentmeter extension), on every grouped answer';
export const ToolGroupTotals = z.array(z.strictObject({ group_key: z.string(), tool_calls: count }));
export const ActivityGroupTotals = z.array(
  z.strictObject({
    group_key: z.string(),
    peak_daily_active_users: count.describe('the most daily active users of a day of the range (people are not summed over days)'),
  }),
);
export const ProductivityGroupTotals = z.array(
  z.strictObject({ group_key: z.string(), files_created: count, files_edited: count, git_commits: count, git_prs_created: count }),
);
export const ProductivityTotals = z.strictObject({
  files_created: count,
  files_edited: count,
  git_commits: count,
  git_prs_created: count,
  ...editDecisions,
  by_extension: z.array(named('extension', 'count')),
  by_language: z.array(named('language', 'count')),
});
export const AgentDecisions = z.array(
  z
    .strictObject({ agent: AgentName, ...editDecisions })
    .describe(
      'an agent used in the range, or that reported a decision: its edit decisions over the range; edit_acceptance_rate null: it reported none (not reported, never 0%)',
    ),
);
export const PersonTotals = z.strictObject({
  active_days: count,
  billable_tokens: z.number(),
  cost_usd: RangeCost,
  tool_calls: count,
  sessions: count,
  messages: count,
  files_created: count,
  files_edited: count,
  git_commits: count,
  git_prs_created: count,
  primary_model: z
    .string()
    .nullable()
    .describe('the model that was primary on the days with the most Standard Credits (ties by name); null without one'),
});

/** /tokens names the models its rows could not price (docs/metrics.md §8). */
const TokensMeta = Meta.extend({
  unpriced_models: z
    .array(z.string())
    .describe('models in the range without a dollar price (list or the organization’s): their cost_usd is null and adds nothing to a sum'),
  tokens_not_reported: z
    .array(AgentName)
    .describe(
      'agents used in the range (an event of theirs) that reported no token usage in it, an agentmeter extension: Cursor keeps none on the machine. Their tokens are not reported, never zero: no row of theirs, and no part of any sum',
    ),
  totals: TokenTotals.optional().describe(`${TOTALS}; without group_by, and with group_by=model or agent`),
  group_totals: TokenGroupTotals.optional().describe(`${GROUP_TOTALS}: by Standard Credits descending, then group_key`),
});
const ToolsMeta = Meta.extend({
  totals: ToolTotals.optional().describe(`${TOTALS}; without group_by`),
  group_totals: ToolGroupTotals.optional().describe(`${GROUP_TOTALS}: by calls descending, then group_key`),
});
const ActivityMeta = Meta.extend({
  totals: ActivityTotals.optional().describe(`${TOTALS}; without group_by`),
  group_totals: ActivityGroupTotals.optional().describe(`${GROUP_TOTALS}: by peak descending, then group_key`),
});
const ProductivityMeta = Meta.extend({
  totals: ProductivityTotals.optional().describe(`${TOTALS}; without group_by`),
  group_totals: ProductivityGroupTotals.optional().describe(`group_by=team: ${GROUP_TOTALS}, by commits descending, then group_key`),
  by_agent: AgentDecisions.optional().describe('group_by=agent (an agentmeter extension): each agent over the range, by agent'),
});
/**
 * `data` is one record per day, or with group_by one row per day and group (only non-zero groups). Typed
 * as an array of one of those kinds, so a client naming the rows it asked for (web/src/api-types.ts) is
 * checked against the kinds the answer may hold.
 */
const envelopeWith =
  <M extends z.ZodType>(meta: M) =>
  <R extends z.ZodType, G extends z.ZodType[]>(record: R, ...grouped: G) =>
    z.strictObject({
      data: (grouped.length ? z.union([z.array(record), ...grouped.map((g) => z.array(g))]) : z.array(record)) as z.ZodType<
        z.output<R>[] | { [K in keyof G]: z.output<G[K]>[] }[number]
      >,
      meta,
    });

/** group_by=team (an agentmeter extension, docs/metrics.md §6): the team's name as group_key. */
const TeamKey = z.string().describe("the team's name (group_by=team, an agentmeter extension)");
export const TokenTeamRow = TokenGroupedRow.extend({ group_key: TeamKey });
/** group_by=repo (ours): the repository's normalized host/path as group_key. */
export const TokenRepoRow = TokenGroupedRow.extend({
  group_key: z.string().describe("the repository of the sessions' working directory, host/path (group_by=repo, an agentmeter extension)"),
});
export const ToolTeamRow = ToolGroupedRow.extend({ group_key: TeamKey });
export const ActivityTeamRow = ActivityGroupedRow.extend({ group_key: TeamKey });
export const ProductivityTeamRow = z.strictObject({
  date: Day,
  group_key: TeamKey,
  files_created: count,
  files_edited: count,
  git_commits: count,
  git_prs_created: count,
});

export const TokensResponse = envelopeWith(TokensMeta)(TokenRecord, TokenGroupedRow, TokenAgentRow, TokenTeamRow, TokenRepoRow);
export const ToolsResponse = envelopeWith(ToolsMeta)(ToolRecord, ToolGroupedRow, ToolAgentRow, ToolTeamRow);
export const ActivityResponse = envelopeWith(ActivityMeta)(ActivityRecord, ActivityGroupedRow, ActivityAgentRow, ActivityTeamRow);
export const ProductivityResponse = envelopeWith(ProductivityMeta)(ProductivityRecord, ProductivityDecisionRow, ProductivityTeamRow);
export const UsersResponse = z.strictObject({
  data: z.array(UserRecord),
  meta: Meta.extend({
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    people: z
      .array(PersonTotals.extend({ user_id: z.string(), user_email: z.string().nullable() }))
      .describe('each person of the page over the range (an agentmeter extension; their records are all on this page), in page order'),
  }),
});
