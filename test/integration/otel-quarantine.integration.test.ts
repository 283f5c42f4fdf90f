// The collector's receiver keeps one request's refused facts as one quarantine entry (bad/record.otel.<request>.json
// and its .reason), never a pair of files per fact: a 16 MiB request of 100 000 bad records would otherwise be
// 200 000 files written before the answer. The entry lists the first facts with each one's reason and counts
// the rest; `collect status` counts it as one quarantined entry and the receiver's refused facts in full; an
// exporter's retry of the same bytes rewrites the same entry; and the receiver keeps its latest entries only.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { describeReceiver } from '../../collector/otel/describe.ts';
import { MAX_QUARANTINED_FACTS, MAX_RECEIVER_QUARANTINE } from '../../collector/otel/receiver.ts';
import { spoolCounts } from '../../collector/spool.ts';
import { receiverForTests } from '../helpers/otlp.ts';

const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
const int = (key: string, value: number) => ({ key, value: { intValue: String(value) } });

/** Claude Code's api_request records: `bad` of 1e12 input tokens (refused), and one good one unless told. */
function logsRequest(bad: number, tag: string, good = true) {
  const record = (id: string, input: number) => ({
    timeUnixNano: '1795000000000000000',
    eventName: 'claude_code.api_request',
    attributes: [str('session.id', 's-1'), str('model', 'claude-sonnet-4-5-20250929'), str('request_id', id), int('input_tokens', input)],
  });
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', 'claude-code')] },
        scopeLogs: [
          {
            logRecords: [
              ...(good ? [record(`${tag}_good`, 1000)] : []),
              ...Array.from({ length: bad }, (_, i) => record(`${tag}_bad_${i}`, 1e12)),
            ],
          },
        ],
      },
    ],
  };
}

const rx = receiverForTests();

const receiverEntries = () => readdirSync(rx.dirs.bad).filter((n) => n.startsWith('record.otel.') && n.endsWith('.json'));

describe("the receiver's quarantine", () => {
  it('is one entry for a request of 20 000 refused records, listing the first facts with their reasons', async () => {
    const body = gzipSync(JSON.stringify(logsRequest(20_000, 'big')));
    const send = () =>
      fetch(`${rx.base}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
    const res = await send();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { partialSuccess: { rejectedLogRecords: number } }).partialSuccess.rejectedLogRecords).toBe(20_000);
    expect(readdirSync(rx.dirs.bad)).toHaveLength(2);
    const [name] = receiverEntries();
    const entry = JSON.parse(readFileSync(join(rx.dirs.bad, name!), 'utf8'));
    expect(entry).toMatchObject({ signal: 'logs', refused: 20_000, notListed: 20_000 - MAX_QUARANTINED_FACTS });
    expect(entry.facts).toHaveLength(MAX_QUARANTINED_FACTS);
    expect(entry.facts[0]).toMatchObject({
      agent: 'claude',
      request_id: 'big_bad_0',
      input_tokens: 1e12,
      reason: expect.stringMatching(/input_tokens 1000000000000 is not a whole number of tokens/),
    });
    expect(statSync(join(rx.dirs.bad, name!)).size).toBeLessThan(100_000);
    expect(readFileSync(join(rx.dirs.bad, `${name}.reason`), 'utf8')).toMatch(/^20000 refused: .*input_tokens 1000000000000.*\(×20000\)/);
    // What `collect status` shows: one quarantined entry, and every refused fact counted by the receiver.
    expect(spoolCounts(rx.dirs).quarantined).toBe(1);
    expect(describeReceiver(rx.receiver.snapshot())).toContain('refused: 20000');
    // The exporter's retry of the same bytes rewrites the same entry.
    expect((await send()).status).toBe(200);
    expect(readdirSync(rx.dirs.bad)).toHaveLength(2);
  });

  it(`keeps the receiver's latest ${MAX_RECEIVER_QUARANTINE} entries`, () => {
    const count = MAX_RECEIVER_QUARANTINE + 5;
    for (let i = 0; i < count; i++) rx.receiver.handle('logs', 'json', Buffer.from(JSON.stringify(logsRequest(1, `many${i}`, false))));
    const entries = receiverEntries();
    expect(entries.length).toBeLessThanOrEqual(MAX_RECEIVER_QUARANTINE);
    expect(entries.length).toBeGreaterThan(MAX_RECEIVER_QUARANTINE * 0.8);
    // The last request's entry is there, with its fact.
    const last = entries
      .map((n) => JSON.parse(readFileSync(join(rx.dirs.bad, n), 'utf8')))
      .find((e) => e.facts[0].request_id === `many${count - 1}_bad_0`);
    expect(last).toBeDefined();
    // Every entry kept has its reason.
    for (const n of entries) expect(readdirSync(rx.dirs.bad)).toContain(`${n}.reason`);
    expect(readdirSync(rx.dirs.bad)).toHaveLength(entries.length * 2);
  });
});
