// What a decode worker hands over to the event loop instead of copying (api/ingest/decode.ts,
// transferableMemory): memory the answer's arrays own whole or that is larger than Node's shared pool of
// small Buffers, never that pool.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, transferableMemory } from '../../api/ingest/decode.ts';
import { ev } from '../helpers/records.ts';

const body = (n: number) => Buffer.from(Array.from({ length: n }, () => JSON.stringify(ev('Stop', '2026-03-01'))).join('\n'));
const limits = { maxRecords: 10_000, maxInflatedBytes: 1 << 24 };

describe('transferableMemory', () => {
  it('hands over a large batch’s NDJSON and its row positions, each once', async () => {
    const answer = await decodeBody(body(500), false, 'ndjson', limits);
    if (answer.failure !== undefined) throw new Error(answer.message);
    const memory = transferableMemory(answer);
    expect(memory).toContain(answer.batch.events.ndjson.buffer);
    expect(memory).toContain(answer.batch.positions.rows.event.buffer);
    expect(new Set(memory).size).toBe(memory.length);
    // No usage or messages: their empty arrays have nothing to hand over.
    expect(memory).toHaveLength(2);
  });

  it('keeps a small batch’s NDJSON, whose memory is the shared pool', async () => {
    const answer = await decodeBody(body(1), false, 'ndjson', limits);
    if (answer.failure !== undefined) throw new Error(answer.message);
    expect(answer.batch.events.ndjson.buffer.byteLength).toBeGreaterThan(answer.batch.events.ndjson.byteLength);
    expect(transferableMemory(answer)).not.toContain(answer.batch.events.ndjson.buffer);
  });

  it('hands over the inflated body a collector’s NDJSON is a view of, though the view leaves its last byte', async () => {
    const text = `${Array.from({ length: 8000 }, (_, i) => JSON.stringify(ev('Stop', '2026-03-01', { id: `e${i}` }))).join('\n')}\n`;
    expect(text.length).toBeGreaterThan(1 << 20);
    const answer = await decodeBody(gzipSync(text), true, 'ndjson', limits);
    if (answer.failure !== undefined) throw new Error(answer.message);
    const { ndjson } = answer.batch.events;
    // One chunk a byte longer than the body (inflateChunk), its lines as they came: no copy was made.
    expect(ndjson.byteLength).toBe(text.length);
    expect(ndjson.buffer.byteLength).toBe(text.length + 1);
    expect(transferableMemory(answer)).toContain(ndjson.buffer);
  });

  it('copies a NDJSON that is a small part of the memory under it, rather than keep that memory alive', async () => {
    const lines = (n: number) => Array.from({ length: n }, () => `${JSON.stringify(ev('Stop', '2026-03-01'))}\n`).join('');
    // One event among 15 MiB of lines refused (not JSON), and a batch of a few hundred KB inflated into a 1 MiB chunk.
    const one = lines(1);
    const few = lines(1000);
    const cases: [text: string, events: string][] = [
      [one + `${'x'.repeat(1 << 20)}\n`.repeat(15), one],
      [few, few],
    ];
    for (const [text, events] of cases) {
      const answer = await decodeBody(gzipSync(text), true, 'ndjson', limits);
      if (answer.failure !== undefined) throw new Error(answer.message);
      const { ndjson } = answer.batch.events;
      expect(Buffer.from(ndjson).toString()).toBe(events);
      expect(ndjson.buffer.byteLength).toBeLessThanOrEqual(Math.max(Buffer.poolSize, 2 * ndjson.byteLength));
    }
  });

  it('hands over nothing of a failure', async () => {
    const answer = await decodeBody(body(3), false, 'ndjson', { ...limits, maxRecords: 2 });
    expect(answer.failure).toBe('too-many');
    expect(transferableMemory(answer)).toEqual([]);
  });
});
