// GET /api/v1/analytics/tokens|tools|activity|productivity|users: the {data, meta} envelope of the
// reference, from the daily aggregates. Managers and owners only; members and guests get 403.
// group_by=agent on tokens, tools and activity is ours (docs/metrics.md §1): rows of the reference's grouped
// shape, with the agent as group_key. team= and group_by=team (docs/metrics.md §6) are ours too: api/teams/analytics.ts.
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Principal } from '../auth/principal.ts';
import { ANALYTICS_ROLES } from '../auth/principal.ts';
import { checkSentAnswer, declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics, TeamGroupedEndpoint } from '../teams/analytics.ts';
import {
  activityGroupedByAgent,
  activityGroupedByClient,
  activityRecords,
  DECISION_GROUPS,
  productivityDecisionRows,
  productivityRecords,
  tokenGroupedByAgent,
  tokenGroupedByModel,
  tokenGroupedByRepo,
  tokenRecords,
  tokensNotReported,
  toolGroupedByAgent,
  toolGroupedByName,
  toolRecords,
  unpricedModels,
  userRecords,
} from './assemble.ts';
import { type AnalyticsQuery, parseAnalyticsQuery } from './query.ts';
import {
  ActivityResponse,
  ANALYTICS_QUERY,
  analyticsPath,
  type Endpoint,
  ProductivityResponse,
  TokensResponse,
  ToolsResponse,
  UsersResponse,
} from './schema.ts';
import type { AnalyticsReader, AnalyticsStore } from './store.ts';
import {
  activityGroupTotals,
  activityTotals,
  decisionsByAgent,
  peopleTotals,
  productivityGroupTotals,
  productivityTotals,
  tokenGroupTotals,
  tokenTotals,
  toolGroupTotals,
  toolTotals,
} from './totals.ts';

/** group_by=team: each team over the range (meta.group_totals), as the endpoint's groups are summed. */
function teamTotals(endpoint: TeamGroupedEndpoint, rows: unknown[]) {
  if (endpoint === 'tokens') return tokenGroupTotals(rows as Parameters<typeof tokenGroupTotals>[0]);
  if (endpoint === 'tools') return toolGroupTotals(rows as Parameters<typeof toolGroupTotals>[0]);
  if (endpoint === 'activity') return activityGroupTotals(rows as Parameters<typeof activityGroupTotals>[0]);
  return productivityGroupTotals(rows as Parameters<typeof productivityGroupTotals>[0]);
}

export interface AnalyticsDeps {
  /** The aggregate rows: the read model (api/analytics/memory.ts), or AnalyticsStore's SQL. */
  analytics: AnalyticsReader;
  /** The clock, for tests: "today" decides the latest queryable day. */
  now?: () => Date;
  /** The answer cache (api/answers/). */
  cache: ResponseCache;
  /** team= and group_by=team. */
  teams: TeamAnalytics;
  /** group_by=repo on /tokens (SQL). */
  repos: Pick<AnalyticsStore, 'tokensByRepo'>;
}

/** What the daily answers are built from: the aggregates, and users' e-mails (tokens and users answers). */
const ANALYTICS_READS = ['aggregates', 'users'] as const;

const DESCRIPTION =
  'Figures from the daily aggregates (docs/metrics.md §4), one record per day of the range (UTC). The latest queryable day is yesterday; data of a day is complete after the nightly batch.';

/** Each endpoint's answer and its summary in the OpenAPI document. */
const ENDPOINTS = {
  tokens: {
    response: TokensResponse,
    summary:
      'Standard Credits and tokens per day, by model and by user (group_by=model: per model; group_by=agent, an agentmeter extension: per agent)',
  },
  tools: {
    response: ToolsResponse,
    summary:
      'Tool calls, MCP servers, skills, slash commands, hooks and autonomy per day (group_by=tool_name; group_by=agent, an agentmeter extension)',
  },
  activity: {
    response: ActivityResponse,
    summary: 'Active users, sessions and messages per day (group_by=client; group_by=agent, an agentmeter extension)',
  },
  productivity: { response: ProductivityResponse, summary: 'Files created and edited, by extension and language, commits and PRs per day' },
  users: { response: UsersResponse, summary: 'One record per user and active day, paged by user' },
} satisfies Partial<Record<Endpoint, { response: z.ZodType; summary: string }>>;

/** What /tokens says beside its rows: the models without a price and the agents whose tokens are not reported. */
async function tokensMeta(analytics: AnalyticsReader, org: string, from: string, to: string) {
  const [rows, used] = await Promise.all([analytics.tokens(org, from, to), analytics.breakdown(org, from, to, ['agent_users'])]);
  return { unpriced_models: unpricedModels(rows), tokens_not_reported: tokensNotReported(rows, used) };
}

export function registerAnalyticsRoutes(app: FastifyInstance, deps: AnalyticsDeps): void {
  const now = deps.now ?? (() => new Date());

  const meta = (principal: Principal, q: AnalyticsQuery) => ({ org_id: principal.orgId, start_date: q.startDate, end_date: q.endDate });

  // Every analytics route: the declaration checks the role, then the answer comes from the answer cache
  // or is built after the query is checked (api/answers/answer.ts: a hit needs no second check, hence
  // queryCheckedBy: 'handler').
  const route = (
    endpoint: keyof typeof ENDPOINTS,
    build: (principal: Principal, q: AnalyticsQuery, analytics: AnalyticsReader) => Promise<unknown>,
  ) => {
    const doc = {
      method: 'GET',
      path: analyticsPath(endpoint),
      tag: 'Analytics',
      summary: ENDPOINTS[endpoint].summary,
      description: DESCRIPTION,
      action: 'Analytics',
      access: { kind: 'user', roles: ANALYTICS_ROLES },
      query: ANALYTICS_QUERY[endpoint],
      queryCheckedBy: 'handler',
      responses: { 200: ENDPOINTS[endpoint].response },
    } as const satisfies RouteDoc;
    declareRoute(app, doc, async ({ principal }, request, reply) => {
      const today = now();
      const of = { org: principal.orgId, now: today, reads: ANALYTICS_READS, teams: deps.teams };
      return sendAnswer(
        deps.cache,
        request,
        reply,
        of,
        async () => {
          const q = parseAnalyticsQuery(endpoint, request.query, today);
          if (q.groupBy === 'team') {
            const data = await deps.teams.grouped(endpoint as TeamGroupedEndpoint, principal.orgId, q.days, q.startDate, q.endDate);
            // /tokens names the range's models without a dollar price (docs/metrics.md §8).
            const unpriced = endpoint === 'tokens' ? await tokensMeta(deps.analytics, principal.orgId, q.startDate, q.endDate) : {};
            return { data, meta: { ...meta(principal, q), ...unpriced, group_totals: teamTotals(endpoint as TeamGroupedEndpoint, data) } };
          }
          // team=: the same answer computed over the team's members on each day.
          const reader = q.team ? await deps.teams.filtered(principal.orgId, q.team, q.startDate, q.endDate) : deps.analytics;
          return build(principal, q, reader);
        },
        (answer) => checkSentAnswer(app, doc, 200, answer),
      );
    });
  };

  route('tokens', async (principal, q, analytics) => {
    const [rows, used] = await Promise.all([
      analytics.tokens(principal.orgId, q.startDate, q.endDate),
      analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['agent_users']),
    ]);
    const tokensFacts = { unpriced_models: unpricedModels(rows), tokens_not_reported: tokensNotReported(rows, used) };
    if (q.groupBy === 'repo') {
      // team= (checked when its reader was made): the team's members on each day.
      const scope = q.team ? await deps.teams.scope(principal.orgId, q.team, q.startDate, q.endDate) : undefined;
      const repoRows = await deps.repos.tokensByRepo(principal.orgId, q.startDate, q.endDate);
      const data = tokenGroupedByRepo(q.days, repoRows, scope ? (day, user) => scope.members(day).has(user) : undefined);
      return { data, meta: { ...meta(principal, q), ...tokensFacts, group_totals: tokenGroupTotals(data) } };
    }
    if (q.groupBy === 'agent' || q.groupBy === 'model') {
      const data = q.groupBy === 'agent' ? tokenGroupedByAgent(q.days, rows) : tokenGroupedByModel(q.days, rows);
      return { data, meta: { ...meta(principal, q), ...tokensFacts, totals: tokenTotals(data), group_totals: tokenGroupTotals(data) } };
    }
    const data = tokenRecords(q.days, rows);
    return { data, meta: { ...meta(principal, q), ...tokensFacts, totals: tokenTotals(data) } };
  });

  route('tools', async (principal, q, analytics) => {
    if (q.groupBy === 'agent') {
      const breakdowns = await analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['agent_calls']);
      const data = toolGroupedByAgent(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: toolGroupTotals(data) } };
    }
    if (q.groupBy === 'tool_name') {
      const breakdowns = await analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['tool']);
      const data = toolGroupedByName(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: toolGroupTotals(data) } };
    }
    const [orgRows, breakdowns, hooks] = await Promise.all([
      analytics.orgDays(principal.orgId, q.startDate, q.endDate),
      analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['tool', 'mcp_server', 'skill', 'slash_command']),
      analytics.hooks(principal.orgId, q.startDate, q.endDate),
    ]);
    const data = toolRecords(q.days, orgRows, breakdowns, hooks);
    return { data, meta: { ...meta(principal, q), totals: toolTotals(data) } };
  });

  route('activity', async (principal, q, analytics) => {
    if (q.groupBy === 'agent') {
      const breakdowns = await analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['agent_users']);
      const data = activityGroupedByAgent(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: activityGroupTotals(data) } };
    }
    const breakdowns = await analytics.breakdown(principal.orgId, q.startDate, q.endDate, ['client']);
    if (q.groupBy === 'client') {
      const data = activityGroupedByClient(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: activityGroupTotals(data) } };
    }
    const orgRows = await analytics.orgDays(principal.orgId, q.startDate, q.endDate);
    const data = activityRecords(q.days, orgRows, breakdowns);
    return { data, meta: { ...meta(principal, q), totals: activityTotals(data) } };
  });

  route('productivity', async (principal, q, analytics) => {
    if (q.groupBy === 'agent' || q.groupBy === 'tool_name' || q.groupBy === 'language') {
      const by = DECISION_GROUPS[q.groupBy];
      const breakdowns = await analytics.breakdown(principal.orgId, q.startDate, q.endDate, [
        `edits_accepted_${by}`,
        `edits_rejected_${by}`,
        // The agents used in the range: one that reported no decision is listed as not reporting them.
        ...(q.groupBy === 'agent' ? ['agent_users'] : []),
      ]);
      const data = productivityDecisionRows(q.days, breakdowns, q.groupBy);
      if (q.groupBy !== 'agent') return { data, meta: meta(principal, q) };
      const used = [...new Set(breakdowns.filter((r) => r.kind === 'agent_users' && r.count > 0).map((r) => r.key))];
      return { data, meta: { ...meta(principal, q), by_agent: decisionsByAgent(used, data) } };
    }
    const [orgRows, breakdowns] = await Promise.all([
      analytics.orgDays(principal.orgId, q.startDate, q.endDate),
      analytics.breakdown(principal.orgId, q.startDate, q.endDate, [
        'extension',
        'language',
        'edits_accepted_agent',
        'edits_rejected_agent',
      ]),
    ]);
    const data = productivityRecords(q.days, orgRows, breakdowns);
    return { data, meta: { ...meta(principal, q), totals: productivityTotals(data) } };
  });

  route('users', async (principal, q, analytics) => {
    const ids = await analytics.userPage(principal.orgId, q.startDate, q.endDate, q.cursor, q.limit);
    const hasMore = ids.length > q.limit;
    const page = ids.slice(0, q.limit);
    const rows = await analytics.userRows(principal.orgId, q.startDate, q.endDate, page);
    const data = userRecords(rows);
    return {
      data,
      meta: { ...meta(principal, q), has_more: hasMore, next_cursor: hasMore ? page.at(-1)! : null, people: peopleTotals(data) },
    };
  });
}
