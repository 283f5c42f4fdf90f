// narrowBatch on a scripted `post`: which records come back rejected, with which indexes, and how many
// requests it takes, for content faults (422), server-side faults (5xx) and a server failing everything.
import { describe, expect, it } from 'vitest';
import { isBatchFault, narrowBatch, SINGLE_TRIES } from '../../collector/narrow.ts';
import { MAX_RETRY_AFTER_MS, retryAfterMs, ShipError } from '../../collector/shipper.ts';
import type { IngestResponse } from '../../common/wire.ts';

const fault = (status: number) =>
  new ShipError(`server answered ${status}: refused`, status >= 500, status) as ShipError & { status: number };

/** A post that fails with `status` whenever the part holds a bad index (or always), and records each part. */
function scripted(bad: Set<number>, status: number, options: { always?: boolean; zodRejects?: Set<number> } = {}) {
  const parts: number[][] = [];
  const post = async (indexes: readonly number[]): Promise<IngestResponse> => {
    parts.push([...indexes]);
    if (options.always || indexes.some((i) => bad.has(i))) throw fault(status);
    const rejected = indexes.flatMap((i, at) => (options.zodRejects?.has(i) ? [{ index: at, reason: 'zod said no' }] : []));
    return { received: indexes.length, stored: indexes.length - rejected.length, duplicates: 0, rejected };
  };
  return { parts, post };
}

const noWait = { wait: async () => undefined, stopped: () => false };

describe('narrowBatch', () => {
  it('422: finds each bad record, keeps the rejections of stored parts with their batch indexes', async () => {
    const { parts, post } = scripted(new Set([5, 6]), 422, { zodRejects: new Set([12]) });
    const result = await narrowBatch(16, fault(422), { post, ...noWait });
    expect(result.kind).toBe('answer');
    if (result.kind !== 'answer') return;
    expect(result.answer.rejected.map((r) => r.index)).toEqual([5, 6, 12]);
    expect(result.answer.rejected[0]!.reason).toMatch(/^server answered 422: refused \(the record failed on its own/);
    expect(result.answer.rejected[2]!.reason).toBe('zod said no');
    expect(result.answer).toMatchObject({ received: 16, stored: 13 });
    // Every index was sent; no 422 part is retried.
    expect(new Set(parts.flat()).size).toBe(16);
    expect(parts.filter((p) => p.length === 1 && (p[0] === 5 || p[0] === 6))).toHaveLength(2);
  });

  it('5xx: a single record is tried again before it counts, and counts once other parts were stored', async () => {
    const { parts, post } = scripted(new Set([0]), 500);
    const result = await narrowBatch(8, fault(500), { post, ...noWait });
    expect(result).toMatchObject({ kind: 'answer', answer: { received: 8, stored: 7, rejected: [{ index: 0 }] } });
    expect(parts.filter((p) => p.length === 1 && p[0] === 0)).toHaveLength(SINGLE_TRIES);
  });

  it('5xx from every request: gives up after a few requests and rejects nothing', async () => {
    const { parts, post } = scripted(new Set(), 503, { always: true });
    const result = await narrowBatch(5000, fault(503), { post, ...noWait });
    expect(result.kind).toBe('error');
    expect(parts.length).toBeLessThanOrEqual(Math.ceil(Math.log2(5000)) + 2 * SINGLE_TRIES + 3);
  });

  it('5xx on a batch of one: tried again, never rejected without proof that the server can store', async () => {
    const { parts, post } = scripted(new Set([0]), 500);
    expect((await narrowBatch(1, fault(500), { post, ...noWait })).kind).toBe('error');
    expect(parts).toHaveLength(SINGLE_TRIES);
    const refused = scripted(new Set([0]), 422);
    const one = await narrowBatch(1, fault(422), { post: refused.post, ...noWait });
    expect(one).toMatchObject({ kind: 'answer', answer: { received: 1, stored: 0, rejected: [{ index: 0 }] } });
    expect(refused.parts).toEqual([]);
  });

  it('stops on a failure that is not the batch (unreachable, 401) and when the collector stops', async () => {
    const unreachable = async () => {
      throw new ShipError('server unreachable: ECONNREFUSED', true);
    };
    expect(await narrowBatch(4, fault(422), { post: unreachable, ...noWait })).toMatchObject({ kind: 'error', requests: 1 });
    const { post } = scripted(new Set([1]), 422);
    expect(await narrowBatch(4, fault(422), { post, wait: async () => undefined, stopped: () => true })).toMatchObject({
      kind: 'error',
      requests: 0,
    });
    expect(isBatchFault(fault(401))).toBe(false);
    expect(isBatchFault(fault(429))).toBe(false);
    expect(isBatchFault(fault(422))).toBe(true);
    expect(isBatchFault(fault(502))).toBe(true);
  });
});

describe('a busy server and a batch too large', () => {
  it('a 429 or a 503 with Retry-After is no batch fault (the batch is sent again whole); a 413 is one', () => {
    expect(isBatchFault(new ShipError('busy', true, 503, 2000))).toBe(false);
    expect(isBatchFault(new ShipError('busy', true, 429, 2000))).toBe(false);
    expect(isBatchFault(new ShipError('proxy', true, 503))).toBe(true);
    expect(isBatchFault(new ShipError('too large', false, 413))).toBe(true);
  });

  it('reads Retry-After as seconds or an HTTP date, bounded to five minutes', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Thu, 26 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('86400', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
