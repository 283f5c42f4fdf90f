// What one ingest request may cost the server, the admission that enforces it before a body is read
// (per user, per organization, overall), and the per-user volume quota over time.
// A collector ships at most MAX_BATCH_RECORDS records (collector/daemon.ts clamps --batch-size), about
// 4 MB of NDJSON and well under 1 MB of gzip at level 1; every limit below is a few times that, so a
// collector never meets one, while a key holder who sends a gzip bomb, thousands of requests at once,
// bodies a byte at a time or batch after batch is answered 408, 413, 429 or 503 at the cost of a
// counter. Operators' view: docs/ingest-limits.md.
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
  /**
   * Ingest requests admitted at once for one organization, over all its users: below maxInFlight, so
   * one organization (two users at their own cap) can never hold every place and keep the others out.
   */
  maxInFlightPerOrg: number;
  /** Bodies waiting for a decode worker (beyond those being decoded). */
  maxDecodeQueue: number;
  /** Longest a body may take to arrive once its headers are read: answered 408 and closed after it. */
  bodyDeadlineMs: number;
  /**
   * The slowest a body may arrive: at least this many bytes in every bodyRateWindowMs (or the rest of the
   * body), else it is answered 408, closed, and its place freed. A sender dribbling a byte a second
   * holds a place for one window, not for the whole deadline.
   */
  minBodyBytesPerWindow: number;
  bodyRateWindowMs: number;
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
  maxInFlightPerOrg: 6,
  maxDecodeQueue: 4,
  bodyDeadlineMs: 30_000,
  // 16 KiB every 5 s (3.2 KiB/s): a collector's batch (under 1 MB of gzip) arrives in well under a second
  // on any link that carries it at all; a slow-body sender holds a place 5 s, not 30.
  minBodyBytesPerWindow: 16 * 1024,
  bodyRateWindowMs: 5_000,
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
  private readonly perOrg = new Map<string, number>();

  constructor(
    private readonly limits: Pick<IngestLimits, 'maxInFlight' | 'maxInFlightPerUser' | 'maxInFlightPerOrg' | 'retryAfterSeconds'>,
  ) {}

  get admitted(): number {
    return this.inFlight;
  }

  /** Admits a request of `user` (a key unique over organizations) in organization `org`. */
  acquire(org: string, user: string): () => void {
    const { maxInFlight, maxInFlightPerUser, maxInFlightPerOrg, retryAfterSeconds: wait } = this.limits;
    const mine = this.perUser.get(user) ?? 0;
    if (mine >= maxInFlightPerUser)
      throw new RetryLater(
        429,
        `this credential's user already has ${mine} ingest requests in progress (at most ${maxInFlightPerUser}, over all their keys); retry after ${wait} s`,
        wait,
      );
    const ours = this.perOrg.get(org) ?? 0;
    if (ours >= maxInFlightPerOrg)
      throw new RetryLater(
        429,
        `this organization already has ${ours} ingest requests in progress (at most ${maxInFlightPerOrg}, over all its users); retry after ${wait} s`,
        wait,
      );
    if (this.inFlight >= maxInFlight)
      throw new RetryLater(503, `the server is busy with ${this.inFlight} ingest requests; retry after ${wait} s`, wait);
    this.inFlight++;
    this.perUser.set(user, mine + 1);
    this.perOrg.set(org, ours + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      decrement(this.perUser, user);
      decrement(this.perOrg, org);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
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
