// GET /metrics: where Prometheus scrapes the server, and what it answers (text, so no zod schema).
export const METRICS_PATH = '/metrics';

/** The Prometheus text exposition format, as the document describes the answer. */
export const MetricsText = {
  contentType: 'text/plain; version=0.0.4',
  description: 'Prometheus exposition format',
  schema: { type: 'string' },
};
