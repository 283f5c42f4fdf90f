// Qwen Code's OpenTelemetry export, switched on by the `telemetry` object of its settings.json, as in the
// Gemini CLI it was forked from.
import { objectTelemetry } from '../../install/telemetry.ts';

/** Pure: Qwen Code's `telemetry` (OTLP over HTTP to the receiver, prompts never logged). */
export function qwenTelemetry(endpoint: string): Record<string, unknown> {
  return { enabled: true, target: 'local', otlpEndpoint: endpoint, otlpProtocol: 'http', logPrompts: false };
}

export const QWEN_TELEMETRY = objectTelemetry('telemetry', qwenTelemetry, 'otlpEndpoint');
