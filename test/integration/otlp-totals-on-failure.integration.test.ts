// A cumulative counter's running total counts only once its facts are kept: a request the receiver or the
// server fails to keep (the spool cannot be written; more records than one request may map to) leaves the
// totals as they were, so the agent's next export of the same total counts it, rather than finding it
// "already counted" and losing those decisions for good.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const log = createLogger({ name: 'test-otlp-totals', level: 'silent' });
const T = 1_795_000_000_000_000_000n;

/** Claude Code's cumulative count of accepted Edit decisions in sessions s-<first>… (one point each). */
function cumulative(total: number, sessions = 1, at = 0, first = 0) {
  const request = claudeAcceptedEdits(total, { cumulative: true, timeNanos: String(T + BigInt(at) * 1_000_000_000n) });
  const points = request.resourceMetrics[0]!.scopeMetrics[0]!.metrics[0]!.sum.dataPoints;
  const [point] = points;
  points.length = 0;
  for (let i = 0; i < sessions; i++)
    points.push({
      ...point!,
      attributes: point!.attributes.map((a) =>
        a.key === 'session.id' ? { key: 'session.id', value: { stringValue: `s-${first + i}` } } : a,
      ),
    });
  return JSON.stringify(request);
}

describe('the collector receiver', () => {
  const rx = receiverForTests(log);

  const post = (body: string) => fetch(`${rx.base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('that could not spool a cumulative 5 counts it when the next export repeats it', async () => {
    // The spool's tmp/ is not a folder: writing fails, the answer is a 500 (the exporter may send again).
    rmSync(rx.dirs.tmp, { recursive: true });
    writeFileSync(rx.dirs.tmp, '');
    expect((await post(cumulative(5, 1, 1))).status).toBe(500);
    rmSync(rx.dirs.tmp);
    mkdirSync(rx.dirs.tmp, { mode: 0o700 });
    expect((await post(cumulative(5, 1, 2))).status).toBe(200);
    const counts = spooledRecords(rx.dirs).flatMap((r) => (r.kind === 'decision' ? [r.count] : []));
    expect(counts).toEqual([5]);
  });
});

describe("the server's /v1/metrics", () => {
  let server: TestServer;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    server = await testServer();
    const org = await server.seedOrg('Totals');
    key = org.users.member.key;
    orgId = org.orgId;
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (body: string) =>
    server.app.inject({
      method: 'POST',
      url: '/v1/metrics',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: body,
    });

  it('refusing a request of 10 001 records (413) counts none of its totals: the next 2 of its last series are 2', async () => {
    const large = await post(cumulative(1, 10_001, 1));
    expect(large.statusCode, large.body).toBe(413);
    // The last series of the refused request (the user's first ones were pushed out of the 5 000 kept).
    const next = await post(cumulative(2, 1, 2, 10_000));
    expect(next.statusCode, next.body).toBe(200);
    const [row] = await server.db.all<{ n: number }>('SELECT CAST(sum(count) AS INTEGER) AS n FROM edit_decisions WHERE org_id = $org', {
      org: orgId,
    });
    expect(row!.n).toBe(2);
  });

  it('answers a request without a Content-Type 415, as one of another type, saying which it takes (OTLP/HTTP)', async () => {
    for (const [type, payload] of [
      [undefined, ''],
      [undefined, '{}'],
      ['text/plain', '{}'],
    ] as const) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/metrics',
        headers: { ...bearer(key), ...(type ? { 'content-type': type } : {}) },
        payload,
      });
      expect(res.statusCode, `${type} ${payload}: ${res.body}`).toBe(415);
      expect(res.json()).toMatchObject({ status: 415, detail: expect.stringMatching(/application\/x-protobuf or application\/json/) });
    }
  });
});
