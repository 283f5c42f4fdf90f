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
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics, TeamGroupedEndpoint } from '../teams/analytics.ts';
import {
  activityGroupedByAgent,
  activityGroupedByClient,
  DECISION_GROUPS,
  productivityDecisionRows,
  tokenGroupedByAgent,
  tokenGroupedByModel,
  tokenGroupedByRepo,
  tokensMeta,
  tokensNotReported,
  toolGroupedByAgent,
  toolGroupedByName,
  unpricedModels,
  userRecords,
} from './assemble.ts';
import { type AnswerPieces, RECORDS } from './pieces.ts';
import { type AnalyticsQuery, parseAnalyticsQuery } from './query.ts';
import type { AnalyticsReader, Selection } from './reader.ts';
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
import {
  activityGroupTotals,
  decisionsByAgent,
  peopleTotals,
  productivityGroupTotals,
  tokenGroupTotals,
  toolGroupTotals,
} from './totals.ts';

/** group_by=team: each team over the range (meta.group_totals), as the endpoint's groups are summed. */
function teamTotals(endpoint: TeamGroupedEndpoint, rows: unknown[]) {
  if (endpoint === 'tokens') return tokenGroupTotals(rows as Parameters<typeof tokenGroupTotals>[0]);
  if (endpoint === 'tools') return toolGroupTotals(rows as Parameters<typeof toolGroupTotals>[0]);
  if (endpoint === 'activity') return activityGroupTotals(rows as Parameters<typeof activityGroupTotals>[0]);
  return productivityGroupTotals(rows as Parameters<typeof productivityGroupTotals>[0]);
}

export interface AnalyticsDeps {
  /** The figures' rows, from the read model (api/analytics/memory.ts) or AnalyticsStore's SQL. */
  analytics: AnalyticsReader;
  /** The clock, for tests: "today" decides the latest queryable day. */
  now?: () => Date;
  /** The answer cache (api/answers/). */
  cache: ResponseCache;
  /** team= and group_by=team. */
  teams: TeamAnalytics;
  /** The ungrouped answers as pieces kept with the read model's rows (absent: always assembled). */
  pieces?: AnswerPieces | undefined;
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
async function tokensFacts(analytics: AnalyticsReader, sel: Selection) {
  const [rows, used] = await Promise.all([analytics.tokens(sel), analytics.breakdown(sel, ['agent_users'])]);
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
    build: (principal: Principal, q: AnalyticsQuery, sel: Selection) => Promise<unknown>,
  ) => {
    const doc = {
      method: 'GET',
      path: analyticsPath(endpoint),
      freshness: 'cached',
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
      return sendAnswer(deps.cache, request, reply, of, async () => {
        const q = parseAnalyticsQuery(endpoint, request.query, today);
        const sel: Selection = { org: principal.orgId, from: q.startDate, to: q.endDate };
        if (q.groupBy === 'team') {
          const data = await deps.teams.grouped(endpoint as TeamGroupedEndpoint, principal.orgId, q.days, q.startDate, q.endDate);
          // /tokens names the range's models without a dollar price (docs/metrics.md §8).
          const unpriced = endpoint === 'tokens' ? await tokensFacts(deps.analytics, sel) : {};
          return { data, meta: { ...meta(principal, q), ...unpriced, group_totals: teamTotals(endpoint as TeamGroupedEndpoint, data) } };
        }
        // team=: the same answer computed over the team's members on each day (400, 403 from scope).
        if (q.team) sel.team = await deps.teams.scope(principal.orgId, q.team, q.startDate, q.endDate);
        // The organization's records of each day, kept as pieces with the rows the read model holds.
        else if (q.groupBy === undefined && endpoint !== 'users') {
          const pieces = await deps.pieces?.days(endpoint, principal.orgId, q.days, meta(principal, q));
          if (pieces) return pieces;
        }
        return build(principal, q, sel);
      });
    });
  };

  const { analytics } = deps;

  route('tokens', async (principal, q, sel) => {
    if (q.groupBy === undefined) {
      const { data, facts } = await RECORDS.tokens.build(analytics, sel, q.days);
      return { data, meta: { ...meta(principal, q), ...tokensMeta(facts ? [facts] : []), totals: RECORDS.tokens.totals(data) } };
    }
    const [rows, used] = await Promise.all([analytics.tokens(sel), analytics.breakdown(sel, ['agent_users'])]);
    const facts = { unpriced_models: unpricedModels(rows), tokens_not_reported: tokensNotReported(rows, used) };
    if (q.groupBy === 'repo') {
      const data = tokenGroupedByRepo(q.days, await analytics.repoTokens(sel));
      return { data, meta: { ...meta(principal, q), ...facts, group_totals: tokenGroupTotals(data) } };
    }
    const data = q.groupBy === 'agent' ? tokenGroupedByAgent(q.days, rows) : tokenGroupedByModel(q.days, rows);
    return { data, meta: { ...meta(principal, q), ...facts, totals: RECORDS.tokens.totals(data), group_totals: tokenGroupTotals(data) } };
  });

  route('tools', async (principal, q, sel) => {
    if (q.groupBy === 'agent' || q.groupBy === 'tool_name') {
      const breakdowns = await analytics.breakdown(sel, [q.groupBy === 'agent' ? 'agent_calls' : 'tool']);
      const data = q.groupBy === 'agent' ? toolGroupedByAgent(q.days, breakdowns) : toolGroupedByName(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: toolGroupTotals(data) } };
    }
    const { data } = await RECORDS.tools.build(analytics, sel, q.days);
    return { data, meta: { ...meta(principal, q), totals: RECORDS.tools.totals(data) } };
  });

  route('activity', async (principal, q, sel) => {
    if (q.groupBy === 'agent' || q.groupBy === 'client') {
      const breakdowns = await analytics.breakdown(sel, [q.groupBy === 'agent' ? 'agent_users' : 'client']);
      const data = q.groupBy === 'agent' ? activityGroupedByAgent(q.days, breakdowns) : activityGroupedByClient(q.days, breakdowns);
      return { data, meta: { ...meta(principal, q), group_totals: activityGroupTotals(data) } };
    }
    const { data } = await RECORDS.activity.build(analytics, sel, q.days);
    return { data, meta: { ...meta(principal, q), totals: RECORDS.activity.totals(data) } };
  });

  route('productivity', async (principal, q, sel) => {
    if (q.groupBy === 'agent' || q.groupBy === 'tool_name' || q.groupBy === 'language') {
      const by = DECISION_GROUPS[q.groupBy];
      const breakdowns = await analytics.breakdown(sel, [
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
    const { data } = await RECORDS.productivity.build(analytics, sel, q.days);
    return { data, meta: { ...meta(principal, q), totals: RECORDS.productivity.totals(data) } };
  });

  route('users', async (principal, q, sel) => {
    const ids = await analytics.userPage(sel, q.cursor, q.limit);
    const hasMore = ids.length > q.limit;
    const page = ids.slice(0, q.limit);
    const usersMeta = { ...meta(principal, q), has_more: hasMore, next_cursor: hasMore ? page.at(-1)! : null };
    // Held rows of the organization (a team's rows skip days): each user's rows a chain of kept pieces.
    const pieces = sel.team ? undefined : deps.pieces?.users(principal.orgId, q.startDate, q.endDate, page, usersMeta);
    if (pieces) return pieces;
    const rows = await analytics.userRows(sel, page);
    const data = userRecords(rows);
    return { data, meta: { ...usersMeta, people: peopleTotals(data) } };
  });
}
