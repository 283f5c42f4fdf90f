// `agentmeter export`: the raw tables and the daily aggregates of a date range, written by DuckDB's COPY
// in the hive layout DIR/<table>/org_id=<org>/day=<YYYY-MM-DD>/data_0.<parquet|csv>, which DuckDB,
// ClickHouse, BigQuery and Spark read as they are. Plain column types: TIMESTAMP (UTC), DATE, BIGINT,
// DOUBLE, VARCHAR, BOOLEAN, and in Parquet the lists and structs as they are (in CSV as JSON text).
// Never exported: API keys and their hashes, computers and their tokens, sessions and their messages,
// enterprise controls (custom models' keys), readiness reports. `users` goes out (id, email, role,
// names; not metadata) per organization, because the other tables name users only by id.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { ensurePrivateDir } from '../common/private-files.ts';

export type ExportFormat = 'parquet' | 'csv';

interface TableSpec {
  /** The folder under DIR, and the table read. */
  name: string;
  /** The day each row belongs to (UTC); null for a table partitioned by organization only. */
  day: string | null;
}

/** Raw tables by the day of `ts`, aggregates by their `day`, users by organization. */
export const EXPORT_TABLES: readonly TableSpec[] = [
  { name: 'events', day: 'CAST(ts AS DATE)' },
  { name: 'usage', day: 'CAST(ts AS DATE)' },
  { name: 'assistant_messages', day: 'CAST(ts AS DATE)' },
  { name: 'agg_user_day', day: 'day' },
  { name: 'agg_tokens_day', day: 'day' },
  { name: 'agg_breakdown_day', day: 'day' },
  { name: 'agg_hooks_day', day: 'day' },
  { name: 'agg_org_day', day: 'day' },
  { name: 'users', day: null },
];

/** The columns of `users` that leave: enough to join on and to name people; no metadata. */
const USER_COLUMNS = ['org_id', 'id', 'email', 'role', 'first_name', 'last_name', 'created_at', 'last_sign_in_at'];

const SQL = {
  columns: `SELECT column_name, data_type FROM information_schema.columns
            WHERE table_schema = 'main' AND table_name = $table ORDER BY ordinal_position`,
  /** The row filter of a day-partitioned table: the raw tables' `ts` range lets DuckDB skip row groups. */
  rawRange: `ts >= CAST($from AS DATE) AND ts < CAST($to AS DATE) + INTERVAL 1 DAY`,
  dayRange: `day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)`,
} as const;

export interface ExportOptions {
  from: string;
  to: string;
  out: string;
  format: ExportFormat;
  log: Logger;
}

export interface TableExport {
  table: string;
  rows: number;
  partitions: number;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteString = (text: string) => `'${text.replace(/'/g, "''")}'`;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** One column as it leaves: timestamps with a zone as plain TIMESTAMP (UTC); in CSV, nested values as JSON text. */
export function columnExpression(name: string, type: string, format: ExportFormat): string {
  const column = quoteIdent(name);
  if (/^TIMESTAMP WITH TIME ZONE$/i.test(type)) return `CAST(${column} AS TIMESTAMP) AS ${column}`;
  if (format === 'csv' && (/\[\]$/.test(type) || /^(STRUCT|MAP|UNION)\b/i.test(type)))
    return `CAST(to_json(${column}) AS VARCHAR) AS ${column}`;
  return column;
}

/**
 * A symbolic link anywhere under a table folder is refused before anything is written: DuckDB's COPY
 * with PARTITION_BY writes into `org_id=…/day=…` whatever those names point at, so a planted link
 * would send the export (and the removal of stale partitions) into someone else's folder.
 */
function refuseLinks(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink())
      throw new UserError(`${path} is a symbolic link; export writes only into real directories. Nothing was exported.`);
    if (entry.isDirectory()) refuseLinks(path);
  }
}

/**
 * The partitions of `table` the range covers, removed before it is written again, so an export of a
 * range replaces that range (a day that lost its rows keeps no stale file). Only our own layout is touched.
 */
function partitionsInRange(dir: string, from: string | null, to: string | null): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const org of readdirSync(dir, { withFileTypes: true })) {
    if (!org.isDirectory() || !org.name.startsWith('org_id=')) continue;
    if (from === null || to === null) {
      found.push(join(dir, org.name));
      continue;
    }
    for (const day of readdirSync(join(dir, org.name), { withFileTypes: true })) {
      const value = day.name.slice('day='.length);
      if (day.isDirectory() && day.name.startsWith('day=') && DAY.test(value) && value >= from && value <= to) {
        found.push(join(dir, org.name, day.name));
      }
    }
  }
  return found;
}

export async function exportTables(db: Db, options: ExportOptions): Promise<TableExport[]> {
  const { from, to, format, log } = options;
  if (!DAY.test(from) || !DAY.test(to)) throw new UserError('--from and --to take YYYY-MM-DD');
  if (from > to) throw new UserError(`--from ${from} is after --to ${to}`);
  // The export folder and every table folder: ours, real folders, 0700; no link anywhere below them.
  ensurePrivateDir(options.out);
  for (const spec of EXPORT_TABLES) {
    const dir = join(options.out, spec.name);
    ensurePrivateDir(dir);
    refuseLinks(dir);
  }
  const results: TableExport[] = [];
  for (const spec of EXPORT_TABLES) {
    const started = performance.now();
    const columns = await db.all<{ column_name: string; data_type: string }>(SQL.columns, { table: spec.name });
    if (columns.length === 0) throw new Error(`table ${spec.name} not found: is this an agentmeter database?`);
    const wanted = spec.name === 'users' ? columns.filter((c) => USER_COLUMNS.includes(c.column_name)) : columns;
    const select = wanted.map((c) =>
      spec.name === 'users' && c.column_name === 'id'
        ? `${quoteIdent('id')} AS user_id`
        : columnExpression(c.column_name, c.data_type, format),
    );
    const dir = join(options.out, spec.name);
    ensurePrivateDir(dir);
    refuseLinks(dir);
    for (const stale of partitionsInRange(dir, spec.day ? from : null, spec.day ? to : null)) rmSync(stale, { recursive: true });
    const where = spec.day === null ? '' : `WHERE ${spec.day === 'day' ? SQL.dayRange : SQL.rawRange}`;
    const partitionBy = spec.day === null ? 'org_id' : 'org_id, day';
    const dayColumn = spec.day === null || spec.day === 'day' ? '' : `, ${spec.day} AS day`;
    const copy = `COPY (SELECT ${select.join(', ')}${dayColumn} FROM ${quoteIdent(spec.name)} ${where})
      TO ${quoteString(dir)} (FORMAT ${format}, ${format === 'csv' ? 'HEADER true, ' : ''}PARTITION_BY (${partitionBy}), OVERWRITE_OR_IGNORE)`;
    const rows = await db.run(copy, spec.day === null ? undefined : { from, to });
    const partitions = partitionsInRange(dir, spec.day ? from : null, spec.day ? to : null).length;
    results.push({ table: spec.name, rows, partitions });
    log.info({ table: spec.name, rows, partitions, ms: Math.round(performance.now() - started) }, 'table exported');
  }
  return results;
}
