// OpenTelemetry in (docs/metrics.md §11), end to end with the real OpenTelemetry JS SDK and its OTLP exporters:
// Claude Code's signal names and attributes, exported in protobuf and JSON to the collector's receiver, go
// through the spool, the collector and the server into the right rows of /productivity; the same exported
// to the server's /v1 routes behind a collector key; one fact, one count for tokens; a signal that repeats
// a hook event is not a second event; another organization sees none of it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { describeReceiver } from '../../collector/otel/describe.ts';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { readReceiverStatus } from '../../collector/otel/status.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits } from '../helpers/otlp.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-otel', level: 'silent' });
// The exporters stamp points with the real clock: the server's day is the next one, so today is "yesterday".
const DAY = new Date().toISOString().slice(0, 10);
const SERVER_NOW = new Date(Date.parse(`${DAY}T12:00:00Z`) + 86_400_000);

// Claude Code's names (code.claude.com/docs/en/monitoring-usage), and identity attributes we must not trust.
const claudeResource = (email: string) =>
  resourceFromAttributes({ 'service.name': 'claude-code', 'service.version': '2.1.0', 'user.email': email, 'organization.id': 'org-x' });

let server: TestServer;
let url: string;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer({ now: () => SERVER_NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  url = await server.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await server.close();
});

async function exportMetrics(
  exporter: PushMetricExporter,
  email: string,
  record: (add: (n: number, attrs: Record<string, string>) => void) => void,
) {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ resource: claudeResource(email), readers: [reader] });
  const counter = provider.getMeter('com.anthropic.claude_code').createCounter('claude_code.code_edit_tool.decision');
  const flush = async (adds: (add: (n: number, attrs: Record<string, string>) => void) => void) => {
    adds((n, attrs) => counter.add(n, attrs));
    await provider.forceFlush();
  };
  await flush(record);
  return { flush, shutdown: () => provider.shutdown() };
}

const decision = (d: string, tool: string, language: string | undefined, session: string) => ({
  'session.id': session,
  decision: d,
  tool_name: tool,
  source: 'user_temporary',
  'user.email': 'intruder@evil.example',
  ...(language ? { language } : {}),
});

async function emitLogs(
  exporter: ProtoLogExporter | JsonLogExporter,
  records: { eventName: string; attributes: Record<string, string | number> }[],
) {
  const provider = new LoggerProvider({
    resource: claudeResource('intruder@evil.example'),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('com.anthropic.claude_code.events');
  for (const r of records)
    logger.emit({ eventName: r.eventName, body: `${r.eventName} with a prompt that never leaves`, attributes: r.attributes });
  await provider.forceFlush();
  await provider.shutdown();
}

async function get(path: string, key = acme.users.manager.key) {
  const res = await server.app.inject({ method: 'GET', url: path, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[] };
}

const batch = () => server.services.runBatch({ trigger: 'cli', log, now: SERVER_NOW });

describe('the collector receiver, with the SDK exporters', () => {
  let home: string;
  let receiver: OtlpReceiver;
  let base: string;

  beforeAll(async () => {
    home = tempDir();
    const dirs = spoolDirs(home);
    ensureSpool(dirs);
    receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log });
    base = `http://127.0.0.1:${await receiver.start()}`;
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('ends in the right rows of /productivity, one fact one count, hooks not counted twice', async () => {
    // Protobuf, cumulative (the SDK's default): 2 accepted then 1 more, and 1 rejected; each export repeats the total.
    const proto = await exportMetrics(new ProtoMetricExporter({ url: `${base}/v1/metrics` }), 'a@evil.example', (add) => {
      add(2, decision('accept', 'Edit', 'TypeScript', 's-otel'));
      add(1, decision('reject', 'Write', 'Python', 's-otel'));
    });
    await proto.flush((add) => add(1, decision('accept', 'Edit', 'TypeScript', 's-otel')));
    await proto.shutdown();
    // JSON, delta: 1 accepted NotebookEdit with no language.
    const json = await exportMetrics(
      new JsonMetricExporter({ url: `${base}/v1/metrics`, temporalityPreference: AggregationTemporality.DELTA }),
      'b@evil.example',
      (add) => add(1, decision('accept', 'NotebookEdit', undefined, 's-otel')),
    );
    await json.shutdown();
    // Logs in protobuf: token usage for a session with no transcript (counted) and for one whose transcript
    // gives usage (not counted); and a tool_result that repeats the hook's PostToolUse (not an event).
    const usage = (session: string, requestId: string) => ({
      eventName: 'claude_code.api_request',
      attributes: {
        'event.name': 'api_request',
        'session.id': session,
        model: 'claude-sonnet-4-5-20250929',
        request_id: requestId,
        input_tokens: 1000,
        output_tokens: 200,
        cache_read_tokens: 0,
        cache_creation_tokens: 0,
        cost_usd: 0.006,
      },
    });
    await emitLogs(new ProtoLogExporter({ url: `${base}/v1/logs` }), [
      usage('s-otel', 'req_otel_1'),
      usage('s-files', 'req_files_1'),
      { eventName: 'claude_code.tool_result', attributes: { 'session.id': 's-files', tool_name: 'Edit', success: 'true' } },
      { eventName: 'claude_code.user_prompt', attributes: { 'session.id': 's-files', prompt: 'SECRET PROMPT TEXT' } },
    ]);
    // JSON logs too, and a signal no agent names.
    await emitLogs(new JsonLogExporter({ url: `${base}/v1/logs` }), [{ eventName: 'some.unknown_event', attributes: {} }]);

    const status = receiver.snapshot();
    expect(status).toMatchObject({ refused: 0, unmapped: 1, ignored: 2 });
    expect(status.unmappedNames).toEqual([['some.unknown_event', 1]]);
    // Nothing of the prompt or of the identity attributes is in the spool.
    const spooled = readdirSync(join(home, 'spool', 'new'));
    expect(spooled.length).toBeGreaterThan(0);
    const { readFileSync } = await import('node:fs');
    const text = spooled.map((n) => readFileSync(join(home, 'spool', 'new', n), 'utf8')).join('\n');
    expect(text).not.toMatch(/SECRET|evil\.example|prompt that never leaves/);

    // The hook's own PostToolUse of the same call, and the transcript's usage of s-files (as the collector ships it).
    writeSpoolFile(home, {
      hook_event_name: 'PostToolUse',
      session_id: 's-files',
      tool_name: 'Edit',
      tool_input: { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' },
      tool_response: { success: true },
    });
    const key = (
      await server.services.accounts.createKey({ id: acme.users.member.id as UserId, org_id: acme.orgId as OrgId }, 'c', 'operator', {
        scope: 'collector',
      })
    ).key;
    const ingest = await server.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/events',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: [
        {
          kind: 'usage',
          id: 's-files:msg_1:req_files_1',
          agent: 'claude',
          session_id: 's-files',
          ts: Date.now(),
          model: 'claude-sonnet-4-5-20250929',
          input_tokens: 1000,
          output_tokens: 200,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          thinking_tokens: 0,
          thinking: false,
        },
      ],
    });
    expect(ingest.statusCode, ingest.body).toBe(200);

    const collector = new Collector({
      server: url,
      apiKey: key,
      agentmeterHome: home,
      home: tempDir(),
      log,
      batchSize: 100,
      maxAttempts: 1,
    });
    const drained = await collector.drain();
    expect(drained).toMatchObject({ quarantined: 0 });
    expect(readdirSync(join(home, 'spool', 'new'))).toEqual([]);
    expect(existsSync(join(home, 'spool', 'bad')) ? readdirSync(join(home, 'spool', 'bad')) : []).toEqual([]);
    await batch();

    const q = `startDate=${DAY}&endDate=${DAY}`;
    const [day] = (await get(`/api/v1/analytics/productivity?${q}`)).data;
    // Accepted: 3 Edit (2 + 1 from the cumulative totals 2 then 3) + 1 NotebookEdit; rejected: 1 Write.
    expect(day).toMatchObject({ date: DAY, edits_accepted: 4, edits_rejected: 1, edit_acceptance_rate: 0.8 });
    expect((await get(`/api/v1/analytics/productivity?${q}&group_by=agent`)).data).toEqual([
      { date: DAY, group_key: 'claude', edits_accepted: 4, edits_rejected: 1, edit_acceptance_rate: 0.8 },
    ]);
    expect((await get(`/api/v1/analytics/productivity?${q}&group_by=tool_name`)).data).toEqual([
      { date: DAY, group_key: 'Edit', edits_accepted: 3, edits_rejected: 0, edit_acceptance_rate: 1 },
      { date: DAY, group_key: 'NotebookEdit', edits_accepted: 1, edits_rejected: 0, edit_acceptance_rate: 1 },
      { date: DAY, group_key: 'Write', edits_accepted: 0, edits_rejected: 1, edit_acceptance_rate: 0 },
    ]);
    expect((await get(`/api/v1/analytics/productivity?${q}&group_by=language`)).data).toEqual([
      { date: DAY, group_key: 'Python', edits_accepted: 0, edits_rejected: 1, edit_acceptance_rate: 0 },
      { date: DAY, group_key: 'TypeScript', edits_accepted: 3, edits_rejected: 0, edit_acceptance_rate: 1 },
    ]);
    // Tokens: s-otel's 1000 in from OTel, s-files' 1000 once (its transcript's; the OTel copy does not add).
    const [tokens] = (await get(`/api/v1/analytics/tokens?${q}`)).data;
    expect(tokens).toMatchObject({ input_tokens: 2000, output_tokens: 400 });
    // The hook's one tool call; the OTel tool_result repeating it is not a second one.
    const [tools] = (await get(`/api/v1/analytics/tools?${q}`)).data;
    expect(tools).toMatchObject({ tool_calls: 1 });
    // Identity came from the key: the member, whatever the resource said.
    const rows = await server.db.all<{ user_id: string }>('SELECT DISTINCT user_id FROM edit_decisions WHERE org_id = $org', {
      org: acme.orgId,
    });
    expect(rows).toEqual([{ user_id: acme.users.member.id }]);
    // Another organization sees none of it.
    const [theirs] = (await get(`/api/v1/analytics/productivity?${q}`, other.users.manager.key)).data;
    expect(theirs).toMatchObject({ edits_accepted: 0, edits_rejected: 0, edit_acceptance_rate: null });
  });

  it('says what it received in `collect status`: facts spooled, signals left, unmapped names', async () => {
    await receiver.stop();
    const status = readReceiverStatus(home);
    expect(status).toMatchObject({ listen: '127.0.0.1:0', unmapped: 1, ignored: 2, refused: 0 });
    const text = describeReceiver(status);
    expect(text).toContain('unmapped and dropped: 1 (some.unknown_event ×1)');
    expect(text).toMatch(/otlp facts spooled: [1-9]/);
    base = `http://127.0.0.1:${await receiver.start()}`;
  });

  it('refuses a body past the cap (413), a wrong type (415) and a body that is not OTLP (400)', async () => {
    const post = (body: Buffer | string, type: string) =>
      fetch(`${base}/v1/metrics`, { method: 'POST', headers: { 'content-type': type }, body });
    expect((await post(Buffer.alloc(5 * 1024 * 1024), 'application/x-protobuf')).status).toBe(413);
    expect((await post('{}', 'text/plain')).status).toBe(415);
    const bad = await post('{"resourceMetrics": 3}', 'application/json');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/resourceMetrics/);
    expect((await fetch(`${base}/v1/other`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(
      404,
    );
  });
});

describe("the server's /v1 routes, with the SDK exporters", () => {
  it('store edit decisions for the key, not for the attributes, and only with a key', async () => {
    const key = (
      await server.services.accounts.createKey({ id: other.users.member.id as UserId, org_id: other.orgId as OrgId }, 'ci', 'operator', {
        scope: 'collector',
      })
    ).key;
    for (const Exporter of [ProtoMetricExporter, JsonMetricExporter]) {
      const sent = await exportMetrics(
        new Exporter({ url: `${url}/v1/metrics`, headers: bearer(key), temporalityPreference: AggregationTemporality.DELTA }),
        'ci@evil.example',
        (add) => add(1, decision('reject', 'Edit', 'Go', 's-ci')),
      );
      await sent.shutdown();
    }
    const stored = await server.db.all<{ user_id: string; n: bigint }>(
      'SELECT user_id, sum(count) AS n FROM edit_decisions WHERE org_id = $org GROUP BY user_id',
      { org: other.orgId },
    );
    expect(stored.map((r) => [r.user_id, Number(r.n)])).toEqual([[other.users.member.id, 2]]);
    // The same request sent again counts once (its id is the request's digest).
    const body = JSON.stringify(claudeAcceptedEdits(2));
    for (let i = 0; i < 2; i++) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/metrics',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({});
    }
    await batch();
    const [day] = (await get(`/api/v1/analytics/productivity?startDate=${DAY}&endDate=${DAY}`, other.users.manager.key)).data;
    expect(day).toMatchObject({ edits_accepted: 2, edits_rejected: 2, edit_acceptance_rate: 0.5 });
    // Acme's figures did not move.
    const [acmeDay] = (await get(`/api/v1/analytics/productivity?startDate=${DAY}&endDate=${DAY}`)).data;
    expect(acmeDay).toMatchObject({ edits_accepted: 4, edits_rejected: 1 });

    // Today so far (docs/metrics.md §7) counts a decision of the server's today within the same build steps.
    const today = SERVER_NOW.toISOString().slice(0, 10);
    const todays = await server.app.inject({
      method: 'POST',
      url: '/v1/metrics',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: body.replace(/"timeUnixNano":"\d+"/, `"timeUnixNano":"${Date.parse(`${today}T09:00:00Z`)}000000"`).replace('"2"', '"5"'),
    });
    expect(todays.statusCode, todays.body).toBe(200);
    const live = await server.app.inject({ method: 'GET', url: '/api/v1/analytics/today', headers: bearer(other.users.manager.key) });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json().data.productivity).toMatchObject({ date: today, edits_accepted: 5, edits_rejected: 0, edit_acceptance_rate: 1 });

    const anonymous = await server.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(anonymous.statusCode).toBe(401);
    const large = await server.app.inject({
      method: 'POST',
      url: '/v1/traces',
      headers: { ...bearer(key), 'content-type': 'application/x-protobuf' },
      payload: Buffer.alloc(5 * 1024 * 1024),
    });
    expect(large.statusCode).toBe(413);
    const notOtlp = await server.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: '{"resourceLogs": "no"}',
    });
    expect(notOtlp.statusCode).toBe(400);
    expect(notOtlp.json()).toMatchObject({ status: 400, title: expect.any(String), requestId: expect.any(String) });
  });
});
