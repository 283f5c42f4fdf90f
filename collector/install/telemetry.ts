// Turns an agent's own OpenTelemetry export to the collector's receiver on and off (docs/metrics.md §11),
// where the agent allows it, leaving what the user had. Each agent's folder says where its export is
// switched on (its hooks description's `settingsTelemetry` or `telemetryFile`); here are the shapes they
// share: variables in the settings' `env` (Claude Code), an object under one key of the settings (Gemini
// CLI, Qwen Code). A user who already exports somewhere keeps their own: an agent exports to one endpoint.
// What we add is recognized by its exact values, so uninstall removes ours and nothing of the user's.
import { isJsonObject, type SettingsTelemetry } from './locations.ts';

/** The receiver's address as agents are told it (collector/otel/receiver.ts listens there by default). */
export const DEFAULT_OTLP_ENDPOINT = 'http://127.0.0.1:4318';

export type { TelemetryOutcome } from './locations.ts';

/** A settings text the agent's telemetry cannot be added to (the caller says why and stops). */
export class TelemetryConfigError extends Error {}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Telemetry turned on by variables in the settings' `env` object: `ours(endpoint)` are the variables we
 * add; any variable matching `own` means the user exports already (theirs is kept).
 */
export function envTelemetry(ours: (endpoint: string) => Record<string, string>, own: RegExp): SettingsTelemetry {
  return {
    add(root, endpoint) {
      const env = isJsonObject(root['env']) ? root['env'] : {};
      const vars = ours(endpoint);
      if (Object.entries(vars).every(([k, v]) => env[k] === v)) return { root, outcome: 'already' };
      if (Object.keys(env).some((k) => own.test(k))) return { root, outcome: 'kept-yours' };
      // Our keys after the user's, none of theirs replaced.
      return {
        root: { ...root, env: { ...env, ...Object.fromEntries(Object.entries(vars).filter(([k]) => !(k in env))) } },
        outcome: 'added',
      };
    },
    remove(root) {
      const env = root['env'];
      if (!isJsonObject(env)) return { root, outcome: 'none' };
      const endpoint = env['OTEL_EXPORTER_OTLP_ENDPOINT'];
      if (typeof endpoint !== 'string') return { root, outcome: 'none' };
      const vars = ours(endpoint);
      if (!Object.entries(vars).every(([k, v]) => env[k] === v) || !isLoopbackReceiver(endpoint)) return { root, outcome: 'none' };
      const rest = Object.fromEntries(Object.entries(env).filter(([k]) => !(k in vars)));
      const next: Record<string, unknown> = { ...root, env: rest };
      if (Object.keys(rest).length === 0) delete next['env'];
      return { root: next, outcome: 'removed' };
    },
  };
}

/**
 * Telemetry turned on by an object under one key of the settings (`ours(endpoint)`, whose `endpointKey`
 * names the endpoint); any object there is the user's own.
 */
export function objectTelemetry(key: string, ours: (endpoint: string) => Record<string, unknown>, endpointKey: string): SettingsTelemetry {
  return {
    add(root, endpoint) {
      const value = ours(endpoint);
      if (same(root[key], value)) return { root, outcome: 'already' };
      if (root[key] !== undefined) return { root, outcome: 'kept-yours' };
      return { root: { ...root, [key]: value }, outcome: 'added' };
    },
    remove(root) {
      const current = root[key];
      if (!isJsonObject(current) || typeof current[endpointKey] !== 'string') return { root, outcome: 'none' };
      const endpoint = current[endpointKey];
      if (!isLoopbackReceiver(endpoint) || !same(current, ours(endpoint))) return { root, outcome: 'none' };
      const next = { ...root };
      delete next[key];
      return { root: next, outcome: 'removed' };
    },
  };
}

/** Pure: whether an endpoint is a loopback receiver (ours is never anywhere else). */
export function isLoopbackReceiver(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
  } catch {
    return false;
  }
}
