import { describe, expect, it } from 'vitest';
import { parseNdjson, validateRecords } from '../../api/routes/ingest.ts';
import { dedupeBatch } from '../../api/store/ingest.ts';
import { createServer, type Socket } from 'node:net';
import { backoffDelay } from '../../common/backoff.ts';
import { postBatch, ShipError } from '../../collector/shipper.ts';
import type { WireRecord } from '../../common/wire.ts';

const T = Date.UTC(2026, 2, 1);
const event = (id: string, extra: Record<string, unknown> = {}) => ({ kind: 'event', id, agent: 'claude', event: 'Stop', ts: T, session_id: 's', client: 'terminal-ui', autonomy: 'manual', ...extra });
const usage = (id: string, output: number, thinking = false): WireRecord => ({ kind: 'usage', id, agent: 'claude', session_id: 's', ts: T, model: 'm', input_tokens: 1, output_tokens: output, cache_read_tokens: 0, cache_write_tokens: 0, thinking_tokens: 0, thinking });

describe('ingest validation', () => {
  it('keeps good records and rejects bad ones with index, id and reason', () => {
    const { records, rejected } = validateRecords([event('a'), event('b', { client: 'desktop' }), { kind: 'nope' }, event('c', { ts: 5 }), event('d', { prompt: 'leak' })]);
    expect(records.map((r) => r.id)).toEqual(['a']);
    expect(rejected.map((r) => [r.index, r.id])).toEqual([[1, 'b'], [2, undefined], [3, 'c'], [4, 'd']]);
    expect(rejected[0]!.reason).toContain('client');
    expect(rejected[3]!.reason).toContain('prompt');
  });
  it('turns a line that is not JSON into a rejection, not a failed batch', () => {
    const items = parseNdjson(`${JSON.stringify(event('a'))}\n{oops\n\n${JSON.stringify(event('b'))}\n`);
    const { records, rejected } = validateRecords(items);
    expect(records).toHaveLength(2);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.index).toBe(1);
  });
  it('dedupes a batch: first event wins, usage keeps the largest output and any thinking', () => {
    const batch = dedupeBatch([event('a') as WireRecord, event('a') as WireRecord, usage('u', 5, true), usage('u', 50), usage('u', 20)]);
    expect(batch.events).toHaveLength(1);
    expect(batch.usage).toEqual([{ ...usage('u', 50), thinking: true }]);
    expect(batch.inBatchDuplicates).toBe(3);
  });
});

describe('backoff', () => {
  it('grows exponentially with full jitter up to the cap', () => {
    expect(backoffDelay(0, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(500);
    expect(backoffDelay(3, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(4000);
    expect(backoffDelay(20, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(30_000);
    expect(backoffDelay(5, { baseMs: 500, maxMs: 30_000 }, () => 0)).toBe(0);
  });

  it('a server that accepts the connection and never answers fails the attempt (retryable) instead of stalling it', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const stopping = new AbortController(); // the collector's own signal, never fired here
      const error = await postBatch(`http://127.0.0.1:${port}`, 'am_x', Buffer.from(''), stopping.signal, 300).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ShipError);
      expect((error as ShipError).retryable).toBe(true);
      expect(sockets.length).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('daily batch schedule', () => {
  it('waits until the next HH:MM UTC', async () => {
    const { msUntil } = await import('../../api/routes/batch.ts');
    expect(msUntil('00:15', new Date('2026-03-01T23:00:00Z'))).toBe(75 * 60_000);
    expect(msUntil('00:15', new Date('2026-03-02T00:10:00Z'))).toBe(5 * 60_000);
    expect(msUntil('00:15', new Date('2026-03-02T00:15:00Z'))).toBe(86_400_000);
  });
});
