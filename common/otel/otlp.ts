// OTLP request bodies (/v1/metrics, /v1/logs, /v1/traces; protobuf or JSON) → flat signals: each metric data
// point, log record and span with its resource's attributes. Protobuf is decoded with the generated types of
// @opentelemetry/otlp-transformer and turned into the OTLP/JSON shape, so one zod schema checks both
// encodings. Only names, attributes of scalar values, numbers and times come out: a log record's body and
// any array or map attribute are never read (prompts and tool arguments stay out of every signal).
import generated from '@opentelemetry/otlp-transformer/build/src/generated/root.js';
import { z } from 'zod';
import { describeZodError } from '../wire.ts';

export const OTLP_SIGNALS = ['metrics', 'logs', 'traces'] as const;
export type OtlpSignal = (typeof OTLP_SIGNALS)[number];

/** Scalar attribute values; arrays, maps and bytes are left out. */
export type Attributes = Record<string, string | number | boolean>;

export interface MetricPoint {
  kind: 'metric';
  name: string;
  resource: Attributes;
  attributes: Attributes;
  value: number;
  /** Cumulative temporality: the value is a running total since startNs (deltas are computed by the receiver). */
  cumulative: boolean;
  /** Start and point time, in ms since the epoch (0 when absent). */
  startMs: number;
  timeMs: number;
}

export interface LogEvent {
  kind: 'log';
  /** The event's name: the record's event_name, else its `event.name` attribute (its body is never read). */
  name: string;
  resource: Attributes;
  attributes: Attributes;
  timeMs: number;
}

export interface SpanSignal {
  kind: 'span';
  name: string;
  resource: Attributes;
  /** Scalar attributes only (a chat span's model and token counts; never its messages, which are arrays or opt-in text). */
  attributes: Attributes;
  /** End time, in ms since the epoch (0 when absent). */
  timeMs: number;
}

export type Signal = MetricPoint | LogEvent | SpanSignal;

// ------------------------------------------------------------------------------------------- schema (JSON)

/** int64 and fixed64 in OTLP/JSON are decimal strings (numbers are accepted too). */
const int64 = z.union([z.string().regex(/^-?\d{1,20}$/), z.number().int()]);
const AnyValue = z.looseObject({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: int64.optional(),
  doubleValue: z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]).optional(),
});
const KeyValue = z.looseObject({ key: z.string(), value: AnyValue.nullish() });
const attributesOf = z.array(KeyValue).nullish();
const Resource = z.looseObject({ attributes: attributesOf }).nullish();

const NumberDataPoint = z.looseObject({
  attributes: attributesOf,
  startTimeUnixNano: int64.nullish(),
  timeUnixNano: int64.nullish(),
  asDouble: z.union([z.number(), z.string()]).nullish(),
  asInt: int64.nullish(),
});
/** AGGREGATION_TEMPORALITY_CUMULATIVE; enums arrive as numbers (or, from some JSON encoders, names). */
const temporality = z.union([z.number().int(), z.string()]).nullish();
const Metric = z.looseObject({
  name: z.string(),
  gauge: z.looseObject({ dataPoints: z.array(NumberDataPoint).nullish() }).nullish(),
  sum: z
    .looseObject({
      dataPoints: z.array(NumberDataPoint).nullish(),
      aggregationTemporality: temporality,
      isMonotonic: z.boolean().nullish(),
    })
    .nullish(),
  histogram: z.looseObject({ dataPoints: z.array(z.unknown()).nullish() }).nullish(),
  exponentialHistogram: z.looseObject({ dataPoints: z.array(z.unknown()).nullish() }).nullish(),
  summary: z.looseObject({ dataPoints: z.array(z.unknown()).nullish() }).nullish(),
});
const MetricsRequest = z.looseObject({
  resourceMetrics: z
    .array(z.looseObject({ resource: Resource, scopeMetrics: z.array(z.looseObject({ metrics: z.array(Metric).nullish() })).nullish() }))
    .nullish(),
});
const LogRecord = z.looseObject({
  timeUnixNano: int64.nullish(),
  observedTimeUnixNano: int64.nullish(),
  eventName: z.string().nullish(),
  attributes: attributesOf,
});
const LogsRequest = z.looseObject({
  resourceLogs: z
    .array(z.looseObject({ resource: Resource, scopeLogs: z.array(z.looseObject({ logRecords: z.array(LogRecord).nullish() })).nullish() }))
    .nullish(),
});
const Span = z.looseObject({ name: z.string().nullish(), attributes: attributesOf, endTimeUnixNano: int64.nullish() });
const TracesRequest = z.looseObject({
  resourceSpans: z
    .array(z.looseObject({ resource: Resource, scopeSpans: z.array(z.looseObject({ spans: z.array(Span).nullish() })).nullish() }))
    .nullish(),
});

// ------------------------------------------------------------------------------------------- protobuf

interface ProtoType {
  decode(bytes: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
interface ProtoRoot {
  opentelemetry: { proto: { collector: Record<string, { v1: Record<string, ProtoType> }> } };
}

/** The .proto package of each signal's request (opentelemetry.proto.collector.<package>.v1): traces' is `trace`. */
const PROTO_PACKAGE: Record<OtlpSignal, string> = { metrics: 'metrics', logs: 'logs', traces: 'trace' };

/**
 * The generated types, imported statically so the laptop bundle carries them (its one file has no
 * node_modules beside it); the collector loads this module only with its receiver (collect's dynamic import).
 */
const protoRoot = (): ProtoRoot => generated as unknown as ProtoRoot;

const REQUEST_TYPE: Record<OtlpSignal, string> = {
  metrics: 'ExportMetricsServiceRequest',
  logs: 'ExportLogsServiceRequest',
  traces: 'ExportTraceServiceRequest',
};

const RESPONSE_TYPE: Record<OtlpSignal, string> = {
  metrics: 'ExportMetricsServiceResponse',
  logs: 'ExportLogsServiceResponse',
  traces: 'ExportTraceServiceResponse',
};
/** What each signal's partial success counts: data points, log records, spans. */
const REJECTED_FIELD: Record<OtlpSignal, string> = {
  metrics: 'rejectedDataPoints',
  logs: 'rejectedLogRecords',
  traces: 'rejectedSpans',
};

/** An Export*ServiceResponse in OTLP/JSON: `{}` on full success, else its partial success. */
export interface OtlpJsonResponse {
  partialSuccess?: { rejectedDataPoints?: number; rejectedLogRecords?: number; rejectedSpans?: number; errorMessage: string };
}

/** The longest `error_message` an answer carries: a line an exporter logs, not a copy of what it sent. */
export const MAX_ERROR_MESSAGE = 1000;

/** Pure: `message` cut to MAX_ERROR_MESSAGE characters, ending in "…" when cut. */
export const boundMessage = (message: string): string =>
  message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE - 1)}…` : message;

/**
 * Pure: the answer to an OTLP/HTTP export (a 200), in the request's encoding: an empty Export*ServiceResponse
 * when all was taken; its `partial_success` with how many data points, log records or spans were refused
 * and why (at most MAX_ERROR_MESSAGE characters) when some were (the OTLP specification's "Partial Success").
 */
export function exportResponse(
  signal: OtlpSignal,
  encoding: 'protobuf' | 'json',
  rejected: number,
  errorMessage: string,
): { type: string; body: Buffer; json: OtlpJsonResponse } {
  const json: OtlpJsonResponse =
    rejected > 0 ? { partialSuccess: { [REJECTED_FIELD[signal]]: rejected, errorMessage: boundMessage(errorMessage) } } : {};
  if (encoding === 'json') return { type: 'application/json', body: Buffer.from(JSON.stringify(json)), json };
  const type = protoRoot().opentelemetry.proto.collector[PROTO_PACKAGE[signal]]!.v1[RESPONSE_TYPE[signal]]!;
  return { type: 'application/x-protobuf', body: Buffer.from(type.encode(json).finish()), json };
}

/** Pure: an unsigned varint, as protobuf writes one. */
function varint(n: number): number[] {
  const bytes: number[] = [];
  let rest = n >>> 0;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

/**
 * Pure: the google.rpc.Code of a refusal's HTTP status, for Status.code (an enum of gRPC's codes, never an
 * HTTP status). OTLP/HTTP's clients go by the HTTP status and may only record this one; it follows
 * google.rpc's HTTP mapping (400 INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404
 * NOT_FOUND, 429 RESOURCE_EXHAUSTED, 501 UNIMPLEMENTED, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED). Where that
 * mapping names no code: a body too large is RESOURCE_EXHAUSTED (gRPC's own code for a message over its
 * limit), a body that arrived too slowly DEADLINE_EXCEEDED, an unserved method UNIMPLEMENTED, an encoding
 * the receiver does not read INVALID_ARGUMENT; any other 4xx FAILED_PRECONDITION, any other 5xx INTERNAL.
 */
export function rpcCode(httpStatus: number): number {
  const known: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 405: 12, 408: 4, 409: 10, 413: 8, 415: 3, 429: 8 };
  const server: Record<number, number> = { 501: 12, 503: 14, 504: 4 };
  return known[httpStatus] ?? server[httpStatus] ?? (httpStatus < 500 ? 9 : 13);
}

/**
 * Pure: a google.rpc.Status (code = 1, message = 2) in protobuf, the body OTLP/HTTP gives a failed protobuf
 * request (its JSON twin is `{code, message}`), for a refusal of this HTTP status (`code` is its
 * google.rpc.Code: rpcCode). Written by hand: the OTLP types carry no google.rpc.
 */
export function statusProtobuf(httpStatus: number, message: string): Buffer {
  const code = rpcCode(httpStatus);
  const text = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from([0x08, ...varint(code), 0x12, ...varint(text.length)]), text]);
}

export class OtlpDecodeError extends Error {}

/**
 * Protobuf bytes → the decoded request: OTLP/JSON's field names, int64 as Long, unset fields null. The
 * decoder checked every field's type, so it needs no second check (flatten reads it as the JSON shape).
 */
function fromProtobuf(signal: OtlpSignal, body: Uint8Array): unknown {
  const type = protoRoot().opentelemetry.proto.collector[PROTO_PACKAGE[signal]]!.v1[REQUEST_TYPE[signal]]!;
  try {
    return type.decode(body);
  } catch (error) {
    throw new OtlpDecodeError(`not an OTLP ${signal} protobuf message (${(error as Error).message.slice(0, 120)})`);
  }
}

function fromJson(signal: OtlpSignal, body: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new OtlpDecodeError(`not an OTLP ${signal} JSON message (the body is not JSON)`);
  }
}

// ------------------------------------------------------------------------------------------- flattening

/** An int64 as protobufjs decodes it (a Long of the `long` package). */
interface LongLike {
  toNumber(): number;
}
type Int64 = string | number | LongLike;
const isLong = (value: unknown): value is LongLike =>
  typeof value === 'object' && value !== null && typeof (value as LongLike).toNumber === 'function';

/** Pure: an int64 (decimal string, number or Long) as a number (exact below 2^53). */
export function int64ToNumber(value: Int64): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  return value.toNumber();
}

/** Pure: nanoseconds (a decimal string, number or Long) → whole milliseconds; 0 when absent. */
export function nanosToMs(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length > 6 ? Number(value.slice(0, -6)) : 0;
  return Math.trunc(int64ToNumber(value) / 1e6);
}

/** Pure: the scalar attributes of an OTLP attribute list (later keys win, as in the SDKs). */
export function scalarAttributes(list: z.infer<typeof attributesOf>): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) {
    if (!value) continue;
    // Decoded protobuf leaves unset fields null, JSON absent: only a value of the field's type counts.
    const int = value.intValue as Int64 | null | undefined;
    if (typeof value.stringValue === 'string') out[key] = value.stringValue;
    else if (typeof int === 'string' || typeof int === 'number' || isLong(int)) out[key] = int64ToNumber(int);
    else if (typeof value.doubleValue === 'number') out[key] = value.doubleValue;
    else if (typeof value.boolValue === 'boolean') out[key] = value.boolValue;
  }
  return out;
}

const CUMULATIVE = new Set<number | string>([2, 'AGGREGATION_TEMPORALITY_CUMULATIVE']);

function pointValue(point: z.infer<typeof NumberDataPoint>): number | undefined {
  const int = point.asInt as Int64 | null | undefined;
  if (typeof int === 'string' || typeof int === 'number' || isLong(int)) return int64ToNumber(int);
  if (typeof point.asDouble === 'number') return point.asDouble;
  return undefined;
}

/** What a request held: its signals, and the data points or records that carry nothing we read. */
export interface DecodedRequest {
  signals: Signal[];
  /** Histogram, summary and exponential-histogram points, by metric name: never mapped. */
  unreadable: Map<string, number>;
}

function count(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

function flatten(signal: OtlpSignal, request: unknown, decoded: boolean): DecodedRequest {
  const signals: Signal[] = [];
  const unreadable = new Map<string, number>();
  const check = <T>(schema: z.ZodType<T>): T => {
    // A decoded protobuf message has the schema's shape by construction (its types are the .proto's).
    if (decoded) return request as T;
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw new OtlpDecodeError(`not an OTLP ${signal} request: ${describeZodError(parsed.error)}`);
    return parsed.data;
  };
  if (signal === 'metrics') {
    for (const rm of check(MetricsRequest).resourceMetrics ?? []) {
      const resource = scalarAttributes(rm.resource?.attributes);
      for (const sm of rm.scopeMetrics ?? [])
        for (const metric of sm.metrics ?? []) {
          const numeric = metric.sum ?? metric.gauge;
          if (!numeric) {
            const other = metric.histogram ?? metric.exponentialHistogram ?? metric.summary;
            count(unreadable, metric.name, other?.dataPoints?.length ?? 1);
            continue;
          }
          const cumulative = metric.sum ? CUMULATIVE.has(metric.sum.aggregationTemporality ?? 0) : false;
          if (!metric.name) {
            count(unreadable, '(unnamed)', numeric.dataPoints?.length ?? 1);
            continue;
          }
          for (const point of numeric.dataPoints ?? []) {
            const value = pointValue(point);
            if (value === undefined || !Number.isFinite(value)) {
              count(unreadable, metric.name);
              continue;
            }
            signals.push({
              kind: 'metric',
              name: metric.name,
              resource,
              attributes: scalarAttributes(point.attributes),
              value,
              cumulative,
              startMs: nanosToMs(point.startTimeUnixNano),
              timeMs: nanosToMs(point.timeUnixNano),
            });
          }
        }
    }
  } else if (signal === 'logs') {
    for (const rl of check(LogsRequest).resourceLogs ?? []) {
      const resource = scalarAttributes(rl.resource?.attributes);
      for (const sl of rl.scopeLogs ?? [])
        for (const record of sl.logRecords ?? []) {
          const attributes = scalarAttributes(record.attributes);
          const named = attributes['event.name'];
          const name = record.eventName || (typeof named === 'string' ? named : '');
          signals.push({
            kind: 'log',
            name,
            resource,
            attributes,
            timeMs: nanosToMs(record.timeUnixNano) || nanosToMs(record.observedTimeUnixNano),
          });
        }
    }
  } else {
    for (const rs of check(TracesRequest).resourceSpans ?? []) {
      const resource = scalarAttributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? [])
        for (const span of ss.spans ?? [])
          signals.push({
            kind: 'span',
            name: span.name ?? '',
            resource,
            attributes: scalarAttributes(span.attributes),
            timeMs: nanosToMs(span.endTimeUnixNano),
          });
    }
  }
  return { signals, unreadable };
}

/** The encodings OTLP/HTTP allows, by the request's Content-Type (parameters ignored). */
export function encodingOf(contentType: string | undefined): 'protobuf' | 'json' | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** An OTLP/HTTP request body → its signals. Throws OtlpDecodeError for a body that is not one. */
export function decodeOtlp(signal: OtlpSignal, encoding: 'protobuf' | 'json', body: Uint8Array): DecodedRequest {
  return encoding === 'protobuf' ? flatten(signal, fromProtobuf(signal, body), true) : flatten(signal, fromJson(signal, body), false);
}
