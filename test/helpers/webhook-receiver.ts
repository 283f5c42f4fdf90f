// A local receiver for the server's outgoing deliveries (budget alerts, anomalies, the weekly digest, to a
// webhook or to Slack): it answers every request 204, as a receiver that took the delivery does, and keeps
// each one's path, headers and body in the order they arrived.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface Delivery {
  /** The request target as sent: path and query string. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** The receiver's origin, http://127.0.0.1:<port>; destinations add their own path. */
  url: string;
  /** Every delivery received, in order. */
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** Starts the receiver on a free local port; it appends what it receives to `deliveries`. */
export async function startWebhookReceiver(deliveries: Delivery[] = []): Promise<WebhookReceiver> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    deliveries,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The receiver for the tests of the enclosing suite (or file): started before them, closed after them
 * (after the file's own afterAll, which stops the server that delivers); it appends what it receives to
 * `deliveries`. `url` is set once it listens.
 */
export function webhookReceiverForTests(deliveries: Delivery[]): { url: string } {
  const running = { url: '' };
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(deliveries);
    running.url = receiver.url;
  });
  afterAll(() => receiver?.close());
  return running;
}
