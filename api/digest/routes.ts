// GET /api/v0/organization/digest/preview (owners and managers): the next weekly digest as the delivery will
// build it (the same builder, api/digest/check.ts), with the figures so far while its week is not over.
import type { FastifyInstance } from 'fastify';
import { ADMIN_ROLES } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { buildDigest, type DigestDeps } from './check.ts';
import { nextDigest } from './figures.ts';
import { DIGEST_PREVIEW_PATH, DigestPreview } from './schema.ts';

export function registerDigestRoutes(app: FastifyInstance, deps: DigestDeps): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: DIGEST_PREVIEW_PATH,
      freshness: 'live',
      tag: 'Budgets',
      summary: 'The next weekly digest, built as it will be sent (its figures so far while its week is not over)',
      description:
        'The week reported is the one of the next send: Monday 09:00 UTC, or now when this week’s digest is due and not sent yet. Its dollars come from the daily batch’s days; budgets at risk from the month-end forecast as of now.',
      action: 'Digest preview',
      access: { kind: 'user', roles: ADMIN_ROLES },
      responses: { 200: DigestPreview },
    },
    async ({ principal }): Promise<DigestPreview> => {
      const now = deps.now();
      const settings = await deps.settings.get(principal.orgId);
      const next = nextDigest(now, await deps.store.dueSent(principal.orgId, now, settings.digestSince));
      const digest = await buildDigest(deps, principal.orgId, next.week);
      return {
        sends_at: new Date(next.at).toISOString(),
        complete: Date.parse(`${next.week.to}T00:00:00Z`) + 86_400_000 <= now,
        destinations: settings.digestDestinations.length,
        digest,
      };
    },
  );
}
