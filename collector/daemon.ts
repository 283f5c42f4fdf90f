// The collector: drains spool/new in batches (size and age bounds) and ships them, at least once.
// `drain()` ships everything there is now (used by `collect --once`); `run()` watches the spool with
// chokidar and drains as events arrive until it is stopped.
import { setTimeout as sleep } from 'node:timers/promises';
import { type FSWatcher, watch } from 'chokidar';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from '../common/backoff.ts';
import type { Logger } from '../common/logger.ts';
import { type IngestResponse, MAX_BATCH_RECORDS } from '../common/wire.ts';
import { type Batch, buildBatch, type SessionRead } from './batch.ts';
import { ADDRESSES_REFRESH_MS, fetchAddresses } from './code/addresses.ts';
import { EditRepos } from './code/edit-repo.ts';
import { FORKING_GIT, type GitRunner } from './code/git.ts';
import { CodeTracker } from './code/tracker.ts';
import { HookConfigCache } from './hooks-ran.ts';
import { refreshLimitStatus } from './limits.ts';
import { isBatchFault, isContentFault, narrowBatch } from './narrow.ts';
import { encodeBatch, postBatch, REQUEST_TIMEOUT_MS, ShipError } from './shipper.ts';
import {
  ensureSpool,
  pruneQuarantine,
  QUARANTINE_MOST,
  quarantineFile,
  quarantineRecord,
  type SpoolDirs,
  SpoolQueue,
  shippedPaths,
  spoolDirs,
  sweepTmp,
} from './spool.ts';
import { type CollectorState, committedState, loadState, machineId, saveState } from './state.ts';
import { refreshStatusCache } from './status-cache.ts';
import { Unlinker } from './unlinker.ts';

export interface CollectorOptions {
  server: string;
  apiKey: string;
  agentmeterHome: string;
  /** The user's home (agents' settings and session files). */
  home: string;
  log: Logger;
  /** Most records in one request (at most MAX_BATCH_RECORDS). */
  batchSize?: number;
  /** Longest an event waits in the spool before a partial batch ships. */
  maxAgeMs?: number;
  /** Attempts per batch before drain() gives up (run() never gives up). */
  maxAttempts?: number;
  backoff?: BackoffOptions;
  /** Most entries the spool's bad/ keeps (QUARANTINE_MOST). */
  quarantineMost?: number;
  /** How git runs for the code figures (default: a child process of this one per command, FORKING_GIT). */
  git?: GitRunner;
}

/** How often a drain prunes the quarantine (the first drain does). */
const PRUNE_EVERY_MS = 3600_000;

/**
 * Tries of a batch answered 5xx before it is sent again in halves to find a record the server cannot
 * store (collector/narrow.ts); a 422 (the server says the content is at fault) is narrowed at once.
 */
export const NARROW_AFTER = 3;

/** What posting a batch came to: the server's answer, or why it was not shipped. */
type Sent = { answer: IngestResponse; ms: number } | { error: string; refused?: boolean };

/** What a posted batch adds to its drain's totals; `failed`: the server did not take it, and why. */
interface Settled {
  shipped: number;
  quarantined: number;
  dropped: number;
  removal?: Promise<void>;
  failed?: { error: string; refused?: boolean };
}

/** A batch read and encoded, ready to post. */
interface PreparedBatch {
  names: string[];
  batch: Batch;
  /** gzip NDJSON; undefined when every file was quarantined or skipped. */
  body: Buffer | undefined;
}

export interface DrainResult {
  shipped: number;
  quarantined: number;
  /** Entries of spool/new that are not the hook's files (links, folders, other users' files): left alone. */
  leftAlone: number;
  /** Events read and not shipped on purpose (another host ran an agent's hook; reasons in the state); absent when none. */
  dropped?: number;
  /** Set when a batch could not be shipped; what was not shipped stays in the spool. */
  error?: string;
  /** The server refused the key (401/403): retrying cannot help, so nothing was retried. */
  refused?: boolean;
}

/**
 * How long a session's agent files are read again after its last event, on every drain that finds the
 * spool empty (the 30-second poll at least): an agent can write a turn's last lines after the turn's last
 * hook has run (Claude Code runs its Stop hook before the final assistant line is written), and with no
 * later event of the session, those lines' model calls would wait for its next turn, or never be read.
 */
const READ_AGAIN_MS = 10 * 60_000;
/** The most sessions read again (the most recent kept): each costs a file open a drain. */
const READ_AGAIN_MOST = 500;

const countBy = (values: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
};

export class Collector {
  readonly dirs: SpoolDirs;
  private state: CollectorState;
  private readonly machine: string;
  private readonly hooks: HookConfigCache;
  private readonly editRepos: EditRepos;
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
  private readonly unlinker = new Unlinker();
  private leftAlone = 0;
  /** The code ledger and landed commits (docs/metrics.md §5). */
  readonly code: CodeTracker;
  /** When the user's addresses were last read from the server (0: never). */
  private addressesAt = 0;
  private refWatcher: FSWatcher | undefined;
  private readonly refsWatched = new Set<string>();
  /** A scan for landed commits is due: at start, after a batch watched a new repository, after refs moved. */
  private scanDue = true;
  /** When a drain last pruned the quarantine (0: none yet). */
  private prunedAt = 0;
  /** Sessions with an event lately, by agent and id, and when it was read (READ_AGAIN_MS). */
  private readonly recent = new Map<string, { session: SessionRead; seenAt: number }>();

  constructor(private readonly options: CollectorOptions) {
    this.dirs = spoolDirs(options.agentmeterHome);
    ensureSpool(this.dirs);
    this.queue = new SpoolQueue(this.dirs);
    const loaded = loadState(options.agentmeterHome);
    if (loaded.problem) options.log.warn({ problem: loaded.problem }, 'collector state reset');
    this.state = loaded.state;
    this.machine = machineId(options.agentmeterHome);
    this.hooks = new HookConfigCache(options.home);
    // The server decodes at most MAX_BATCH_RECORDS records of one request (api/ingest/limits.ts).
    this.batchSize = Math.max(1, Math.min(options.batchSize ?? 5000, MAX_BATCH_RECORDS));
    this.maxAgeMs = options.maxAgeMs ?? 1000;
    const git = options.git ?? FORKING_GIT;
    this.editRepos = new EditRepos({ readOrigin: (root) => git.originUrl(root) });
    this.code = new CodeTracker(options.agentmeterHome, options.log, undefined, git);
  }

  /** Ships every event in the spool now; resolves when the spool is empty or a batch failed for good. */
  drain(maxAttempts = this.options.maxAttempts ?? 6): Promise<DrainResult> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.drainLoop(maxAttempts)
      .then(({ dropped, ...result }) => ({ ...result, leftAlone: this.leftAlone, ...(dropped ? { dropped } : {}) }))
      .finally(() => {
        this.draining = undefined;
      });
    return this.draining;
  }

  /**
   * Ships batch after batch, one in flight: while the server stores a batch, the next one is read and
   * encoded from the state the one in flight will leave, and the files of the last acknowledged one are
   * unlinked. Nothing is committed or removed before its own acknowledgement; if a batch fails, the one
   * prepared behind it is dropped (its files stay in the spool, its transcript reading is redone).
   */
  private async drainLoop(maxAttempts: number): Promise<Omit<DrainResult, 'leftAlone'>> {
    const total = { shipped: 0, quarantined: 0, dropped: 0 };
    this.leftAlone = 0;
    try {
      // Checked before every drain, not only at start: a spool folder swapped for a link meanwhile must
      // not lead the collector into another folder.
      ensureSpool(this.dirs);
    } catch (error) {
      const message = (error as Error).message;
      this.options.log.error({ error: message }, 'spool refused; nothing was read or moved');
      return { ...total, error: message };
    }
    if (Date.now() - this.prunedAt >= PRUNE_EVERY_MS) {
      this.prunedAt = Date.now();
      const most = this.options.quarantineMost ?? QUARANTINE_MOST;
      const { removed } = pruneQuarantine(this.dirs, most);
      if (removed) this.options.log.warn({ removed, most }, 'quarantine past its bound: the oldest entries were removed');
    }
    const removals: Promise<void>[] = [];
    // The batch posted while the next one is read: if that read fails, its answer is still awaited.
    let inFlight: { prepared: PreparedBatch; sending: Promise<Sent> } | undefined;
    try {
      do {
        this.again = false;
        let current = this.stopping ? undefined : await this.prepareNext(this.state);
        while (current) {
          const sending = this.send(current, maxAttempts).catch((error: unknown): Sent => ({ error: String(error) }));
          inFlight = { prepared: current, sending };
          const next = this.stopping ? undefined : await this.prepareNext(current.batch.nextState);
          const settled = this.settle(current, await sending);
          inFlight = undefined;
          total.shipped += settled.shipped;
          total.quarantined += settled.quarantined;
          total.dropped += settled.dropped;
          if (settled.failed) {
            this.queue.reset();
            return {
              ...total,
              quarantined: total.quarantined + (next?.batch.quarantined ?? 0),
              error: settled.failed.error,
              ...(settled.failed.refused ? { refused: true } : {}),
            };
          }
          if (settled.removal) removals.push(settled.removal);
          if (next && this.stopping) {
            // Not sent: its files stay in the spool for the next start.
            total.quarantined += next.batch.quarantined;
            this.queue.finish(next.names);
            break;
          }
          current = next;
        }
      } while (this.again && !this.stopping);
    } catch (error) {
      // Reading or quarantining failed (a full disk, a bad/ folder that cannot be written): this drain
      // ends, nothing unacknowledged was removed, and the spool keeps its files for the next one. A drain
      // never rejects: run() starts it without waiting, and a rejection would end the collector.
      const message = `collector could not go on: ${(error as Error).message}`;
      this.options.log.error({ error: message }, 'drain stopped; the spool keeps its files');
      // A batch in flight was read whole before the failure: its answer is awaited (no post goes on
      // after the drain ended) and acknowledged, so that what the server stored is not kept to send again.
      let landed: Settled | undefined;
      if (inFlight) {
        const sent = await inFlight.sending;
        try {
          landed = this.settle(inFlight.prepared, sent);
        } catch (ackError) {
          // Never thrown on: a drain never rejects.
          this.options.log.error({ error: (ackError as Error).message }, 'batch shipped but not acknowledged; its files stay in the spool');
          landed = { shipped: 0, quarantined: inFlight.prepared.batch.quarantined, dropped: 0 };
        }
      }
      this.queue.reset();
      if (landed?.removal) removals.push(landed.removal);
      return {
        shipped: total.shipped + (landed?.shipped ?? 0),
        quarantined: total.quarantined + (landed?.quarantined ?? 0),
        dropped: total.dropped + (landed?.dropped ?? 0),
        // A refused key is what run() ends on, and says: its reason goes first.
        ...(landed?.failed?.refused ? { error: landed.failed.error, refused: true } : { error: message }),
      };
    } finally {
      await Promise.all(removals);
      // After shipping, not before: the hook's tmp/ twins of the files shipped are gone by now, so the
      // sweep looks only at what is left there (a full spool holds a twin for every file in new/).
      const swept = sweepTmp(this.dirs);
      if (swept) this.options.log.info({ swept }, 'swept abandoned tmp files');
    }
    const landed = this.stopping ? {} : await this.shipLanded(maxAttempts);
    await this.refreshLimits();
    return { ...total, ...landed, shipped: total.shipped + (landed.shipped ?? 0) };
  }

  /** Asks the next drain to look for landed commits (a caller that knows the default branch moved). */
  scanSoon(): void {
    this.scanDue = true;
  }

  /**
   * Looks for commits that landed in the watched repositories and ships their records (they wait in
   * $AGENTMETER_HOME/code/pending.json (CODE_STATE_DIR) until the server has them). A record the server rejects is
   * quarantined with the reason, like a spool file.
   */
  private async shipLanded(maxAttempts: number): Promise<{ shipped?: number; error?: string }> {
    const { log } = this.options;
    if (this.scanDue) {
      this.scanDue = false;
      try {
        if (Date.now() - this.addressesAt > ADDRESSES_REFRESH_MS) {
          const addresses = await fetchAddresses(this.options.server, this.options.apiKey);
          if (addresses) {
            this.code.setAddresses(addresses);
            this.addressesAt = Date.now();
          }
        }
        await this.code.scan();
      } catch (error) {
        log.warn({ error: (error as Error).message }, 'landed commits not looked for');
      }
    }
    const records = this.code.pending().slice(0, this.batchSize);
    if (!records.length) return {};
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await postBatch(
          this.options.server,
          this.options.apiKey,
          encodeBatch(records),
          this.abort.signal,
          REQUEST_TIMEOUT_MS,
          this.machine,
        );
        for (const rejection of answer.rejected) {
          const record = records[rejection.index];
          const reason = `server rejected: ${rejection.reason}`;
          quarantineRecord(this.dirs, record?.id ?? `index-${rejection.index}`, record, reason);
          log.warn({ index: rejection.index, reason }, 'landed commit rejected by server, quarantined');
        }
        this.code.acknowledge(records.map((r) => r.id));
        log.info({ records: records.length, stored: answer.stored, duplicates: answer.duplicates }, 'landed commits shipped');
        return { shipped: records.length - answer.rejected.length };
      } catch (error) {
        const message = error instanceof ShipError ? error.message : String(error);
        if ((error instanceof ShipError && error.refused) || this.stopping || attempt + 1 >= maxAttempts) {
          log.error({ error: message }, 'landed commits not shipped; they are kept for the next try');
          return { error: message };
        }
        await sleep(backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF), undefined, { signal: this.abort.signal }).catch(
          () => undefined,
        );
      }
    }
  }

  /** Watches the refs of every watched repository: a fetch or push that moves them starts a drain (and a scan). */
  private async watchRefs(onChange: () => void): Promise<void> {
    const paths = (await this.code.refsToWatch()).filter((p) => !this.refsWatched.has(p));
    if (!paths.length || this.stopping) return;
    for (const p of paths) this.refsWatched.add(p);
    if (!this.refWatcher) {
      this.refWatcher = watch(paths, { ignoreInitial: true, followSymlinks: false, depth: 8 });
      this.refWatcher.on('all', onChange);
      this.refWatcher.on('error', (error) => this.options.log.warn({ error: String(error) }, 'refs watcher error'));
    } else this.refWatcher.add(paths);
  }

  private async prepareNext(state: CollectorState): Promise<PreparedBatch | undefined> {
    const names = this.queue.take(this.batchSize);
    const readAgain = names.length === 0 ? this.sessionsToReadAgain() : [];
    if (names.length === 0 && readAgain.length === 0) return undefined;
    const { log } = this.options;
    const batch = await buildBatch(
      {
        dirs: this.dirs,
        machineId: this.machine,
        home: this.options.home,
        hooks: this.hooks,
        editRepos: this.editRepos,
        log,
        reported: this.reported,
      },
      names,
      state,
      readAgain,
    );
    this.queue.leaveAlone(batch.leftAlone);
    this.leftAlone += batch.leftAlone.length;
    this.readLately(batch.sessions);
    // Read again and nothing new: nothing to send or commit.
    if (names.length === 0 && batch.records.length === 0) return undefined;
    return { names, batch, body: batch.records.length ? encodeBatch(batch.records) : undefined };
  }

  /** Notes the sessions a batch's events belong to, for READ_AGAIN_MS. */
  private readLately(sessions: readonly SessionRead[]): void {
    const now = Date.now();
    for (const session of sessions) {
      const key = `${session.agent}\0${session.sessionId}`;
      // Re-set, so that the Map's order is the order of the latest events.
      this.recent.delete(key);
      this.recent.set(key, { session, seenAt: now });
    }
    for (const key of this.recent.keys()) {
      if (this.recent.size <= READ_AGAIN_MOST) break;
      this.recent.delete(key);
    }
  }

  /** The sessions with an event in the last READ_AGAIN_MS; the older ones are forgotten. */
  private sessionsToReadAgain(): SessionRead[] {
    const since = Date.now() - READ_AGAIN_MS;
    for (const [key, { seenAt }] of this.recent) if (seenAt < since) this.recent.delete(key);
    return [...this.recent.values()].map((r) => r.session);
  }

  /**
   * What a posted batch comes to: acknowledged (its files removed, its state kept) when the server took it;
   * its quarantined files counted either way.
   */
  private settle(prepared: PreparedBatch, sent: Sent): Settled {
    if ('error' in sent) return { shipped: 0, quarantined: prepared.batch.quarantined, dropped: 0, failed: sent };
    const done = this.acknowledge(prepared, sent.answer, sent.ms);
    return { shipped: done.shipped, quarantined: done.quarantined, dropped: prepared.batch.dropped.length, removal: done.removal };
  }

  /** Posts a batch until the server acknowledges it, retrying with backoff up to maxAttempts. */
  private async send(prepared: PreparedBatch, maxAttempts: number): Promise<Sent> {
    const { log } = this.options;
    if (!prepared.body) return { answer: { received: 0, stored: 0, duplicates: 0, rejected: [] }, ms: 0 };
    let faults = 0;
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      try {
        const answer = await postBatch(
          this.options.server,
          this.options.apiKey,
          prepared.body,
          this.abort.signal,
          REQUEST_TIMEOUT_MS,
          this.machine,
        );
        return { answer, ms: Date.now() - started };
      } catch (error) {
        let message = error instanceof ShipError ? error.message : String(error);
        // Before any give-up on errors that are not retryable: a 422 is not worth sending again as it
        // is, but its halves are.
        // A busy server (429, or 503 with Retry-After) neither counts as a fault nor splits the batch.
        const busy = error instanceof ShipError && error.busy;
        if (!busy) faults = isBatchFault(error) ? faults + 1 : 0;
        if (isBatchFault(error) && (isContentFault(error) || faults >= NARROW_AFTER) && !this.stopping) {
          faults = 0;
          const narrowed = await this.narrow(prepared, error);
          if (narrowed.kind === 'answer') return { answer: narrowed.answer, ms: Date.now() - started };
          message = narrowed.error;
        }
        this.state.lastError = message;
        this.state.lastErrorAt = Date.now();
        saveState(this.options.agentmeterHome, this.state);
        // A refused key stays refused: say so at once instead of retrying what cannot succeed.
        if (error instanceof ShipError && error.refused) {
          log.error({ status: error.status }, message);
          return { error: message, refused: true };
        }
        if (this.stopping || attempt + 1 >= maxAttempts) {
          log.error({ error: message, attempts: attempt + 1 }, 'batch not shipped; it stays in the spool');
          return { error: message };
        }
        // The server said how long to wait: wait that, as told, not the backoff.
        const wait = busy ? error.retryAfterMs! : backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF);
        log.warn({ error: message, attempt: attempt + 1, retryInMs: wait, busy }, 'ship failed, retrying');
        await sleep(wait, undefined, { signal: this.abort.signal }).catch(() => undefined);
      }
    }
  }

  /** Sends a batch the server refused again in halves, to quarantine only the records that fail alone. */
  private async narrow(prepared: PreparedBatch, failure: Parameters<typeof narrowBatch>[1]) {
    const { log } = this.options;
    const { records } = prepared.batch;
    log.warn({ records: records.length, error: failure.message }, 'batch refused: sending it in halves to find the record at fault');
    const result = await narrowBatch(records.length, failure, {
      post: (indexes) =>
        postBatch(
          this.options.server,
          this.options.apiKey,
          encodeBatch(indexes.map((i) => records[i]!)),
          this.abort.signal,
          REQUEST_TIMEOUT_MS,
          this.machine,
        ),
      wait: (attempt) =>
        sleep(backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF), undefined, { signal: this.abort.signal }).catch(
          () => undefined,
        ),
      stopped: () => this.stopping,
    });
    if (result.kind === 'answer')
      log.info(
        { records: records.length, rejected: result.answer.rejected.length, requests: result.requests },
        'refused batch narrowed down',
      );
    else log.warn({ error: result.error, requests: result.requests }, 'refused batch not narrowed down; it is retried whole');
    return result;
  }

  /**
   * The server has the batch: quarantine what it rejected, commit the state, and only now let the files
   * go (at least once). The unlinks run in the background; the files count as handed out until they end.
   */
  private acknowledge(
    prepared: PreparedBatch,
    answer: IngestResponse,
    ms: number,
  ): { shipped: number; quarantined: number; removal: Promise<void> } {
    const { log } = this.options;
    const { batch } = prepared;
    for (const rejection of answer.rejected) {
      const source = batch.sources[rejection.index];
      const reason = `server rejected: ${rejection.reason}`;
      if (source) quarantineFile(this.dirs, source, reason);
      else quarantineRecord(this.dirs, rejection.id ?? `index-${rejection.index}`, batch.records[rejection.index], reason);
      log.warn({ index: rejection.index, file: source, reason }, 'record rejected by server, quarantined');
    }
    const rejectedSources = new Set(answer.rejected.map((r) => batch.sources[r.index]).filter(Boolean));
    const dropped = batch.dropped.map((d) => d.reason);
    this.commit(batch.nextState, batch.records.length - answer.rejected.length, dropped);
    for (const [reason, count] of Object.entries(countBy(dropped)))
      log.info({ count, reason }, "events dropped: not the agent's own (see collect status)");
    // Models alone too: a batch that read a session's files again with no event of it (readAgain) has no
    // touches, and the model it saw is the model of the session's next edits.
    if (batch.touches.length || batch.models.length) {
      try {
        const before = this.code.watched.length;
        this.code.record(batch.touches, batch.models);
        // A new repository, or edits after recent commits of one (examined again): a scan is due.
        if (this.code.watched.length > before || this.code.recheckDue) this.scanDue = true;
      } catch (error) {
        // The ledger is ours alone: a failure to write it loses agent credit, never an event.
        log.warn({ error: (error as Error).message }, 'code ledger not updated');
      }
    }
    // A receiver's file holds several records: it goes once, and only when none of them was rejected.
    const shipped = [
      ...[...new Set(batch.sources)].filter((s): s is string => s !== undefined && !rejectedSources.has(s)),
      ...batch.dropped.map((d) => d.name),
    ];
    const removal = this.unlinker
      .remove(shipped.flatMap((name) => shippedPaths(this.dirs, name, batch.twins.has(name))))
      .catch((error: unknown) =>
        log.error({ error: String(error) }, 'shipped spool files not removed; they will be sent again (the server ignores repeats)'),
      )
      .finally(() => this.queue.finish(prepared.names));
    if (batch.records.length)
      log.info(
        { records: batch.records.length, stored: answer.stored, duplicates: answer.duplicates, rejected: answer.rejected.length, ms },
        'batch shipped',
      );
    return { shipped: batch.records.length - answer.rejected.length, quarantined: batch.quarantined + answer.rejected.length, removal };
  }

  private limitState: string | undefined;

  /**
   * Keeps the credit-limit marker the hook reads in step with the server (see limits.ts), and the
   * figures `agentmeter statusline` shows (status-cache.ts). Never rejects: it ends every drain and runs
   * on a timer, and a file that cannot be written (a full disk) must not end the collector; the files
   * are then left as they were, as when the server cannot be asked.
   */
  async refreshLimits(): Promise<void> {
    const { server, apiKey, agentmeterHome } = this.options;
    const kept = <T>(what: string, refreshing: Promise<T>, otherwise: T) =>
      refreshing.catch((error: unknown) => {
        this.options.log.warn({ error: (error as Error).message }, `${what} not kept; the file is left as it was`);
        return otherwise;
      });
    const [state] = await Promise.all([
      kept('credit-limit status', refreshLimitStatus(server, apiKey, agentmeterHome), 'unknown' as const),
      kept('status line figures', refreshStatusCache(server, apiKey, agentmeterHome), undefined),
    ]);
    if (state !== 'unknown' && state !== this.limitState)
      this.options.log.info(
        { limit: state },
        state === 'blocked' ? 'over the credit limit: prompts are blocked' : 'credit limit: prompts pass',
      );
    if (state !== 'unknown') this.limitState = state;
  }

  /** Takes every agent's reading progress from nextState; the counters from now. */
  private commit(nextState: CollectorState, shipped: number, dropped: string[]): void {
    this.state = committedState(this.state, nextState, shipped, Date.now(), dropped);
    saveState(this.options.agentmeterHome, this.state);
  }

  /**
   * Watches the spool and ships until stop(). A partial batch waits at most maxAgeMs. Ends by itself when
   * the server refuses the key (401/403), with that reason: a daemon retrying a refused key forever would
   * only fill its log, while a service manager shows an exit and its message.
   */
  async run(): Promise<{ refused?: string }> {
    const { log } = this.options;
    log.info({ spool: this.dirs.new, server: this.options.server }, 'collector started');
    let refused: string | undefined;
    let refsTimer: NodeJS.Timeout | undefined;
    // A fetch or push writes several ref files: one drain a couple of seconds after the last.
    const refsMoved = () => {
      if (refsTimer) clearTimeout(refsTimer);
      refsTimer = setTimeout(() => {
        refsTimer = undefined;
        this.scanDue = true;
        drainNow();
      }, 2000);
    };
    const drainNow = () =>
      void this.drain(Number.POSITIVE_INFINITY).then((result) => {
        void this.watchRefs(refsMoved).catch((error: unknown) => log.warn({ error: String(error) }, 'refs not watched'));
        if (!result.refused || refused) return;
        refused = result.error;
        this.stop();
      });
    let pending = 0;
    const schedule = (immediate: boolean) => {
      if (this.stopping) return;
      if (immediate) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        pending = 0;
        drainNow();
      } else if (!this.timer) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          pending = 0;
          drainNow();
        }, this.maxAgeMs);
      }
    };
    this.watcher = watch(this.dirs.new, { ignoreInitial: true, depth: 0, followSymlinks: false });
    this.watcher.on('add', () => schedule(++pending >= this.batchSize));
    this.watcher.on('error', (error) => log.error({ error: String(error) }, 'spool watcher error'));
    // Events spooled while the collector was down, and a slow poll in case the watcher misses any.
    schedule(true);
    const poll = setInterval(() => schedule(true), 30_000);
    const limits = setInterval(() => void this.refreshLimits(), 60_000);
    const sweep = setInterval(() => sweepTmp(this.dirs), 3600_000);
    // A stop that came before this point (a signal while the process was starting) has already aborted.
    if (!this.abort.signal.aborted)
      await new Promise<void>((resolve) => this.abort.signal.addEventListener('abort', () => resolve(), { once: true }));
    clearInterval(poll);
    clearInterval(limits);
    clearInterval(sweep);
    if (this.timer) clearTimeout(this.timer);
    if (refsTimer) clearTimeout(refsTimer);
    await this.watcher.close();
    await this.refWatcher?.close();
    await this.draining?.catch(() => undefined);
    await this.close();
    log.info('collector stopped');
    return refused ? { refused } : {};
  }

  stop(): void {
    this.stopping = true;
    this.abort.abort();
  }

  /** Waits for the removals of shipped files still under way; call once no drain is running (run() does it when it ends). */
  close(): Promise<void> {
    return this.unlinker.close();
  }

  get currentState(): CollectorState {
    return this.state;
  }
}
