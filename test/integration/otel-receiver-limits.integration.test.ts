// The collector's OTLP receiver refuses what is too large or not OTLP with the answer OTLP/HTTP documents,
// whatever the client does: a 4xx whose body is a google.rpc.Status in the request's own encoding (protobuf
// for a protobuf request), never a connection reset (which an exporter takes for a network error and sends
// the same body again). A body sent without Content-Length (chunked) is the case that reset.

import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { receiverForTests, spooledRecords } from '../helpers/otlp.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

interface ProtoReader {
  pos: number;
  len: number;
  uint32(): number;
  int32(): number;
  string(): string;
  skipType(wireType: number): void;
}
const require = createRequire(import.meta.url);
/** protobufjs's reader, as the OTLP types the SDK ships load it: an independent decoder of the Status. */
const { Reader } = createRequire(require.resolve('@opentelemetry/otlp-transformer/build/src/generated/root.js'))('protobufjs/minimal') as {
  Reader: { create(bytes: Uint8Array): ProtoReader };
};

/** google.rpc.Status (code = 1, message = 2) from protobuf bytes. */
function decodeStatus(bytes: Uint8Array): { code?: number; message?: string } {
  const reader = Reader.create(bytes);
  const status: { code?: number; message?: string } = {};
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag === 0x08) status.code = reader.int32();
    else if (tag === 0x12) status.message = reader.string();
    else reader.skipType(tag & 7);
  }
  return status;
}

const log = createLogger({ name: 'test-otel-limits', level: 'silent' });
const rx = receiverForTests(log);

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
    const res = await fetch(`${rx.base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: chunked(40),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toEqual({ code: 8, message: 'body over 4194304 bytes' });
    const next = await fetch(`${rx.base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(next.status).toBe(200);
    expect(rx.receiver.snapshot()).toMatchObject({ refused: 1, requests: 1 });
  });
});

describe('a refused protobuf request', () => {
  const post = (body: Uint8Array, headers: Record<string, string> = {}) =>
    fetch(`${rx.base}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', ...headers }, body });

  it('is answered with a protobuf Status: not OTLP (400), a gzip bomb (413)', async () => {
    const bad = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]));
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/x-protobuf');
    // Status.code is a google.rpc.Code (3 INVALID_ARGUMENT), not the HTTP status (OTLP/HTTP "Failures").
    expect(decodeStatus(new Uint8Array(await bad.arrayBuffer()))).toEqual({
      code: 3,
      message: expect.stringMatching(/^not an OTLP logs protobuf message/),
    });
    const bomb = await post(gzipSync(Buffer.alloc(64 * 1024 * 1024)), { 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(bomb.headers.get('content-type')).toBe('application/x-protobuf');
    expect(decodeStatus(new Uint8Array(await bomb.arrayBuffer()))).toEqual({ code: 8, message: 'body over 16777216 bytes unzipped' });
  });

  it('in JSON is answered in JSON', async () => {
    const res = await fetch(`${rx.base}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ code: 3, message: expect.stringMatching(/^not an OTLP logs request/) });
  });

  it('carries the google.rpc.Code of each refusal: 404 NOT_FOUND, 405 UNIMPLEMENTED, 415 INVALID_ARGUMENT', async () => {
    const codeOf = async (path: string, init: RequestInit) => {
      const res = await fetch(`${rx.base}${path}`, init);
      return [res.status, decodeStatus(new Uint8Array(await res.arrayBuffer())).code];
    };
    const protobuf = { 'content-type': 'application/x-protobuf' };
    expect(await codeOf('/v1/other', { method: 'POST', headers: protobuf, body: '' })).toEqual([404, 5]);
    expect(await codeOf('/v1/logs', { method: 'PUT', headers: protobuf, body: '' })).toEqual([405, 12]);
    expect(await codeOf('/v1/logs', { method: 'POST', headers: { ...protobuf, 'content-encoding': 'br' }, body: 'x' })).toEqual([415, 3]);
  });
});

describe('a request of many facts with long names', () => {
  it('is spooled whole in files the collector reads, not a 500 for a file over the spool cap', async () => {
    // 2 000 delta points of Claude Code's decision counter, each naming a session, tool and language of the
    // longest lengths kept (256, 256, 128 characters): about 1.5 MB of facts, over one spool file's 1 MiB.
    const long = (c: string, n: number, i: number) => `${i}`.padStart(6, '0') + c.repeat(n - 6);
    const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const body = JSON.stringify({
      resourceMetrics: [
        {
          resource: { attributes: [attribute('service.name', 'claude-code')] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'claude_code.code_edit_tool.decision',
                  sum: {
                    aggregationTemporality: 1,
                    isMonotonic: true,
                    dataPoints: Array.from({ length: 2000 }, (_, i) => ({
                      asInt: '1',
                      timeUnixNano: '1795000000000000000',
                      attributes: [
                        attribute('session.id', long('s', 256, i)),
                        attribute('decision', 'accept'),
                        attribute('tool_name', long('t', 256, i)),
                        attribute('language', long('l', 128, i)),
                      ],
                    })),
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    const res = await fetch(`${rx.base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status, await res.text()).toBe(200);
    const decisions = spooledRecords(rx.dirs);
    expect(decisions).toHaveLength(2000);
    expect(new Set(decisions.map((d) => d.id)).size).toBe(2000);
  });
});

describe("the server's /v1 routes, refusing a protobuf request", () => {
  let server: TestServer;
  let url: string;
  let key: string;
  beforeAll(async () => {
    server = await testServer();
    key = (await server.seedOrg('Status')).users.member.key;
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (body: Uint8Array, headers: Record<string, string>) =>
    fetch(`${url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', ...headers }, body });

  it('answers a protobuf google.rpc.Status: 401 UNAUTHENTICATED, 400 INVALID_ARGUMENT, 413 RESOURCE_EXHAUSTED', async () => {
    for (const [res, status, code, message] of [
      [await post(Buffer.from('{}'), {}), 401, 16, /./],
      [await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]), bearer(key)), 400, 3, /^not an OTLP logs protobuf message/],
      [await post(Buffer.alloc(5 * 1024 * 1024), bearer(key)), 413, 8, /./],
    ] as const) {
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/x-protobuf');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toEqual({ code, message: expect.stringMatching(message) });
    }
  });

  it("answers a JSON request's refusal with the server's own error body", async () => {
    const res = await fetch(`${url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: '[]',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      status: 400,
      title: expect.any(String),
      detail: expect.stringMatching(/^not an OTLP logs request/),
    });
  });
});
