// The collector's OTLP receiver takes no key, so it answers only requests addressed to a loopback name: a
// web page whose own name an attacker's DNS points at 127.0.0.1 (DNS rebinding) reaches the port as its
// own origin, with any Content-Type and no CORS preflight, and would otherwise put forged usage in the
// developer's spool, shipped under their key (and counted against their credit limit).
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { loopbackHost } from '../../collector/otel/receiver.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';

const rx = receiverForTests(createLogger({ name: 'test-otel-host', level: 'silent' }));

/** POSTs an OTLP/JSON body to the receiver with the Host header given. */
function post(host: string): Promise<{ status: number; body: string }> {
  const url = new URL(`${rx.base}/v1/metrics`);
  const body = JSON.stringify(claudeAcceptedEdits(1));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the Host a request is addressed to', () => {
  let before = 0;
  afterEach(() => {
    before = spooledRecords(rx.dirs).length;
  });

  it('another name (DNS rebinding) is refused 403 and nothing is spooled', async () => {
    const port = new URL(rx.base).port;
    for (const host of [`attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, 'attacker.example']) {
      const res = await post(host);
      expect(res.status, host).toBe(403);
      expect(res.body).toMatch(/loopback/);
    }
    expect(spooledRecords(rx.dirs)).toHaveLength(before);
  });

  it('a loopback name is served', async () => {
    const port = new URL(rx.base).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) expect((await post(host)).status, host).toBe(200);
    expect(spooledRecords(rx.dirs).length).toBeGreaterThan(before);
  });
});

describe('loopbackHost', () => {
  it('is true for localhost, *.localhost, 127/8 and ::1, with or without a port; false for anything else', () => {
    for (const host of [
      'localhost',
      'LOCALHOST:4318',
      'localhost.:4318',
      'app.localhost:4318',
      '127.0.0.1',
      '127.1.2.3:4318',
      '[::1]:4318',
      '[::1]',
    ])
      expect(loopbackHost(host), host).toBe(true);
    for (const host of [
      undefined,
      '',
      'attacker.example',
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      '10.0.0.1:4318',
      '[::2]:4318',
      '::1',
    ])
      expect(loopbackHost(host), String(host)).toBe(false);
  });
});
