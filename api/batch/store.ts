// The batch's bookkeeping as the API reads it: the runs an organization may see (batch_runs, with its
// own figures from batch_run_orgs) and the models of its own aggregates. Each organization sees its own
// runs (started through the API or by an erasure in it) and the runs of every organization, those with
// its own days rebuilt, its own newest ingest time as the watermark and its own unpriced models: nothing
// of another organization (migration 017). The runs are a table, so a restart loses none of them.
import type { Db } from '../../common/db/duckdb.ts';
import type { BatchRun } from './schema.ts';

export const BATCH_RUNS_SQL = `
SELECT r.id, r.trigger, strftime(r.started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
       strftime(r.finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at,
       strftime(o.newest_received, '%Y-%m-%dT%H:%M:%S.%gZ') AS watermark, o.days_rebuilt, r.unpriced_models,
       r.unpriced_usd_models
FROM batch_runs r LEFT JOIN batch_run_orgs o ON o.run_id = r.id AND o.org_id = $org
WHERE r.org_id = $org OR (r.org_id IS NULL AND r.trigger NOT IN ('api', 'erase'))
ORDER BY r.id DESC LIMIT $limit`;

/** The organization's own models: the batch runs for every organization, and another's model ids stay theirs. */
export const ORG_MODELS_SQL = 'SELECT DISTINCT model FROM agg_tokens_day WHERE org_id = $org';

interface RunRow {
  id: number;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  watermark: string | null;
  days_rebuilt: number | null;
  unpriced_models: string | null;
  unpriced_usd_models: string | null;
}

export class BatchStore {
  constructor(private readonly db: Db) {}

  /** The latest `limit` runs the organization may see, newest first, with its own figures only. */
  async runs(orgId: string, limit: number): Promise<BatchRun[]> {
    const rows = await this.db.all<RunRow & Record<string, unknown>>(BATCH_RUNS_SQL, { limit, org: orgId });
    const own = await this.orgModels(orgId);
    return rows.map((r) => ({
      id: r.id,
      trigger: r.trigger,
      startedAt: r.started_at,
      // null while a run is in progress, or when one failed before it finished.
      finishedAt: r.finished_at,
      watermark: r.watermark,
      daysRebuilt: r.days_rebuilt,
      unpricedModels: r.unpriced_models ? ownModels(JSON.parse(r.unpriced_models) as string[], own) : [],
      unpricedUsdModels: r.unpriced_usd_models ? ownModels(JSON.parse(r.unpriced_usd_models) as string[], own) : [],
    }));
  }

  /** The models of the organization's own aggregates. */
  async orgModels(orgId: string): Promise<Set<string>> {
    return new Set((await this.db.all<{ model: string }>(ORG_MODELS_SQL, { org: orgId })).map((r) => r.model));
  }
}

/**
 * The models of `models` the organization has itself: the batch prices every organization's models in
 * one pass, and names of another organization's models are theirs alone.
 */
export const ownModels = (models: readonly string[], own: ReadonlySet<string>): string[] => models.filter((m) => own.has(m));
