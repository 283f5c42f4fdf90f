// Whether Codex CLI will run our hooks. Codex runs a hook that is not managed only after the user trusted
// it: `[hooks.state."<key>"] trusted_hash = "sha256:…"` in $CODEX_HOME/config.toml, written by Codex itself
// when the user trusts the hook in the `/hooks` review of the interactive CLI (codex-rs/config/src/hook_edit.rs,
// codex-rs/hooks/src/engine/discovery.rs). The key is positional: `<hooks.json path>:<event label>:<group
// index>:<handler index>`. The hash is Codex's own digest of the normalized hook, which changes with Codex's
// internal types, so we never compute or write it: we only read whether a trust entry exists for the key of
// each of our hooks, and never rewrite the user's config.toml.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import type { HookTrust } from '../../install/locations.ts';
import type { HooksMap } from '../../install/settings.ts';
import { codexHome, codexHomeAsCodexNamesIt } from './paths.ts';

export type CodexTrustState = 'trusted' | 'untrusted' | 'disabled';

export interface CodexTrust {
  /** Each of our hooks by event: trusted (a trust entry exists), untrusted, or disabled by the user. */
  byEvent: Record<string, CodexTrustState>;
  /** config.toml could not be read as TOML: nothing can be said about trust. */
  problem?: string;
}

/** How a user trusts the hooks; printed by `hooks install` and `hooks status`. */
export const CODEX_TRUST_HINT =
  'Codex runs new or changed hooks only after you trust them: start `codex`, type /hooks, review the agentmeter hooks and trust them (or run once with --dangerously-bypass-hook-trust where you have checked the hooks).';

/** Pure: Codex's label for an event in hook keys (snake case: PreToolUse → pre_tool_use). */
export function codexEventLabel(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Pure: the trust key of every hook of ours in the map, by event (the first of ours per event). */
export function codexHookKeys(hooksFile: string, hooks: HooksMap, isOurs: (command: string | undefined) => boolean): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [event, groups] of Object.entries(hooks)) {
    groups.forEach((group, groupIndex) => {
      group.hooks.forEach((hook, handlerIndex) => {
        if (!keys.has(event) && hook.type === 'command' && isOurs(hook.command)) {
          keys.set(event, `${hooksFile}:${codexEventLabel(event)}:${groupIndex}:${handlerIndex}`);
        }
      });
    });
  }
  return keys;
}

/** Pure: the trust state of each key from config.toml's parsed `hooks.state` table. */
export function trustStates(keys: Map<string, string>, state: unknown): Record<string, CodexTrustState> {
  const table = state && typeof state === 'object' ? (state as Record<string, unknown>) : {};
  const out: Record<string, CodexTrustState> = {};
  for (const [event, key] of keys) {
    const entry = Object.hasOwn(table, key) ? (table[key] as Record<string, unknown> | undefined) : undefined;
    if (entry?.['enabled'] === false) out[event] = 'disabled';
    else out[event] = typeof entry?.['trusted_hash'] === 'string' && entry['trusted_hash'] !== '' ? 'trusted' : 'untrusted';
  }
  return out;
}

/** Reads $CODEX_HOME/config.toml (absent: nothing is trusted yet) and says which of our hooks Codex runs. */
export function codexTrust(codexHomeDir: string, keys: Map<string, string>): CodexTrust {
  let text: string;
  try {
    text = readFileSync(join(codexHomeDir, 'config.toml'), 'utf8');
  } catch {
    return { byEvent: trustStates(keys, {}) };
  }
  try {
    const config = parse(text) as { hooks?: { state?: unknown } };
    return { byEvent: trustStates(keys, config.hooks?.state) };
  } catch (error) {
    return {
      byEvent: trustStates(keys, {}),
      problem: `${join(codexHomeDir, 'config.toml')} is not valid TOML (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

/**
 * Whether Codex will run our hooks of one settings file: the user hooks.json is named by the canonical
 * CODEX_HOME in trust keys, a project file as given.
 */
export function codexHookTrust(home: string, file: string, hooks: HooksMap, isOurs: (command: string | undefined) => boolean): HookTrust {
  const userFile = join(codexHome(home), 'hooks.json');
  const keyFile = file === userFile ? join(codexHomeAsCodexNamesIt(home), 'hooks.json') : file;
  const trust = codexTrust(codexHome(home), codexHookKeys(keyFile, hooks, isOurs));
  return { byEvent: trust.byEvent, hint: CODEX_TRUST_HINT, ...(trust.problem ? { problem: trust.problem } : {}) };
}
