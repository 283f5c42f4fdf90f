// POST /v1/metrics, /v1/logs, /v1/traces on the server (docs/metrics.md §11): OTLP/HTTP for agents that run
// where no collector is (CI jobs, cloud sandboxes), behind a collector key. Their paths are OTLP's own, so
// that an exporter given the server's address as OTEL_EXPORTER_OTLP_ENDPOINT finds them.
import { z } from 'zod';
import { OTLP_SIGNALS, type OtlpSignal } from '../../common/otel/otlp.ts';

export const otlpPath = (signal: OtlpSignal) => `/v1/${signal}` as const;
export { OTLP_SIGNALS };

/** The most a request body may be as sent, and once unzipped (413 past either). */
export const MAX_OTLP_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_OTLP_INFLATED_BYTES = 16 * 1024 * 1024;

/** The OTLP request in protobuf: bytes, documented as such. */
export const ProtobufBody = {
  type: 'string',
  format: 'binary',
  description: 'An OTLP Export*ServiceRequest in protobuf (opentelemetry-proto); Content-Encoding: gzip is accepted.',
};
/** The OTLP request in JSON (OTLP/JSON): checked by the decoder, documented loosely here. */
export const JsonBody = {
  type: 'object',
  description: 'An OTLP Export*ServiceRequest in OTLP/JSON (resourceMetrics, resourceLogs or resourceSpans).',
};

/** OTLP's Export*ServiceResponse in JSON: empty on full success, `partialSuccess` when some were refused. */
export const OtlpJsonAnswer = z.strictObject({
  partialSuccess: z
    .strictObject({
      rejectedDataPoints: z.number().int().optional(),
      rejectedLogRecords: z.number().int().optional(),
      rejectedSpans: z.number().int().optional(),
      errorMessage: z.string(),
    })
    .optional(),
});
export type OtlpJsonAnswer = z.infer<typeof OtlpJsonAnswer>;
