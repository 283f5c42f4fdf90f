// The server's batch runner (api/batch/runner.ts) on a real temporary DuckDB: runs never overlap and a
// failed one does not hold the next; what a run made stale is dropped for its organization alone or for
// everyone; one run per organization asked through the API; every run gets the server's pricing file,
// clock and logger; the daily schedule. Then a server started with its own pricing file and clock:
// services.runBatch prices with that file and stops at the server's yesterday, as the batch route does.
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Changes } from '../../api/answers/changes.ts';
import { BATCH_CONFLICT, BatchRunner, type BatchRunnerOptions } from '../../api/batch/runner.ts';
import { buildServer } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import type { BatchOptions, BatchReport } from '../../pipeline/batch.ts';
import { usage } from '../helpers/records.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const SERVER_NOW = new Date('2026-03-20T09:00:00Z');
let db: Db;

beforeAll(async () => {
  db = await openDb(join(tempDir(), 'runner.duckdb'));
});
afterAll(() => db.close());
afterEach(() => {
  vi.useRealTimers();
});

/** A promise the test settles by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const report = (runId: number): BatchReport => ({
  runId,
  mode: 'incremental',
  days: 1,
  firstDay: null,
  lastDay: null,
  unpricedModels: [],
  unpricedUsdModels: [],
  ms: 1,
});

/**
 * A runner whose batch is held until the test lets it go: `started` lists the options of each run as it
 * starts, `running` how many are running at that moment, `cleared` what was dropped after each run.
 */
function heldRunner(extra: Partial<BatchRunnerOptions> = {}) {
  const started: BatchOptions[] = [];
  const gates: ReturnType<typeof deferred<BatchReport>>[] = [];
  const cleared: string[] = [];
  let running = 0;
  let most = 0;
  /** Waits until the n-th run (1-based) has started. */
  const startedRuns = (n: number) => vi.waitFor(() => expect(started.length).toBeGreaterThanOrEqual(n));
  const runner = new BatchRunner({
    db,
    log,
    // The server's holders as they read (api/answers/changes.ts): each says what a run dropped.
    changes: new Changes(
      (
        [
          ['cache', ['aggregates', 'events', 'users', 'prices']],
          ['readModel', ['aggregates', 'users']],
          ['live', ['events', 'aggregates', 'prices', 'users']],
        ] as const
      ).map(([name, reads]) => ({ reads, forget: (org: string | undefined) => cleared.push(org ? `${name}:${org}` : name) })),
    ),
    batch: async (_db, options) => {
      running += 1;
      most = Math.max(most, running);
      started.push(options);
      const gate = deferred<BatchReport>();
      gates.push(gate);
      try {
        return await gate.promise;
      } finally {
        running -= 1;
      }
    },
    ...extra,
  });
  return { runner, started, gates, cleared, startedRuns, most: () => most };
}

describe('BatchRunner: one run at a time', () => {
  it('starts a run only when the one before it has finished', async () => {
    const { runner, started, gates, startedRuns, most } = heldRunner();
    const first = runner.run({ trigger: 'cli' });
    const second = runner.run({ trigger: 'schedule' });
    const third = runner.run({ trigger: 'api', orgId: 'org-a' });
    await startedRuns(1);
    // The others wait behind the first, however long it takes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started.map((o) => o.trigger)).toEqual(['cli']);
    gates[0]!.resolve(report(1));
    expect(await first).toEqual(report(1));
    await startedRuns(2);
    expect(started.map((o) => o.trigger)).toEqual(['cli', 'schedule']);
    gates[1]!.resolve(report(2));
    await startedRuns(3);
    gates[2]!.resolve(report(3));
    expect([await second, await third].map((r) => r.runId)).toEqual([2, 3]);
    expect(most()).toBe(1);
  });

  it('a failed run fails its caller alone: the next one runs, and idle() waits for it', async () => {
    const { runner, started, gates, startedRuns } = heldRunner();
    const failing = runner.run({ trigger: 'cli' });
    const next = runner.run({ trigger: 'cli' });
    await startedRuns(1);
    gates[0]!.reject(new Error('disk full'));
    await expect(failing).rejects.toThrow('disk full');
    await startedRuns(2);
    let idle = false;
    const waiting = runner.idle().then(() => {
      idle = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    gates[1]!.resolve(report(2));
    expect((await next).runId).toBe(2);
    await waiting;
    expect(started).toHaveLength(2);
  });

  it('raises DuckDB to every core for a run, times it, and puts the thread count back', async () => {
    const threads = async () => Number((await db.all<{ t: string }>("SELECT current_setting('threads')::VARCHAR AS t"))[0]!.t);
    await db.run('SET threads = 1');
    const timed: string[] = [];
    const seen: number[] = [];
    const runner = new BatchRunner({
      db,
      log,
      changes: new Changes([]),
      timeBatch: async (run) => {
        timed.push('start');
        const result = await run();
        timed.push('end');
        return result;
      },
      batch: async () => {
        seen.push(await threads());
        return report(1);
      },
    });
    await runner.run({ trigger: 'cli' });
    expect(timed).toEqual(['start', 'end']);
    expect(seen).toEqual([availableParallelism()]);
    expect(await threads()).toBe(1);
  });
});

describe('BatchRunner: what a run made stale', () => {
  it("after a run of one organization, only that organization's answers; after a run of all, everyone's; failed or not", async () => {
    const { runner, gates, cleared, startedRuns } = heldRunner();
    const one = runner.run({ trigger: 'api', orgId: 'org-a' });
    await startedRuns(1);
    gates[0]!.resolve(report(1));
    await one;
    expect(cleared).toEqual(['cache:org-a', 'readModel:org-a', 'live:org-a']);

    // An erasure's rebuild names its organization through its days.
    cleared.length = 0;
    const erase = runner.run({ trigger: 'erase', days: { orgId: 'org-b', days: ['2026-03-10'] } });
    await startedRuns(2);
    gates[1]!.resolve(report(2));
    await erase;
    expect(cleared).toEqual(['cache:org-b', 'readModel:org-b', 'live:org-b']);

    cleared.length = 0;
    const all = runner.run({ trigger: 'schedule' });
    await startedRuns(3);
    gates[2]!.reject(new Error('failed half-way'));
    await expect(all).rejects.toThrow('failed half-way');
    expect(cleared).toEqual(['cache', 'readModel', 'live']);
  });
});

describe('BatchRunner: one run per organization asked through the API', () => {
  it('refuses a second while the first is queued or running, lets other organizations and erasures through, and frees it after', async () => {
    const { runner, gates, startedRuns } = heldRunner();
    // Another run holds the lock: acme's first is queued behind it.
    const before = runner.run({ trigger: 'cli' });
    await startedRuns(1);
    const first = runner.runForOrganization('acme', { trigger: 'api' });
    const second = runner.runForOrganization('acme', { trigger: 'api' });
    const refusal = await second.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(HttpError);
    expect(refusal).toMatchObject({ status: 409, message: BATCH_CONFLICT });
    const other = runner.runForOrganization('other', { trigger: 'api' });
    const erasure = runner.run({ trigger: 'erase', days: { orgId: 'acme', days: ['2026-03-01'] } });
    gates[0]!.resolve(report(1));
    await before;
    // Still running: refused again.
    await startedRuns(2);
    await expect(runner.runForOrganization('acme', { trigger: 'api' })).rejects.toMatchObject({ status: 409 });
    gates[1]!.resolve(report(2));
    expect((await first).runId).toBe(2);
    await startedRuns(3);
    gates[2]!.resolve(report(3));
    await startedRuns(4);
    gates[3]!.resolve(report(4));
    expect([(await other).runId, (await erasure).runId]).toEqual([3, 4]);
    // Free again once it finished, and after a failure too.
    const again = runner.runForOrganization('acme', { trigger: 'api' });
    await startedRuns(5);
    gates[4]!.reject(new Error('boom'));
    await expect(again).rejects.toThrow('boom');
    const last = runner.runForOrganization('acme', { trigger: 'api' });
    await startedRuns(6);
    gates[5]!.resolve(report(6));
    expect((await last).runId).toBe(6);
  });
});

describe("BatchRunner: the server's options", () => {
  it("gives every run the server's pricing file, clock and logger unless the caller names its own", async () => {
    const { runner, started, gates, startedRuns } = heldRunner({ pricingFile: '/srv/prices.json', now: () => SERVER_NOW });
    const plain = runner.run({ trigger: 'cli' });
    await startedRuns(1);
    gates[0]!.resolve(report(1));
    await plain;
    expect(started[0]).toMatchObject({ trigger: 'cli', pricingFile: '/srv/prices.json', now: SERVER_NOW, log });
    const own = createLogger({ name: 'own', level: 'silent' });
    const named = runner.run({ trigger: 'cli', pricingFile: '/tmp/other.json', now: new Date('2026-01-20T00:00:00Z'), log: own });
    await startedRuns(2);
    gates[1]!.resolve(report(2));
    await named;
    expect(started[1]).toMatchObject({ pricingFile: '/tmp/other.json', now: new Date('2026-01-20T00:00:00Z'), log: own });
    expect(runner.now()).toEqual(SERVER_NOW);
  });

  it('leaves the pricing file and the clock to the batch when the server has none', async () => {
    const { runner, started, gates, startedRuns } = heldRunner();
    const run = runner.run({ trigger: 'cli' });
    await startedRuns(1);
    gates[0]!.resolve(report(1));
    await run;
    expect(started[0]).not.toHaveProperty('pricingFile');
    expect(started[0]).not.toHaveProperty('now');
  });
});

describe('BatchRunner: the daily schedule', () => {
  /**
   * Lets real I/O (DuckDB) and promises settle, on the real clock (performance.now is not faked), without
   * moving the fake one (vi.waitFor would move it).
   */
  const wait = async (done: () => boolean, ms: number) => {
    const end = performance.now() + ms;
    while (!done() && performance.now() < end) await new Promise((resolve) => setImmediate(resolve));
  };
  const settle = async (done: () => boolean) => {
    await wait(done, 10_000);
    expect(done()).toBe(true);
  };
  /** Gives whatever would start the time to (a run touches DuckDB first), before checking that nothing did. */
  const drain = () => wait(() => false, 200);

  it("runs at HH:MM UTC with the server's options, then the after-run work, every day until stopped; a failed run keeps the schedule", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    vi.setSystemTime(new Date('2026-03-01T23:00:00Z'));
    const after = vi.fn(async () => 0);
    const { runner, started, gates } = heldRunner({ pricingFile: '/srv/prices.json', now: () => SERVER_NOW, afterScheduledRun: after });
    runner.startSchedule('00:15');
    // 23:00 → 00:15 the next day is 75 minutes.
    await vi.advanceTimersByTimeAsync(75 * 60_000 - 1);
    await drain();
    expect(started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await settle(() => started.length === 1);
    expect(started[0]).toMatchObject({ trigger: 'schedule', pricingFile: '/srv/prices.json', now: SERVER_NOW, log });
    expect(after).not.toHaveBeenCalled();
    gates[0]!.reject(new Error('scheduled failure'));
    await settle(() => after.mock.calls.length === 1);
    // It ended at 00:15 (the fake clock did not move while it ran): the next is a day later.
    await vi.advanceTimersByTimeAsync(24 * 3_600_000 - 1);
    await drain();
    expect(started).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle(() => started.length === 2);
    // Stopped while a run is in progress: it finishes, and no other starts.
    runner.stopSchedule();
    gates[1]!.resolve(report(2));
    await runner.idle();
    await settle(() => after.mock.calls.length === 2);
    await vi.advanceTimersByTimeAsync(3 * 24 * 3_600_000);
    await drain();
    expect(started).toHaveLength(2);
  });
});

describe("a server's own pricing file and clock", () => {
  // Prices of this file only: sonnet at 3 (the shipped table says 1.2).
  const PRICES = { prices: [{ match: 'claude-sonnet-*', multiplier: 3, effective_from: '2026-01-01' }] };
  let server: Awaited<ReturnType<typeof buildServer>>;
  let serverDb: Db;
  let org: { id: string; owner: string; key: string };

  beforeAll(async () => {
    const dir = tempDir();
    const pricingFile = join(dir, 'pricing.json');
    writeFileSync(pricingFile, JSON.stringify(PRICES));
    serverDb = await openDb(join(dir, 'server.duckdb'));
    server = await buildServer({
      db: serverDb,
      log,
      now: () => SERVER_NOW,
      pricingFile,
      decodeWorkers: 0,
      batchAt: null,
      checkAnswers: true,
    });
    const created = await server.services.accounts.createOrg('Priced');
    const owner = await server.services.accounts.createUser({ orgId: created.id, email: 'owner@priced.example.com', role: 'owner' });
    org = { id: created.id, owner: owner.id, key: (await server.services.accounts.createKey(owner)).key };
    // 100 input tokens of sonnet on 03-10 (before the server's yesterday, 03-19) and on 03-25 (after it).
    await server.services.ingest.storeRecords(created.id as OrgId, owner.id as UserId, [
      usage('claude-sonnet-4-5', '2026-03-10', { input_tokens: 100 }),
      usage('claude-sonnet-4-5', '2026-03-25', { input_tokens: 100 }),
    ]);
  });
  afterAll(async () => {
    await server.app.close();
    await serverDb.close();
  });

  const billable = async () =>
    await serverDb.all<{ day: string; billable: number }>(
      'SELECT CAST(day AS VARCHAR) AS day, CAST(sum(billable_tokens) AS DOUBLE) AS billable FROM agg_tokens_day WHERE org_id = $org GROUP BY day ORDER BY day',
      { org: org.id },
    );

  it('services.runBatch prices with it and stops at its yesterday, as the batch route does', async () => {
    const viaServices = await server.services.runBatch({ trigger: 'cli', log });
    // The server's yesterday (2026-03-19) is the last day; 03-25 waits. 3 × 100 = 300 credits.
    expect(viaServices.lastDay).toBe('2026-03-19');
    expect(await billable()).toEqual([{ day: '2026-03-10', billable: 300 }]);

    const viaRoute = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/batch',
      headers: bearer(org.key),
      payload: { from: '2026-03-01', to: '2026-03-19' },
    });
    expect(viaRoute.statusCode, viaRoute.body).toBe(200);
    expect(viaRoute.json()).toMatchObject({ lastDay: '2026-03-19', unpricedModels: [] });
    expect(await billable()).toEqual([{ day: '2026-03-10', billable: 300 }]);
  });
});
