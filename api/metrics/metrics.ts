// The server's Prometheus metrics (prom-client), one Registry per server so two servers in one process
// (the tests) never share or collide; routes.ts serves them and feeds them from Fastify's hooks. Nothing
// here holds a user's data: counts, durations and sizes only, with labels from small fixed sets (route
// patterns, not URLs; reason classes, not reasons).

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { databaseBytes } from '../../common/db/duckdb.ts';
import { IngestResponse } from '../../common/wire.ts';
import type { StoreTransactions } from '../ingest/store.ts';

export { MetricsToken, MIN_TOKEN_LENGTH } from '../../common/serve-defaults.ts';

/** A rejected record's reason, as a class with few values (the reason itself names fields and values). */
export function reasonClass(reason: string): string {
  if (reason.startsWith('not JSON')) return 'not_json';
  if (/^kind: /.test(reason)) return 'unknown_kind';
  if (/^\(root\): /.test(reason)) return 'not_an_object';
  return 'invalid_field';
}

/** "2xx" for 204: status classes keep the label set small. */
export const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export interface CacheStats {
  readonly hits: number;
  readonly misses: number;
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly ingestRecords: Counter<'outcome'>;
  private readonly ingestBatches: Counter<'outcome'>;
  private readonly quarantined: Counter<'reason'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status_class'>;
  private readonly batchSeconds: Histogram<'outcome'>;
  private readonly batchLastSuccess: Gauge;

  constructor(options: {
    dbPath: string;
    cache: () => CacheStats;
    readModelRows?: () => number;
    ingestTransactions?: () => StoreTransactions;
  }) {
    const registers = [this.registry];
    // The process's own: resident memory, CPU, heap, event-loop lag, open files.
    collectDefaultMetrics({ register: this.registry });
    this.ingestRecords = new Counter({
      name: 'agentmeter_ingest_records_total',
      help: 'Records received at ingest, by outcome: stored, duplicate (already stored) or rejected',
      labelNames: ['outcome'],
      registers,
    });
    this.ingestBatches = new Counter({
      name: 'agentmeter_ingest_batches_total',
      help: 'Ingest requests, by outcome: accepted (answered 200, perhaps with rejected records) or rejected (an error answer)',
      labelNames: ['outcome'],
      registers,
    });
    this.quarantined = new Counter({
      name: 'agentmeter_ingest_rejected_records_total',
      help: 'Records the server refused at ingest (the collector quarantines them), by reason class',
      labelNames: ['reason'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'agentmeter_http_request_duration_seconds',
      help: 'HTTP request latency, by route pattern and status class',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.batchSeconds = new Histogram({
      name: 'agentmeter_batch_duration_seconds',
      help: 'Duration of batch runs (scheduled, API, CLI through the server), by outcome',
      labelNames: ['outcome'],
      buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.batchLastSuccess = new Gauge({
      name: 'agentmeter_batch_last_success_timestamp_seconds',
      help: 'When the last successful batch run ended (Unix seconds; 0 before the first in this process)',
      registers,
    });
    // Read at scrape: the cache counts its own lookups, and counters here follow them.
    let seen = { hits: 0, misses: 0 };
    new Counter({
      name: 'agentmeter_analytics_cache_lookups_total',
      help: 'Analytics answers looked up in the response cache, by result: hit or miss (built or joined a build)',
      labelNames: ['result'],
      registers,
      collect() {
        const stats = options.cache();
        const now = { hits: stats.hits, misses: stats.misses };
        this.inc({ result: 'hit' }, now.hits - seen.hits);
        this.inc({ result: 'miss' }, now.misses - seen.misses);
        seen = now;
      },
    });
    let stored: StoreTransactions = {
      single: { committed: 0, rolledBack: 0 },
      group: { committed: 0, rolledBack: 0 },
      beside: { committed: 0, rolledBack: 0 },
    };
    new Counter({
      name: 'agentmeter_ingest_transactions_total',
      help: 'Transactions the ingest store made, by shape (single: a batch alone; group: small batches sharing one; beside: a full batch on a second connection while the writer is busy) and outcome (committed or rolled_back: a batch delivered again, or one that failed its group or beside the writer, is then written alone)',
      labelNames: ['shape', 'outcome'],
      registers,
      collect() {
        const now = options.ingestTransactions?.() ?? stored;
        for (const shape of ['single', 'group', 'beside'] as const) {
          this.inc({ shape, outcome: 'committed' }, now[shape].committed - stored[shape].committed);
          this.inc({ shape, outcome: 'rolled_back' }, now[shape].rolledBack - stored[shape].rolledBack);
        }
        stored = structuredClone(now);
      },
    });
    new Gauge({
      name: 'agentmeter_analytics_read_model_rows',
      help: 'Aggregate rows the analytics read model holds in memory (about 190 bytes of heap each; bounded by serve --analytics-rows)',
      registers,
      collect() {
        this.set(options.readModelRows?.() ?? 0);
      },
    });
    new Gauge({
      name: 'agentmeter_database_bytes',
      help: 'Size of the DuckDB database on disk, by file: db (the main file) and wal (the write-ahead log)',
      labelNames: ['file'],
      registers,
      collect() {
        const bytes = databaseBytes(options.dbPath);
        this.set({ file: 'db' }, bytes.file);
        this.set({ file: 'wal' }, bytes.wal);
      },
    });
    this.ingestRecords.inc({ outcome: 'stored' }, 0);
    this.ingestRecords.inc({ outcome: 'duplicate' }, 0);
    this.ingestRecords.inc({ outcome: 'rejected' }, 0);
    this.ingestBatches.inc({ outcome: 'accepted' }, 0);
    this.ingestBatches.inc({ outcome: 'rejected' }, 0);
  }

  /** An ingest request ended: its answer says what became of its records. */
  ingestAnswered(status: number, body: unknown): void {
    if (status !== 200) {
      this.ingestBatches.inc({ outcome: 'rejected' });
      return;
    }
    const answer = IngestResponse.safeParse(body);
    if (!answer.success) return;
    this.ingestBatches.inc({ outcome: 'accepted' });
    this.ingestRecords.inc({ outcome: 'stored' }, answer.data.stored);
    this.ingestRecords.inc({ outcome: 'duplicate' }, answer.data.duplicates);
    this.ingestRecords.inc({ outcome: 'rejected' }, answer.data.rejected.length);
    for (const r of answer.data.rejected) this.quarantined.inc({ reason: reasonClass(r.reason) });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requestSeconds.observe({ method, route, status_class: statusClass(status) }, seconds);
  }

  /** Runs a batch and records its duration, outcome and (on success) its end time. */
  async timeBatch<T>(fn: () => Promise<T>): Promise<T> {
    const end = this.batchSeconds.startTimer();
    try {
      const result = await fn();
      end({ outcome: 'success' });
      this.batchLastSuccess.set(Date.now() / 1000);
      return result;
    } catch (error) {
      end({ outcome: 'failure' });
      throw error;
    }
  }
}
