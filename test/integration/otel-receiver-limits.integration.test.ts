// The collector's OTLP receiver refuses what is too large with the documented answer, whatever the client
// does: a 413 with its JSON reason, never a connection reset (which an exporter takes for a network error
// and sends the same body again). A body sent without Content-Length (chunked) is the case that reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-otel-limits', level: 'silent' });
let receiver: OtlpReceiver;
let base: string;

beforeAll(async () => {
  const dirs = spoolDirs(tempDir());
  ensureSpool(dirs);
  receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log });
  base = `http://127.0.0.1:${await receiver.start()}`;
});
afterAll(async () => {
  await receiver.stop();
});

/** A body of `chunks` × 256 KiB streamed without Content-Length. */
function chunked(chunks: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(256 * 1024);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(chunk);
      else controller.close();
    },
  });
}

describe('a body over 4 MiB', () => {
  it('sent chunked is a 413 with the reason, not a reset connection; the receiver serves the next request', async () => {
    const res = await fetch(`${base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: chunked(40),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ code: 413, message: 'body over 4194304 bytes' });
    const next = await fetch(`${base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(next.status).toBe(200);
    expect(receiver.snapshot()).toMatchObject({ refused: 1, requests: 1 });
  });
});
