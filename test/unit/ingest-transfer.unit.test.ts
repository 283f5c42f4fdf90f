// What a decode worker hands over to the event loop instead of copying (api/ingest/decode.ts,
// transferableMemory): memory the answer's arrays own whole, never Node's shared pool of small Buffers.
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

  it('hands over nothing of a failure', async () => {
    const answer = await decodeBody(body(3), false, 'ndjson', { ...limits, maxRecords: 2 });
    expect(answer.failure).toBe('too-many');
    expect(transferableMemory(answer)).toEqual([]);
  });
});
