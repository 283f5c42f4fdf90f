// Two agent processes exporting the same cumulative counter (Claude Code with its session id left out of
// the metric attributes, OTEL_METRICS_INCLUDE_SESSION_ID=false): each process's running total is its own
// series, told apart by its start time, so their interleaved exports count each decision once. The real
// OpenTelemetry JS SDK (cumulative temporality, its default) exports in protobuf to the collector's receiver.
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';

const log = createLogger({ name: 'test-otel-writers', level: 'silent' });
const rx = receiverForTests(log);

/** One Claude Code process: its counter of accepted Edit decisions, exported (cumulative) on flush. */
function claudeProcess() {
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url: `${rx.base}/v1/metrics` }),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': '2.1.0' }),
    readers: [reader],
  });
  const counter = provider.getMeter('com.anthropic.claude_code').createCounter('claude_code.code_edit_tool.decision');
  return {
    async accept(n: number) {
      counter.add(n, { decision: 'accept', tool_name: 'Edit', source: 'user_temporary' });
      await provider.forceFlush();
    },
    shutdown: () => provider.shutdown(),
  };
}

const spooledCount = () => spooledRecords(rx.dirs).reduce((n, r) => n + (r.kind === 'decision' ? r.count : 0), 0);

describe('two processes exporting the same cumulative counter', () => {
  it('count 5 + 3 + 1 + 1 = 10 decisions, not each running total again', async () => {
    const a = claudeProcess();
    await new Promise((resolve) => setTimeout(resolve, 5)); // its own start time, as a second process has
    const b = claudeProcess();
    await a.accept(5); // a's total 5
    await b.accept(3); // b's total 3
    await a.accept(1); // a's total 6
    await b.accept(1); // b's total 4
    await a.shutdown();
    await b.shutdown();
    expect(spooledCount()).toBe(10);
  });
});

describe('a cumulative total that arrives after a later one', () => {
  /** Claude Code's cumulative accepted Edit decisions of one process, read at second `at`. */
  const reading = (total: number, at: number) =>
    JSON.stringify(
      claudeAcceptedEdits(total, { cumulative: true, timeNanos: String(1_795_000_000_000_000_000n + BigInt(at) * 1_000_000_000n) }),
    );
  const post = (body: string) => fetch(`${rx.base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('is an old reading, not a reset: 5 at 0 s, 7 at 60 s, then the delayed 6 at 30 s count 7', async () => {
    const before = spooledCount();
    for (const [total, at] of [
      [5, 0],
      [7, 60],
      [6, 30],
    ] as const)
      expect((await post(reading(total, at))).status).toBe(200);
    expect(spooledCount() - before).toBe(7);
    // A real reset (a lower total read later, the same start) still counts from zero: 2 more at 90 s.
    expect((await post(reading(2, 90))).status).toBe(200);
    expect(spooledCount() - before).toBe(9);
  });
});
