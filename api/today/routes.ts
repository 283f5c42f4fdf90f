// GET /api/v1/analytics/today: the current UTC day's records, provisional (docs/metrics.md §7). Managers and
// owners get the organization's; a member gets the same records over their own records only; guests 403.
// `team=NAME` (owners and managers) restricts them to the members on today of that team and the teams
// below it, with the rules of the daily endpoints' team= (api/teams/analytics.ts).
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../common/errors.ts';
import {
  activityRecords,
  EDIT_DECISION_KINDS,
  productivityRecords,
  tokenRecords,
  toolRecords,
  unpricedModels,
} from '../analytics/assemble.ts';
import type { AnalyticsReader, Selection } from '../analytics/reader.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import { ANALYTICS_ROLES, PEOPLE } from '../auth/principal.ts';
import { codeRecords } from '../code/assemble.ts';
import type { CodeStore } from '../code/store.ts';
import { parseQuery } from '../http/query.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import { TODAY_PATH, TodayQuery, TodayResponse } from './schema.ts';
import { type LiveFigures, type LiveFiguresStore, liveRows } from './store.ts';

/** What today's answers are built from: the records as they arrive, the batch's days the build copies, prices and e-mails. */
const TODAY_READS = ['events', 'aggregates', 'prices', 'users'] as const;

/** Every breakdown kind the four records read. */
const TODAY_KINDS = ['tool', 'mcp_server', 'skill', 'slash_command', 'client', 'extension', 'language', ...EDIT_DECISION_KINDS];

/** Today's answer: the daily endpoints' records of the live day, read by the figures' one reader, and today's code record. */
export async function todayAnswer(
  analytics: AnalyticsReader,
  org: string,
  f: LiveFigures,
  code: Awaited<ReturnType<CodeStore['today']>>,
): Promise<TodayResponse> {
  const days = [f.date];
  const sel: Selection = { org, from: f.date, to: f.date, live: { date: f.date, rows: liveRows(f) } };
  const [tokens, orgDays, breakdowns, hooks] = await Promise.all([
    analytics.tokens(sel),
    analytics.orgDays(sel),
    analytics.breakdown(sel, TODAY_KINDS),
    analytics.hooks(sel),
  ]);
  return {
    data: {
      date: f.date,
      as_of: f.asOf,
      provisional: true,
      tokens: tokenRecords(days, tokens)[0]!,
      tools: toolRecords(days, orgDays, breakdowns, hooks)[0]!,
      activity: activityRecords(days, orgDays, breakdowns)[0]!,
      productivity: productivityRecords(days, orgDays, breakdowns)[0]!,
      code: codeRecords(days, code.edits, code.landed, code.agents, code.cost)[0]!,
    },
    meta: { org_id: org, start_date: f.date, end_date: f.date, unpriced_models: unpricedModels(tokens) },
  };
}

export function registerTodayRoutes(
  app: FastifyInstance,
  deps: {
    live: LiveFiguresStore;
    analytics: AnalyticsReader;
    teams: TeamAnalytics;
    code: CodeStore;
    cache: ResponseCache;
    now?: () => Date;
  },
): void {
  const now = deps.now ?? (() => new Date());
  const todayDoc = {
    method: 'GET',
    path: TODAY_PATH,
    freshness: 'cached',
    tag: 'Analytics',
    summary: "Today so far: the current UTC day's tokens, tools, activity and productivity records, provisional",
    description:
      "The records of /tokens, /tools, /activity and /productivity for the current UTC day, computed by the same rules (the nightly batch's own build steps) over what has arrived; an event is counted within seconds of reaching the server (at most 60 s). Owners and managers get the organization's figures; a member gets the same records over their own records only. With team=NAME (owners and managers), the records over today's members of that team and the teams below it (400 for an unknown team, 403 below the minimum team size). `code` is the /code record of today: its landed commits count as soon as the server has them. The daily endpoints keep refusing today.",
    action: "Reading today's figures",
    access: { kind: 'user', roles: PEOPLE },
    query: TodayQuery,
    // Its own message for a repeated parameter, as the daily endpoints'.
    queryCheckedBy: 'handler',
    responses: { 200: TodayResponse },
  } as const satisfies RouteDoc;
  declareRoute(app, todayDoc, async ({ principal }, request, reply) => {
    const whole = ANALYTICS_ROLES.includes(principal.role);
    const { team } = parseQuery(TodayQuery, request.query);
    if (team !== undefined && !whole) throw forbidden('Team figures are for owners and managers; a member sees their own figures');
    const today = now();
    const of = { org: principal.orgId, viewer: whole ? null : principal.userId, now: today, reads: TODAY_READS, teams: deps.teams };
    return sendAnswer(deps.cache, request, reply, of, async (): Promise<TodayResponse> => {
      let userIds: string[] | undefined;
      if (team !== undefined) {
        const day = today.toISOString().slice(0, 10);
        const scope = await deps.teams.scope(principal.orgId, team, day, day);
        userIds = [...scope.members(day)].sort();
      }
      const figures = await deps.live.figures({
        orgId: principal.orgId,
        userId: whole ? undefined : principal.userId,
        ...(userIds ? { userIds } : {}),
      });
      const code = await deps.code.today(
        principal.orgId,
        figures.date,
        userIds ?? (whole ? null : [principal.userId]),
        figures.sessionCosts,
      );
      return todayAnswer(deps.analytics, principal.orgId, figures, code);
    });
  });
}
