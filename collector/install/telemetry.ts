// Turns on each agent's own OpenTelemetry export to the collector's receiver (docs/metrics.md §11), where the
// agent allows it, and takes it out again, leaving what the user had:
// - Claude Code: `env` in its settings.json (CLAUDE_CODE_ENABLE_TELEMETRY, OTEL_* of the monitoring docs);
// - Gemini CLI and Qwen Code: the `telemetry` object of their settings.json;
// - Codex CLI: an `[otel]` table appended to its config.toml (its hooks are in hooks.json).
// A user who already exports somewhere (any of those set) keeps their own: an agent exports to one endpoint.
// What we add is recognized by its exact values, so uninstall removes ours and nothing of the user's.
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { Agent } from '../../common/agents.ts';
import { isJsonObject, type TelemetryOutcome } from './locations.ts';
import { codexHome } from './settings.ts';

/** The receiver's address as agents are told it (collector/otel/receiver.ts listens there by default). */
export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318';

export type { TelemetryOutcome } from './locations.ts';

/** A settings text the agent's telemetry cannot be added to (the caller says why and stops). */
export class TelemetryConfigError extends Error {}

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

/** Pure: Gemini CLI's and Qwen Code's `telemetry` (OTLP over HTTP to the receiver, prompts never logged). */
export function geminiTelemetry(endpoint: string): Record<string, unknown> {
  return { enabled: true, target: 'local', otlpEndpoint: endpoint, otlpProtocol: 'http', logPrompts: false };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Pure: a JSON settings root with our telemetry, or as it is when the user has theirs (or it is ours already). */
export function withOurTelemetry(
  agent: Agent,
  root: Record<string, unknown>,
  endpoint: string,
): { root: Record<string, unknown>; outcome: TelemetryOutcome } {
  if (agent === 'claude') {
    const env = isJsonObject(root['env']) ? root['env'] : {};
    const ours = claudeTelemetryEnv(endpoint);
    if (Object.entries(ours).every(([k, v]) => env[k] === v)) return { root, outcome: 'already' };
    if (Object.keys(env).some((k) => CLAUDE_OWN.test(k))) return { root, outcome: 'kept-yours' };
    // Our keys after the user's, none of theirs replaced.
    return {
      root: { ...root, env: { ...env, ...Object.fromEntries(Object.entries(ours).filter(([k]) => !(k in env))) } },
      outcome: 'added',
    };
  }
  if (agent === 'gemini' || agent === 'qwen') {
    const ours = geminiTelemetry(endpoint);
    if (same(root['telemetry'], ours)) return { root, outcome: 'already' };
    if (root['telemetry'] !== undefined) return { root, outcome: 'kept-yours' };
    return { root: { ...root, telemetry: ours }, outcome: 'added' };
  }
  return { root, outcome: 'unsupported' };
}

/** Pure: a JSON settings root without our telemetry (what withOurTelemetry added, recognized by its values). */
export function withoutOurTelemetry(
  agent: Agent,
  root: Record<string, unknown>,
): { root: Record<string, unknown>; outcome: TelemetryOutcome } {
  if (agent === 'claude') {
    const env = root['env'];
    if (!isJsonObject(env)) return { root, outcome: 'none' };
    const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
    if (typeof endpoint !== 'string') return { root, outcome: 'none' };
    const ours = claudeTelemetryEnv(endpoint);
    if (!Object.entries(ours).every(([k, v]) => env[k] === v) || !isLoopbackReceiver(endpoint)) return { root, outcome: 'none' };
    const rest = Object.fromEntries(Object.entries(env).filter(([k]) => !(k in ours)));
    const next: Record<string, unknown> = { ...root, env: rest };
    if (Object.keys(rest).length === 0) delete next['env'];
    return { root: next, outcome: 'removed' };
  }
  if (agent === 'gemini' || agent === 'qwen') {
    const telemetry = root['telemetry'];
    if (!isJsonObject(telemetry) || typeof telemetry['otlpEndpoint'] !== 'string') return { root, outcome: 'none' };
    if (!isLoopbackReceiver(telemetry['otlpEndpoint']) || !same(telemetry, geminiTelemetry(telemetry['otlpEndpoint'])))
      return { root, outcome: 'none' };
    const next = { ...root };
    delete next['telemetry'];
    return { root: next, outcome: 'removed' };
  }
  return { root, outcome: 'unsupported' };
}

/** Pure: whether an endpoint is a loopback receiver (ours is never anywhere else). */
function isLoopbackReceiver(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------------ Codex

const CODEX_BEGIN = '# agentmeter: Codex OpenTelemetry to the local agentmeter collector (`agentmeter hooks uninstall` removes it)';
const CODEX_END = '# end agentmeter';

/** Pure: the `[otel]` block appended to Codex's config.toml: its log events (codex.tool_decision) to the receiver. */
export function codexOtelBlock(endpoint: string): string {
  return [
    CODEX_BEGIN,
    '[otel]',
    'log_user_prompt = false',
    `exporter = { otlp-http = { endpoint = ${JSON.stringify(`${endpoint}/v1/logs`)}, protocol = "binary" } }`,
    CODEX_END,
    '',
  ].join('\n');
}

/** Pure: config.toml's text with our block, unless it has an `[otel]` of its own (kept) or ours already. */
export function withCodexOtel(text: string, endpoint: string): { text: string; outcome: TelemetryOutcome } {
  if (text.includes(CODEX_BEGIN)) return { text, outcome: 'already' };
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new TelemetryConfigError(
      `Codex's config.toml is not valid TOML (${(error as Error).message.split('\n')[0]}); fix it and run this again`,
    );
  }
  if (parsed['otel'] !== undefined) return { text, outcome: 'kept-yours' };
  const sep = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  const next = `${text}${sep}${codexOtelBlock(endpoint)}`;
  // What we append must leave the file valid (a table after the user's keys is always a new table).
  parseToml(next);
  return { text: next, outcome: 'added' };
}

/** Pure: config.toml's text without our block (exactly as it was before we appended it). */
export function withoutCodexOtel(text: string): { text: string; outcome: TelemetryOutcome } {
  const start = text.indexOf(CODEX_BEGIN);
  if (start < 0) return { text, outcome: 'none' };
  const endMark = text.indexOf(CODEX_END, start);
  if (endMark < 0) return { text, outcome: 'none' };
  let end = endMark + CODEX_END.length;
  if (text[end] === '\n') end++;
  let before = text.slice(0, start);
  // The blank line we put before the block goes with it.
  if (before.endsWith('\n\n')) before = before.slice(0, -1);
  return { text: before + text.slice(end), outcome: 'removed' };
}

export const codexConfigPath = (home: string) => join(codexHome(home), 'config.toml');
