// The batch over HTTP, for owners and managers:
// - POST /api/v0/admin/batch runs the daily batch inside the server (which holds the database);
//   `agentmeter batch --server URL --key KEY` calls it. A range is real days, at most MAX_BATCH_DAYS
//   long. It rebuilds the caller's organization alone, clears only its cached answers, and its range is
//   clamped to the days that can hold its data (pipeline/batch.ts, clampRange). One run per
//   organization at a time (runner.ts): another request while one is queued or running answers 409.
// - GET /api/v0/admin/batch/runs lists the latest runs with what each reported (days rebuilt, unpriced
//   models), newest first, for the dashboard's pipeline-health page (store.ts says what each sees).
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { batchRangeProblem, yesterdayOf } from '../../pipeline/batch.ts';
import { ADMIN_ROLES } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { BatchRunner } from './runner.ts';
import { BATCH_PATH, BATCH_RUNS_PATH, BatchBody, BatchReportAnswer, BatchRunList, BatchRunsQuery } from './schema.ts';
import { type BatchStore, ownModels } from './store.ts';

export interface BatchDeps {
  runner: BatchRunner;
  store: BatchStore;
}

export function registerBatchRoutes(app: FastifyInstance, deps: BatchDeps): void {
  declareRoute(
    app,
    {
      method: 'POST',
      path: BATCH_PATH,
      tag: 'Admin',
      summary: "Run the daily batch now for the caller's organization (its new data, or a range of days)",
      description:
        "Rebuilds the caller's organization alone and clears only its cached answers. A range is clamped to the days that can hold its data (not before its first record nor 2026-01-14, not after yesterday). 409 while a batch of the organization is queued or running.",
      action: 'Running the batch',
      access: { kind: 'user', roles: ADMIN_ROLES },
      body: BatchBody,
      bodyOptional: true,
      responses: { 200: BatchReportAnswer },
      errors: [409],
    },
    async ({ principal, body }, request) => {
      // Validated here, so a bad range is a 400 (runBatch checks it too, for the CLI).
      const now = deps.runner.now();
      const problem = batchRangeProblem(body.from, body.to, yesterdayOf(now));
      if (problem) throw badRequest(problem);
      const report = await deps.runner.runForOrganization(principal.orgId, { ...body, now, trigger: 'api', log: request.log as Logger });
      // Models priced in one pass for everyone: the report names only this organization's unpriced models
      // (the same rule as GET /api/v0/admin/batch/runs), never another's model ids.
      const own = await deps.store.orgModels(principal.orgId);
      return {
        ...report,
        unpricedModels: ownModels(report.unpricedModels, own),
        unpricedUsdModels: ownModels(report.unpricedUsdModels, own),
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: BATCH_RUNS_PATH,
      freshness: 'live',
      tag: 'Admin',
      summary: 'The latest daily-batch runs this organization may see, newest first, with its own figures',
      description:
        'Its own runs (through the API, or after an erasure) and the runs of every organization (schedule, server, cli), each with this organization’s days rebuilt, newest record covered (watermark) and unpriced models only.',
      action: 'Reading batch runs',
      access: { kind: 'user', roles: ADMIN_ROLES },
      query: BatchRunsQuery,
      responses: { 200: BatchRunList },
    },
    async ({ principal, query }) => ({ runs: await deps.store.runs(principal.orgId, query.limit ?? 10) }),
  );
}
