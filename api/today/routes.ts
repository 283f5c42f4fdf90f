// GET /api/v1/analytics/today: the current UTC day's records, provisional (docs/metrics.md §7). Managers and
// owners get the organization's; a member gets the same records over their own records only; guests 403.
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../common/errors.ts';
import { activityRecords, productivityRecords, tokenRecords, toolRecords } from '../analytics/assemble.ts';
import { ANALYTICS_ROLES, type Authenticator } from '../auth.ts';
import type { TodayResponse } from './schema.ts';
import type { LiveFigures, LiveFiguresStore } from './store.ts';

export const TODAY_PATH = '/api/v1/analytics/today';

/** Pure: live figures → the answer's data. */
export function todayData(f: LiveFigures): TodayResponse['data'] {
  const days = [f.date];
  return {
    date: f.date,
    as_of: f.asOf,
    provisional: true,
    tokens: tokenRecords(days, f.tokens)[0]!,
    tools: toolRecords(days, f.orgDays, f.breakdowns, f.hooks)[0]!,
    activity: activityRecords(days, f.orgDays, f.breakdowns)[0]!,
    productivity: productivityRecords(days, f.orgDays, f.breakdowns)[0]!,
    code: null,
  };
}

export function registerTodayRoutes(app: FastifyInstance, deps: { auth: Authenticator; live: LiveFiguresStore }): void {
  app.get(TODAY_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    if (principal.role === 'guest') throw forbidden("Today's figures need the owner, manager or member role; this credential has guest");
    const whole = ANALYTICS_ROLES.includes(principal.role);
    const figures = await deps.live.figures({ orgId: principal.orgId, userId: whole ? undefined : principal.userId });
    return { data: todayData(figures), meta: { org_id: principal.orgId } };
  });
}
