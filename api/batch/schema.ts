// The zod schemas of the batch's routes: POST /api/v0/admin/batch (run it now) and
// GET /api/v0/admin/batch/runs (the latest runs, newest first), request and answer, and their paths.
import { z } from 'zod';
import { Day, IsoTime, utcDay } from '../http/dates.ts';
import { limitParam } from '../http/query.ts';

export const BATCH_PATH = '/api/v0/admin/batch';
export const BATCH_RUNS_PATH = '/api/v0/admin/batch/runs';

const BatchDay = utcDay('YYYY-MM-DD');
export const BatchBody = z.strictObject({ from: BatchDay.optional(), to: BatchDay.optional() }).default({});

/** The answer: pipeline/batch.ts's BatchReport. */
export const BatchReportAnswer = z.strictObject({
  runId: z.number().int(),
  mode: z.enum(['incremental', 'range']),
  days: z.number().int(),
  firstDay: Day.nullable(),
  lastDay: Day.nullable(),
  unpricedModels: z.array(z.string()),
  unpricedUsdModels: z.array(z.string()).describe('models without a dollar price: their cost_usd is null (docs/metrics.md §8)'),
  ms: z.number(),
});

export const BatchRunsQuery = z.strictObject({ limit: limitParam.optional() });

const Instant = IsoTime.describe('ISO-8601 UTC');
export const BatchRun = z.strictObject({
  id: z.number().int(),
  trigger: z
    .string()
    .describe(
      'what started the run: schedule, server, api, cli, demo or erase; migration marks a schema change after which the next run rebuilds every day',
    ),
  startedAt: Instant,
  /** null while the run is in progress, or when it failed before it finished. */
  finishedAt: Instant.nullable(),
  watermark: Instant.nullable().describe(
    "this organization's newest record the run covered (null while it runs, and for runs recorded before per-organization figures)",
  ),
  daysRebuilt: z.number().int().nullable().describe("this organization's days the run rebuilt (null: as for watermark)"),
  /** Models of this organization the batch found no price for. */
  unpricedModels: z.array(z.string()),
  /** Models of this organization with no dollar price (list or its own): cost null. */
  unpricedUsdModels: z.array(z.string()),
});
export type BatchRun = z.infer<typeof BatchRun>;
export const BatchRunList = z.strictObject({ runs: z.array(BatchRun) });
