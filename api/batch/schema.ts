// GET /api/v0/admin/batch/runs: the latest daily-batch runs, newest first.
import { z } from 'zod';
import { limitParam } from '../query.ts';

export const BatchRunsQuery = z.strictObject({ limit: limitParam.optional() });

const Instant = z.string().describe('ISO-8601 UTC');
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
});
export const BatchRunList = z.strictObject({ runs: z.array(BatchRun) });
