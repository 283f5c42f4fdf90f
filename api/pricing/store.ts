// The organization's own prices in DuckDB (migration 060): one row per model (or pattern) and start day.
import type { Db } from '../../common/db/duckdb.ts';
import type { PriceEntry, PriceView } from './schema.ts';

const SQL = {
  list: `SELECT model, CAST(effective_from AS VARCHAR) AS effective_from, input_mtok, output_mtok, cache_read_mtok, cache_write_mtok,
                cache_write_1h_mtok, note, strftime(updated_at, '%Y-%m-%dT%H:%M:%SZ') AS updated_at, updated_by
         FROM org_prices WHERE org_id = $org ORDER BY model, effective_from`,
  upsert: `INSERT OR REPLACE INTO org_prices VALUES ($org, $model, CAST($from AS DATE), $input, $output, $cache_read, $cache_write,
           $cache_write_1h, $note, now()::TIMESTAMP, $by)`,
  remove: 'DELETE FROM org_prices WHERE org_id = $org AND model = $model AND effective_from = CAST($from AS DATE)',
} as const;

interface Row {
  model: string;
  effective_from: string;
  input_mtok: number;
  output_mtok: number;
  cache_read_mtok: number | null;
  cache_write_mtok: number | null;
  cache_write_1h_mtok: number | null;
  note: string | null;
  updated_at: string;
  updated_by: string;
}

export class PricingStore {
  constructor(private readonly db: Db) {}

  async list(orgId: string): Promise<PriceView[]> {
    const rows = await this.db.all<Row & Record<string, unknown>>(SQL.list, { org: orgId });
    return rows.map((r) => ({
      model: r.model,
      effectiveFrom: r.effective_from,
      inputMtok: r.input_mtok,
      outputMtok: r.output_mtok,
      cacheReadMtok: r.cache_read_mtok,
      cacheWriteMtok: r.cache_write_mtok,
      cacheWrite1hMtok: r.cache_write_1h_mtok,
      note: r.note,
      updatedAt: r.updated_at,
      updatedBy: r.updated_by,
    }));
  }

  /** Sets the price of a model from a day (replacing the entry of the same model and day). */
  async set(orgId: string, entry: PriceEntry, by: string): Promise<void> {
    await this.db.run(SQL.upsert, {
      org: orgId,
      model: entry.model,
      from: entry.effectiveFrom,
      input: entry.inputMtok,
      output: entry.outputMtok,
      cache_read: entry.cacheReadMtok ?? null,
      cache_write: entry.cacheWriteMtok ?? null,
      cache_write_1h: entry.cacheWrite1hMtok ?? null,
      note: entry.note ?? null,
      by,
    });
  }

  /** Removes one entry; false when the organization has none of that model and day. */
  async remove(orgId: string, model: string, effectiveFrom: string): Promise<boolean> {
    return (await this.db.run(SQL.remove, { org: orgId, model, from: effectiveFrom })) > 0;
  }
}
