// GET /api/v0/organization/adoption: the roster's adoption on the server clock (schema.ts), owners and
// managers only, always the caller's own organization.
import type { FastifyInstance } from 'fastify';
import { ANALYTICS_ROLES } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { adoptionFigures } from './figures.ts';
import { ADOPTION_PATH, Adoption, QUIET_DAYS } from './schema.ts';
import type { AdoptionStore } from './store.ts';

export function registerAdoptionRoutes(app: FastifyInstance, deps: { store: AdoptionStore; now: () => Date }): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: ADOPTION_PATH,
      tag: 'Organization',
      summary:
        'Adoption: people on the roster, activated, active in the last 7 and 28 days, by agent and team; who never activated or went quiet',
      description: `An event is any hook event or token usage record ever stored. Quiet: activated, with no event in the last ${QUIET_DAYS} days. Teams are those of the day of asOf; people in no team have a row of their own when the organization has teams.`,
      action: 'Reading adoption',
      access: { kind: 'user', roles: ANALYTICS_ROLES },
      responses: { 200: Adoption },
    },
    async ({ principal }) => {
      const now = deps.now();
      const { roster, teams, activity } = await deps.store.read(principal.orgId, now);
      return adoptionFigures(roster, teams, activity, now);
    },
  );
}
