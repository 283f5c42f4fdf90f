// The decode worker pool on real worker threads: answers, failures, a worker lost mid-job, closing.
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { DecodePool, DecodeQueueFull } from '../../api/ingest/decode-pool.ts';

const T = Date.UTC(2026, 2, 1);
const line = (id: string) =>
  JSON.stringify({ kind: 'event', id, agent: 'claude', event: 'Stop', ts: T, session_id: 's', client: 'terminal-ui', autonomy: 'manual' });
const body = (n: number, prefix = 'e') => Buffer.from(Array.from({ length: n }, (_, i) => line(`${prefix}${i}`)).join('\n'));

/** Decode limits: records, inflated bytes. */
const lim = (maxRecords: number, maxInflatedBytes: number) => ({ maxRecords, maxInflatedBytes });

let pool: DecodePool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('decode pool', () => {
  it('decodes plain and gzip bodies on its workers, more jobs than workers queued in order', async () => {
    pool = new DecodePool(2);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        pool!.decode(i % 2 ? gzipSync(body(100 + i, `j${i}.`)) : body(100 + i, `j${i}.`), i % 2 === 1, 'ndjson', lim(1000, 1 << 20)),
      ),
    );
    answers.forEach((answer, i) => {
      expect(answer.failure).toBeUndefined();
      if (answer.failure === undefined) {
        expect(answer.batch.events.count).toBe(100 + i);
        // Bytes after the trip from the worker: the store writes them as they are.
        expect(Buffer.from(answer.batch.events.ndjson).toString()).toBe(`${body(100 + i, `j${i}.`).toString()}\n`);
      }
    });
  });

  it('answers failures as values: bad gzip, a body inflating past its cap, too many records', async () => {
    pool = new DecodePool(1);
    expect(await pool.decode(Buffer.from('not gzip'), true, 'ndjson', lim(10, 1 << 20))).toMatchObject({ failure: 'gzip' });
    // Inflating stops at the cap: a body of a million newlines is refused as too large, not decoded.
    expect(await pool.decode(gzipSync(body(1000)), true, 'ndjson', lim(10_000, 1000))).toMatchObject({ failure: 'too-large' });
    expect(await pool.decode(gzipSync('\n'.repeat(1 << 24)), true, 'ndjson', lim(10_000, 1 << 20))).toMatchObject({
      failure: 'too-large',
    });
    expect(await pool.decode(body(11), false, 'ndjson', lim(10, 1 << 20))).toMatchObject({ failure: 'too-many' });
    expect(await pool.decode(body(10), false, 'ndjson', lim(10, 1 << 20))).toMatchObject({ batch: { received: 10 } });
  });

  it('a worker lost in the middle of a job fails that job only; the next job gets a new worker', async () => {
    pool = new DecodePool(1);
    await pool.decode(body(1), false, 'ndjson', lim(10, 1 << 20)); // the worker is up
    const job = pool.decode(body(50_000), false, 'ndjson', lim(100_000, 1 << 30));
    const slots = (pool as unknown as { slots: ({ worker: { terminate(): Promise<number> } } | undefined)[] }).slots;
    await slots[0]!.worker.terminate();
    await expect(job).rejects.toThrow(/decode worker exited/);
    expect(await pool.decode(body(3), false, 'ndjson', lim(10, 1 << 20))).toMatchObject({ batch: { received: 3 } });
  });

  it('decodes a JSON array body on a worker too; a JSON body that is not a batch is refused', async () => {
    pool = new DecodePool(1);
    const array = Buffer.from(`[${body(3).toString().split('\n').join(',')}]`);
    expect(await pool.decode(array, false, 'json', lim(10, 1 << 20))).toMatchObject({ batch: { received: 3 } });
    expect(await pool.decode(gzipSync(array), true, 'json', lim(2, 1 << 20))).toMatchObject({ failure: 'too-many' });
    expect(await pool.decode(Buffer.from('{"hello":1}'), false, 'json', lim(10, 1 << 20))).toMatchObject({ failure: 'shape' });
  });

  it('a full queue refuses the next job at once (the route answers 503), and takes jobs again once it drains', async () => {
    pool = new DecodePool(1, 1);
    await pool.decode(body(1), false, 'ndjson', lim(10, 1 << 20)); // the worker is up
    const busy = pool.decode(body(20_000), false, 'ndjson', lim(100_000, 1 << 30));
    const queued = pool.decode(body(2), false, 'ndjson', lim(10, 1 << 20));
    await expect(pool.decode(body(3), false, 'ndjson', lim(10, 1 << 20))).rejects.toBeInstanceOf(DecodeQueueFull);
    expect(await busy).toMatchObject({ batch: { received: 20_000 } });
    expect(await queued).toMatchObject({ batch: { received: 2 } });
    expect(await pool.decode(body(3), false, 'ndjson', lim(10, 1 << 20))).toMatchObject({ batch: { received: 3 } });
  });

  it('close rejects what waits and refuses new jobs', async () => {
    pool = new DecodePool(1);
    const jobs = [
      pool.decode(body(20_000), false, 'ndjson', lim(100_000, 1 << 30)),
      pool.decode(body(5), false, 'ndjson', lim(10, 1 << 20)),
    ];
    const outcomes = jobs.map((job) =>
      job.then(
        () => 'answered',
        (error: Error) => error.message,
      ),
    );
    await pool.close();
    expect(await Promise.all(outcomes)).toEqual([expect.stringMatching(/decode worker exited/), 'decode pool closed']);
    await expect(pool.decode(body(1), false, 'ndjson', lim(10, 1 << 20))).rejects.toThrow(/closed/);
  });
});
