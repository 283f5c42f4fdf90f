import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../api/accounts/store.ts';
import { databaseBytes, openDb } from '../common/db/duckdb.ts';
import { createLogger } from '../common/logger.ts';
import { type BatchOptions, runBatch, splitStatements } from '../pipeline/batch.ts';
import { exportTables } from '../pipeline/export.ts';
import { startServer } from './server-process.ts';

const ROOT = join(import.meta.dirname, '..');

const USERS = 500;
const FIRST_DAY = '2026-09-21'; // 60 days up to 2026-11-19, as in bench/run.ts
const LAST_DAY = '2026-11-19';
const NIGHT = new Date('2026-11-20T00:30:00Z');
const COLD_RANGE = 'startDate=2026-10-21&endDate=2026-11-19';
const ENDPOINTS = ['tokens', 'tools', 'activity', 'productivity', 'users'] as const;

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes) if (!Number.isInteger(n) || n < 1000) throw new Error(`event counts are whole numbers of at least 1000; got ${n}`);
const EVENT_COUNTS = sizes.length ? sizes : [10_000_000, 50_000_000];
const log = createLogger({ name: 'bench-scale', level: 'warn' });

const seconds = (since: number) => (performance.now() - since) / 1000;
const mib = (bytes: number) => bytes / 1024 / 1024;
function treeSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** VmRSS and VmHWM of a process, in bytes (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

interface ScaleFigures {
  events: number;
  generateSeconds: number;
  fullBatchSeconds: number;
  firstIncrementalSeconds: number;
  nightlyBatchSeconds: number;
  dbBytes: number;
  walBytes: number;
  serverIdleRssBytes: number;
  serverPeakRssBytes: number;
  cold30DayMs: Record<(typeof ENDPOINTS)[number], number>;
  cold30DaySlowestMs: number;
  cold30DaySumMs: number;
  export30DaySeconds: number;
  export30DayBytes: number;
}

async function measure(events: number, base: string): Promise<ScaleFigures> {
  const dir = mkdtempSync(join(base, `am-scale-${events}-`));
  try {
    const path = join(dir, 'scale.duckdb');
    const db = await openDb(path);
    let started = performance.now();
    for (const sql of splitStatements(readFileSync(join(ROOT, 'bench', 'sql', 'generate.sql'), 'utf8'))) {
      const values: Record<string, string | number> = { events, users: USERS, first_day: FIRST_DAY };
      const params: Record<string, string | number> = {};
      for (const m of sql.matchAll(/\$([a-z_]+)/g)) params[m[1]!] = values[m[1]!]!;
      await db.run(sql, params);
    }
    await db.run('CHECKPOINT');
    const generateSeconds = seconds(started);
    console.log(`  generated in ${generateSeconds.toFixed(1)} s`);

    const timed = async (options: Omit<BatchOptions, 'trigger' | 'log'>) => {
      const t = performance.now();
      await runBatch(db, { trigger: 'cli', log, ...options });
      return seconds(t);
    };
    const fullBatchSeconds = await timed({ from: FIRST_DAY, to: LAST_DAY, now: new Date('2026-11-21T00:00:00Z'), chunkDays: 60 });
    console.log(`  full batch ${fullBatchSeconds.toFixed(1)} s`);
    const firstIncrementalSeconds = await timed({ now: NIGHT });
    const nightlyBatchSeconds = await timed({ now: NIGHT });
    console.log(
      `  nightly batch ${nightlyBatchSeconds.toFixed(2)} s (the first incremental run before it: ${firstIncrementalSeconds.toFixed(1)} s)`,
    );

    const out = join(dir, 'export');
    started = performance.now();
    await exportTables(db, { from: '2026-10-21', to: LAST_DAY, out, format: 'parquet', log });
    const export30DaySeconds = seconds(started);
    const export30DayBytes = treeSize(out);
    rmSync(out, { recursive: true, force: true });

    const accounts = new AccountStore(db);
    const manager = (await accounts.getUser('org_bench', 'usr_00000'))!;
    const { key } = await accounts.createKey(manager);
    await db.run('CHECKPOINT');
    await db.close();
    const { file: dbBytes, wal: walBytes } = databaseBytes(path);

    const server = await startServer(path, ['--no-batch', '--cache-entries', '0']);
    try {
      const idle = memory(server.child.pid!);
      const cold = {} as Record<(typeof ENDPOINTS)[number], number>;
      for (const endpoint of ENDPOINTS) {
        const t = performance.now();
        const response = await fetch(`${server.url}/api/v1/analytics/${endpoint}?${COLD_RANGE}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${endpoint} answered ${response.status}`);
        cold[endpoint] = performance.now() - t;
      }
      const after = memory(server.child.pid!);
      return {
        events,
        generateSeconds,
        fullBatchSeconds,
        firstIncrementalSeconds,
        nightlyBatchSeconds,
        dbBytes,
        walBytes,
        serverIdleRssBytes: idle.rss,
        serverPeakRssBytes: after.peak,
        cold30DayMs: cold,
        cold30DaySlowestMs: Math.max(...Object.values(cold)),
        cold30DaySumMs: Object.values(cold).reduce((a, b) => a + b, 0),
        export30DaySeconds,
        export30DayBytes,
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const base = process.env['SCALE_DIR'] ?? tmpdir();
console.log(`bench/scale.ts: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, files in ${base}`);
const figures: ScaleFigures[] = [];
for (const events of EVENT_COUNTS) {
  console.log(`\n${events.toLocaleString('en')} events (${USERS} users, 60 days):`);
  const f = await measure(events, base);
  figures.push(f);
  console.log(
    [
      `  full batch (60 days)      ${f.fullBatchSeconds.toFixed(1)} s`,
      `  nightly batch             ${f.nightlyBatchSeconds.toFixed(2)} s`,
      `  database file             ${mib(f.dbBytes).toFixed(0)} MiB (+ WAL ${mib(f.walBytes).toFixed(0)} MiB)`,
      `  server memory             ${mib(f.serverIdleRssBytes).toFixed(0)} MiB idle, ${mib(f.serverPeakRssBytes).toFixed(0)} MiB peak after the cold queries`,
      `  cold 30-day query         slowest endpoint ${f.cold30DaySlowestMs.toFixed(0)} ms, all five ${f.cold30DaySumMs.toFixed(0)} ms (${ENDPOINTS.map((e) => `${e} ${f.cold30DayMs[e].toFixed(0)}`).join(', ')})`,
      `  export of 30 days         ${f.export30DaySeconds.toFixed(1)} s, ${mib(f.export30DayBytes).toFixed(0)} MiB of Parquet`,
    ].join('\n'),
  );
}
mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench', 'out', 'scale.json'),
  `${JSON.stringify({ at: new Date().toISOString(), cpus: cpus().length, figures }, null, 2)}\n`,
);
