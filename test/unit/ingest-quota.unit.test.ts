// The per-user volume quota and the admission per organization (api/ingest/limits.ts), on a clock the
// test moves, with the numbers worked by hand.
import { describe, expect, it } from 'vitest';
import { IngestAdmission, RetryLater, VolumeQuota } from '../../api/ingest/limits.ts';

const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof RetryLater) return { status: error.status, retryAfter: error.retryAfterSeconds };
    throw error;
  }
  return undefined;
};

describe('VolumeQuota', () => {
  it('drains at the quota rate and says how long until under it', () => {
    let now = 0;
    // 600 records a minute: 10 a second drain.
    const quota = new VolumeQuota({ maxRecordsPerWindow: 600, maxBytesPerWindow: 0, quotaWindowMs: 60_000 }, () => now);
    quota.check('o/a');
    quota.charge('o/a', 1000, 0);
    // 1000 counted, 600 allowed: (1000 - 600 + 1) / 10 a second = 40.1 s, told as 41.
    expect(refusal(() => quota.check('o/a'))).toEqual({ status: 429, retryAfter: 41 });
    // Another user is not held.
    expect(refusal(() => quota.check('o/b'))).toBeUndefined();
    now = 40_000; // 400 drained: 600 left, still at the quota (1 record's worth, 0.1 s)
    expect(refusal(() => quota.check('o/a'))).toEqual({ status: 429, retryAfter: 1 });
    now = 40_200; // 598 left
    expect(refusal(() => quota.check('o/a'))).toBeUndefined();
  });

  it('bytes count alone when records have no quota, and 0 for both turns it off', () => {
    let now = 0;
    const bytes = new VolumeQuota({ maxRecordsPerWindow: 0, maxBytesPerWindow: 1000, quotaWindowMs: 1000 }, () => now);
    bytes.charge('o/a', 1_000_000, 3000);
    // (3000 - 1000 + 1) bytes at 1 a millisecond: 2.001 s, told as 3.
    expect(refusal(() => bytes.check('o/a'))).toEqual({ status: 429, retryAfter: 3 });
    now = 2001;
    expect(refusal(() => bytes.check('o/a'))).toBeUndefined();
    const off = new VolumeQuota({ maxRecordsPerWindow: 0, maxBytesPerWindow: 0, quotaWindowMs: 1000 }, () => now);
    off.charge('o/a', 1e9, 1e12);
    expect(refusal(() => off.check('o/a'))).toBeUndefined();
  });
});

describe('IngestAdmission per organization', () => {
  it('an organization holds at most its share, its users at most theirs, and a place comes back once', () => {
    const admission = new IngestAdmission({ maxInFlight: 8, maxInFlightPerUser: 4, maxInFlightPerOrg: 6, retryAfterSeconds: 2 });
    const held = [0, 1, 2, 3].map(() => admission.acquire('slow', 'slow/a'));
    expect(refusal(() => admission.acquire('slow', 'slow/a'))).toEqual({ status: 429, retryAfter: 2 });
    held.push(admission.acquire('slow', 'slow/b'), admission.acquire('slow', 'slow/b'));
    // The organization's sixth place is taken: its third user is refused, another organization is not.
    expect(refusal(() => admission.acquire('slow', 'slow/c'))).toEqual({ status: 429, retryAfter: 2 });
    const other = admission.acquire('other', 'other/x');
    admission.acquire('other', 'other/y');
    // Every place is taken now: 503 for anyone.
    expect(refusal(() => admission.acquire('third', 'third/z'))).toEqual({ status: 503, retryAfter: 2 });
    other();
    other();
    expect(admission.admitted).toBe(7);
    held[0]!();
    expect(refusal(() => admission.acquire('slow', 'slow/c'))).toBeUndefined();
  });
});
