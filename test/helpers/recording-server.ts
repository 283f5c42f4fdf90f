// A stand-in agentmeter server for collector tests: it answers the ingest route as the real one answers
// new records and keeps every record it is sent; any other request is a 404.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';
import type { WireRecord } from '../../common/wire.ts';

export interface RecordingServer {
  url: string;
  /** Every record received, in order. */
  records: WireRecord[];
  close(): Promise<void>;
}

/** Starts the server on a free local port; it appends what it receives to `records`. */
export async function startRecordingServer(records: WireRecord[] = []): Promise<RecordingServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'Not Found', detail: '', status: 404 }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const batch = gunzipSync(Buffer.concat(chunks))
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as WireRecord);
      records.push(...batch);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: batch.length, stored: batch.length, duplicates: 0, rejected: [] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    records,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The server for the tests of the enclosing suite (or file): started before them, closed after them; it
 * appends what it receives to `records`. `url` is set once it listens.
 */
export function recordingServerForTests(records: WireRecord[]): { url: string } {
  const running = { url: '' };
  let server: RecordingServer | undefined;
  beforeAll(async () => {
    server = await startRecordingServer(records);
    running.url = server.url;
  });
  afterAll(() => server?.close());
  return running;
}
