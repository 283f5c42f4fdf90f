// The collector: drains spool/new in batches (size and age bounds) and ships them, at least once.
// `drain()` ships everything there is now (used by `collect --once`); `run()` watches the spool with
// chokidar and drains as events arrive until it is stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../common/logger.ts';
import { buildBatch } from './batch.ts';
import { refreshLimitStatus } from './limits.ts';
import { HookConfigCache } from './hooks-ran.ts';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from '../common/backoff.ts';
import { encodeBatch, postBatch, ShipError } from './shipper.ts';
import { ensureSpool, quarantineFile, quarantineRecord, removeShipped, spoolDirs, sweepTmp, SpoolQueue, type SpoolDirs } from './spool.ts';
import { loadState, machineId, saveState, type CollectorState } from './state.ts';

export interface CollectorOptions {
  server: string;
  apiKey: string;
  agentmeterHome: string;
  /** The user's home (agents' settings and session files). */
  home: string;
  log: Logger;
  /** Most records in one request. */
  batchSize?: number;
  /** Longest an event waits in the spool before a partial batch ships. */
  maxAgeMs?: number;
  /** Attempts per batch before drain() gives up (run() never gives up). */
  maxAttempts?: number;
  backoff?: BackoffOptions;
}

export interface DrainResult {
  shipped: number;
  quarantined: number;
  /** Set when a batch could not be shipped; what was not shipped stays in the spool. */
  error?: string;
}

export class Collector {
  readonly dirs: SpoolDirs;
  private state: CollectorState;
  private readonly machine: string;
  private readonly hooks: HookConfigCache;
  private readonly batchSize: number;
  private readonly maxAgeMs: number;
  private watcher: FSWatcher | undefined;
  private stopping = false;
  private readonly abort = new AbortController();
  private draining: Promise<DrainResult> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly reported = new Set<string>();
  private readonly queue: SpoolQueue;

  constructor(private readonly options: CollectorOptions) {
    this.dirs = spoolDirs(options.agentmeterHome);
    ensureSpool(this.dirs);
    this.queue = new SpoolQueue(this.dirs);
    const loaded = loadState(options.agentmeterHome);
    if (loaded.problem) options.log.warn({ problem: loaded.problem }, 'collector state reset');
    this.state = loaded.state;
    this.machine = machineId(options.agentmeterHome);
    this.hooks = new HookConfigCache(options.home);
    this.batchSize = options.batchSize ?? 5000;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
  }

  /** Ships every event in the spool now; resolves when the spool is empty or a batch failed for good. */
  drain(maxAttempts = this.options.maxAttempts ?? 6): Promise<DrainResult> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.drainLoop(maxAttempts).finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drainLoop(maxAttempts: number): Promise<DrainResult> {
    const total: DrainResult = { shipped: 0, quarantined: 0 };
    const swept = sweepTmp(this.dirs);
    if (swept) this.options.log.info({ swept }, 'swept abandoned tmp files');
    do {
      this.again = false;
      for (;;) {
        if (this.stopping) break;
        const names = this.queue.take(this.batchSize);
        if (names.length === 0) break;
        const result = await this.shipBatch(names, maxAttempts);
        total.shipped += result.shipped;
        total.quarantined += result.quarantined;
        if (result.error) {
          this.queue.reset();
          return { ...total, error: result.error };
        }
      }
    } while (this.again && !this.stopping);
    await this.refreshLimits();
    return total;
  }

  private async shipBatch(names: string[], maxAttempts: number): Promise<DrainResult> {
    const { log } = this.options;
    const batch = buildBatch({ dirs: this.dirs, machineId: this.machine, home: this.options.home, hooks: this.hooks, log, reported: this.reported }, names, this.state);
    const shippedNames = batch.sources.filter((s): s is string => s !== undefined);
    if (batch.records.length === 0) {
      // Everything was quarantined; the state may still have moved (nothing to acknowledge).
      this.commit(batch.nextState, 0);
      return { shipped: 0, quarantined: batch.quarantined };
    }
    const body = encodeBatch(batch.records);
    for (let attempt = 0; ; attempt++) {
      try {
        const started = Date.now();
        const answer = await postBatch(this.options.server, this.options.apiKey, body, this.abort.signal);
        for (const rejection of answer.rejected) {
          const source = batch.sources[rejection.index];
          const reason = `server rejected: ${rejection.reason}`;
          if (source) quarantineFile(this.dirs, source, reason);
          else quarantineRecord(this.dirs, rejection.id ?? `index-${rejection.index}`, batch.records[rejection.index], reason);
          log.warn({ index: rejection.index, file: source, reason }, 'record rejected by server, quarantined');
        }
        const rejectedSources = new Set(answer.rejected.map((r) => batch.sources[r.index]).filter(Boolean));
        this.commit(batch.nextState, batch.records.length);
        // Acknowledged: only now may the files go (at least once).
        removeShipped(this.dirs, shippedNames.filter((n) => !rejectedSources.has(n)));
        log.info(
          { records: batch.records.length, stored: answer.stored, duplicates: answer.duplicates, rejected: answer.rejected.length, ms: Date.now() - started },
          'batch shipped',
        );
        return { shipped: batch.records.length - answer.rejected.length, quarantined: batch.quarantined + answer.rejected.length };
      } catch (error) {
        const message = error instanceof ShipError ? error.message : String(error);
        this.state.lastError = message;
        this.state.lastErrorAt = Date.now();
        saveState(this.options.agentmeterHome, this.state);
        if (this.stopping || attempt + 1 >= maxAttempts) {
          log.error({ error: message, attempts: attempt + 1 }, 'batch not shipped; it stays in the spool');
          return { shipped: 0, quarantined: batch.quarantined, error: message };
        }
        const wait = backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF);
        log.warn({ error: message, attempt: attempt + 1, retryInMs: wait }, 'ship failed, retrying');
        await sleep(wait, undefined, { signal: this.abort.signal }).catch(() => undefined);
      }
    }
  }

  private limitState: string | undefined;

  /** Keeps the credit-limit marker the hook reads in step with the server (see limits.ts). */
  async refreshLimits(): Promise<void> {
    const state = await refreshLimitStatus(this.options.server, this.options.apiKey, this.options.agentmeterHome);
    if (state !== 'unknown' && state !== this.limitState) this.options.log.info({ limit: state }, state === 'blocked' ? 'over the credit limit: prompts are blocked' : 'credit limit: prompts pass');
    if (state !== 'unknown') this.limitState = state;
  }

  private commit(nextState: CollectorState, shipped: number): void {
    const now = Date.now();
    this.state = {
      ...nextState,
      lastShipAt: shipped > 0 ? now : nextState.lastShipAt,
      lastShipRecords: shipped > 0 ? shipped : nextState.lastShipRecords,
      totalShipped: nextState.totalShipped + shipped,
      lastError: null,
      lastErrorAt: null,
    };
    saveState(this.options.agentmeterHome, this.state);
  }

  /** Watches the spool and ships until stop(). A partial batch waits at most maxAgeMs. */
  async run(): Promise<void> {
    const { log } = this.options;
    log.info({ spool: this.dirs.new, server: this.options.server }, 'collector started');
    let pending = 0;
    const schedule = (immediate: boolean) => {
      if (this.stopping) return;
      if (immediate) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        pending = 0;
        void this.drain(Number.POSITIVE_INFINITY);
      } else if (!this.timer) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          pending = 0;
          void this.drain(Number.POSITIVE_INFINITY);
        }, this.maxAgeMs);
      }
    };
    this.watcher = watch(this.dirs.new, { ignoreInitial: true, depth: 0 });
    this.watcher.on('add', () => schedule(++pending >= this.batchSize));
    this.watcher.on('error', (error) => log.error({ error: String(error) }, 'spool watcher error'));
    // Events spooled while the collector was down, and a slow poll in case the watcher misses any.
    schedule(true);
    const poll = setInterval(() => schedule(true), 30_000);
    const limits = setInterval(() => void this.refreshLimits(), 60_000);
    const sweep = setInterval(() => sweepTmp(this.dirs), 3600_000);
    await new Promise<void>((resolve) => this.abort.signal.addEventListener('abort', () => resolve(), { once: true }));
    clearInterval(poll);
    clearInterval(limits);
    clearInterval(sweep);
    if (this.timer) clearTimeout(this.timer);
    await this.watcher.close();
    await this.draining?.catch(() => undefined);
    log.info('collector stopped');
  }

  stop(): void {
    this.stopping = true;
    this.abort.abort();
  }

  get currentState(): CollectorState {
    return this.state;
  }
}
