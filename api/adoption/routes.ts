// GET /api/v0/organization/adoption: the roster's adoption on the server clock (schema.ts), owners and
// managers only, always the caller's own organization. Through the answer cache: kept until an event of
// the organization arrives, a person changes, the teams change or the clock's minute turns (its last 7
// and 28 days end at now).
import type { FastifyInstance } from 'fastify';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import { ANALYTICS_ROLES } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import { adoptionFigures } from './figures.ts';
import { ADOPTION_PATH, Adoption, QUIET_DAYS } from './schema.ts';
import type { AdoptionStore } from './store.ts';

/** What adoption is built from: the raw events and usage, and the roster's people (the teams through the key). */
export const ADOPTION_READS = ['events', 'users'] as const;

export interface AdoptionDeps {
  store: AdoptionStore;
  now: () => Date;
  cache: ResponseCache;
  /** The teams revision, part of the key: adoption counts by team. */
  teams: Pick<TeamAnalytics, 'revision'>;
}

export function registerAdoptionRoutes(app: FastifyInstance, deps: AdoptionDeps): void {
  const doc = {
    method: 'GET',
    path: ADOPTION_PATH,
    freshness: 'cached',
    tag: 'Organization',
    summary:
      'Adoption: people on the roster, activated, active in the last 7 and 28 days, by agent and team; who never activated or went quiet',
    description: `An event is any hook event or token usage record ever stored. Quiet: activated, with no event in the last ${QUIET_DAYS} days. Teams are those of the day of asOf; people in no team have a row of their own when the organization has teams.`,
    action: 'Reading adoption',
    access: { kind: 'user', roles: ANALYTICS_ROLES },
    responses: { 200: Adoption },
  } as const satisfies RouteDoc;
  declareRoute(app, doc, async ({ principal }, request, reply) => {
    const now = deps.now();
    const of = { org: principal.orgId, now, reads: ADOPTION_READS, teams: deps.teams, roster: true, clock: 'minute' } as const;
    return sendAnswer(deps.cache, request, reply, of, async () => {
      const { roster, teams, activity } = await deps.store.read(principal.orgId, now);
      return adoptionFigures(roster, teams, activity, now);
    });
  });
}
