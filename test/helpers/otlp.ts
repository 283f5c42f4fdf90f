// OTLP/JSON request bodies the tests send as an agent's exporter would, the collector's receiver they
// send them to, and the wire records it spools.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { otelWireRecords } from '../../collector/otel/spooled.ts';
import { ensureSpool, readEntry, type SpoolDirs, spoolDirs } from '../../collector/spool.ts';
import { createLogger, type Logger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { tempDir } from './tmp.ts';

export interface RunningReceiver {
  /** The spool it writes to, in a new temporary $AGENTMETER_HOME. */
  dirs: SpoolDirs;
  receiver: OtlpReceiver;
  /** `http://127.0.0.1:<port>`, the port it was given. */
  base: string;
}

/**
 * A collector receiver on a free local port over a new spool, started before the tests of the enclosing
 * suite (or file) and stopped after them; its fields are set once they start. `log` may be made from the
 * spool's home (a log file beside it). Silent by default.
 */
export function receiverForTests(
  log: Logger | ((home: string) => Logger) = createLogger({ name: 'test', level: 'silent' }),
): RunningReceiver {
  const running = {} as RunningReceiver;
  beforeAll(async () => {
    const dirs = spoolDirs(tempDir());
    ensureSpool(dirs);
    const receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log: typeof log === 'function' ? log(dirs.home) : log });
    Object.assign(running, { dirs, receiver, base: `http://127.0.0.1:${await receiver.start()}` });
  });
  afterAll(async () => {
    await running.receiver.stop();
  });
  return running;
}

/** The wire records of the receiver's spool file `name` in new/, which must pass the collector's own check. */
export function spooledFile(dirs: SpoolDirs, name: string): WireRecord[] {
  const entry = readEntry(dirs, name);
  if (entry.kind !== 'ok') throw new Error(`unreadable spool file ${name}`);
  const records = otelWireRecords(entry.value, 'machine-1');
  if (records.kind !== 'ok') throw new Error(`spool file ${name} would be quarantined: ${records.reason}`);
  return records.value;
}

/** The wire records of every receiver file in new/. */
export const spooledRecords = (dirs: SpoolDirs) => readdirSync(dirs.new).flatMap((name) => spooledFile(dirs, name));

/** A string attribute as OTLP/JSON writes it. */
const attribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

/**
 * Claude Code's `claude_code.code_edit_tool.decision` counter with one data point of `count` accepted Edit
 * decisions, as an ExportMetricsServiceRequest. Delta by default; `cumulative` gives the point a start time
 * and a session, as a cumulative exporter sends its running total.
 */
export function claudeAcceptedEdits(count: number, { cumulative = false, timeNanos = `${Date.now()}000000` } = {}) {
  const attributes = [attribute('decision', 'accept'), attribute('tool_name', 'Edit')];
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attribute('service.name', 'claude-code')] },
        scopeMetrics: [
          {
            metrics: [
              {
                name: 'claude_code.code_edit_tool.decision',
                sum: {
                  aggregationTemporality: cumulative ? 2 : 1,
                  ...(cumulative ? { isMonotonic: true } : {}),
                  dataPoints: [
                    {
                      asInt: String(count),
                      timeUnixNano: timeNanos,
                      attributes: cumulative
                        ? [attribute('session.id', 'sess-1'), ...attributes, attribute('source', 'user_temporary')]
                        : attributes,
                      ...(cumulative ? { startTimeUnixNano: '1794990000000000000' } : {}),
                    },
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}
