// What one ingest request may cost the server, and the admission that enforces it before a body is read.
// A collector ships at most MAX_BATCH_RECORDS records (collector/daemon.ts clamps --batch-size), about
// 4 MB of NDJSON and well under 1 MB of gzip at level 1; every limit below is a few times that, so a
// collector never meets one, while a key holder who sends a gzip bomb or thousands of requests at once
// is answered 413, 429 or 503 at the cost of a counter. Operators' view: docs/ingest-limits.md.
import { HttpError } from '../../common/errors.ts';
import { DEFAULT_INGEST_QUOTA } from '../../common/serve-defaults.ts';
import { MAX_BATCH_RECORDS } from '../../common/wire.ts';

export interface IngestLimits {
  /** Largest request body as sent (gzip, or plain NDJSON / JSON). */
  maxBodyBytes: number;
  /** Largest body once inflated: inflating stops there and the request is answered 413. */
  maxInflatedBytes: number;
  /** Most records (non-empty lines, or array items) in one request. */
  maxRecords: number;
  /** Ingest requests admitted at once (reading, decoding or storing), over every key. */
  maxInFlight: number;
  /**
   * Ingest requests admitted at once for one user, over all their credentials: a user may mint collector
   * keys at will, so a limit per key would let one person hold every place of maxInFlight.
   */
  maxInFlightPerUser: number;
  /** Bodies waiting for a decode worker (beyond those being decoded). */
  maxDecodeQueue: number;
  /** Longest a body may take to arrive once its headers are read: the connection is closed after it. */
  bodyDeadlineMs: number;
  /** What a 429/503 answer tells the sender to wait (Retry-After), in seconds. */
  retryAfterSeconds: number;
  /**
   * Records one user may send per quotaWindowMs (over all their credentials), 0 for no quota: what keeps
   * batches that pass every other limit from growing the database and its WAL without bound.
   */
  maxRecordsPerWindow: number;
  /** Bytes of records (as decoded, what is stored) one user may send per quotaWindowMs, 0 for no quota. */
  maxBytesPerWindow: number;
  /** The quota's window: a minute. */
  quotaWindowMs: number;
}

export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxInflatedBytes: 16 * 1024 * 1024,
  maxRecords: MAX_BATCH_RECORDS,
  maxInFlight: 8,
  maxInFlightPerUser: 4,
  maxDecodeQueue: 4,
  bodyDeadlineMs: 30_000,
  retryAfterSeconds: 2,
  maxRecordsPerWindow: DEFAULT_INGEST_QUOTA.recordsPerMinute,
  maxBytesPerWindow: DEFAULT_INGEST_QUOTA.bytesPerMinute,
  quotaWindowMs: 60_000,
};

/** A refusal that asks the sender to come back later (429 or 503 with Retry-After). */
export class RetryLater extends HttpError {
  constructor(
    status: 429 | 503,
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(status, detail);
  }
}

/** A body that inflates (or decodes) to more than the server accepts. */
export const tooLarge = (detail: string) => new HttpError(413, detail);

/**
 * Counts admitted ingest requests, in all and per user. acquire() is called before the body is
 * read and answers a release function, or throws RetryLater; the release is idempotent.
 */
export class IngestAdmission {
  private inFlight = 0;
  private readonly perUser = new Map<string, number>();

  constructor(private readonly limits: Pick<IngestLimits, 'maxInFlight' | 'maxInFlightPerUser' | 'retryAfterSeconds'>) {}

  get admitted(): number {
    return this.inFlight;
  }

  acquire(key: string): () => void {
    const mine = this.perUser.get(key) ?? 0;
    if (mine >= this.limits.maxInFlightPerUser)
      throw new RetryLater(
        429,
        `this credential's user already has ${mine} ingest requests in progress (at most ${this.limits.maxInFlightPerUser}, over all their keys); retry after ${this.limits.retryAfterSeconds} s`,
        this.limits.retryAfterSeconds,
      );
    if (this.inFlight >= this.limits.maxInFlight)
      throw new RetryLater(
        503,
        `the server is busy with ${this.inFlight} ingest requests; retry after ${this.limits.retryAfterSeconds} s`,
        this.limits.retryAfterSeconds,
      );
    this.inFlight++;
    this.perUser.set(key, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const left = (this.perUser.get(key) ?? 1) - 1;
      if (left > 0) this.perUser.set(key, left);
      else this.perUser.delete(key);
    };
  }
}

/** One user's use of the quota: what they sent, drained at the quota's rate since `at`. */
interface Use {
  records: number;
  bytes: number;
  at: number;
}

/**
 * Records and bytes per user and per window, as a leaky bucket: what a user sent drains at the quota's
 * rate (maxRecordsPerWindow per quotaWindowMs), and a request is refused (429, Retry-After: until enough
 * has drained) while the bucket is full. Checked before the body is read, charged once it is decoded: a
 * request costs one map lookup and a few additions, whatever its size, and a user can pass the quota by
 * at most the one batch admitted while below it.
 */
export class VolumeQuota {
  private readonly use = new Map<string, Use>();
  private readonly recordRate: number;
  private readonly byteRate: number;

  constructor(
    private readonly limits: Pick<IngestLimits, 'maxRecordsPerWindow' | 'maxBytesPerWindow' | 'quotaWindowMs'>,
    private readonly now: () => number = Date.now,
  ) {
    this.recordRate = limits.maxRecordsPerWindow / limits.quotaWindowMs;
    this.byteRate = limits.maxBytesPerWindow / limits.quotaWindowMs;
  }

  private get on(): boolean {
    return this.limits.maxRecordsPerWindow > 0 || this.limits.maxBytesPerWindow > 0;
  }

  /** The user's use now, drained since it was last seen (undefined once nothing is left). */
  private current(key: string, now: number): Use | undefined {
    const use = this.use.get(key);
    if (!use) return undefined;
    const elapsed = Math.max(0, now - use.at);
    use.records = Math.max(0, use.records - elapsed * this.recordRate);
    use.bytes = Math.max(0, use.bytes - elapsed * this.byteRate);
    use.at = now;
    if (use.records === 0 && use.bytes === 0) {
      this.use.delete(key);
      return undefined;
    }
    return use;
  }

  /** Throws RetryLater (429) while the user's bucket is full, saying how long until it is not. */
  check(key: string): void {
    if (!this.on) return;
    const use = this.current(key, this.now());
    if (!use) return;
    const { maxRecordsPerWindow: records, maxBytesPerWindow: bytes, quotaWindowMs: window } = this.limits;
    const overRecords = records > 0 && use.records >= records ? (use.records - records + 1) / this.recordRate : 0;
    const overBytes = bytes > 0 && use.bytes >= bytes ? (use.bytes - bytes + 1) / this.byteRate : 0;
    const waitMs = Math.max(overRecords, overBytes);
    if (waitMs === 0) return;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    throw new RetryLater(
      429,
      `this credential's user sent more than their ingest quota (${records ? `${records} records` : ''}${records && bytes ? ' and ' : ''}${bytes ? `${bytes} bytes of records` : ''} per ${window / 1000} s, over all their keys); retry after ${seconds} s`,
      seconds,
    );
  }

  /** Counts a decoded batch against its user. */
  charge(key: string, records: number, bytes: number): void {
    if (!this.on) return;
    const now = this.now();
    const use = this.current(key, now);
    if (use) {
      use.records += records;
      use.bytes += bytes;
    } else this.use.set(key, { records, bytes, at: now });
  }
}
