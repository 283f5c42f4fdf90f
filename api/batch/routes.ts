// POST /api/v0/admin/batch: runs the daily batch inside the server (which holds the database), for an
// owner or manager; `agentmeter batch --server URL --key KEY` calls it. A range is real days, at most
// MAX_BATCH_DAYS long. It rebuilds the caller's organization alone, clears only its cached answers, and
// its range is clamped to the days that can hold its data (pipeline/batch.ts, clampRange). One run per
// organization at a time: another request while one is queued or running answers 409.

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { badRequest, HttpError } from '../../common/errors.ts';
import { type BatchReport, batchRangeProblem, runBatch, yesterdayOf } from '../../pipeline/batch.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, requireRole } from '../auth/principal.ts';
import { ORG_MODELS_SQL } from './store.ts';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD');
export const BatchBody = z.strictObject({ from: Day.optional(), to: Day.optional() }).default({});

/** The answer: pipeline/batch.ts's BatchReport. */
export const BatchReportAnswer = z.strictObject({
  runId: z.number().int(),
  mode: z.enum(['incremental', 'range']),
  days: z.number().int(),
  firstDay: z.string().nullable(),
  lastDay: z.string().nullable(),
  unpricedModels: z.array(z.string()),
  ms: z.number(),
});

export interface BatchDeps {
  db: Db;
  auth: Authenticator;
  pricingFile?: string | undefined;
  /** Runs fn after any batch in progress (one at a time), clearing the analytics cache (of orgId only, when given) after it. */
  runLocked: <T>(fn: () => Promise<T>, orgId?: string) => Promise<T>;
  /** The clock that decides yesterday (tests pin it). */
  now?: () => Date;
}

export function registerBatchRoutes(app: FastifyInstance, deps: BatchDeps): void {
  /** Organizations with a run queued or running through this route. */
  const queued = new Set<string>();
  app.post('/api/v0/admin/batch', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ADMIN_ROLES, 'Running the batch');
    const body = BatchBody.parse(request.body ?? {});
    // Validated here, so a bad range is a 400 (runBatch checks it too, for the CLI).
    const now = deps.now?.() ?? new Date();
    const problem = batchRangeProblem(body.from, body.to, yesterdayOf(now));
    if (problem) throw badRequest(problem);
    // At most one queued or running per organization: a caller cannot stack runs behind the lock.
    if (queued.has(principal.orgId))
      throw new HttpError(409, 'a batch of this organization is already queued or running; ask again when it has finished');
    queued.add(principal.orgId);
    let report: BatchReport;
    try {
      report = await deps.runLocked(
        () =>
          runBatch(deps.db, {
            ...body,
            orgId: principal.orgId,
            now,
            trigger: 'api',
            log: request.log as never,
            ...(deps.pricingFile ? { pricingFile: deps.pricingFile } : {}),
          }),
        principal.orgId,
      );
    } finally {
      queued.delete(principal.orgId);
    }
    // Models priced in one pass for everyone: the report names only this organization's unpriced models
    // (the same rule as GET /api/v0/admin/batch/runs), never another's model ids.
    const own = new Set((await deps.db.all<{ model: string }>(ORG_MODELS_SQL, { org: principal.orgId })).map((r) => r.model));
    return { ...report, unpricedModels: report.unpricedModels.filter((m) => own.has(m)) };
  });
}

/** Milliseconds from `now` to the next HH:MM UTC. */
export function msUntil(hhmm: string, now: Date): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m);
  return next > now.getTime() ? next - now.getTime() : next + 86_400_000 - now.getTime();
}
