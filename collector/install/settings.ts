// How hook configuration is shaped, and each agent's, read from its own description in its folder
// (collector/agents/<agent>/hooks.ts, through the agent table): nothing here names an agent. Used by the
// installer (to add and remove our hook), the doctor, and the collector (which hooks ran for an event).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { AGENTS, type Agent } from '../../common/agents.ts';
import { AGENT_HOOKS } from '../agents/hooks-table.ts';
import { readRegularFile } from '../regular-file.ts';
import type { AgentHooks, HookTrust, ManagedSettings, SettingsLocation } from './locations.ts';

export { type AgentHooks, type HookTrust, locationFor, type SettingsLocation } from './locations.ts';

const hooksOf = (agent: Agent): AgentHooks => AGENT_HOOKS[agent];
const byAgent = <T>(pick: (hooks: AgentHooks) => T): Record<Agent, T> =>
  Object.fromEntries(AGENTS.map((agent) => [agent, pick(hooksOf(agent))])) as Record<Agent, T>;

/** The folder under the user's home where each agent keeps its settings, and the command that starts it. */
export const AGENT_HOME_DIR: Record<Agent, string> = byAgent((h) => h.homeDir);
export const AGENT_BINARY: Record<Agent, string> = byAgent((h) => h.binary);

/**
 * Whether the agent is used on this machine: its settings folder exists, or its command is on PATH (an
 * agent installed but never started yet). `hooks install --all-found` installs for these.
 */
export function agentFound(agent: Agent, home: string, path: string = process.env['PATH'] ?? ''): boolean {
  if (agentPresent(agent, home) || hooksOf(agent).usedHere?.(home)) return true;
  return path
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      const file = join(dir, AGENT_BINARY[agent]);
      try {
        accessSync(file, constants.X_OK);
        return statSync(file).isFile();
      } catch {
        return false;
      }
    });
}

/** Every hook event each agent emits; tool events get matcher "*". */
export const AGENT_EVENTS: Record<Agent, readonly string[]> = byAgent((h) => h.events);

/** Events that carry a tool name (their matcher is "*"): Claude Code's names, and Gemini CLI's. */
export const TOOL_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
  'BeforeTool',
  'AfterTool',
]);

/**
 * Events whose hook must run synchronously: UserPromptSubmit is where a prompt can be blocked (credit
 * limits), so it never runs async. Every other event is registered `async: true` where the agent
 * supports it (Claude Code), so the agent does not wait for us at all.
 */
export const SYNC_EVENTS = new Set(['UserPromptSubmit', 'BeforeAgent']);
/** The event where a prompt can be blocked: Claude Code's and Gemini's names, or the agent's own (Cursor's). */
export const isPromptEvent = (agent: Agent, event: string): boolean => SYNC_EVENTS.has(event) || hooksOf(agent).promptEvent === event;
/** What the agent needs on stdout from our hook for an event (Cursor's JSON answer); undefined: nothing. */
export const hookReply = (agent: Agent, event: string): string | undefined => hooksOf(agent).reply?.(event);
export const SUPPORTS_ASYNC: Record<Agent, boolean> = byAgent((h) => h.supportsAsync);

/** The unit of a command hook's `timeout`. */
export const TIMEOUT_UNIT: Record<Agent, 'seconds' | 'milliseconds'> = byAgent((h) => h.timeoutUnit);

/**
 * Whether the agent is installed for this user, as far as a settings install can tell: its configuration
 * folder exists (each agent creates it on first run). The doctor reports an absent agent as not used here.
 */
export function agentPresent(agent: Agent, home: string, env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return statSync(hooksOf(agent).settingsDir(home, env)).isDirectory();
  } catch {
    return false;
  }
}

/** Why an agent would not run the hooks of a settings file although ours is there, from the file's own switches. */
export function hookBlockers(agent: Agent, root: Record<string, unknown>, isOurs: (command: string) => boolean): string[] {
  return hooksOf(agent).blockers(root, isOurs);
}

export const HookCommand = z.looseObject({
  type: z.string(),
  command: z.string().optional(),
  timeout: z.number().optional(),
  async: z.boolean().optional(),
});
export const HookMatcherGroup = z.looseObject({
  matcher: z.string().optional(),
  hooks: z.array(HookCommand),
});
export const HooksMap = z.record(z.string(), z.array(HookMatcherGroup));
export type HooksMap = z.infer<typeof HooksMap>;

/**
 * Keys of a `hooks` object that are settings, not event names (Qwen Code: `enabled`, `disabled` — a list of
 * hook names or commands turned off —, `notifications`; packages/core/src/hooks/types.ts HOOKS_CONFIG_FIELDS).
 * They are kept as they are and never read as events.
 */
export const HOOKS_CONFIG_FIELDS = new Set(['enabled', 'disabled', 'notifications']);

/** Pure: a raw `hooks` object split into its event entries and its setting keys (kept aside as they are). */
export function splitHooksObject(raw: unknown): { events: unknown; settings: Record<string, unknown> } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { events: raw, settings: {} };
  const events: Record<string, unknown> = {};
  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (HOOKS_CONFIG_FIELDS.has(key) && !Array.isArray(value)) settings[key] = value;
    else if (key === 'disabled' && Array.isArray(value) && value.every((v) => typeof v === 'string')) settings[key] = value;
    else events[key] = value;
  }
  return { events, settings };
}
export const SettingsFile = z.looseObject({ hooks: HooksMap.optional() });

/** A configured command hook, flattened: (event, matcher, command). */
export interface ConfiguredHook {
  event: string;
  matcher: string;
  command: string;
}

/** What to tell after an install for an agent that runs hooks only once trusted; undefined for others. */
export const trustHint = (agent: Agent): string | undefined => hooksOf(agent).trustHint;

/** Whether an agent that asks for trust will run our hooks of `file`; undefined for an agent that does not ask. */
export function hookTrust(
  agent: Agent,
  home: string,
  file: string,
  hooks: HooksMap,
  isOurs: (command: string | undefined) => boolean,
): HookTrust | undefined {
  return hooksOf(agent).trust?.(home, file, hooks, isOurs);
}

/**
 * A settings file of the agent's with the agent's entry format (Cursor's flat entries), whoever named the
 * file (the agent's description, a --settings-file, the managed path): its hooks map sits under `hooks`.
 */
export function locationOf(agent: Agent, location: SettingsLocation): SettingsLocation {
  const format = hooksOf(agent).format;
  return format && !location.toml ? { ...location, topLevel: false, format } : location;
}

/** The user-level settings file the installer writes for an agent. */
export function userSettingsLocation(agent: Agent, home: string): SettingsLocation {
  return locationOf(agent, hooksOf(agent).userSettings(home));
}

/** An agent's managed settings by system, or why it has none we can write. */
export const managedSettings = (agent: Agent): ManagedSettings => hooksOf(agent).managed;

/**
 * The system-wide managed settings file of each agent: the policy file every user of the machine gets and
 * cannot override. Only an administrator can write it. An agent that keeps managed hooks elsewhere says
 * why, and this throws that.
 */
export function managedSettingsLocation(agent: Agent, platform: NodeJS.Platform = process.platform): SettingsLocation {
  const managed = hooksOf(agent).managed;
  if ('refused' in managed) throw new Error(managed.refused);
  const file = platform === 'darwin' ? managed.darwin : platform === 'win32' ? managed.win32 : managed.linux;
  return locationOf(agent, { file, topLevel: false });
}

/** Every settings file whose hooks apply to a session in `cwd`, user level first. */
export function hookSettingsFiles(agent: Agent, home: string, cwd: string | undefined): SettingsLocation[] {
  return hooksOf(agent)
    .hookFiles(home, cwd)
    .map((location) => locationOf(agent, location));
}

/** The largest settings file whose hooks are read: a settings file is a few kilobytes. */
const SETTINGS_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Reads the hooks map of a settings location; undefined when the file is absent, unreadable or not a
 * regular file. The collector reads the settings of every work tree an agent ran in, whose .claude/ a
 * cloned repository decides: only a regular file is read (through a link, as the agents read it: settings
 * are kept with dotfiles), so that a FIFO or a device there cannot hold the collector.
 */
export function readHooksMap(location: SettingsLocation): HooksMap | undefined {
  const text = readRegularFile(location.file, { followLinks: true, maxBytes: SETTINGS_MAX_BYTES });
  if (text === undefined) return undefined;
  try {
    if (location.toml) {
      const hooks = (parseToml(text) as { hooks?: unknown }).hooks;
      if (!hooks || typeof hooks !== 'object') return {};
      // `state` holds Codex's trust entries, not hooks.
      const { state: _state, ...events } = hooks as Record<string, unknown>;
      const parsed = HooksMap.safeParse(events);
      return parsed.success ? parsed.data : undefined;
    }
    const json: unknown = JSON.parse(text);
    const raw = location.topLevel ? json : splitHooksObject((json as { hooks?: unknown } | null)?.hooks).events;
    const candidate = location.format ? location.format.toGroups(raw ?? {}) : raw;
    const parsed = HooksMap.safeParse(candidate ?? {});
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function flattenHooks(map: HooksMap): ConfiguredHook[] {
  const out: ConfiguredHook[] = [];
  for (const [event, groups] of Object.entries(map)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      for (const hook of group.hooks) {
        if (hook.type === 'command' && typeof hook.command === 'string') {
          out.push({ event, matcher: group.matcher ?? '', command: hook.command });
        }
      }
    }
  }
  return out;
}

/**
 * Whether a configured matcher applies to an event. On tool events the matcher is a regular expression
 * tested against the whole tool name ("*" and "" match all), or anywhere in it for an agent whose
 * description says so (Gemini CLI); on other events every hook of that event runs (their matchers filter
 * sub-kinds the payload does not always carry).
 */
export function matcherMatches(event: string, matcher: string, toolName: string | undefined, agent?: Agent): boolean {
  const own = agent === undefined ? undefined : hooksOf(agent).matches;
  if (own) return own(event, matcher, toolName);
  const anywhere = agent !== undefined && hooksOf(agent).matcher === 'anywhere';
  const m = anywhere ? matcher.trim() : matcher;
  if (!TOOL_EVENTS.has(event) || m === '' || m === '*') return true;
  if (toolName === undefined) return false;
  try {
    return new RegExp(anywhere ? m : `^(?:${m})$`).test(toolName);
  } catch {
    return matcher === toolName;
  }
}
