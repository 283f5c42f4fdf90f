// An OTLP export of which some data points or log records cannot be stored (a token count of 1e12, a negative
// or fractional count) is answered as OTLP/HTTP says: 200 with `partial_success` (how many were refused and
// why), in the request's own encoding, never a bare 200 that tells the exporter all was taken. The rest is
// kept; the refused facts wait in the collector's quarantine with their reason. The real OpenTelemetry JS SDK
// exporters are the clients (their diag logger reports a partial success), plus raw JSON and protobuf requests.

import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DiagLogLevel, diag } from '@opentelemetry/api';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

interface ProtoType {
  fromObject(o: unknown): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: unknown): Record<string, unknown>;
}
const metricsService = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js').opentelemetry.proto
  .collector.metrics.v1 as Record<string, ProtoType>;

/** One OTLP/JSON metrics request: 3 accepted Edit decisions, and a point of 2 500 000 (over the cap). */
function goodAndHuge() {
  const request = claudeAcceptedEdits(3, { timeNanos: '1795000000000000000' });
  const points = request.resourceMetrics[0]!.scopeMetrics[0]!.metrics[0]!.sum.dataPoints;
  points.push({
    ...points[0]!,
    asInt: '2500000',
    attributes: [...points[0]!.attributes, { key: 'language', value: { stringValue: 'Go' } }],
  });
  return request;
}

const log = createLogger({ name: 'test-otel-partial', level: 'silent' });
const claude = resourceFromAttributes({ 'service.name': 'claude-code' });

/** What the SDK's exporters warn of: their partial-success handler logs through the global diag logger. */
const warnings: string[] = [];
beforeAll(() => {
  const keep = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
  diag.setLogger({ error: keep, warn: keep, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
});
afterEach(() => {
  warnings.length = 0;
});
afterAll(() => diag.disable());

const partialWarnings = () => warnings.filter((w) => w.includes('Partial Success'));

const rx = receiverForTests(log);

/** The wire records of every receiver file in new/ (each must pass the collector's own check). */
const spooled = () => spooledRecords(rx.dirs);

/** The quarantined facts with their reasons: each request's entry (bad/record.otel.*.json) lists its facts. */
function quarantined(): { record: Record<string, unknown>; reason: string }[] {
  return readdirSync(rx.dirs.bad)
    .filter((n) => n.startsWith('record.') && n.endsWith('.json'))
    .sort()
    .flatMap((n) => {
      expect(readFileSync(join(rx.dirs.bad, `${n}.reason`), 'utf8')).toMatch(/^\d+ refused: /);
      const entry = JSON.parse(readFileSync(join(rx.dirs.bad, n), 'utf8')) as { facts: ({ reason: string } & Record<string, unknown>)[] };
      return entry.facts.map(({ reason, ...record }) => ({ record, reason }));
    });
}

function clearSpool() {
  for (const dir of [rx.dirs.new, rx.dirs.bad]) for (const n of readdirSync(dir)) rmSync(join(dir, n));
}

/** Claude Code's api_request event with these token counts. */
const apiRequest = (requestId: string, input: number | string) => ({
  eventName: 'claude_code.api_request',
  attributes: {
    'event.name': 'api_request',
    'session.id': 's-1',
    model: 'claude-sonnet-4-5-20250929',
    request_id: requestId,
    input_tokens: input,
    output_tokens: 10,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
  },
});

async function emitLogs(exporter: ProtoLogExporter | JsonLogExporter, records: ReturnType<typeof apiRequest>[]) {
  const provider = new LoggerProvider({ resource: claude, processors: [new SimpleLogRecordProcessor({ exporter })] });
  const logger = provider.getLogger('com.anthropic.claude_code.events');
  for (const r of records) logger.emit({ eventName: r.eventName, attributes: r.attributes });
  await provider.forceFlush();
  await provider.shutdown();
}

describe('the collector receiver answers partial_success for what it refuses', () => {
  for (const [encoding, Exporter] of [
    ['protobuf', ProtoLogExporter],
    ['JSON', JsonLogExporter],
  ] as const)
    it(`log records in ${encoding}: 1e12, -5 and 12.5 tokens refused, the good one kept`, async () => {
      clearSpool();
      await emitLogs(new Exporter({ url: `${rx.base}/v1/logs` }), [
        apiRequest('req_good', 1000),
        apiRequest('req_huge', 1e12),
        apiRequest('req_negative', -5),
        apiRequest('req_fraction', 12.5),
      ]);
      // SimpleLogRecordProcessor exports record by record: one partial success per refused record.
      const partial = partialWarnings();
      expect(partial).toHaveLength(3);
      for (const w of partial) expect(w).toMatch(/"rejectedLogRecords":"?1"?/);
      expect(partial.join('\n')).toMatch(/input_tokens/);
      expect(spooled().map((r) => r.id)).toEqual(['otel:claude:req_good']);
      const bad = quarantined();
      expect(bad.map((b) => b.record['request_id']).sort()).toEqual(['req_fraction', 'req_huge', 'req_negative']);
      for (const b of bad) expect(b.reason).toMatch(/input_tokens/);
      expect(rx.receiver.snapshot()).toMatchObject({ refused: 0 });
    });

  it('data points in protobuf: 2 000 000 and 2.5 decisions refused, the 2 kept', async () => {
    clearSpool();
    const reader = new PeriodicExportingMetricReader({
      exporter: new ProtoMetricExporter({ url: `${rx.base}/v1/metrics`, temporalityPreference: AggregationTemporality.DELTA }),
      exportIntervalMillis: 3_600_000,
    });
    const provider = new MeterProvider({ resource: claude, readers: [reader] });
    const counter = provider.getMeter('com.anthropic.claude_code').createCounter('claude_code.code_edit_tool.decision');
    const at = (language: string) => ({ 'session.id': 's-1', decision: 'accept', tool_name: 'Edit', language });
    counter.add(2, at('Go'));
    counter.add(2_000_000, at('Rust'));
    counter.add(2.5, at('C'));
    await provider.forceFlush();
    await provider.shutdown();
    const partial = partialWarnings();
    expect(partial).toHaveLength(1);
    expect(partial[0]).toMatch(/"rejectedDataPoints":"?2"?/);
    expect(spooled()).toEqual([expect.objectContaining({ kind: 'decision', count: 2, language: 'Go' })]);
    expect(quarantined().map((b) => [b.record['language'], b.record['count']])).toEqual(
      expect.arrayContaining([
        ['Rust', 2_000_000],
        ['C', 2.5],
      ]),
    );
  });
});

describe('the answer to a raw request, in its own encoding', () => {
  it('JSON: a JSON partialSuccess with the count and the reason', async () => {
    clearSpool();
    const res = await fetch(`${rx.base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(goodAndHuge()),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({
      partialSuccess: {
        rejectedDataPoints: 1,
        errorMessage: expect.stringMatching(/2500000 is not a whole number of decisions from 1 to 1000000/),
      },
    });
    expect(spooled()).toEqual([expect.objectContaining({ kind: 'decision', count: 3 })]);
    expect(quarantined()).toEqual([
      { record: expect.objectContaining({ agent: 'claude', count: 2_500_000, language: 'Go' }), reason: expect.stringMatching(/2500000/) },
    ]);
  });

  it('protobuf: an ExportMetricsServiceResponse with partial_success', async () => {
    clearSpool();
    const type = metricsService['ExportMetricsServiceRequest']!;
    const body = type.encode(type.fromObject(goodAndHuge())).finish();
    const res = await fetch(`${rx.base}/v1/metrics`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = metricsService['ExportMetricsServiceResponse']!;
    const decoded = answer.toObject(answer.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number });
    expect(decoded).toEqual({ partialSuccess: { rejectedDataPoints: 1, errorMessage: expect.stringMatching(/2500000/) } });
    expect(spooled()).toEqual([expect.objectContaining({ kind: 'decision', count: 3 })]);
    expect(quarantined()).toHaveLength(1);
  });

  it('a request with nothing refused is an empty response, in either encoding', async () => {
    const good = claudeAcceptedEdits(1, { timeNanos: '1795000000000000000' });
    const json = await fetch(`${rx.base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(good),
    });
    expect(await json.json()).toEqual({});
    const type = metricsService['ExportMetricsServiceRequest']!;
    const proto = await fetch(`${rx.base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: type.encode(type.fromObject(good)).finish(),
    });
    expect((await proto.arrayBuffer()).byteLength).toBe(0);
  });
});

describe("the server's /v1 routes answer partial_success the same way", () => {
  let server: TestServer;
  let url: string;
  let key: string;
  beforeAll(async () => {
    server = await testServer();
    key = (await server.seedOrg('Otlp')).users.member.key;
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server.close();
  });

  for (const [encoding, Exporter] of [
    ['protobuf', ProtoLogExporter],
    ['JSON', JsonLogExporter],
  ] as const)
    it(`log records in ${encoding} through the SDK exporter: 3 refused with the reason, the good one stored`, async () => {
      const tag = encoding === 'JSON' ? 'json' : 'proto';
      await emitLogs(new Exporter({ url: `${url}/v1/logs`, headers: bearer(key) }), [
        apiRequest(`${tag}_good`, 1000),
        apiRequest(`${tag}_huge`, 1e12),
        apiRequest(`${tag}_negative`, -5),
        apiRequest(`${tag}_fraction`, 12.5),
      ]);
      const partial = partialWarnings();
      expect(partial).toHaveLength(3);
      for (const w of partial) expect(w).toMatch(/"rejectedLogRecords":"?1"?.*input_tokens/);
      const stored = await server.db.all<{ id: string }>("SELECT id FROM usage WHERE id LIKE 'otel:claude:' || $tag || '%'", { tag });
      expect(stored.map((r) => r.id)).toEqual([`otel:claude:${tag}_good`]);
    });

  it('a raw protobuf request: an ExportMetricsServiceResponse with partial_success', async () => {
    const type = metricsService['ExportMetricsServiceRequest']!;
    const res = await fetch(`${url}/v1/metrics`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/x-protobuf' },
      body: type.encode(type.fromObject(goodAndHuge())).finish(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const answer = metricsService['ExportMetricsServiceResponse']!;
    const decoded = answer.toObject(answer.decode(new Uint8Array(await res.arrayBuffer())), { longs: Number });
    expect(decoded).toEqual({ partialSuccess: { rejectedDataPoints: 1, errorMessage: expect.stringMatching(/2500000/) } });
  });

  it("spans through the SDK's JSON trace exporter: Copilot CLI's chat span of 1e12 tokens is a rejected span", async () => {
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'github-copilot' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: new JsonTraceExporter({ url: `${url}/v1/traces`, headers: bearer(key) }) })],
    });
    const tracer = provider.getTracer('github.copilot');
    for (const [id, input] of [
      ['chatcmpl-good', 1200],
      ['chatcmpl-huge', 1e12],
    ] as const)
      tracer
        .startSpan('chat gpt-4.1', {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.response.model': 'gpt-4.1',
            'gen_ai.response.id': id,
            'gen_ai.usage.input_tokens': input,
            'gen_ai.usage.output_tokens': 30,
          },
        })
        .end();
    await provider.forceFlush();
    await provider.shutdown();
    const partial = partialWarnings();
    expect(partial).toHaveLength(1);
    expect(partial[0]).toMatch(/"rejectedSpans":"?1"?.*gen_ai\.usage\.input_tokens 1000000000000/);
    const stored = await server.db.all<{ id: string }>("SELECT id FROM usage WHERE id LIKE 'otel:copilot:%'");
    expect(stored.map((r) => r.id)).toEqual(['otel:copilot:chatcmpl-good']);
  });

  it('a raw JSON request: a JSON partialSuccess', async () => {
    const res = await fetch(`${url}/v1/metrics`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify(goodAndHuge()).replace('1795000000000000000', '1795000001000000000'),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      partialSuccess: { rejectedDataPoints: 1, errorMessage: expect.stringMatching(/2500000 is not a whole number of decisions/) },
    });
  });
});
