// GET /api/v1/analytics/code and GET /api/v0/code/commits (docs/metrics.md §5, our extension): how much of the
// code that landed the agents wrote. Owners and managers see the organization; a member sees only their own
// figures and commits (the answer says whose in meta.user_id); guests get 403. The date rules and 400s are
// the analytics API's (docs/metrics.md §4). group_by=team and team= (docs/metrics.md §6) are the analytics
// endpoints' (api/teams/analytics.ts): for owners and managers; a member asking for them gets 403.
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../common/errors.ts';
import { parseAnalyticsQuery } from '../analytics/query.ts';
import { ANALYTICS_QUERY } from '../analytics/schema.ts';
import { sendAnswer, teamScoped } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Principal } from '../auth/principal.ts';
import { ADMIN_ROLES } from '../auth/principal.ts';
import { parseQuery } from '../http/query.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import { restrictRows } from '../teams/figures.ts';
import { codeGrouped, codeGroupTotals, codeLandedBy, codeRecords, codeTotals } from './assemble.ts';
import {
  CODE_PATH,
  COMMIT_CURSOR,
  COMMITS_PATH,
  type CodeGroupedRow,
  type CodeRecord,
  CodeResponse,
  type CodeTotals,
  CommitPage,
  CommitsQuery,
  type LandedCommit,
} from './schema.ts';
import type { CodeStore, CommitCursor } from './store.ts';
import { codeByTeam } from './teams.ts';

/** What the code figures are built from: the batch's code aggregates. */
const CODE_READS = ['aggregates'] as const;
/**
 * What the commit list is built from: the landed commits as they arrive (records), what the batch credits
 * and rebuilds, and the authors' e-mails.
 */
const COMMITS_READS = ['events', 'aggregates', 'users'] as const;

/** Who may read the code figures: members too, restricted to their own. */
export const CODE_ROLES = ['owner', 'manager', 'member'] as const;

export interface CodeDeps {
  code: CodeStore;
  cache: ResponseCache;
  /** group_by=team and team=. */
  teams: TeamAnalytics;
  now?: () => Date;
}

/** The person the answer is restricted to: null for owners and managers (the whole organization). */
const ownOnly = (principal: Principal): string | null => (ADMIN_ROLES.includes(principal.role) ? null : principal.userId);

/** The commits endpoint's query: its own parameters checked, the dates by the analytics rules. */
function parseCommitsQuery(raw: unknown, now: Date) {
  const query = parseQuery(CommitsQuery, raw);
  // Commits are read as stored, so today is listed too (docs/metrics.md §5).
  const dates = parseAnalyticsQuery('productivity', { startDate: query.startDate, endDate: query.endDate }, now, { throughToday: true });
  const match = query.cursor ? COMMIT_CURSOR.exec(query.cursor) : null;
  const cursor: CommitCursor | undefined = match ? { ts: Number(match[1]), repoId: match[2]!, commit: match[3]! } : undefined;
  return {
    startDate: dates.startDate,
    endDate: dates.endDate,
    limit: query.limit ? Number(query.limit) : 20,
    cursor,
    team: query.team,
  };
}

export function registerCodeRoutes(app: FastifyInstance, deps: CodeDeps): void {
  const now = deps.now ?? (() => new Date());

  const codeDoc = {
    method: 'GET',
    path: CODE_PATH,
    freshness: 'cached',
    tag: 'Analytics',
    summary: 'Code the agents wrote: edit lines, landed lines and the agent share per day (an agentmeter extension)',
    description:
      'docs/metrics.md §5. Ungrouped: one record per day with zeros; group_by=agent, model or repo: rows per day and non-zero group. Owners and managers see the organization; a member sees only their own figures (meta.user_id). docs/code.md describes the method.',
    action: 'The code figures',
    access: { kind: 'user', roles: CODE_ROLES },
    query: ANALYTICS_QUERY.code,
    // As the daily endpoints: a member's team= is a 403 before any check of the query, and a cached
    // answer needs none.
    queryCheckedBy: 'handler',
    responses: { 200: CodeResponse },
  } as const satisfies RouteDoc;
  declareRoute(app, codeDoc, async ({ principal }, request, reply) => {
    const user = ownOnly(principal);
    const today = now();
    if (teamScoped(request.query) && user) throw forbidden('Team figures are for owners and managers; a member sees their own figures');
    const of = { org: principal.orgId, viewer: user, now: today, reads: CODE_READS, teams: deps.teams };
    return sendAnswer(deps.cache, request, reply, of, async () => {
      const q = parseAnalyticsQuery('code', request.query, today);
      let data: unknown;
      let totals: CodeTotals | undefined;
      if (q.groupBy === 'team') {
        const teams = await deps.teams.teamDays(principal.orgId, q.days, q.startDate, q.endDate);
        const rows = await deps.code.perUser(principal.orgId, q.startDate, q.endDate, teams.users);
        data = codeByTeam(teams.days, rows.edits, rows.landed);
      } else if (q.team) {
        const scope = await deps.teams.scope(principal.orgId, q.team, q.startDate, q.endDate);
        const rows = await deps.code.perUser(principal.orgId, q.startDate, q.endDate, scope.users);
        const edits = restrictRows(rows.edits, scope.members);
        const landed = restrictRows(rows.landed, scope.members);
        const agents = restrictRows(rows.agents, scope.members);
        const counts = (day: string, member: string) => scope.members(day).has(member);
        data = q.groupBy
          ? codeGrouped(q.groupBy as 'agent' | 'model' | 'repo', edits, landed, agents)
          : codeRecords(
              q.days,
              edits,
              landed,
              agents,
              await deps.code.landedCost(principal.orgId, q.startDate, q.endDate, scope.users, { counts, batched: true }),
            );
      } else {
        const [edits, landed, agents] = await Promise.all([
          deps.code.edits(principal.orgId, q.startDate, q.endDate, user),
          deps.code.landed(principal.orgId, q.startDate, q.endDate, user),
          deps.code.landedAgents(principal.orgId, q.startDate, q.endDate, user),
        ]);
        data = q.groupBy
          ? codeGrouped(q.groupBy as 'agent' | 'model' | 'repo', edits, landed, agents)
          : codeRecords(
              q.days,
              edits,
              landed,
              agents,
              await deps.code.landedCost(principal.orgId, q.startDate, q.endDate, user ? [user] : null, { batched: true }),
            );
      }
      // Ungrouped: the range in one too, so that no reader derives the ratios again.
      if (!q.groupBy) totals = codeTotals(data as CodeRecord[]);
      const meta = {
        org_id: principal.orgId,
        start_date: q.startDate,
        end_date: q.endDate,
        ...(user ? { user_id: user } : {}),
        ...(totals ? { totals, ...codeLandedBy(data as CodeRecord[]) } : { group_totals: codeGroupTotals(data as CodeGroupedRow[]) }),
      };
      return { data, meta };
    });
  });

  const commitsDoc = {
    method: 'GET',
    path: COMMITS_PATH,
    freshness: 'cached',
    tag: 'Analytics',
    summary: 'Landed commits with their lines and agent lines by agent and model, newest first, paged',
    description:
      'Commits dated by committer time from startDate to endDate (today included: a commit is listed as soon as the server has it). next_cursor is the last commit of the page. A member sees only their own commits.',
    action: 'The landed commits',
    access: { kind: 'user', roles: CODE_ROLES },
    query: CommitsQuery,
    // Its own messages for unknown, repeated and missing parameters, and the daily endpoints' date rules.
    queryCheckedBy: 'handler',
    responses: { 200: CommitPage },
  } as const satisfies RouteDoc;
  declareRoute(app, commitsDoc, async ({ principal }, request, reply) => {
    const user = ownOnly(principal);
    const today = now();
    const q = parseCommitsQuery(request.query, today);
    if (q.team !== undefined && user) throw forbidden('Team figures are for owners and managers; a member sees their own commits');
    const of = { org: principal.orgId, viewer: user, now: today, reads: COMMITS_READS, teams: deps.teams };
    return sendAnswer(deps.cache, request, reply, of, async (): Promise<CommitPage> => {
      const periods = q.team !== undefined ? (await deps.teams.scope(principal.orgId, q.team, q.startDate, q.endDate)).periods : null;
      const rows = await deps.code.commits(principal.orgId, q.startDate, q.endDate, user, q.cursor, q.limit, periods);
      const hasMore = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      const last = page.at(-1);
      const data: LandedCommit[] = page.map((r) => ({
        repo_id: r.repo_id,
        repo: r.repo,
        commit: r.commit,
        user_id: r.user_id,
        user_email: r.user_email,
        committed_at: new Date(r.ts_ms).toISOString(),
        lines_added: r.lines_added,
        lines_deleted: r.lines_deleted,
        agent_lines: r.agent_lines,
        by_agent: r.by_agent
          .map((a) => ({ agent: a.agent as LandedCommit['by_agent'][number]['agent'], model_id: a.model, lines: a.lines }))
          .sort((a, b) => b.lines - a.lines || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : a.model_id < b.model_id ? -1 : 1)),
        author: r.author,
        by_session: r.by_session
          .map((s) => ({ agent: s.agent as LandedCommit['by_agent'][number]['agent'], session_id: s.session_id, lines: s.lines }))
          .sort((a, b) => b.lines - a.lines || (a.session_id < b.session_id ? -1 : 1)),
      }));
      return {
        data,
        meta: {
          org_id: principal.orgId,
          start_date: q.startDate,
          end_date: q.endDate,
          has_more: hasMore,
          next_cursor: hasMore && last ? `${last.ts_ms}.${last.repo_id}.${last.commit}` : null,
          ...(user ? { user_id: user } : {}),
        },
      };
    });
  });
}
