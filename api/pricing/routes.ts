// The organization's own prices (docs/metrics.md §8): GET /api/v0/organization/pricing lists them (owners
// and managers); PUT sets one entry (a model or pattern from a day) and DELETE removes one (owners). A
// change computes the dollars of the days it touches again (from its day to yesterday, at most the last
// MAX_BATCH_DAYS days) through the server's batch runner, so the answers show the new price at once.

import type { FastifyInstance } from 'fastify';
import { notFound } from '../../common/errors.ts';
import { MAX_BATCH_DAYS, yesterdayOf } from '../../pipeline/batch.ts';
import { sendAnswer } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import type { BatchRunner } from '../batch/runner.ts';
import type { AlertEngine } from '../budgets/alerts.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import { PRICING_PATH, PriceEntry, PriceKeyQuery, PriceList } from './schema.ts';
import type { PricingStore } from './store.ts';

export interface PricingDeps {
  pricing: PricingStore;
  /** The answer cache: the list is kept until a price changes. */
  cache: ResponseCache;
  runner: BatchRunner;
  /** Told of a price change: today's figures price usage with it (the days before are rebuilt by the batch). */
  changes: Pick<Changes, 'changed'>;
  /** Told once the dollars are computed again: a budget in dollars may have reached a threshold. */
  alerts?: Pick<AlertEngine, 'touch'>;
}

const DAY_MS = 86_400_000;

/** The days a price from `from` changes, up to yesterday and at most MAX_BATCH_DAYS of them; null: none yet. */
export function daysToReprice(from: string, yesterday: string): { from: string; to: string } | null {
  if (from > yesterday) return null;
  const earliest = new Date(Date.parse(`${yesterday}T00:00:00Z`) - (MAX_BATCH_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from: from < earliest ? earliest : from, to: yesterday };
}

export function registerPricingRoutes(app: FastifyInstance, deps: PricingDeps): void {
  const reprice = async (orgId: string, from: string, log: FastifyInstance['log']) => {
    deps.changes.changed({ kind: 'price', org: orgId });
    const now = deps.runner.now();
    const range = daysToReprice(from, yesterdayOf(now));
    if (!range) return null;
    const report = await deps.runner.runForOrganization(orgId, { ...range, now, trigger: 'api', log: log as never });
    return report.days ? { from: report.firstDay ?? range.from, to: report.lastDay ?? range.to } : null;
  };
  // The month's dollars changed with the price: its budgets in dollars are compared again (§7: an alert
  // fires when usage first reaches a threshold, whether a record or a price got it there).
  const repriceAndCompare = async (orgId: string, from: string, log: FastifyInstance['log']) => {
    const rebuilt = await reprice(orgId, from, log);
    deps.alerts?.touch(orgId);
    return rebuilt;
  };

  const listDoc = {
    method: 'GET',
    path: PRICING_PATH,
    freshness: 'cached',
    tag: 'Budgets',
    summary: "The organization's own prices (US dollars per million tokens), each from its day",
    description:
      'They win over the list prices of @pydantic/genai-prices for the models they match (docs/metrics.md §8). A model neither prices has cost null.',
    action: 'Prices',
    access: { kind: 'user', roles: ADMIN_ROLES },
    responses: { 200: PriceList },
  } as const satisfies RouteDoc;
  declareRoute(app, listDoc, async ({ principal }, request, reply) =>
    sendAnswer(deps.cache, request, reply, { org: principal.orgId, now: new Date(), reads: ['prices'] }, async () => ({
      prices: await deps.pricing.list(principal.orgId),
    })),
  );

  declareRoute(
    app,
    {
      method: 'PUT',
      path: PRICING_PATH,
      tag: 'Budgets',
      summary: 'Set the price of a model (or a pattern with *) from a day',
      description:
        'Replaces the entry of the same model and day. The dollars of the days from effectiveFrom to yesterday (at most the last 400) are computed again before the answer; `rebuilt` names them. Answers the list.',
      action: 'Setting a price',
      access: { kind: 'user', roles: OWNERS },
      body: PriceEntry,
      responses: { 200: PriceList },
    },
    async ({ principal, body }, request) => {
      await deps.pricing.set(principal.orgId, body, principal.userId);
      request.log.info({ model: body.model, effectiveFrom: body.effectiveFrom }, 'price set');
      const rebuilt = await repriceAndCompare(principal.orgId, body.effectiveFrom, request.log);
      return { prices: await deps.pricing.list(principal.orgId), rebuilt };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: PRICING_PATH,
      tag: 'Budgets',
      summary: 'Remove one of the organization’s prices (the model and day it was set for)',
      description: 'The days it covered are computed again, with the list price (or none). 404 when the organization has no such entry.',
      action: 'Removing a price',
      access: { kind: 'user', roles: OWNERS },
      query: PriceKeyQuery,
      responses: { 200: PriceList },
    },
    async ({ principal, query }, request) => {
      if (!(await deps.pricing.remove(principal.orgId, query.model, query.effectiveFrom)))
        throw notFound(`no price of ${query.model} from ${query.effectiveFrom} in the organization`);
      request.log.info({ model: query.model, effectiveFrom: query.effectiveFrom }, 'price removed');
      const rebuilt = await repriceAndCompare(principal.orgId, query.effectiveFrom, request.log);
      return { prices: await deps.pricing.list(principal.orgId), rebuilt };
    },
  );
}
