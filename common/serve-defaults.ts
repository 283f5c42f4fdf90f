// Defaults and checks of `agentmeter serve` options that the server also uses. They live here, apart from
// api/, so the CLI can describe and check the options without loading the server (api/answers/cache.ts
// and api/metrics/metrics.ts re-export them).
import { z } from 'zod';

export interface CacheLimits {
  /** Most answers kept (0 turns the cache off). */
  maxEntries: number;
  /** Most bytes kept, plain and gzip forms together (0 turns the cache off). */
  maxBytes: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxEntries: 2000, maxBytes: 256 * 1024 * 1024 };

export interface ReadModelLimits {
  /** Most aggregate rows the analytics read model holds over all organizations (0: off, every answer reads DuckDB). */
  maxRows: number;
}

/**
 * About 190 bytes of heap a row as measured (strings shared), so up to about 190 MB: a 500-user
 * organization's full year with three models a day is about 735k rows (user-days, tokens per model,
 * breakdowns).
 */
export const DEFAULT_READ_MODEL_LIMITS: ReadModelLimits = { maxRows: 1_000_000 };

export const MIN_TOKEN_LENGTH = 32;

/** The metrics token as `serve --metrics-token` and AGENTMETER_METRICS_TOKEN take it. */
export const MetricsToken = z.string().min(MIN_TOKEN_LENGTH, `the metrics token must be at least ${MIN_TOKEN_LENGTH} characters`);

/**
 * On SIGTERM, how long in-flight requests get to finish before their connections are closed: well under
 * systemd's default stop timeout (TimeoutStopSec, 90 s), so the server checkpoints and exits on its own
 * rather than being killed.
 */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * The ingest quota of one user, over all their credentials (api/ingest/limits.ts VolumeQuota): records
 * and bytes of records (as decoded) a minute. Six full batches a minute, sustained: a collector catching
 * up on a week offline ships in a minute or two, while one key holder adds at most ~25 MB of records a
 * minute to the database.
 */
export const DEFAULT_INGEST_QUOTA = { recordsPerMinute: 60_000, bytesPerMinute: 64 * 1024 * 1024 } as const;
