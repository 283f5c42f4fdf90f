// GET /api/v0/me/status: one person's own figures for their status line and `agentmeter me` (the
// collector fetches it after each ship and every minute). Open to a collector-scoped key: it answers
// only about the key's own user. Guests get 403 as on the limits route.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import { PEOPLE } from '../auth/principal.ts';
import { percentage } from '../budgets/messages.ts';
import { effectiveLimit } from '../limits/effective.ts';
import { LIMIT_READS } from '../limits/routes.ts';
import { LimitStore } from '../limits/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { LiveFiguresStore } from '../today/store.ts';
import { ME_STATUS_PATH, MeStatus } from './schema.ts';

export function registerMeRoutes(
  app: FastifyInstance,
  deps: { db: Db; live: LiveFiguresStore; cache: ResponseCache; now: () => Date },
): void {
  const limitStore = new LimitStore(deps.db);
  const doc = {
    method: 'GET',
    path: ME_STATUS_PATH,
    freshness: 'cached',
    tag: 'Budgets',
    summary: "The caller's own credits today and this month, their limit and its share (the status line's figures)",
    description: "Open to a collector-scoped key; answers only about the credential's own user.",
    action: 'Your status',
    access: { kind: 'user', roles: PEOPLE, collectorKey: true },
    responses: { 200: MeStatus },
  } as const satisfies RouteDoc;
  declareRoute(app, doc, async ({ principal }, request, reply) => {
    // The caller's own figures, kept until their usage, their limit or budget, or a price changes.
    const of = { org: principal.orgId, viewer: principal.userId, now: deps.now(), reads: LIMIT_READS };
    return sendAnswer(deps.cache, request, reply, of, async (): Promise<MeStatus> => {
      const [figures, limits] = await Promise.all([
        deps.live.figures({ orgId: principal.orgId }, 'credits'),
        limitStore.ofUser(principal.orgId, principal.userId),
      ]);
      const month = figures.month.byUser.get(principal.userId) ?? 0;
      const limit = effectiveLimit(limits.credits, limits.budget);
      return {
        date: figures.date,
        month: figures.month.start.slice(0, 7),
        today_credits: figures.tokens.filter((t) => t.user_id === principal.userId).reduce((sum, t) => sum + t.billable_tokens, 0),
        month_credits: month,
        limit,
        share: limit ? percentage(month, limit) : null,
        enforced: limits.enforced,
      };
    });
  });
}
