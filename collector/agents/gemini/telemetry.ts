// Gemini CLI's OpenTelemetry export, switched on by the `telemetry` object of its settings.json.
import { objectTelemetry } from '../../install/telemetry.ts';

/** Pure: Gemini CLI's `telemetry` (OTLP over HTTP to the receiver, prompts never logged). */
export function geminiTelemetry(endpoint: string): Record<string, unknown> {
  return { enabled: true, target: 'local', otlpEndpoint: endpoint, otlpProtocol: 'http', logPrompts: false };
}

export const GEMINI_TELEMETRY = objectTelemetry('telemetry', geminiTelemetry, 'otlpEndpoint');
