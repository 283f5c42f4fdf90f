// An OTLP exporter sends a request again when it did not get the answer (a timeout after the receiver had
// spooled it): the same bytes must be the same records, so the server's dedup by id counts a decision once.
// A different request (a later export of the same kind) stays its own records. A receiver that dies right
// after answering keeps the cumulative totals its answer counted from.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { otelWireRecords } from '../../collector/otel/spooled.ts';
import { ensureSpool, readEntry, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledFile } from '../helpers/otlp.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-otel-retry', level: 'silent' });
const T = '1795000000000000000';

/** Codex CLI's approval of an apply_patch edit as one OTLP/JSON log record. */
const decisionLogs = (decision: string, time = T) =>
  JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'codex_cli_rs' } }] },
        scopeLogs: [
          {
            logRecords: [
              {
                eventName: 'codex.tool_decision',
                timeUnixNano: time,
                attributes: [
                  { key: 'conversation.id', value: { stringValue: 'c-1' } },
                  { key: 'decision', value: { stringValue: decision } },
                  { key: 'tool_name', value: { stringValue: 'apply_patch' } },
                ],
              },
            ],
          },
        ],
      },
    ],
  });

const rx = receiverForTests(log);

async function post(body: string): Promise<void> {
  const res = await fetch(`${rx.base}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status).toBe(200);
}

/** The ids of the decision records in the spool's new/, by file. */
function spooledIds(): string[][] {
  return readdirSync(rx.dirs.new)
    .sort()
    .map((name) => spooledFile(rx.dirs, name).flatMap((r) => (r.kind === 'decision' ? [r.id] : [])));
}

describe('a retried OTLP export', () => {
  it('is the same records, and a new export new ones', async () => {
    const body = decisionLogs('approved');
    await post(body);
    await post(body);
    const [first, retried] = spooledIds();
    expect(first).toHaveLength(1);
    expect(retried).toEqual(first);
    await post(decisionLogs('approved', '1795000000500000000'));
    const ids = new Set(spooledIds().flat());
    expect(ids.size).toBe(2);
  });
});

/** Claude Code's cumulative count of accepted Edit decisions in one session, as one OTLP/JSON metrics body. */
const cumulativeDecisions = (total: number) =>
  Buffer.from(
    JSON.stringify(claudeAcceptedEdits(total, { cumulative: true, timeNanos: String(BigInt(T) + BigInt(total) * 1_000_000_000n) })),
  );

describe('a receiver that dies after answering', () => {
  it('counts from the totals its answer counted from: a cumulative 5 then 7 is 7 decisions, not 12', () => {
    const own = spoolDirs(tempDir());
    ensureSpool(own);
    // Neither is started or stopped: handle() is what a request runs before its 200, and the first
    // receiver is dropped as a killed process would be, with no stop() to save anything.
    new OtlpReceiver({ listen: '127.0.0.1:0', dirs: own, log }).handle('metrics', 'json', cumulativeDecisions(5));
    new OtlpReceiver({ listen: '127.0.0.1:0', dirs: own, log }).handle('metrics', 'json', cumulativeDecisions(7));
    const counts = readdirSync(own.new).flatMap((name) => {
      const entry = readEntry(own, name);
      if (entry.kind !== 'ok') throw new Error(`unreadable spool file ${name}`);
      const records = otelWireRecords(entry.value, 'machine-1');
      if (records.kind !== 'ok') throw new Error(records.reason);
      return records.value.flatMap((r) => (r.kind === 'decision' ? [r.count] : []));
    });
    expect(counts.reduce((a, b) => a + b, 0)).toBe(7);
    expect(counts).toEqual([5, 2]);
  });
});
