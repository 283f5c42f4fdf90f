// What a refused OpenTelemetry fact leaves behind stays small whatever the agent sent: a 4 MB string where a
// token count belongs is quoted in its reason by its first characters only (saying it was cut), in the
// exporter's partial_success error_message, in the receiver's warning log line and in the quarantine; and
// error_message as a whole is bounded however many long reasons a request has. Real receiver and server.

import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { receiverForTests } from '../helpers/otlp.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const FOUR_MB = 4 * 1024 * 1024;

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** Claude Code's api_request log records (OTLP/JSON), each with these token attributes. */
function apiRequests(records: { id: string; tokens: Record<string, string> }[]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'claude-code')] },
        scopeLogs: [
          {
            logRecords: records.map((r) => ({
              timeUnixNano: '1795000000000000000',
              eventName: 'claude_code.api_request',
              attributes: [
                str('session.id', 's-1'),
                str('model', 'claude-sonnet-4-5-20250929'),
                str('request_id', r.id),
                ...Object.entries(r.tokens).map(([k, v]) => str(k, v)),
              ],
            })),
          },
        ],
      },
    ],
  };
}

/** A 4 MB string in input_tokens, gzipped (a few KB on the wire, under the 16 MiB unzipped bound). */
const hugeBody = () => gzipSync(JSON.stringify(apiRequests([{ id: 'req_huge', tokens: { input_tokens: '7'.repeat(FOUR_MB) } }])));

/** Three records, each with four 100-character bad counts: three long, distinct reasons. */
const manyLongBody = () =>
  JSON.stringify(
    apiRequests(
      [0, 1, 2].map((i) => ({
        id: `req_${i}`,
        tokens: Object.fromEntries(
          ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_creation_tokens'].map((k) => [k, `${i}`.repeat(100)]),
        ),
      })),
    ),
  );

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(Buffer.isBuffer(body) ? { 'content-encoding': 'gzip' } : {}), ...headers },
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { partialSuccess?: { rejectedLogRecords?: number; errorMessage: string } };
}

describe("the collector's receiver, given a 4 MB string where a token count belongs", () => {
  let logFile: string;
  const rx = receiverForTests((home) => {
    logFile = join(home, 'receiver.log');
    return createLogger({ name: 'test', level: 'warn', destination: logFile });
  });

  it('quotes 64 characters of it, saying it was cut, in the answer, the log line and the quarantine', async () => {
    const answer = await post(`${rx.base}/v1/logs`, hugeBody());
    const message = answer.partialSuccess!.errorMessage;
    expect(answer.partialSuccess!.rejectedLogRecords).toBe(1);
    expect(message).toContain(`input_tokens "${'7'.repeat(64)}"… (cut, ${FOUR_MB} characters)`);
    expect(message.length).toBeLessThan(400);
    // The warning line names the refusal, and is a line, not 4 MB.
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('OTLP facts refused, quarantined');
    expect(statSync(logFile).size).toBeLessThan(2000);
    // Every quarantine file (the fact as read and its reason) is small too.
    const files = readdirSync(rx.dirs.bad);
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect(statSync(join(rx.dirs.bad, name)).size, name).toBeLessThan(2000);
    expect(files.map((n) => readFileSync(join(rx.dirs.bad, n), 'utf8')).join('\n')).toContain('(cut, 4194304 characters)');
    for (const n of readdirSync(rx.dirs.bad)) rmSync(join(rx.dirs.bad, n));
  });

  it('quotes 64 characters of an unknown Content-Encoding of 8 000 in its 415, its body and its log line', async () => {
    const before = statSync(logFile).size;
    const res = await fetch(`${rx.base}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'z'.repeat(8000) },
      body: '{}',
    });
    expect(res.status).toBe(415);
    const { message } = (await res.json()) as { message: string };
    expect(message).toBe(`Content-Encoding "${'z'.repeat(64)}"… (cut, 8000 characters) is not supported (gzip or none)`);
    expect(statSync(logFile).size - before).toBeLessThan(1000);
  });

  it("keeps 64 characters of an unmapped signal's 4 MB name in its counts (status file, `collect status`)", async () => {
    const name = 'n'.repeat(FOUR_MB);
    const body = gzipSync(
      JSON.stringify({
        resourceLogs: [
          { resource: { attributes: [] }, scopeLogs: [{ logRecords: [{ eventName: name, timeUnixNano: '1795000000000000000' }] }] },
        ],
      }),
    );
    expect((await post(`${rx.base}/v1/logs`, body)).partialSuccess).toBeUndefined();
    const names = rx.receiver.snapshot().unmappedNames.map(([n]) => n);
    expect(names).toContain(`${'n'.repeat(64)}… (cut, ${FOUR_MB} characters)`);
    expect(Math.max(...names.map((n) => n.length))).toBeLessThan(100);
  });

  it('bounds error_message as a whole: three distinct reasons of four long values each', async () => {
    const answer = await post(`${rx.base}/v1/logs`, manyLongBody());
    const message = answer.partialSuccess!.errorMessage;
    expect(answer.partialSuccess!.rejectedLogRecords).toBe(3);
    expect(message.startsWith('3 refused: ')).toBe(true);
    expect(message.length).toBeLessThanOrEqual(1000);
    expect(message.endsWith('…')).toBe(true);
  });
});

describe("the server's /v1/logs, given the same", () => {
  let server: TestServer;
  let url: string;
  let key: string;
  beforeAll(async () => {
    server = await testServer();
    key = (await server.seedOrg('Bounds')).users.member.key;
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers a short error_message for the 4 MB value, and a bounded one for many long reasons', async () => {
    const huge = await post(`${url}/v1/logs`, hugeBody(), bearer(key));
    expect(huge.partialSuccess!.errorMessage).toContain(`"${'7'.repeat(64)}"… (cut, ${FOUR_MB} characters)`);
    expect(huge.partialSuccess!.errorMessage.length).toBeLessThan(400);
    const many = await post(`${url}/v1/logs`, manyLongBody(), bearer(key));
    expect(many.partialSuccess!.rejectedLogRecords).toBe(3);
    expect(many.partialSuccess!.errorMessage.length).toBeLessThanOrEqual(1000);
  });
});
