// GET /api/v0/admin/batch/runs: the latest daily-batch runs with what each reported (days rebuilt,
// unpriced models), newest first, for the dashboard's pipeline-health page. Owners and managers.
// The runs are the batch's own bookkeeping table (batch_runs), so a restart loses none of them.
// Each organization sees its own runs (started through the API or by an erasure in it) and the runs of
// every organization, those with its own days rebuilt, its own newest ingest time as the watermark and
// its own unpriced models: nothing of another organization (migration 017).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, requireRole } from '../auth/principal.ts';
import { BatchRunsQuery } from './schema.ts';

export const BATCH_RUNS_SQL = `
SELECT r.id, r.trigger, strftime(r.started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
       strftime(r.finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at,
       strftime(o.newest_received, '%Y-%m-%dT%H:%M:%S.%gZ') AS watermark, o.days_rebuilt, r.unpriced_models
FROM batch_runs r LEFT JOIN batch_run_orgs o ON o.run_id = r.id AND o.org_id = $org
WHERE r.org_id = $org OR (r.org_id IS NULL AND r.trigger NOT IN ('api', 'erase'))
ORDER BY r.id DESC LIMIT $limit`;

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
    const rows = await deps.db.all<Row & Record<string, unknown>>(BATCH_RUNS_SQL, { limit: limit ?? 10, org: principal.orgId });
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
