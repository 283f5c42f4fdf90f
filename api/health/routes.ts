// GET /api/v0/admin/batch/runs: the latest daily-batch runs with what each reported (days rebuilt,
// unpriced models), newest first, for the dashboard's pipeline-health page. Owners and managers.
// The runs are the batch's own bookkeeping table (batch_runs), so a restart loses none of them.
// The batch covers every organization: days rebuilt are a count, and only this organization's unpriced
// models are named.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { ADMIN_ROLES, type Authenticator, requireRole } from '../auth.ts';
import { BatchRunsQuery } from './schema.ts';

export const BATCH_RUNS_SQL = `
SELECT id, trigger, strftime(started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
       strftime(finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at,
       strftime(watermark, '%Y-%m-%dT%H:%M:%S.%gZ') AS watermark, days_rebuilt, unpriced_models
FROM batch_runs ORDER BY id DESC LIMIT $limit`;

/** The organization's own models: the batch runs for every organization, and another's model ids stay theirs. */
export const ORG_MODELS_SQL = 'SELECT DISTINCT model FROM agg_tokens_day WHERE org_id = $org';

interface Row {
  id: number;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  watermark: string | null;
  days_rebuilt: number | null;
  unpriced_models: string | null;
}

export function registerHealthRoutes(app: FastifyInstance, deps: { db: Db; auth: Authenticator }): void {
  app.get('/api/v0/admin/batch/runs', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ADMIN_ROLES, 'Reading batch runs');
    const { limit } = BatchRunsQuery.parse(request.query ?? {});
    const rows = await deps.db.all<Row & Record<string, unknown>>(BATCH_RUNS_SQL, { limit: limit ?? 10 });
    const own = new Set((await deps.db.all<{ model: string }>(ORG_MODELS_SQL, { org: principal.orgId })).map((r) => r.model));
    return {
      runs: rows.map((r) => ({
        id: r.id,
        trigger: r.trigger,
        startedAt: r.started_at,
        // null while a run is in progress, or when one failed before it finished.
        finishedAt: r.finished_at,
        watermark: r.watermark,
        daysRebuilt: r.days_rebuilt,
        unpricedModels: r.unpriced_models ? (JSON.parse(r.unpriced_models) as string[]).filter((m) => own.has(m)) : [],
      })),
    };
  });
}
