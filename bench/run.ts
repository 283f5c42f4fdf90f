// `npm run bench`: measures, prints and saves (bench/out/results.json) the figures the issues name.
//   hook       — cost of one hook run vs `true` and vs a bare dash tmp→new writer, same run, interleaved; and
//                a Codex hook under `codex exec` with a short and a 120 KB prompt
//   ingest     — server ingest rate (gzip NDJSON batches posted to a real server process) and the server's
//                CPU time a batch; BENCH_CLI=<another checkout's bin/agentmeter.js> measures that server
//   ship       — collector ship rate (spool files → server, end to end)
//   batch      — the daily batch over 10M generated events (60 days): all days, a first incremental run, a
//                nightly run
//   api        — the five analytics endpoints beside a bare Fastify route: cached and cold answers;
//                BENCH_CLI=<another checkout's bin/agentmeter.js> measures that server
//   dashboard  — the dashboard overview's cold complete time in Chromium, and its gzip asset size
//   bundle     — the laptop bundle's size, its cold start (`node dist/laptop/agentmeter.mjs --version`) and
//                `agentmeter statusline` from a status cache
//   bombs      — abusive ingest requests (gzip bombs, records naming 1,000 files, several at once): time to
//                answer, the server's peak RSS growth, another organization's batch latency (bench/bombs.ts).
//                BENCH_CLI=<path to another checkout's bin/agentmeter.js> runs them against that server.
//   code       — crediting a 1,000-line commit against a 100k-line ledger; the collector's memory with a
//                1M-line 30-day ledger (both scale with BENCH_SCALE); the batch's rows include landed commits
//   live       — today so far: the lag from `collect` to /api/v1/analytics/today (20 events), ingest with
//                the live figures on (a dashboard polling /today, a budget being compared), a live build's cost
//   otel       — the collector's OTLP receiver: data points per second decoded, mapped and spooled on one
//                core (protobuf and JSON metrics of Claude Code's names, over HTTP and through its request
//                path alone)
//   pulls      — the pull request figures and list for 30 days over 20,000 merged pull requests of two years,
//                each request building its answer; BENCH_CLI=<another checkout's bin/agentmeter.js> too;
//                BENCH_PULLS_RUNS: requests measured (7)
// Select sections with `npm run bench -- hook ship`; all by default. Sizes scale with BENCH_SCALE.
import { spawn, spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AccountStore } from '../api/accounts/store.ts';
import { creditCommit } from '../collector/code/credit.ts';
import { Ledger, type LedgerWrite } from '../collector/code/ledger.ts';
import { Collector } from '../collector/daemon.ts';
import { OtlpReceiver } from '../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../collector/spool.ts';
import { openDb, walSize } from '../common/db/duckdb.ts';
import { createLogger } from '../common/logger.ts';
import type { WireRecord } from '../common/wire.ts';
import { type BatchOptions, runBatch, splitStatements } from '../pipeline/batch.ts';
import { buildLaptop, LAPTOP_BUNDLE } from '../scripts/build-laptop.mjs';
import { buildWeb } from '../scripts/build-web.mjs';
import { FULL_BOMBS, runBombs } from './bombs.ts';
import { measureDashboard } from './dashboard.ts';
import type { LoadResult } from './load-client.ts';
import { CLI, startServer } from './server-process.ts';

const ROOT = join(import.meta.dirname, '..');

const HOOK = join(ROOT, 'hooks', 'agentmeter-hook.sh');
const SCALE = Number(process.env['BENCH_SCALE'] ?? '1');
/**
 * The throughput sections send one user's records far faster than the per-user ingest quota lets a user
 * (60,000 records a minute, docs/ingest-limits.md): they measure the server's speed, so the quota is off.
 */
const NO_QUOTA = ['--ingest-records-per-minute', '0', '--ingest-mb-per-minute', '0'];
const results: Record<string, unknown> = {
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  at: new Date().toISOString(),
};

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const fmt = (n: number, digits = 2) => n.toFixed(digits);

/**
 * A new organization of the bench's database with `members` members (before a server opens the database):
 * their keys.
 */
function seed(db: string, cli = CLI, members = 1): [string, ...string[]] {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
  const org = run(['orgs', 'add', '--db', db, '--name', 'Bench']).stdout.trim();
  return Array.from(
    { length: Math.max(1, members) },
    (_, m) =>
      run(['users', 'add', '--db', db, '--org', org, '--email', `bench${m || ''}@example.com`, '--role', 'member'])
        .stdout.trim()
        .split('\n')
        .at(-1)!,
  ) as [string, ...string[]];
}

function benchHook(): void {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-hook-'));
  const bare = join(dir, 'bare.sh');
  // The floor: the least a Maildir writer in dash can do (read stdin to tmp/, rename into new/).
  writeFileSync(bare, `#!/bin/dash\nd="$AGENTMETER_HOME/spool"\ncat > "$d/tmp/$$" && mv "$d/tmp/$$" "$d/new/$$"\n`, { mode: 0o755 });
  const payload = Buffer.from(
    JSON.stringify({
      session_id: '4f1c2a7e-1b2c-4d5e-8f90-123456789abc',
      transcript_path: '/home/dev/.claude/projects/-home-dev-app/4f1c2a7e.jsonl',
      cwd: '/home/dev/app',
      permission_mode: 'acceptEdits',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm test -- --run', description: 'Run the tests' },
      tool_response: { stdout: 'x'.repeat(3000), stderr: '', interrupted: false },
    }),
  );
  const env = { PATH: process.env['PATH']!, AGENTMETER_HOME: join(dir, 'am') };
  mkdirSync(join(dir, 'am', 'spool', 'tmp'), { recursive: true });
  mkdirSync(join(dir, 'am', 'spool', 'new'), { recursive: true });
  const runs = Math.max(50, Math.round(400 * SCALE));
  // A headless Codex run: the hook's parent is `codex exec <prompt>` (a shell of that command line here),
  // whose command line the hook reads. A long prompt must cost no more than a short one.
  const codexExec = (prompt: string): string[] => ['-c', 'sh "$2" codex', 'codex', 'exec', HOOK, prompt];
  const subjects: [string, string, string[]][] = [
    ['true', 'true', []],
    ['bare dash writer', bare, []],
    ['agentmeter hook', 'sh', [HOOK, 'claude']],
    ['codex exec, short prompt', 'sh', codexExec('fix the tests')],
    ['codex exec, 120 KB prompt', 'sh', codexExec('fix the flaky test '.repeat(6_300))],
  ];
  const times = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
  // Interleaved so that machine noise falls on all three alike.
  for (let i = 0; i < runs; i++) {
    for (const [name, cmd, args] of subjects) {
      const start = process.hrtime.bigint();
      spawnSync(cmd, args, { input: payload, env });
      times.get(name)!.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    if (i % 100 === 99) {
      rmSync(join(dir, 'am', 'spool', 'new'), { recursive: true });
      mkdirSync(join(dir, 'am', 'spool', 'new'));
    }
  }
  const stats = Object.fromEntries(
    [...times].map(([name, t]) => {
      t.sort((a, b) => a - b);
      return [name, { median: quantile(t, 0.5), p90: quantile(t, 0.9), p99: quantile(t, 0.99) }];
    }),
  );
  const base = stats['true']!.median;
  const bareMedian = stats['bare dash writer']!.median;
  const hookMedian = stats['agentmeter hook']!.median;
  console.log(`\nhook cost (${runs} runs each, ${payload.length}-byte PostToolUse payload, spawned from Node; ms)`);
  for (const [name, s] of Object.entries(stats))
    console.log(`  ${name.padEnd(26)} median ${fmt(s.median)}  p90 ${fmt(s.p90)}  p99 ${fmt(s.p99)}  net of true ${fmt(s.median - base)}`);
  const ratio = hookMedian / bareMedian;
  const netRatio = (hookMedian - base) / (bareMedian - base);
  console.log(`  hook / bare writer: ${fmt(ratio)}x (net of process start: ${fmt(netRatio)}x)   target: median <= 10 ms and <= 1.5x`);
  results['hook'] = { runs, payloadBytes: payload.length, stats, ratio, netRatio };
  rmSync(dir, { recursive: true, force: true });
}

function makeRecords(n: number, offset: number, timeOf?: (k: number) => number): WireRecord[] {
  const out: WireRecord[] = [];
  const t0 = Date.UTC(2026, 2, 1);
  for (let i = 0; i < n; i++) {
    const k = offset + i;
    out.push({
      kind: 'event',
      id: `bench.${k}`,
      agent: k % 3 ? 'claude' : 'droid',
      event: 'PostToolUse',
      ts: timeOf ? timeOf(k) : t0 + k * 37,
      session_id: `s${k % 997}`,
      client: 'terminal-ui',
      autonomy: 'auto-low',
      tool_name: ['Bash', 'Read', 'Edit', 'mcp__github__get_issue'][k % 4]!,
      tool_success: true,
      ...(k % 4 === 2 ? { files: [{ ext: 'ts', op: 'edit' as const }] } : {}),
      hooks: [{ event: 'PostToolUse', matcher: '*', command: "'/home/dev/.agentmeter/bin/agentmeter-hook.sh' claude" }],
    });
  }
  return out;
}

/**
 * CPU time a process has used (user and system, all its threads), in ms, from /proc/<pid>/stat; undefined
 * elsewhere. Clock ticks are taken as 100 a second (Linux's USER_HZ on every common architecture).
 */
function processCpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A batch of `n` bench records from id `offset` on, as a collector sends it (gzip NDJSON, each line ending in a newline). */
const gzipBatch = (n: number, offset: number, timeOf?: (k: number) => number) =>
  gzipSync(
    makeRecords(n, offset, timeOf)
      .map((r) => `${JSON.stringify(r)}\n`)
      .join(''),
  );

/** The machine's idle and total CPU time so far, in clock ticks, from /proc/stat's first line; undefined elsewhere. */
function machineTicks(): { idle: number; total: number } | undefined {
  try {
    const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // idle and iowait: a core with nothing to run.
    return { idle: ticks[3]! + (ticks[4] ?? 0), total: ticks.reduce((a, b) => a + b, 0) };
  } catch {
    return undefined;
  }
}

/**
 * The seconds `work` takes, the CPU time (ms) server process `pid` spends meanwhile, and the share of the
 * machine's cores left idle: what a rate bound by CPU could still take.
 */
async function serverTimed(
  pid: number,
  work: () => Promise<unknown>,
): Promise<{ seconds: number; cpuMs: number | undefined; idleShare: number | undefined }> {
  const cpuBefore = processCpuMs(pid);
  const ticksBefore = machineTicks();
  const start = performance.now();
  await work();
  const seconds = (performance.now() - start) / 1000;
  const cpuAfter = processCpuMs(pid);
  const ticksAfter = machineTicks();
  return {
    seconds,
    cpuMs: cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined,
    idleShare:
      ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total
        ? (ticksAfter.idle - ticksBefore.idle) / (ticksAfter.total - ticksBefore.total)
        : undefined,
  };
}

async function benchIngest(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-ingest-'));
  const db = join(dir, 'bench.duckdb');
  // BENCH_CLI: another checkout's server, to compare two trees with the same client.
  const cli = process.env['BENCH_CLI'] ?? CLI;
  // The first member sends the large batches; the small-batch run's collectors are a person each.
  const [key, ...senders] = seed(db, cli, 1 + SMALL_SENDERS);
  const serve = () => startServer(db, NO_QUOTA, [cli, 'serve', '--db', db, '--port', '0']);
  let server = await serve();
  const batchSize = 10_000;
  const batches = Math.max(5, Math.round(40 * SCALE));
  const post = (body: Buffer, as = key) =>
    fetch(`${server.url}/api/v1/ingest/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body,
    }).then(async (r) => {
      if (!r.ok) throw new Error(`ingest ${r.status}: ${await r.text()}`);
      return r.json();
    });
  // Warm-up, on ids outside the measured ranges: as many batches at once as the most in flight below, so
  // every decode worker has started (they start at their first batch) and run its code hot.
  const warmUp = Array.from({ length: 8 }, (_, b) => gzipBatch(batchSize, 10_000_000 + b * batchSize));
  for (let i = 0; i < warmUp.length; i += 4) await Promise.all(warmUp.slice(i, i + 4).map((body) => post(body)));
  // The target is judged with two requests in flight, as two collectors would send; a server of a larger
  // organization has more, so the same run is repeated (on new ids) with four.
  // The server's CPU time per batch (all its threads) says what a batch costs whatever else the machine
  // runs; the rate depends on that too.
  const runs: Record<
    string,
    { events: number; seconds: number; eventsPerSecond: number; serverCpuMsPerBatch?: number; machineIdleShare?: number }
  > = {};
  for (const inFlight of [2, 4]) {
    const offset = inFlight === 2 ? 0 : batches * batchSize;
    const bodies = Array.from({ length: batches }, (_, b) => gzipBatch(batchSize, offset + b * batchSize));
    let next = 0;
    const { seconds, cpuMs, idleShare } = await serverTimed(server.child.pid!, () =>
      Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < bodies.length) await post(bodies[next++]!);
        }),
      ),
    );
    const cpu = cpuMs === undefined ? undefined : cpuMs / batches;
    const rate = (batches * batchSize) / seconds;
    console.log(
      `${inFlight === 2 ? `\ningest (server: ${cli})\n` : ''}ingest, ${inFlight} requests in flight: ${batches * batchSize} events in ${batches} gzip NDJSON batches of ${batchSize}: ${fmt(seconds)} s = ${Math.round(rate)} events/s${cpu === undefined ? '' : `; server CPU ${fmt(cpu, 1)} ms a batch`}${idleShare === undefined ? '' : `; the machine ${Math.round(100 * idleShare)}% idle`}${inFlight === 2 ? '   target: >= 250000' : ''}`,
    );
    runs[`${inFlight} in flight`] = {
      events: batches * batchSize,
      seconds,
      eventsPerSecond: rate,
      ...(cpu === undefined ? {} : { serverCpuMsPerBatch: cpu }),
      ...(idleShare === undefined ? {} : { machineIdleShare: idleShare }),
    };
  }
  // For information: what the runs above leave for later. Their rows sit in the WAL until a checkpoint
  // writes them into the database: at 256MB of WAL (about a million of these events), or when the server
  // stops, which is timed here. The small batches then go to a server started again on the same database,
  // so that this checkpoint falls in neither run.
  const walBytes = walSize(db);
  const logged = (8 + 2 * batches) * batchSize;
  const { seconds: checkpointSeconds } = await serverTimed(server.child.pid!, () => server.stop());
  const deferredMs = (checkpointSeconds * 1000 * batchSize) / logged;
  console.log(
    `ingest, the server's stop (its checkpoint of the WAL these ${logged} events left, ${fmt(walBytes / 2 ** 20, 0)} MB): ${fmt(checkpointSeconds)} s = ${fmt(deferredMs, 1)} ms a 10k batch, not in the rows above   (for information)`,
  );
  runs['checkpoint'] = { events: logged, seconds: checkpointSeconds, eventsPerSecond: logged / checkpointSeconds };
  server = await serve();
  // For information: collectors each send a second's records, mostly small batches. Six at once (an
  // organization's most in flight), each of its own person (a person's most is four): what a server takes
  // when a batch's own cost, not its rows, decides (api/ingest/store.ts groups them).
  let k = 50_000_000;
  const sendFor = async (seconds: number) => {
    let sent = 0;
    const until = performance.now() + seconds * 1000;
    await Promise.all(
      senders.map(async (key) => {
        while (performance.now() < until) {
          await post(gzipBatch(SMALL_BATCH, (k += SMALL_BATCH) - SMALL_BATCH), key);
          sent++;
        }
      }),
    );
    return sent;
  };
  await sendFor(1);
  let smallSent = 0;
  const { seconds: smallSeconds, cpuMs: smallCpuMs } = await serverTimed(server.child.pid!, async () => {
    smallSent = await sendFor(5 * Math.max(0.4, SCALE));
  });
  const smallCpu = smallCpuMs === undefined ? undefined : smallCpuMs / smallSent;
  console.log(
    `ingest, ${SMALL_BATCH}-record batches from ${SMALL_SENDERS} collectors at once: ${Math.round(smallSent / smallSeconds)} batches/s = ${Math.round((smallSent * SMALL_BATCH) / smallSeconds)} events/s${smallCpu === undefined ? '' : `; server CPU ${fmt(smallCpu, 2)} ms a batch`}   (for information)`,
  );
  runs['small batches'] = {
    events: smallSent * SMALL_BATCH,
    seconds: smallSeconds,
    eventsPerSecond: (smallSent * SMALL_BATCH) / smallSeconds,
    ...(smallCpu === undefined ? {} : { serverCpuMsPerBatch: smallCpu }),
  };
  results['ingest'] = { batchSize, ...runs };
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The small-batch ingest run: records a batch, and collectors sending at once. */
const SMALL_BATCH = 20;
const SMALL_SENDERS = 6;

/** Fills a spool's new/ with `total` hook files as the hook writes them (tmp/, then a hard link into new/). */
function writeSpool(amHome: string, total: number): void {
  const tmp = join(amHome, 'spool', 'tmp');
  const fresh = join(amHome, 'spool', 'new');
  mkdirSync(tmp, { recursive: true });
  mkdirSync(fresh, { recursive: true });
  const header = 'agentmeter-spool=1\nagent=claude\nclient=\nentrypoint=\ndroid_exec=\ntime=\n\n';
  for (let i = 0; i < total; i++) {
    const body = JSON.stringify({
      session_id: `sess-${i % 500}`,
      transcript_path: '/nonexistent.jsonl',
      cwd: '/home/dev/app',
      permission_mode: 'acceptEdits',
      hook_event_name: i % 5 === 0 ? 'PreToolUse' : 'PostToolUse',
      tool_name: ['Bash', 'Read', 'Edit', 'Write', 'mcp__GitHub__get_issue'][i % 5],
      tool_input: { command: 'git status', file_path: `/home/dev/app/src/f${i % 40}.ts` },
      tool_response: { stdout: 'ok', type: 'update' },
    });
    const name = `bench.${String(i).padStart(8, '0')}`;
    writeFileSync(join(tmp, name), header + body);
    linkSync(join(tmp, name), join(fresh, name));
  }
}

async function benchShip(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-ship-'));
  const total = Math.max(10_000, Math.round(100_000 * SCALE));
  // For information, the floor under shipping: the same files only read and removed, on one thread.
  const floorHome = join(dir, 'floor');
  writeSpool(floorHome, total);
  const floorDir = join(floorHome, 'spool', 'new');
  const floorTmp = join(floorHome, 'spool', 'tmp');
  const names = readdirSync(floorDir).sort();
  let started = performance.now();
  for (const name of names) {
    readFileSync(join(floorDir, name));
    unlinkSync(join(floorTmp, name));
    unlinkSync(join(floorDir, name));
  }
  const floorSeconds = (performance.now() - started) / 1000;

  const db = join(dir, 'bench.duckdb');
  const [key] = seed(db);
  const server = await startServer(db, NO_QUOTA);
  const amHome = join(dir, 'am');
  writeSpool(amHome, total);
  // Errors only: the bench's events name a transcript that does not exist, which the collector reports.
  const log = createLogger({ name: 'bench-collector', level: 'error' });
  const collector = new Collector({
    server: server.url,
    apiKey: key,
    agentmeterHome: amHome,
    home: join(dir, 'home'),
    log,
    batchSize: 5000,
  });
  // CPU time too: on a shared machine the wall time follows the other load, the CPU an event costs much less so.
  const cpuBefore = process.cpuUsage();
  const serverCpuBefore = processCpuMs(server.child.pid!);
  started = performance.now();
  const result = await collector.drain();
  const seconds = (performance.now() - started) / 1000;
  await collector.close();
  const cpu = process.cpuUsage(cpuBefore);
  const collectorCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const serverCpuAfter = processCpuMs(server.child.pid!);
  const serverCpuSeconds =
    serverCpuBefore !== undefined && serverCpuAfter !== undefined ? (serverCpuAfter - serverCpuBefore) / 1000 : undefined;
  if (result.error || result.shipped !== total) throw new Error(`ship incomplete: ${JSON.stringify(result)}`);
  const rate = total / seconds;
  console.log(
    `\ncollector ship: ${total} spool files → server in ${fmt(seconds)} s = ${Math.round(rate)} events/s (batches of 5000, read + derive + gzip + POST + unlink)   target: >= 50000`,
  );
  console.log(
    `  CPU (user + system, all threads): collector ${fmt(collectorCpuSeconds)} s = ${fmt((collectorCpuSeconds / total) * 1e6, 1)} µs/event${serverCpuSeconds === undefined ? '' : `, server ${fmt(serverCpuSeconds)} s = ${fmt((serverCpuSeconds / total) * 1e6, 1)} µs/event`}`,
  );
  console.log(
    `  the same files only read and removed, one thread, no server: ${fmt(floorSeconds)} s = ${Math.round(total / floorSeconds)} files/s (for information)`,
  );
  results['ship'] = {
    events: total,
    seconds,
    eventsPerSecond: rate,
    collectorCpuSeconds,
    ...(serverCpuSeconds === undefined ? {} : { serverCpuSeconds }),
    readAndRemoveOnlySeconds: floorSeconds,
  };
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

const BENCH_EVENTS = Math.round(10_000_000 * SCALE);
const FIRST_DAY = '2026-09-21'; // 60 days up to 2026-11-19

/** A DuckDB file holding the bench data set and its aggregates, made once per run. */
interface BatchTimes {
  all: number;
  first: number;
  nightly: number;
}

async function benchDatabase(dir: string): Promise<{ db: string; managerKey: string; batch: BatchTimes }> {
  const path = join(dir, 'bench.duckdb');
  const db = await openDb(path);
  // BENCH_BATCH_STEPS=1 logs each pipeline step's time (debug level), to see where a batch run goes.
  const log = createLogger({ name: 'bench-batch', level: process.env['BENCH_BATCH_STEPS'] ? 'debug' : 'warn' });
  const generate = splitStatements(readFileSync(join(ROOT, 'bench', 'sql', 'generate.sql'), 'utf8'));
  const started = performance.now();
  for (const sql of generate) {
    const params: Record<string, string | number> = {};
    for (const m of sql.matchAll(/\$([a-z_]+)/g))
      params[m[1]!] = ({ events: BENCH_EVENTS, users: 500, first_day: FIRST_DAY } as Record<string, string | number>)[m[1]!]!;
    await db.run(sql, params);
  }
  await db.run('CHECKPOINT');
  console.log(
    `\nbench data: ${BENCH_EVENTS} events, ${BENCH_EVENTS / 10} usage records, ${BENCH_EVENTS / 10} assistant messages, ${Math.floor(BENCH_EVENTS / 100)} landed commits, 500 users, 60 days (generated in ${fmt((performance.now() - started) / 1000)} s)`,
  );
  const timed = async (options: Omit<BatchOptions, 'trigger' | 'log'>) => {
    const started = performance.now();
    await runBatch(db, { trigger: 'cli', log, ...options });
    return (performance.now() - started) / 1000;
  };
  // The target: every aggregate of the 60 days in one go.
  const all = await timed({ from: FIRST_DAY, to: '2026-11-19', now: new Date('2026-11-21T00:00:00Z'), chunkDays: 60 });
  // For information, the runs a server makes: its first incremental run (everything is new: the 60 days in
  // the default chunks of 15 days), then a nightly one, when only yesterday is to be rebuilt.
  const night = new Date('2026-11-20T00:30:00Z');
  const first = await timed({ now: night });
  const nightly = await timed({ now: night });
  const accounts = new AccountStore(db);
  const manager = (await accounts.getUser('org_bench', 'usr_00000'))!;
  const { key } = await accounts.createKey(manager);
  await db.close();
  return { db: path, managerKey: key, batch: { all, first, nightly } };
}

function benchBatchReport(batch: BatchTimes): void {
  console.log(
    `batch: all aggregates for 60 days over ${BENCH_EVENTS} events in ${fmt(batch.all)} s   target: <= 5 s on 2 cores (issue #34)`,
  );
  console.log(
    `  a server's first incremental run (the same 60 days, in chunks of 15): ${fmt(batch.first)} s; a nightly run (yesterday only): ${fmt(batch.nightly)} s (for information)`,
  );
  results['batch'] = {
    events: BENCH_EVENTS,
    days: 60,
    seconds: batch.all,
    firstIncrementalSeconds: batch.first,
    nightlySeconds: batch.nightly,
  };
}

/** Seconds of unmeasured load before each measured API run (benchApi). */
const WARM_UP_SECONDS = 3;

/** Runs bench/load-client.ts in a process of its own and returns what it measured. */
async function load(
  base: string,
  paths: string[],
  headers: Record<string, string>,
  seconds: number,
  concurrency = 16,
): Promise<LoadResult> {
  const request = JSON.stringify({ base, paths, headers, seconds, concurrency });
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', 'load-client.ts'), request],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`load client exited ${code}`);
  return JSON.parse(out) as LoadResult;
}

async function benchApi(data: { db: string; managerKey: string }): Promise<void> {
  // 30-day windows ending on each of the last 30 days, over the five endpoints: 150 distinct queries.
  const paths: string[] = [];
  for (let end = 0; end < 30; end++) {
    const last = Date.UTC(2026, 10, 19 - end);
    const q = `startDate=${new Date(last - 29 * 86_400_000).toISOString().slice(0, 10)}&endDate=${new Date(last).toISOString().slice(0, 10)}`;
    for (const e of ['tokens', 'tools', 'activity', 'productivity', 'users']) paths.push(`/api/v1/analytics/${e}?${q}`);
  }
  const auth = { authorization: `Bearer ${data.managerKey}` };
  // BENCH_CLI: another checkout's server, measured by the same client after the same warm-up.
  const cli = process.env['BENCH_CLI'] ?? CLI;
  const seconds = 5 * Math.max(0.4, SCALE);
  // Every server is first run under the same load, unmeasured. V8 optimizes a function after hundreds of
  // calls: a server that has answered each query once still optimizes some 500 functions in its first
  // seconds of load (`node --trace-opt`; about 50 in the next 5 s), at a fifth more CPU a request, and
  // that start held most of the run's slowest 1%. A server that has been up a while is past it.
  const measure = async (url: string, measured: string[], headers: Record<string, string>) => {
    await load(url, measured, headers, WARM_UP_SECONDS);
    return load(url, measured, headers, seconds);
  };
  const bare = await startServer('', [], [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', 'bare-server.ts')]);
  const bareResult = await measure(bare.url, ['/bare'], {});
  await bare.stop();
  const rows: [string, LoadResult][] = [['bare Fastify route', bareResult]];
  // A client that accepts gzip (fetch, Python requests, curl --compressed, browsers) and one that does not.
  const gzip = { ...auth, 'accept-encoding': 'gzip' };
  const recorded: Record<string, string> = {};
  for (const [label, extra, headers] of [
    ['analytics, cache on, client accepts gzip', [], gzip],
    ['analytics, cache on, client without gzip', [], auth],
    ['analytics, cache off (every request builds its answer)', ['--cache-entries', '0'], gzip],
  ] as const) {
    const server = await startServer(data.db, ['--no-batch', ...extra], [cli, 'serve', '--db', data.db, '--port', '0']);
    // Warm-up: every query once (four at a time), so that the analytics read model has loaded the aggregate
    // rows (in the background of the first request), then the load run of `measure`. The cache-off row
    // measures the first request of a query (read, assemble, compress) on a warm server.
    for (let i = 0; i < paths.length; i += 4) {
      await Promise.all(
        paths.slice(i, i + 4).map(async (path) => {
          const response = await fetch(new URL(path, server.url), { headers });
          if (headers === auth) recorded[path] = await response.text();
          else await response.arrayBuffer();
        }),
      );
    }
    rows.push([label, await measure(server.url, paths, headers)]);
    await server.stop();
  }
  // For information: the bare route sending the very bytes of the answers above, uncompressed. Between it
  // and the bare route's small body lies what the size of a 30-day answer costs (writing it, and the
  // client reading it); between it and the agentmeter row without gzip lies what agentmeter's handling
  // costs.
  const recordedFile = join(tmpdir(), `am-bench-answers-${process.pid}.json`);
  writeFileSync(recordedFile, JSON.stringify(recorded));
  const sameBytes = await startServer(
    '',
    [],
    [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', 'bare-server.ts'), recordedFile],
  );
  rows.push(['bare route, the same answers as stored bytes, no gzip', await measure(sameBytes.url, paths, {})]);
  await sameBytes.stop();
  rmSync(recordedFile, { force: true });
  console.log(
    `\nAPI (server: ${cli}): 30-day queries over the five analytics endpoints (150 distinct URLs), 16 keep-alive connections, ${fmt(seconds, 0)} s each after ${WARM_UP_SECONDS} s of the same load`,
  );
  for (const [label, r] of rows) {
    console.log(
      `  ${label.padEnd(56)} ${String(Math.round(r.rps)).padStart(6)} req/s  p50 ${fmt(r.p50)} ms  p99 ${fmt(r.p99)} ms  (${r.requests} requests, ${r.errors} errors, ${fmt(r.bytes / 1024, 1)} KiB each)  ${fmt((100 * r.rps) / bareResult.rps, 0)}% of bare`,
    );
  }
  console.log('  targets (against the bare route with its small body): >= 50% of its throughput, p99 <= 10 ms');
  results['api'] = Object.fromEntries(rows.map(([label, r]) => [label, r]));
}

async function benchDashboard(data: { db: string; managerKey: string }): Promise<void> {
  await buildWeb();
  const server = await startServer(data.db, ['--no-batch']);
  // Five 30-day ranges ending on the bench data's last days, each asked for the first time (cold cache).
  const result = await measureDashboard(server.url, data.managerKey, { runs: 5, end: '2026-11-19' });
  await server.stop();
  const sorted = [...result.completeMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log('\nDashboard overview in Chromium, cold server cache (a range not asked before), empty browser cache');
  console.log(
    `  complete (figures and every chart drawn): ${sorted.map((ms) => Math.round(ms)).join(', ')} ms; median ${Math.round(median)} ms`,
  );
  console.log(
    `  assets as sent (gzip): ${fmt(result.assets.gzip / 1024, 1)} KiB of ${fmt(result.assets.raw / 1024, 1)} KiB, ${result.assets.files} files`,
  );
  console.log('  targets: complete within 1500 ms; assets <= 250 KB gzipped');
  results['dashboard'] = { completeMs: result.completeMs, medianMs: median, assets: result.assets };
}

async function benchBundle(): Promise<void> {
  await buildLaptop();
  const bytes = statSync(LAPTOP_BUNDLE).size;
  const runs = Math.max(10, Math.round(30 * SCALE));
  // `agentmeter statusline` reads the cache the collector keeps (docs/statusline.md): a home with one.
  const statusHome = mkdtempSync(join(tmpdir(), 'am-bench-status-'));
  const day = new Date().toISOString().slice(0, 10);
  const cache = { fetched_at: Date.now(), date: day, month: day.slice(0, 7), today_credits: 1050, month_credits: 12_400 };
  writeFileSync(join(statusHome, 'status.json'), `${JSON.stringify({ ...cache, limit: 11_800, share: 1.05, enforced: false })}\n`, {
    mode: 0o600,
  });
  const time = (args: string[]) => {
    const start = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, AGENTMETER_HOME: statusHome } });
    if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const bundle: number[] = [];
  const statusline: number[] = [];
  const bare: number[] = [];
  // Interleaved with a bare `node -e 0`, so machine noise falls on all alike.
  for (let i = 0; i < runs; i++) {
    bundle.push(time([LAPTOP_BUNDLE, '--version']));
    statusline.push(time([LAPTOP_BUNDLE, 'statusline']));
    bare.push(time(['-e', '0']));
  }
  rmSync(statusHome, { recursive: true, force: true });
  bundle.sort((a, b) => a - b);
  statusline.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  const median = quantile(bundle, 0.5);
  console.log(`\nLaptop bundle (${LAPTOP_BUNDLE})`);
  console.log(`  size: ${fmt(bytes / 1024, 0)} KiB   target: <= 2 MB`);
  console.log(
    `  cold start, agentmeter --version (${runs} runs): median ${fmt(median, 0)} ms, p90 ${fmt(quantile(bundle, 0.9), 0)} ms; node -e 0: median ${fmt(quantile(bare, 0.5), 0)} ms   target: <= 150 ms`,
  );
  console.log(
    `  agentmeter statusline from the collector's cache: median ${fmt(quantile(statusline, 0.5), 0)} ms, p90 ${fmt(quantile(statusline, 0.9), 0)} ms   target: <= 150 ms`,
  );
  results['bundle'] = {
    bytes,
    runs,
    coldStartMs: { median, p90: quantile(bundle, 0.9) },
    statuslineMs: { median: quantile(statusline, 0.5), p90: quantile(statusline, 0.9) },
    bareNodeMs: { median: quantile(bare, 0.5) },
  };
}

async function benchBombs(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-bombs-'));
  const db = join(dir, 'bench.duckdb');
  // Four keys in the attacker's organization, one in another organization.
  const handle = await openDb(db);
  const accounts = new AccountStore(handle);
  const attacker = await accounts.createOrg('Attacker');
  const attackerKeys: string[] = [];
  for (let i = 0; i < 4; i++)
    attackerKeys.push(
      (await accounts.createKey(await accounts.createUser({ orgId: attacker.id, email: `a${i}@attacker.example.com`, role: 'member' })))
        .key,
    );
  const other = await accounts.createOrg('Other');
  const victimKey = (
    await accounts.createKey(await accounts.createUser({ orgId: other.id, email: 'dev@other.example.com', role: 'member' }))
  ).key;
  await handle.close();
  const cli = process.env['BENCH_CLI'] ?? CLI;
  const server = await startServer(db, [], [cli, 'serve', '--db', db, '--port', '0', '--no-batch']);
  const sizes = {
    newlineMiB: Math.max(16, Math.round(FULL_BOMBS.newlineMiB * SCALE)),
    fileRecords: Math.max(1000, Math.round(FULL_BOMBS.fileRecords * SCALE)),
    concurrent: FULL_BOMBS.concurrent,
  };
  const figures = await runBombs({ url: server.url, pid: server.child.pid!, attackerKeys, victimKey, sizes });
  await server.stop();
  const answer = (a: { status: number; ms: number }) => `${a.status} in ${fmt(a.ms, 0)} ms`;
  const statuses = new Map<number, number>();
  for (const a of figures.concurrent.answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
  console.log(`\nIngest bombs (server: ${cli})`);
  console.log(
    `  newline bomb, ${sizes.newlineMiB} MiB of newlines (${fmt(figures.newlineBomb.gzipBytes / 1024, 0)} KB gzip): ${answer(figures.newlineBomb)}`,
  );
  console.log(
    `  files bomb, ${sizes.fileRecords} records x 1,000 files (${fmt(figures.filesBomb.gzipBytes / 1024, 0)} KB gzip): ${answer(figures.filesBomb)}`,
  );
  console.log(
    `  ${sizes.concurrent} of each at once from 4 keys: ${[...statuses].map(([status, n]) => `${n} x ${status}`).join(', ')}; slowest answer ${fmt(figures.concurrent.slowestMs, 0)} ms`,
  );
  console.log(
    `  server RSS: ${fmt(figures.rssBeforeMB ?? Number.NaN, 0)} MB before, peak ${fmt(figures.peakRssMB ?? Number.NaN, 0)} MB (+${fmt(figures.peakGrowthMB ?? Number.NaN, 0)} MB)   target: +<= 320 MB`,
  );
  console.log(
    `  other organization: ${figures.otherOrg.stored}/${figures.otherOrg.batches} 4-record batches stored, median ${fmt(figures.otherOrg.medianMs, 0)} ms, slowest ${fmt(figures.otherOrg.slowestMs, 0)} ms   target: < 1000 ms`,
  );
  results['bombs'] = { server: cli, sizes, ...figures };
  rmSync(dir, { recursive: true, force: true });
}

function fillLedger(ledger: Ledger, root: string, lines: number, now: number): void {
  for (let done = 0; done < lines; ) {
    const n = Math.min(10_000, lines - done);
    const writes: LedgerWrite[] = [];
    for (let i = 0; i < n; i += 100) {
      const at = done + i;
      writes.push({
        relPath: `src/f${(at / 100) % 100}.ts`,
        fingerprints: Array.from({ length: Math.min(100, n - i) }, (_, j) => `line ${(at + j) % 5000}`),
        ts: now - 29 * 86_400_000 + Math.floor(((at / lines) * 29 * 86_400_000) | 0),
        agent: at % 3 ? 'claude' : 'codex',
        model: at % 3 ? 'claude-sonnet-4-5' : 'gpt-5.5',
      });
    }
    ledger.append(root, writes);
    done += n;
  }
}

async function benchCode(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-code-'));
  const now = Date.UTC(2026, 10, 20);
  const ledgerLines = Math.max(1000, Math.round(100_000 * SCALE));
  const ledger = new Ledger(join(dir, 'code'));
  fillLedger(ledger, '/bench/repo', ledgerLines, now);
  const times: number[] = [];
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    // As CodeTracker.scanRepo does for one commit: key each added line, read the ledger's matching lines, credit.
    const adds = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const key = ledger.lineKey(`src/f${i % 100}.ts`, `line ${(i * 7) % 5000}`);
      adds.set(key, (adds.get(key) ?? 0) + 1);
    }
    const { index, credited } = ledger.lookup('/bench/repo', new Set(adds.keys()));
    creditCommit(adds, index, now, (s) => credited.has(s));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = quantile(times, 0.5);
  console.log(`
code: crediting a 1,000-line commit against a ${ledgerLines}-line ledger: median ${fmt(median, 1)} ms (7 runs)   target: <= 50 ms`);

  const bigLines = Math.max(10_000, Math.round(1_000_000 * SCALE));
  const big = new Ledger(join(dir, 'big'));
  fillLedger(big, '/bench/repo', bigLines, now);
  const rss = (stateDir: string) => {
    const out = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'bench', 'code-rss.ts'), stateDir, '/bench/repo', String(now)],
      { encoding: 'utf8' },
    );
    if (out.status !== 0) throw new Error(`code-rss failed: ${out.stderr}`);
    return JSON.parse(out.stdout.trim().split('\n').at(-1)!) as { baselineRss: number; peakRss: number };
  };
  const withLedger = rss(join(dir, 'big'));
  const without = rss(join(dir, 'empty'));
  const above = (withLedger.peakRss - without.peakRss) / 1024 / 1024;
  console.log(
    `  collector peak RSS crediting and compacting with a ${bigLines}-line 30-day ledger: ${fmt(withLedger.peakRss / 1024 / 1024, 0)} MB, ${fmt(above, 0)} MB above an empty ledger   target: <= 100 MB above`,
  );
  results['code'] = {
    ledgerLines,
    creditMedianMs: median,
    bigLedgerLines: bigLines,
    peakRssMb: withLedger.peakRss / 1024 / 1024,
    aboveEmptyMb: above,
  };
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Pull request figures over a long history: 20,000 merged pull requests (BENCH_SCALE scales them) over two
 * years (bench/sql/pull-requests.sql), read for 30 days by a server whose answer cache is off, so each
 * request builds its answer; BENCH_CLI=<another checkout's bin/agentmeter.js> measures that server too, on
 * the same database, one after the other. Medians of 7 runs of each request (BENCH_PULLS_RUNS), after one
 * unmeasured.
 */
async function benchPullRequests(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-pulls-'));
  const path = join(dir, 'bench.duckdb');
  const prs = Math.max(1000, Math.round(20_000 * SCALE));
  const params: Record<string, string | number> = { prs, repos: 20, days: 730, last_day: '2026-11-19' };
  const db = await openDb(path);
  const started = performance.now();
  for (const sql of splitStatements(readFileSync(join(ROOT, 'bench', 'sql', 'pull-requests.sql'), 'utf8'))) {
    const bound: Record<string, string | number> = {};
    for (const m of sql.matchAll(/\$([a-z_]+)/g)) bound[m[1]!] = params[m[1]!]!;
    await db.run(sql, bound);
  }
  await db.run('CHECKPOINT');
  const accounts = new AccountStore(db);
  const { key } = await accounts.createKey((await accounts.getUser('org_bench', 'usr_00000'))!);
  await db.close();
  console.log(
    `\npull requests: ${prs} merged over 730 days in 20 repositories, ${prs * 3} landed commits (generated in ${fmt((performance.now() - started) / 1000)} s)`,
  );
  const range = 'startDate=2026-10-21&endDate=2026-11-19';
  const paths: [string, string][] = [
    ['figures, 30 days', `/api/v1/analytics/pull_requests?${range}`],
    ['figures by repository, 30 days', `/api/v1/analytics/pull_requests?${range}&group_by=repo`],
    ['list, 30 days (first page)', `/api/v0/code/pull_requests?${range}`],
    ['figures, 300 days', '/api/v1/analytics/pull_requests?startDate=2026-01-24&endDate=2026-11-19'],
  ];
  const headers = { authorization: `Bearer ${key}` };
  const runs = Math.max(1, Number(process.env['BENCH_PULLS_RUNS'] ?? '7'));
  const servers = [['this tree', CLI], ...(process.env['BENCH_CLI'] ? [['BENCH_CLI', process.env['BENCH_CLI']]] : [])] as const;
  const out: Record<string, Record<string, number>> = {};
  for (const [label, cli] of servers) {
    const server = await startServer(path, ['--no-batch', '--cache-entries', '0'], [cli, 'serve', '--db', path, '--port', '0']);
    out[label] = {};
    console.log(`  ${label} (${cli}): median of ${runs} requests, each building its answer`);
    try {
      for (const [name, url] of paths) {
        const times: number[] = [];
        for (let run = 0; run <= runs; run++) {
          const t = performance.now();
          const response = await fetch(new URL(url, server.url), { headers });
          const body = await response.text();
          if (!response.ok) throw new Error(`${url}: ${response.status} ${body}`);
          if (run > 0) times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        out[label]![name] = quantile(times, 0.5);
        console.log(
          `    ${name.padEnd(32)} ${fmt(quantile(times, 0.5), 1).padStart(9)} ms  (min ${fmt(times[0]!, 1)}, max ${fmt(times.at(-1)!, 1)})`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  results['pulls'] = { pullRequests: prs, medianMs: out };
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Today so far. (1) Ingest with the live figures on: the ingest section's run (2 requests in flight) on
 * records of today, while a dashboard polls /today every second and an organization budget is compared
 * after every batch. (2) A live build's cost: one /today answer right after, over every record of the
 * day. (3) The lag: 20 times, one hook file in the spool, `Collector.drain()` (what `collect` does), then
 * /today polled every 10 ms until it counts the event; from the drain's start.
 */
async function benchLive(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-live-'));
  const db = join(dir, 'bench.duckdb');
  const handle = await openDb(db);
  const accounts = new AccountStore(handle);
  const org = await accounts.createOrg('Bench');
  const member = await accounts.createUser({ orgId: org.id, email: 'bench@example.com', role: 'member' });
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@example.com', role: 'owner' });
  const key = (await accounts.createKey(member)).key;
  const ownerKey = (await accounts.createKey(owner)).key;
  await handle.close();
  const server = await startServer(db, NO_QUOTA);
  const call = async (path: string, init: RequestInit = {}, auth = key) => {
    const r = await fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${auth}`, ...(init.headers ?? {}) } });
    if (!r.ok) throw new Error(`${path} ${r.status}: ${await r.text()}`);
    return r.json() as Promise<{ data: { tools: { tool_calls: number } } }>;
  };
  await call(
    '/api/v0/organization/budgets',
    {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ budgets: [{ scope: 'org', monthlyCredits: 1_000_000_000 }] }),
    },
    ownerKey,
  );
  const dayStart = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const sinceDayStart = Math.max(1, Date.now() - dayStart);
  const today = (k: number) => dayStart + ((k * 37) % sinceDayStart);
  const batchSize = 10_000;
  const batches = Math.max(5, Math.round(40 * SCALE));
  const bodies = Array.from({ length: batches }, (_, b) => gzipBatch(batchSize, b * batchSize, today));
  let polling = true;
  let polls = 0;
  const poller = (async () => {
    while (polling) {
      await call('/api/v1/analytics/today');
      polls++;
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 2 }, async () => {
      while (next < bodies.length)
        await call('/api/v1/ingest/events', {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
          body: bodies[next++]!,
        });
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  polling = false;
  await poller;
  const rate = (batches * batchSize) / seconds;
  console.log(
    `\ningest with live figures on (a /today poll every second, a budget compared): ${batches * batchSize} events of today in ${fmt(seconds)} s = ${Math.round(rate)} events/s, ${polls} polls   target: >= 100000`,
  );
  // Past the pacing of builds while records arrived: this times one build alone.
  await new Promise((r) => setTimeout(r, 10_000));
  const buildStart = performance.now();
  const built = await call('/api/v1/analytics/today');
  const buildMs = performance.now() - buildStart;
  if (built.data.tools.tool_calls !== batches * batchSize) throw new Error(`today counts ${built.data.tools.tool_calls} tool calls`);
  console.log(`  one live build over ${batches * batchSize} events of today (the /today answer after them): ${fmt(buildMs, 0)} ms`);

  const amHome = join(dir, 'am');
  const log = createLogger({ name: 'bench-collector', level: 'error' });
  const collector = new Collector({ server: server.url, apiKey: key, agentmeterHome: amHome, home: join(dir, 'home'), log });
  const lags: number[] = [];
  for (let i = 0; i < 20; i++) {
    // One tool call, as the hook spools it (tmp/, then a link into new/).
    const name = `lag.${String(i).padStart(8, '0')}`;
    const body = JSON.stringify({
      session_id: 'lag',
      cwd: '/home/dev/app',
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: {},
      tool_response: {},
    });
    mkdirSync(join(amHome, 'spool', 'tmp'), { recursive: true });
    mkdirSync(join(amHome, 'spool', 'new'), { recursive: true });
    writeFileSync(
      join(amHome, 'spool', 'tmp', name),
      `agentmeter-spool=1\nagent=claude\nclient=\nentrypoint=\ndroid_exec=\ntime=\n\n${body}`,
    );
    linkSync(join(amHome, 'spool', 'tmp', name), join(amHome, 'spool', 'new', name));
    const before = (await call('/api/v1/analytics/today')).data.tools.tool_calls as number;
    const t0 = performance.now();
    const shipped = await collector.drain();
    if (shipped.shipped !== 1) throw new Error(`lag: shipped ${JSON.stringify(shipped)}`);
    while ((await call('/api/v1/analytics/today')).data.tools.tool_calls === before) await new Promise((r) => setTimeout(r, 10));
    lags.push(performance.now() - t0);
  }
  await collector.close();
  lags.sort((a, b) => a - b);
  const median = quantile(lags, 0.5);
  const p95 = quantile(lags, 0.95);
  console.log(
    `  lag from collect to /today (20 events): median ${fmt(median, 0)} ms, p95 ${fmt(p95, 0)} ms   target: <= 60 s, aim: seconds`,
  );
  results['live'] = {
    ingest: { events: batches * batchSize, seconds, eventsPerSecond: rate, polls },
    liveBuildMs: buildMs,
    lagMs: { median, p95, runs: lags.length },
  };
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The OTLP receiver on this process's one event loop: requests of 500 data points (400 of Claude Code's
 * edit decisions over 20 sessions, tools and languages, 100 of a metric it leaves), protobuf and JSON, sent
 * one after the other over HTTP from this process (the client's cost counts too), then the same bodies
 * through the request path alone (decode, map, spool; no HTTP).
 */
async function benchOtel(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'am-bench-otel-'));
  const dirs = spoolDirs(home);
  ensureSpool(dirs);
  const receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log: createLogger({ name: 'bench-otel', level: 'silent' }) });
  const port = await receiver.start();
  const requests = Math.max(10, Math.round(100 * SCALE));
  const perRequest = 500;
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
  const request = (r: number) => {
    const time = `${Date.now()}000000`;
    const points = Array.from({ length: 400 }, (_, i) => ({
      attributes: [
        str('session.id', `s-${r}-${i % 20}`),
        str('decision', i % 5 === 0 ? 'reject' : 'accept'),
        str('tool_name', ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'][i % 4]!),
        str('language', ['TypeScript', 'Python', 'Go', 'Rust', 'Markdown'][i % 5]!),
        str('source', 'user_temporary'),
      ],
      timeUnixNano: time,
      asInt: String(1 + (i % 3)),
    }));
    const left = Array.from({ length: 100 }, (_, i) => ({
      attributes: [str('type', 'input'), str('model', `m-${i}`)],
      timeUnixNano: time,
      asDouble: 120,
    }));
    return {
      resourceMetrics: [
        {
          resource: { attributes: [str('service.name', 'claude-code'), str('user.email', 'dev@example.com')] },
          scopeMetrics: [
            {
              metrics: [
                { name: 'claude_code.code_edit_tool.decision', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: points } },
                { name: 'claude_code.token.usage', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: left } },
              ],
            },
          ],
        },
      ],
    };
  };
  const { createRequire } = await import('node:module');
  const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js');
  const type = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
  const bodies = {
    protobuf: Array.from({ length: requests }, (_, r) => Buffer.from(type.encode(type.fromObject(request(r))).finish() as Uint8Array)),
    json: Array.from({ length: requests }, (_, r) => Buffer.from(JSON.stringify(request(r)))),
  };
  const out: Record<string, unknown> = { requests, pointsPerRequest: perRequest };
  console.log('');
  for (const encoding of ['protobuf', 'json'] as const) {
    const contentType = encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';
    const post = async (body: Buffer) => {
      const res = await fetch(`http://127.0.0.1:${port}/v1/metrics`, { method: 'POST', headers: { 'content-type': contentType }, body });
      if (!res.ok) throw new Error(`otlp ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    // Warm-up: the decoder's and the client's code hot before the clock starts.
    for (const body of bodies[encoding].slice(0, 5)) await post(body);
    const start = performance.now();
    for (const body of bodies[encoding]) await post(body);
    const http = (requests * perRequest) / ((performance.now() - start) / 1000);
    const startDirect = performance.now();
    for (const body of bodies[encoding]) receiver.handle('metrics', encoding, body);
    const direct = (requests * perRequest) / ((performance.now() - startDirect) / 1000);
    console.log(
      `otel receiver, ${encoding}: ${requests} requests of ${perRequest} data points: ${Math.round(http)} points/s over HTTP, ${Math.round(direct)} points/s through the request path   target: >= 20000`,
    );
    out[encoding] = { httpPointsPerSecond: http, requestPathPointsPerSecond: direct };
  }
  const status = receiver.snapshot();
  console.log(`  spooled ${status.facts} facts in ${readdirSync(dirs.new).length} spool files; ${status.ignored} points left on purpose`);
  results['otel'] = out;
  await receiver.stop();
  rmSync(home, { recursive: true, force: true });
}

const wanted = new Set(process.argv.slice(2));
const all = wanted.size === 0;
if (all || wanted.has('hook')) benchHook();
if (all || wanted.has('ingest')) await benchIngest();
if (all || wanted.has('ship')) await benchShip();
if (all || wanted.has('bundle')) await benchBundle();
if (all || wanted.has('bombs')) await benchBombs();
if (all || wanted.has('code')) await benchCode();
if (all || wanted.has('live')) await benchLive();
if (all || wanted.has('otel')) await benchOtel();
if (all || wanted.has('pulls')) await benchPullRequests();
if (all || wanted.has('batch') || wanted.has('api') || wanted.has('dashboard')) {
  const dir = mkdtempSync(join(tmpdir(), 'am-bench-data-'));
  const data = await benchDatabase(dir);
  benchBatchReport(data.batch);
  if (all || wanted.has('api')) await benchApi(data);
  if (all || wanted.has('dashboard')) await benchDashboard(data);
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'out', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log('\nsaved bench/out/results.json');
