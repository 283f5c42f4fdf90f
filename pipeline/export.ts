// `agentmeter export`: the raw tables and the daily aggregates of a date range, written by DuckDB's COPY
// in the hive layout DIR/<table>/org_id=<org>/day=<YYYY-MM-DD>/data_0.<parquet|csv>, which DuckDB,
// ClickHouse, BigQuery and Spark read as they are. Plain column types: TIMESTAMP (UTC), DATE, BIGINT,
// DOUBLE, VARCHAR, BOOLEAN, and in Parquet the lists and structs as they are (in CSV as JSON text).
// Never exported: API keys and their hashes, computers and their tokens, sessions and their messages,
// enterprise controls (custom models' keys), readiness reports. `users` goes out (id, email, role,
// names; not metadata) per organization, because the other tables name users only by id.
// In CSV, a text cell that a spreadsheet would run as a formula (members choose session ids, hook
// commands, file names…) is prefixed with an apostrophe, as the dashboard's CSV does (common/csv-cells.ts);
// `rawCsv` keeps every value as stored, for a warehouse that loads the files rather than a person.
import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FORMULA_START } from '../common/csv-cells.ts';
import type { Db } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { ensurePrivateDir } from '../common/private-files.ts';
import { parseDay } from '../common/time.ts';

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

/** Bookkeeping columns of the raw tables that do not leave (migration 097). */
const INTERNAL_COLUMNS = new Set(['moved_from']);

/** The columns of `users` that leave: enough to join on and to name people; no metadata. */
const USER_COLUMNS = ['org_id', 'id', 'email', 'role', 'first_name', 'last_name', 'created_at', 'last_sign_in_at'];

const SQL = {
  columns: `SELECT column_name, data_type FROM information_schema.columns
            WHERE table_schema = 'main' AND table_name = $table ORDER BY ordinal_position`,
  /** The row filter of a day-partitioned table: the raw tables' `ts` range lets DuckDB skip row groups. */
  rawRange: `ts >= CAST($from AS DATE) AND ts < CAST($to AS DATE) + INTERVAL 1 DAY`,
  dayRange: `day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE)`,
  orgFilter: `org_id = $org`,
  orgExists: `SELECT 1 FROM orgs WHERE id = $org`,
} as const;

export interface ExportOptions {
  from: string;
  to: string;
  out: string;
  format: ExportFormat;
  /** One organization's rows only (its id); every organization's when absent. */
  orgId?: string;
  /** CSV only: text cells as stored, without the guard against spreadsheet formulas. */
  rawCsv?: boolean;
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

/** The same rule as guardCsvText, in DuckDB's regular expressions (RE2 reads the JavaScript source as is). */
const GUARD_FORMULA = (column: string) =>
  `CASE WHEN regexp_matches(${column}, ${quoteString(FORMULA_START.source)}) THEN '''' || ${column} ELSE ${column} END AS ${column}`;

/**
 * One column as it leaves: timestamps with a zone as plain TIMESTAMP (UTC); in CSV, nested values as JSON
 * text, and text guarded against spreadsheet formulas unless `rawCsv`.
 */
export function columnExpression(name: string, type: string, format: ExportFormat, rawCsv = false): string {
  const column = quoteIdent(name);
  if (/^TIMESTAMP WITH TIME ZONE$/i.test(type)) return `CAST(${column} AS TIMESTAMP) AS ${column}`;
  if (format === 'csv' && !rawCsv && /^VARCHAR$/i.test(type)) return GUARD_FORMULA(column);
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
function partitionsInRange(dir: string, from: string | null, to: string | null, orgId: string | undefined): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const org of readdirSync(dir, { withFileTypes: true })) {
    if (!org.isDirectory() || !org.name.startsWith('org_id=')) continue;
    if (orgId !== undefined && org.name !== `org_id=${orgId}`) continue;
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

/**
 * The export folder: created private (0700) when missing; one that exists is the user's choice (a
 * warehouse's landing folder may be shared on purpose) and keeps its mode, but must be a real folder.
 */
function prepareOutDir(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink())
      throw new UserError(`${path} is a symbolic link; export writes only into real directories. Nothing was exported.`);
    if (!stat.isDirectory()) throw new UserError(`${path} is not a folder. Nothing was exported.`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    ensurePrivateDir(path);
  }
}

/** Pure: what is wrong with an export's range (real calendar days, as `batch` checks them), or undefined. */
export function exportRangeProblem(from: string, to: string): string | undefined {
  if (parseDay(from) === undefined) return `--from ${from} is not a real calendar day (YYYY-MM-DD)`;
  if (parseDay(to) === undefined) return `--to ${to} is not a real calendar day (YYYY-MM-DD)`;
  if (from > to) return `--from ${from} is after --to ${to}`;
  return undefined;
}

export async function exportTables(db: Db, options: ExportOptions): Promise<TableExport[]> {
  const { from, to, format, log, orgId } = options;
  const problem = exportRangeProblem(from, to);
  if (problem) throw new UserError(problem);
  if (orgId !== undefined && (await db.all(SQL.orgExists, { org: orgId })).length === 0)
    throw new UserError(`no organization ${orgId} in this database (agentmeter orgs list shows their ids). Nothing was exported.`);
  // The export folder a real folder; every table folder ours, real, 0700; no link anywhere below them.
  prepareOutDir(options.out);
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
    const wanted =
      spec.name === 'users'
        ? columns.filter((c) => USER_COLUMNS.includes(c.column_name))
        : columns.filter((c) => !INTERNAL_COLUMNS.has(c.column_name));
    const select = wanted.map((c) =>
      spec.name === 'users' && c.column_name === 'id'
        ? `${quoteIdent('id')} AS user_id`
        : columnExpression(c.column_name, c.data_type, format, options.rawCsv),
    );
    const dir = join(options.out, spec.name);
    ensurePrivateDir(dir);
    refuseLinks(dir);
    for (const stale of partitionsInRange(dir, spec.day ? from : null, spec.day ? to : null, orgId)) rmSync(stale, { recursive: true });
    const filters = [
      ...(spec.day === null ? [] : [spec.day === 'day' ? SQL.dayRange : SQL.rawRange]),
      ...(orgId === undefined ? [] : [SQL.orgFilter]),
    ];
    const where = filters.length ? `WHERE ${filters.join(' AND ')}` : '';
    const partitionBy = spec.day === null ? 'org_id' : 'org_id, day';
    const dayColumn = spec.day === null || spec.day === 'day' ? '' : `, ${spec.day} AS day`;
    const copy = `COPY (SELECT ${select.join(', ')}${dayColumn} FROM ${quoteIdent(spec.name)} ${where})
      TO ${quoteString(dir)} (FORMAT ${format}, ${format === 'csv' ? 'HEADER true, ' : ''}PARTITION_BY (${partitionBy}), OVERWRITE_OR_IGNORE)`;
    const params = { ...(spec.day === null ? {} : { from, to }), ...(orgId === undefined ? {} : { org: orgId }) };
    const rows = await db.run(copy, Object.keys(params).length ? params : undefined);
    const partitions = partitionsInRange(dir, spec.day ? from : null, spec.day ? to : null, orgId).length;
    results.push({ table: spec.name, rows, partitions });
    log.info({ table: spec.name, rows, partitions, ms: Math.round(performance.now() - started) }, 'table exported');
  }
  return results;
}
