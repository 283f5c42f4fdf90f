// Copilot's OpenTelemetry export to the collector's receiver (docs/metrics.md §11). VS Code's Copilot agent
// reads `github.copilot.chat.otel.*` from VS Code's user settings (microsoft/vscode-copilot-chat
// docs/monitoring/agent_monitoring.md: enabled, exporterType, otlpEndpoint): the installer adds those three
// to the settings file, as a block of its own right after the opening brace, so the user's formatting stays
// and uninstall takes out exactly that text. A settings file with comments (VS Code allows them) is not
// rewritten; neither is one that sets any github.copilot.chat.otel key of the user's. Copilot CLI reads its
// export from its environment only (COPILOT_OTEL_ENABLED, OTEL_EXPORTER_OTLP_ENDPOINT): the installer says
// what to set (COPILOT_OTEL_HINT), it cannot set it.
import { join } from 'node:path';
import type { TelemetryFile, TelemetryOutcome } from '../../install/locations.ts';

const PREFIX = 'github.copilot.chat.otel.';

/** VS Code's user settings file (code.visualstudio.com/docs/configure/settings, "Settings file locations"). */
export function vscodeSettingsFile(home: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Code', 'User', 'settings.json');
  return join(home, '.config', 'Code', 'User', 'settings.json');
}

/** Pure: our block of settings, as inserted after the settings object's opening brace. */
export function vscodeOtelBlock(endpoint: string): string {
  return [
    `\n    "${PREFIX}enabled": true,`,
    `\n    "${PREFIX}exporterType": "otlp-http",`,
    `\n    "${PREFIX}otlpEndpoint": ${JSON.stringify(endpoint)}`,
  ].join('');
}

const isLoopback = (endpoint: string) => /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/.test(endpoint);

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    return json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Pure: VS Code's settings text with our export, unless VS Code has no settings file, it has comments, or the user set their own. */
export function withVsCodeOtel(text: string, endpoint: string): { text: string; outcome: TelemetryOutcome } {
  if (text.trim() === '') return { text, outcome: 'unsupported' };
  const root = parse(text);
  if (!root) return { text, outcome: 'unsupported' };
  const theirs = Object.keys(root).filter((k) => k.startsWith(PREFIX));
  if (theirs.length) {
    const ours = theirs.length === 3 && root[`${PREFIX}enabled`] === true && root[`${PREFIX}otlpEndpoint`] === endpoint;
    return { text, outcome: ours ? 'already' : 'kept-yours' };
  }
  const open = text.indexOf('{');
  const rest = text.slice(open + 1);
  const next = `${text.slice(0, open + 1)}${vscodeOtelBlock(endpoint)}${Object.keys(root).length ? ',' : '\n'}${rest}`;
  // What we insert must leave the file valid JSON with exactly our three keys added.
  const check = parse(next);
  if (!check || Object.keys(check).length !== Object.keys(root).length + 3) return { text, outcome: 'unsupported' };
  return { text: next, outcome: 'added' };
}

/** Pure: VS Code's settings text without our block (exactly as it was before we inserted it). */
export function withoutVsCodeOtel(text: string): { text: string; outcome: TelemetryOutcome } {
  const match =
    /\n {4}"github\.copilot\.chat\.otel\.enabled": true,\n {4}"github\.copilot\.chat\.otel\.exporterType": "otlp-http",\n {4}"github\.copilot\.chat\.otel\.otlpEndpoint": ("[^"\n]*")(,|\n)/.exec(
      text,
    );
  if (!match || !isLoopback(JSON.parse(match[1]!) as string)) return { text, outcome: 'none' };
  const end = match.index + match[0].length - (match[2] === '\n' ? 1 : 0);
  const next = text.slice(0, match.index) + text.slice(match[2] === '\n' ? end + 1 : end);
  return { text: next, outcome: 'removed' };
}

export const COPILOT_TELEMETRY: TelemetryFile = {
  file: (home) => vscodeSettingsFile(home),
  add: withVsCodeOtel,
  remove: withoutVsCodeOtel,
};

export const COPILOT_OTEL_HINT =
  "Copilot CLI sends its token usage to the collector when started with COPILOT_OTEL_ENABLED=true and OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 in its environment (add both to your shell's profile); VS Code's Copilot agent reads the github.copilot.chat.otel settings";
