// Claude Code's OpenTelemetry export, switched on by `env` in its settings.json (its monitoring docs:
// CLAUDE_CODE_ENABLE_TELEMETRY and the OTEL_* variables).
import { envTelemetry } from '../../install/telemetry.ts';

/** Pure: the `env` Claude Code gets (http/protobuf to the receiver; delta counters, which need no totals). */
export function claudeTelemetryEnv(endpoint: string): Record<string, string> {
  return {
    CLAUDE_CODE_ENABLE_TELEMETRY: '1',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
  };
}

/** Claude Code's variables that mean the user has telemetry of their own. */
const CLAUDE_OWN = /^(CLAUDE_CODE_ENABLE_TELEMETRY|OTEL_(METRICS|LOGS|TRACES)_EXPORTER|OTEL_EXPORTER_OTLP_.*ENDPOINT)$/;

export const CLAUDE_TELEMETRY = envTelemetry(claudeTelemetryEnv, CLAUDE_OWN);
