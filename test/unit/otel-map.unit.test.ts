// The OTLP decoding and each agent's mapping (collector/otel/): hand-built requests in OTLP/JSON and in
// protobuf (encoded with the same generated types the receiver decodes with), and the facts expected of them.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseListen } from '../../collector/otel/receiver.ts';
import { CumulativeTotals, mapSignals } from '../../common/otel/map.ts';
import { decodeOtlp, encodingOf, nanosToMs, OtlpDecodeError } from '../../common/otel/otlp.ts';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const T = '1763640000000000000'; // 2025-11-20T12:00:00Z in ns
const T_MS = 1_763_640_000_000;

type Kv = { key: string; value: { stringValue?: string; intValue?: string } };
const str = (key: string, value: string): Kv => ({ key, value: { stringValue: value } });
const int = (key: string, value: number): Kv => ({ key, value: { intValue: String(value) } });

const claudeMetrics = (
  points: { decision: string; tool: string; language?: string; value: number; start?: string }[],
  temporality = 1,
) => ({
  resourceMetrics: [
    {
      resource: { attributes: [str('service.name', 'claude-code'), str('user.email', 'someone@else.example')] },
      scopeMetrics: [
        {
          metrics: [
            {
              name: 'claude_code.code_edit_tool.decision',
              sum: {
                aggregationTemporality: temporality,
                isMonotonic: true,
                dataPoints: points.map((p) => ({
                  attributes: [
                    str('session.id', 'sess-1'),
                    str('decision', p.decision),
                    str('tool_name', p.tool),
                    str('source', 'user_temporary'),
                    ...(p.language ? [str('language', p.language)] : []),
                  ],
                  startTimeUnixNano: p.start ?? '1763630000000000000',
                  timeUnixNano: T,
                  asInt: String(p.value),
                })),
              },
            },
            { name: 'claude_code.token.usage', sum: { aggregationTemporality: 1, dataPoints: [{ asDouble: 120, timeUnixNano: T }] } },
            { name: 'claude_code.some_new_metric', gauge: { dataPoints: [{ asDouble: 1, timeUnixNano: T }] } },
          ],
        },
      ],
    },
  ],
});

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('decodeOtlp', () => {
  it('reads metric points with their resource, attributes, value and time', () => {
    const { signals } = decodeOtlp(
      'metrics',
      'json',
      json(claudeMetrics([{ decision: 'accept', tool: 'Edit', language: 'TypeScript', value: 3 }])),
    );
    expect(signals[0]).toMatchObject({
      kind: 'metric',
      name: 'claude_code.code_edit_tool.decision',
      value: 3,
      cumulative: false,
      timeMs: T_MS,
      attributes: { decision: 'accept', tool_name: 'Edit', language: 'TypeScript', 'session.id': 'sess-1' },
      resource: { 'service.name': 'claude-code' },
    });
    expect(signals).toHaveLength(3);
  });

  it('decodes protobuf to the same signals as JSON', () => {
    const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js');
    const type = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
    const request = claudeMetrics([{ decision: 'reject', tool: 'Write', value: 2 }], 2);
    const bytes = type.encode(type.fromObject(request)).finish() as Uint8Array;
    const fromProto = decodeOtlp('metrics', 'protobuf', bytes).signals;
    const fromJson = decodeOtlp('metrics', 'json', json(request)).signals;
    expect(fromProto).toEqual(fromJson);
    expect(fromProto[0]).toMatchObject({ cumulative: true, value: 2 });
  });

  it('decodes a protobuf traces request (its package is opentelemetry.proto.collector.trace) as JSON', () => {
    const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js');
    const type = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
    const request = {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'github-copilot')] },
          scopeSpans: [
            {
              spans: [
                {
                  name: 'chat gpt-4.1',
                  endTimeUnixNano: T,
                  attributes: [str('gen_ai.response.id', 'r1'), int('gen_ai.usage.input_tokens', 5)],
                },
              ],
            },
          ],
        },
      ],
    };
    const bytes = type.encode(type.fromObject(request)).finish() as Uint8Array;
    const fromProto = decodeOtlp('traces', 'protobuf', bytes).signals;
    expect(fromProto).toEqual(decodeOtlp('traces', 'json', json(request)).signals);
    expect(fromProto).toEqual([
      {
        kind: 'span',
        name: 'chat gpt-4.1',
        resource: { 'service.name': 'github-copilot' },
        attributes: { 'gen_ai.response.id': 'r1', 'gen_ai.usage.input_tokens': 5 },
        timeMs: T_MS,
      },
    ]);
  });

  it('takes a log event name from event_name or the event.name attribute, never the body', () => {
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [str('service.name', 'claude-code')] },
          scopeLogs: [
            {
              logRecords: [
                { eventName: 'claude_code.api_request', timeUnixNano: T, body: { stringValue: 'secret prompt' }, attributes: [] },
                {
                  observedTimeUnixNano: T,
                  body: { stringValue: 'claude_code.tool_decision' },
                  attributes: [str('event.name', 'tool_decision')],
                },
              ],
            },
          ],
        },
      ],
    };
    const { signals } = decodeOtlp('logs', 'json', json(request));
    expect(signals.map((s) => (s.kind === 'log' ? [s.name, s.timeMs] : []))).toEqual([
      ['claude_code.api_request', T_MS],
      ['tool_decision', T_MS],
    ]);
    expect(JSON.stringify(signals)).not.toContain('secret prompt');
  });

  it('refuses a body that is not an OTLP request, with the reason', () => {
    expect(() => decodeOtlp('metrics', 'json', Buffer.from('{not json'))).toThrow(OtlpDecodeError);
    expect(() => decodeOtlp('metrics', 'json', json({ resourceMetrics: 'x' }))).toThrow(/resourceMetrics/);
    expect(() => decodeOtlp('logs', 'protobuf', Buffer.from([0xff, 0xff, 0xff]))).toThrow(OtlpDecodeError);
  });

  it('knows the two content types and reads nanoseconds as milliseconds', () => {
    expect(encodingOf('application/x-protobuf')).toBe('protobuf');
    expect(encodingOf('application/json; charset=utf-8')).toBe('json');
    expect(encodingOf('text/plain')).toBeUndefined();
    expect(nanosToMs('1763640000123456789')).toBe(1_763_640_000_123);
    expect(nanosToMs(undefined)).toBe(0);
  });
});

describe('mapSignals', () => {
  it("maps Claude Code's edit decisions (delta counters) and counts what it does not map", () => {
    const { signals } = decodeOtlp(
      'metrics',
      'json',
      json(
        claudeMetrics([
          { decision: 'accept', tool: 'Edit', language: 'TypeScript', value: 3 },
          { decision: 'reject', tool: 'Write', language: 'Python', value: 1 },
        ]),
      ),
    );
    const result = mapSignals(signals, new CumulativeTotals(), NOW);
    expect(result.facts.get('claude')).toEqual([
      { kind: 'decision', session_id: 'sess-1', ts: T_MS, decision: 'accept', count: 3, tool_name: 'Edit', language: 'TypeScript' },
      { kind: 'decision', session_id: 'sess-1', ts: T_MS, decision: 'reject', count: 1, tool_name: 'Write', language: 'Python' },
    ]);
    expect([...result.ignored]).toEqual([['claude_code.token.usage', 1]]);
    expect([...result.unmapped]).toEqual([['claude_code.some_new_metric', 1]]);
    // Identity attributes are never read into a fact.
    expect(JSON.stringify([...result.facts])).not.toContain('someone@else.example');
  });

  it('refuses a decision count that is negative, fractional or over 1 000 000, and keeps the rest', () => {
    const { signals } = decodeOtlp(
      'metrics',
      'json',
      json(
        claudeMetrics([
          { decision: 'accept', tool: 'Edit', language: 'Go', value: 2 },
          { decision: 'accept', tool: 'Edit', language: 'C', value: -3 },
          { decision: 'reject', tool: 'Edit', language: 'Rust', value: 1_000_001 },
        ]),
      ),
    );
    const result = mapSignals(signals, new CumulativeTotals(), NOW);
    expect(result.facts.get('claude')?.map((f) => (f.kind === 'decision' ? f.language : ''))).toEqual(['Go']);
    expect(result.refused.map((r) => [r.agent, r.fact['language'], r.fact['count'], r.reason])).toEqual([
      ['claude', 'C', -3, 'claude_code.code_edit_tool.decision: -3 is not a whole number of decisions from 1 to 1000000'],
      ['claude', 'Rust', 1_000_001, 'claude_code.code_edit_tool.decision: 1000001 is not a whole number of decisions from 1 to 1000000'],
    ]);
  });

  it('counts a cumulative counter by what is new since its last reading, and a restarted one from zero', () => {
    const totals = new CumulativeTotals();
    const reading = (value: number, start?: string) =>
      decodeOtlp('metrics', 'json', json(claudeMetrics([{ decision: 'accept', tool: 'Edit', value, ...(start ? { start } : {}) }], 2)))
        .signals;
    const counts = (signals: ReturnType<typeof reading>) =>
      (mapSignals(signals, totals, NOW).facts.get('claude') ?? []).map((f) => (f.kind === 'decision' ? f.count : 0));
    expect(counts(reading(2))).toEqual([2]);
    expect(counts(reading(5))).toEqual([3]);
    expect(counts(reading(5))).toEqual([]);
    // A new start time: the agent restarted, its total began again.
    expect(counts(reading(1, '1763639000000000000'))).toEqual([1]);
    // The totals survive a restart of the receiver (saved and loaded).
    const again = new CumulativeTotals(totals.entries());
    expect(
      (mapSignals(reading(4, '1763639000000000000'), again, NOW).facts.get('claude') ?? []).map((f) =>
        f.kind === 'decision' ? f.count : 0,
      ),
    ).toEqual([3]);
    // Two processes' interleaved totals (the same attributes, their own start times) are two series.
    const first = reading(4, '1763631000000000000');
    const second = reading(2, '1763632000000000000');
    expect([...counts(first), ...counts(second), ...counts(reading(6, '1763631000000000000')), ...counts(second)]).toEqual([4, 2, 2]);
    // The saved totals hold digests, not attribute values.
    expect(JSON.stringify(totals.entries())).not.toMatch(/sess-1|Edit|claude_code/);
  });

  it("puts back a failed request's readings, unless another request moved the series on since", () => {
    const reading = (value: number) =>
      decodeOtlp('metrics', 'json', json(claudeMetrics([{ decision: 'accept', tool: 'Edit', value }], 2))).signals;
    const totals = new CumulativeTotals();
    const count = (value: number) => mapSignals(reading(value), totals, NOW);
    count(5);
    const failed = count(7);
    totals.restore(failed.undo);
    expect(count(7).facts.get('claude')).toEqual([expect.objectContaining({ count: 2 })]);
    const slow = count(9);
    count(10);
    totals.restore(slow.undo);
    expect(count(12).facts.get('claude')).toEqual([expect.objectContaining({ count: 2 })]);
  });

  it('reads totals saved under the former key (no start or resource in it) for the same start', () => {
    const legacy = new CumulativeTotals([
      [
        'claude\0claude_code.code_edit_tool.decision\0[["decision","accept"],["session.id","sess-1"],["source","user_temporary"],["tool_name","Edit"]]',
        { startMs: 1_763_630_000_000, value: 5 },
      ],
    ]);
    const { signals } = decodeOtlp('metrics', 'json', json(claudeMetrics([{ decision: 'accept', tool: 'Edit', value: 7 }], 2)));
    expect(mapSignals(signals, legacy, NOW).facts.get('claude')).toEqual([expect.objectContaining({ count: 2 })]);
    expect(legacy.entries()).toHaveLength(1);
  });

  const logs = (service: string, records: { name: string; attributes: Kv[] }[]) =>
    decodeOtlp(
      'logs',
      'json',
      json({
        resourceLogs: [
          {
            resource: { attributes: [str('service.name', service)] },
            scopeLogs: [{ logRecords: records.map((r) => ({ eventName: r.name, timeUnixNano: T, attributes: r.attributes })) }],
          },
        ],
      }),
    ).signals;

  it("maps Codex's apply_patch decisions and leaves other tools' approvals", () => {
    const signals = logs('codex_cli_rs', [
      {
        name: 'codex.tool_decision',
        attributes: [str('conversation.id', 'c-1'), str('tool_name', 'apply_patch'), str('decision', 'approved')],
      },
      {
        name: 'codex.tool_decision',
        attributes: [str('conversation.id', 'c-1'), str('tool_name', 'apply_patch'), str('decision', 'denied')],
      },
      { name: 'codex.tool_decision', attributes: [str('conversation.id', 'c-1'), str('tool_name', 'shell'), str('decision', 'approved')] },
      { name: 'codex.sse_event', attributes: [str('input_token_count', '10')] },
    ]);
    const result = mapSignals(signals, new CumulativeTotals(), NOW);
    expect((result.facts.get('codex') ?? []).map((f) => (f.kind === 'decision' ? [f.decision, f.tool_name, f.session_id] : []))).toEqual([
      ['accept', 'apply_patch', 'c-1'],
      ['reject', 'apply_patch', 'c-1'],
    ]);
    expect(Object.fromEntries(result.ignored)).toEqual({ 'codex.tool_decision (a tool that proposes no edit)': 1, 'codex.sse_event': 1 });
  });

  it("maps Gemini CLI's and Qwen Code's tool_call decisions without reading the tool's arguments", () => {
    const call = (tool: string, decision: string) => [
      str('session.id', 's-g'),
      str('function_name', tool),
      str('decision', decision),
      str('function_args', '{"content":"SECRET FILE TEXT"}'),
    ];
    const gemini = mapSignals(
      logs('gemini-cli', [
        { name: 'gemini_cli.tool_call', attributes: call('replace', 'accept') },
        { name: 'gemini_cli.tool_call', attributes: call('write_file', 'modify') },
        { name: 'gemini_cli.tool_call', attributes: call('replace', 'reject') },
        { name: 'gemini_cli.tool_call', attributes: call('run_shell_command', 'accept') },
      ]),
      new CumulativeTotals(),
      NOW,
    );
    expect((gemini.facts.get('gemini') ?? []).map((f) => (f.kind === 'decision' ? f.decision : ''))).toEqual([
      'accept',
      'accept',
      'reject',
    ]);
    expect(JSON.stringify([...gemini.facts])).not.toContain('SECRET');
    // Gemini CLI puts session.id on the resource.
    const onResource = decodeOtlp(
      'logs',
      'json',
      json({
        resourceLogs: [
          {
            resource: { attributes: [str('service.name', 'gemini-cli'), str('session.id', 's-res')] },
            scopeLogs: [
              {
                logRecords: [
                  { eventName: 'gemini_cli.tool_call', attributes: [str('function_name', 'replace'), str('decision', 'reject')] },
                ],
              },
            ],
          },
        ],
      }),
    ).signals;
    expect(mapSignals(onResource, new CumulativeTotals(), NOW).facts.get('gemini')).toMatchObject([
      { session_id: 's-res', decision: 'reject' },
    ]);
    const qwen = mapSignals(
      logs('qwen-code', [{ name: 'qwen-code.tool_call', attributes: call('edit', 'reject') }]),
      new CumulativeTotals(),
      NOW,
    );
    expect(qwen.facts.get('qwen')).toEqual([
      { kind: 'decision', session_id: 's-g', ts: T_MS, decision: 'reject', count: 1, tool_name: 'edit' },
    ]);
  });

  it("maps Claude Code's api_request events to usage with the request id, and a signal of no known agent to unmapped", () => {
    const result = mapSignals(
      [
        ...logs('claude-code', [
          {
            name: 'api_request',
            attributes: [
              str('session.id', 'sess-9'),
              str('model', 'claude-sonnet-4-5'),
              str('request_id', 'req_1'),
              int('input_tokens', 100),
              str('output_tokens', '40'),
              int('cache_read_tokens', 1000),
              int('cache_creation_tokens', 7),
            ],
          },
          { name: 'claude_code.user_prompt', attributes: [str('prompt', 'a secret prompt')] },
        ]),
        ...logs('some-other-tool', [{ name: 'thing.happened', attributes: [] }]),
        { kind: 'span', name: 'chat', resource: {}, attributes: {}, timeMs: 0 },
      ],
      new CumulativeTotals(),
      NOW,
    );
    expect(result.facts.get('claude')).toEqual([
      {
        kind: 'usage',
        session_id: 'sess-9',
        ts: T_MS,
        request_id: 'req_1',
        model: 'claude-sonnet-4-5',
        input_tokens: 100,
        output_tokens: 40,
        cache_read_tokens: 1000,
        cache_write_tokens: 7,
      },
    ]);
    expect(Object.fromEntries(result.ignored)).toEqual({ 'claude_code.user_prompt': 1 });
    expect(Object.fromEntries(result.unmapped)).toEqual({ 'thing.happened': 1, span: 1 });
  });
});

describe("GitHub Copilot's signals", () => {
  const T_END = '1763640005000000000'; // 5 s after T
  const logs = (service: string, records: { name: string; attributes: Kv[] }[]) =>
    decodeOtlp(
      'logs',
      'json',
      json({
        resourceLogs: [
          {
            resource: { attributes: [str('service.name', service), str('session.id', 'window-1')] },
            scopeLogs: [{ logRecords: records.map((r) => ({ eventName: r.name, timeUnixNano: T, attributes: r.attributes })) }],
          },
        ],
      }),
    ).signals;
  const spans = (service: string, list: { name: string; attributes: Kv[] }[]) =>
    decodeOtlp(
      'traces',
      'json',
      json({
        resourceSpans: [
          {
            resource: { attributes: [str('service.name', service)] },
            scopeSpans: [
              {
                spans: list.map((sp, i) => ({
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: `b7ad6b716920333${i}`,
                  name: sp.name,
                  startTimeUnixNano: T,
                  endTimeUnixNano: T_END,
                  attributes: sp.attributes,
                })),
              },
            ],
          },
        ],
      }),
    ).signals;
  const usage = (id: string, extra: Kv[] = []) => [
    str('gen_ai.operation.name', 'chat'),
    str('gen_ai.request.model', 'gpt-4.1'),
    str('gen_ai.response.id', id),
    int('gen_ai.usage.input_tokens', 1200),
    int('gen_ai.usage.output_tokens', 300),
    int('gen_ai.usage.cache_read.input_tokens', 200),
    ...extra,
  ];

  it("reads VS Code's inference events and the CLI's chat spans as usage, input without its cached part", () => {
    const result = mapSignals(
      [
        ...logs('copilot-chat', [
          {
            name: 'gen_ai.client.inference.operation.details',
            attributes: usage('chatcmpl-1', [str('gen_ai.response.model', 'gpt-4.1-2025-04-14')]),
          },
          { name: 'copilot_chat.agent.turn', attributes: [int('gen_ai.usage.input_tokens', 1200)] },
          { name: 'copilot_chat.tool.call', attributes: [str('gen_ai.tool.name', 'readFile')] },
        ]),
        ...spans('github-copilot', [
          {
            name: 'chat claude-sonnet-4.5',
            attributes: [
              str('gen_ai.operation.name', 'chat'),
              str('gen_ai.request.model', 'claude-sonnet-4.5'),
              str('gen_ai.response.model', 'claude-sonnet-4.5'),
              str('gen_ai.response.id', 'msg_01'),
              str('gen_ai.conversation.id', 'conv-7'),
              int('gen_ai.usage.input_tokens', 5000),
              int('gen_ai.usage.output_tokens', 100),
              int('gen_ai.usage.cache_read.input_tokens', 4000),
              int('gen_ai.usage.cache_creation.input_tokens', 600),
              int('gen_ai.usage.reasoning.output_tokens', 40),
            ],
          },
          // The agent span sums its turn's calls: never a call of its own.
          {
            name: 'invoke_agent copilot',
            attributes: [str('gen_ai.operation.name', 'invoke_agent'), int('gen_ai.usage.input_tokens', 5000)],
          },
          { name: 'execute_tool view', attributes: [str('gen_ai.operation.name', 'execute_tool')] },
        ]),
      ],
      new CumulativeTotals(),
      NOW,
    );
    expect(result.facts.get('copilot')).toEqual([
      {
        kind: 'usage',
        session_id: 'window-1',
        ts: T_MS,
        request_id: 'chatcmpl-1',
        model: 'gpt-4.1-2025-04-14',
        input_tokens: 1000,
        output_tokens: 300,
        cache_read_tokens: 200,
        cache_write_tokens: 0,
        thinking_tokens: 0,
      },
      {
        kind: 'usage',
        session_id: 'conv-7',
        ts: T_MS + 5000,
        request_id: 'msg_01',
        model: 'claude-sonnet-4.5',
        input_tokens: 1000,
        output_tokens: 100,
        cache_read_tokens: 4000,
        cache_write_tokens: 600,
        thinking_tokens: 40,
      },
    ]);
    expect(Object.fromEntries(result.ignored)).toEqual({ 'copilot_chat.agent.turn': 1, 'copilot_chat.tool.call': 1 });
    expect(Object.fromEntries(result.unmapped)).toEqual({ span: 2 });
    // The requested model when the response names none; a call without its id is not a call we can count once.
    const fallback = mapSignals(
      logs('copilot-chat', [{ name: 'gen_ai.client.inference.operation.details', attributes: usage('c2') }]),
      new CumulativeTotals(),
      NOW,
    );
    expect(fallback.facts.get('copilot')?.[0]).toMatchObject({ model: 'gpt-4.1', input_tokens: 1000 });
    const noId = mapSignals(
      spans('github-copilot', [{ name: 'chat gpt-4.1', attributes: usage('').filter((kv) => kv.key !== 'gen_ai.response.id') }]),
      new CumulativeTotals(),
      NOW,
    );
    expect(noId.facts.size).toBe(0);
    expect(Object.fromEntries(noId.unmapped)).toEqual({ 'chat span (without a request id or model)': 1 });
  });

  it("reads VS Code's edit feedback and inline chat outcomes as decisions, and leaves the hunk-by-hunk repeat", () => {
    const result = mapSignals(
      logs('copilot-chat', [
        { name: 'copilot_chat.edit.feedback', attributes: [str('outcome', 'accepted'), str('language_id', 'typescript')] },
        { name: 'copilot_chat.edit.feedback', attributes: [str('outcome', 'rejected'), str('language_id', 'python')] },
        { name: 'copilot_chat.edit.feedback', attributes: [str('outcome', 'saved')] },
        { name: 'copilot_chat.inline.done', attributes: [{ key: 'accepted', value: { boolValue: true } } as unknown as Kv] },
        { name: 'copilot_chat.edit.hunk.action', attributes: [str('outcome', 'accepted')] },
      ]),
      new CumulativeTotals(),
      NOW,
    );
    expect(result.facts.get('copilot')).toEqual([
      { kind: 'decision', session_id: 'window-1', ts: T_MS, decision: 'accept', count: 1, language: 'typescript' },
      { kind: 'decision', session_id: 'window-1', ts: T_MS, decision: 'reject', count: 1, language: 'python' },
      { kind: 'decision', session_id: 'window-1', ts: T_MS, decision: 'accept', count: 1 },
    ]);
    expect(Object.fromEntries(result.ignored)).toEqual({
      'copilot_chat.edit.feedback (no accept or reject decision)': 1,
      'copilot_chat.edit.hunk.action': 1,
    });
  });
});

describe('parseListen', () => {
  it('takes loopback addresses only', () => {
    expect(parseListen('127.0.0.1:4318')).toEqual({ host: '127.0.0.1', port: 4318 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen('localhost:9999')).toEqual({ host: 'localhost', port: 9999 });
    expect(() => parseListen('0.0.0.0:4318')).toThrow(/loopback/);
    expect(() => parseListen('192.168.1.4:4318')).toThrow(/loopback/);
    expect(() => parseListen('4318')).toThrow(/host:port/);
  });
});
