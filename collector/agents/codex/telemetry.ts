// Codex CLI's OpenTelemetry export: an `[otel]` table appended to its config.toml (its hooks are in
// hooks.json), between our marker lines, so uninstall takes out exactly what was appended.
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { TelemetryFile, TelemetryOutcome } from '../../install/locations.ts';
import { TelemetryConfigError } from '../../install/telemetry.ts';
import { codexHome } from './paths.ts';

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

export const CODEX_TELEMETRY: TelemetryFile = { file: codexConfigPath, add: withCodexOtel, remove: withoutCodexOtel };
