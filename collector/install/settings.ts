// Where each agent keeps its hook configuration and how that configuration is shaped. Used by the
// installer (to add and remove our hook) and by the collector (to know which hooks ran for an event).
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import type { Agent } from '../../common/agents.ts';

/**
 * The folder under the user's home where each agent keeps its settings (Codex: unless $CODEX_HOME moves
 * it, see codexHome), and the command that starts it.
 */
export const AGENT_HOME_DIR: Record<Agent, string> = {
  claude: '.claude',
  droid: '.factory',
  codex: '.codex',
  gemini: '.gemini',
  qwen: '.qwen',
};
export const AGENT_BINARY: Record<Agent, string> = { claude: 'claude', droid: 'droid', codex: 'codex', gemini: 'gemini', qwen: 'qwen' };

/**
 * Whether the agent is used on this machine: its settings folder exists, or its command is on PATH (an
 * agent installed but never started yet). `hooks install --all-found` installs for these.
 */
export function agentFound(agent: Agent, home: string, path: string = process.env['PATH'] ?? ''): boolean {
  if (agentPresent(agent, home)) return true;
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
export const AGENT_EVENTS: Record<Agent, readonly string[]> = {
  claude: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Notification',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  droid: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'Notification',
    'Stop',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
  // Codex CLI (developers.openai.com/codex/hooks; openai/codex codex-rs/config/src/hook_config.rs). It has
  // no Notification or PostToolUseFailure; a Codex that does not know an event ignores its key (the
  // hooks file is read without deny_unknown_fields), so newer events cost older versions nothing.
  codex: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PermissionRequest',
    'PostToolUse',
    'PreCompact',
    'PostCompact',
    'SubagentStart',
    'SubagentStop',
    'Stop',
    'SessionEnd',
  ],
  // Gemini CLI (packages/core/src/hooks/types.ts, HookEventName). BeforeModel, AfterModel and
  // BeforeToolSelection are left out: they fire on every model request (AfterModel on every streamed
  // chunk), each a synchronous process Gemini waits for, and nothing we count comes from them (token usage
  // is read from the chat file).
  gemini: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'Notification', 'PreCompress', 'SessionEnd'],
  // Qwen Code (docs/users/features/hooks.md, packages/core/src/hooks/types.ts HookEventName). Left out:
  // MessageDisplay (fires every ~200 ms while a reply streams: a process each time), PostToolBatch (repeats
  // the tool calls PostToolUse already counts), TodoCreated/TodoCompleted (fire twice per change and fail
  // closed when the hook system errs), and the events only the newest versions know (SessionDelete,
  // PermissionDenied, StopFailure, PostCompact, UserPromptExpansion, InstructionsLoaded).
  qwen: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PermissionRequest',
    'Notification',
    'Stop',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'SessionEnd',
  ],
};

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
export const SUPPORTS_ASYNC: Record<Agent, boolean> = { claude: true, droid: false, codex: true, gemini: false, qwen: true };

/** The unit of a command hook's `timeout`: seconds for Claude Code and Droid, milliseconds for Gemini CLI and Qwen Code. */
export const TIMEOUT_UNIT: Record<Agent, 'seconds' | 'milliseconds'> = {
  claude: 'seconds',
  droid: 'seconds',
  codex: 'seconds',
  gemini: 'milliseconds',
  qwen: 'milliseconds',
};

/**
 * Whether the agent is installed for this user, as far as a settings install can tell: its configuration
 * folder exists (each agent creates it on first run). The doctor reports an absent agent as not used here.
 */
export function agentPresent(agent: Agent, home: string, env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    return statSync(agent === 'codex' ? codexHome(home, env) : join(home, AGENT_HOME_DIR[agent])).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why an agent would not run the hooks of a settings file although ours is there, from the file's own
 * switches. Gemini CLI: `hooksConfig.enabled: false` (and the older `hooks.enabled: false`) turn every hook
 * off; a command listed in `hooksConfig.disabled` (or `hooks.disabled`) is skipped.
 */
export function hookBlockers(agent: Agent, root: Record<string, unknown>, isOurs: (command: string) => boolean): string[] {
  if (agent !== 'gemini') return [];
  const blockers: string[] = [];
  for (const key of ['hooksConfig', 'hooks'] as const) {
    const section = root[key];
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue;
    const { enabled, disabled } = section as { enabled?: unknown; disabled?: unknown };
    if (enabled === false) blockers.push(`${key}.enabled is false: Gemini CLI runs no hooks`);
    if (Array.isArray(disabled) && disabled.some((d) => typeof d === 'string' && isOurs(d)))
      blockers.push(`${key}.disabled lists the agentmeter hook`);
  }
  return blockers;
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

export interface SettingsLocation {
  /** The file that holds the hooks. */
  file: string;
  /** true: the hooks map is the file's top-level object; false: it is under the `hooks` key. */
  topLevel: boolean;
  /** A TOML file (Codex's config.toml, hooks under `[hooks]` beside its trust `state`); JSON otherwise. */
  toml?: boolean;
}

/** Codex CLI's home: $CODEX_HOME, else ~/.codex (its config.toml, hooks.json and session rollouts). */
export function codexHome(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['CODEX_HOME']?.trim();
  return fromEnv ? fromEnv : join(home, '.codex');
}

/**
 * Codex CLI's home as Codex itself names it in hook trust keys: a CODEX_HOME it was given is
 * canonicalized (links resolved; codex-rs/utils/home-dir), the default ~/.codex is taken as it is.
 */
export function codexHomeAsCodexNamesIt(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = codexHome(home, env);
  if (!env['CODEX_HOME']?.trim()) return dir;
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * The user-level settings file the installer writes for an agent.
 * Claude Code: ~/.claude/settings.json (`hooks` key).
 * Droid: ~/.factory/settings.json when it already has a `hooks` key, else ~/.factory/hooks.json.
 * Qwen Code: ~/.qwen/settings.json (`hooks` key).
 * Codex CLI: $CODEX_HOME/hooks.json, hooks under the `hooks` key (Codex's HooksFile). Codex also reads
 *   `[hooks]` in config.toml, which we never rewrite: a TOML rewrite would not keep the user's file.
 */
export function userSettingsLocation(agent: Agent, home: string): SettingsLocation {
  if (agent === 'claude') return { file: join(home, '.claude', 'settings.json'), topLevel: false };
  if (agent === 'gemini') return { file: join(home, '.gemini', 'settings.json'), topLevel: false };
  if (agent === 'qwen') return { file: join(home, '.qwen', 'settings.json'), topLevel: false };
  if (agent === 'codex') return { file: join(codexHome(home), 'hooks.json'), topLevel: false };
  const settings = join(home, '.factory', 'settings.json');
  if (existsSync(settings)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(settings, 'utf8'));
      if (parsed && typeof parsed === 'object' && 'hooks' in parsed) return { file: settings, topLevel: false };
    } catch {
      // A malformed settings.json is not ours to judge here; hooks.json is used instead.
    }
  }
  return locationFor(join(home, '.factory', 'hooks.json'));
}

/**
 * The system-wide managed settings file of each agent: the policy file every user of the machine gets and
 * cannot override. Only an administrator can write it.
 * Claude Code (https://code.claude.com/docs/en/settings, "Settings files"): managed-settings.json in
 *   /etc/claude-code on Linux and WSL, /Library/Application Support/ClaudeCode on macOS,
 *   C:\ProgramData\ClaudeCode on Windows; hooks under the `hooks` key, as in user settings.
 * Droid (https://docs.factory.ai/enterprise/hierarchical-settings-and-org-control, "System-managed
 *   settings.json file", and the hooks reference's "Enterprise managed policy settings"): settings.json in
 *   /etc/factory on Linux and WSL, /Library/Application Support/Factory on macOS, C:\Program Files\Factory
 *   on Windows; same schema as ~/.factory/settings.json, so hooks under the `hooks` key.
 * Gemini CLI (docs/get-started/configuration.md, "System settings file"): /etc/gemini-cli/settings.json on
 *   Linux, /Library/Application Support/GeminiCli/settings.json on macOS, C:\ProgramData\gemini-cli\settings.json
 *   on Windows; hooks under the `hooks` key.
 * Qwen Code (docs/users/configuration/settings.md, "System settings file"): /etc/qwen-code/settings.json on
 *   Linux, /Library/Application Support/QwenCode/settings.json on macOS, C:\ProgramData\qwen-code\settings.json
 *   on Windows (QWEN_CODE_SYSTEM_SETTINGS_PATH moves it); it overrides user and project settings.
 */
export function managedSettingsLocation(agent: Agent, platform: NodeJS.Platform = process.platform): SettingsLocation {
  // Codex's managed hooks are `[hooks]` in requirements.toml (TOML, with managed_dir), not a JSON file.
  if (agent === 'codex')
    throw new Error('Codex CLI keeps managed hooks in requirements.toml; a managed install is not supported for codex');
  const paths: Record<Exclude<Agent, 'codex'>, { linux: string; darwin: string; win32: string }> = {
    claude: {
      linux: '/etc/claude-code/managed-settings.json',
      darwin: '/Library/Application Support/ClaudeCode/managed-settings.json',
      win32: 'C:\\ProgramData\\ClaudeCode\\managed-settings.json',
    },
    droid: {
      linux: '/etc/factory/settings.json',
      darwin: '/Library/Application Support/Factory/settings.json',
      win32: 'C:\\Program Files\\Factory\\settings.json',
    },
    gemini: {
      linux: '/etc/gemini-cli/settings.json',
      darwin: '/Library/Application Support/GeminiCli/settings.json',
      win32: 'C:\\ProgramData\\gemini-cli\\settings.json',
    },
    qwen: {
      linux: '/etc/qwen-code/settings.json',
      darwin: '/Library/Application Support/QwenCode/settings.json',
      win32: 'C:\\ProgramData\\qwen-code\\settings.json',
    },
  };
  const byOs = paths[agent];
  const file = platform === 'darwin' ? byOs.darwin : platform === 'win32' ? byOs.win32 : byOs.linux;
  return { file, topLevel: false };
}

/** For a given file: hooks.json files may hold the map at top level (event names as keys). */
export function locationFor(file: string): SettingsLocation {
  if (!file.endsWith('hooks.json')) return { file, topLevel: false };
  if (existsSync(file)) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (parsed && typeof parsed === 'object' && !('hooks' in parsed) && Object.keys(parsed).length > 0) {
        return { file, topLevel: true };
      }
    } catch {
      // Reported by the installer when it reads the file.
    }
  }
  return { file, topLevel: false };
}

/** Every settings file whose hooks apply to a session in `cwd`, user level first. */
export function hookSettingsFiles(agent: Agent, home: string, cwd: string | undefined): SettingsLocation[] {
  if (agent === 'codex') {
    // A project's .codex/hooks.json runs only in a trusted project; it is listed like Claude Code's
    // project files are, since its hooks ran if the session saw them.
    // Codex runs the hooks of hooks.json and of config.toml's [hooks] tables alike, in each layer.
    const files: SettingsLocation[] = [
      { file: join(codexHome(home), 'hooks.json'), topLevel: false },
      { file: join(codexHome(home), 'config.toml'), topLevel: false, toml: true },
    ];
    if (cwd) {
      files.push({ file: join(cwd, '.codex', 'hooks.json'), topLevel: false });
      files.push({ file: join(cwd, '.codex', 'config.toml'), topLevel: false, toml: true });
    }
    return files;
  }
  if (agent === 'gemini') {
    // Gemini CLI: user, then project settings (project hooks run only in a trusted folder).
    const files: SettingsLocation[] = [{ file: join(home, '.gemini', 'settings.json'), topLevel: false }];
    if (cwd) files.push({ file: join(cwd, '.gemini', 'settings.json'), topLevel: false });
    return files;
  }
  const files: SettingsLocation[] =
    agent === 'droid'
      ? [{ file: join(home, '.factory', 'settings.json'), topLevel: false }, locationFor(join(home, '.factory', 'hooks.json'))]
      : [{ file: join(home, AGENT_HOME_DIR[agent], 'settings.json'), topLevel: false }];
  if (cwd) {
    const dir = AGENT_HOME_DIR[agent];
    files.push({ file: join(cwd, dir, 'settings.json'), topLevel: false });
    // Qwen Code has no settings.local.json: only the workspace's .qwen/settings.json.
    if (agent !== 'qwen') files.push({ file: join(cwd, dir, 'settings.local.json'), topLevel: false });
  }
  return files;
}

/** Reads the hooks map of a settings location; undefined when the file is absent or unreadable. */
export function readHooksMap(location: SettingsLocation): HooksMap | undefined {
  let text: string;
  try {
    text = readFileSync(location.file, 'utf8');
  } catch {
    return undefined;
  }
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
    const candidate = location.topLevel ? json : splitHooksObject((json as { hooks?: unknown } | null)?.hooks).events;
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
 * tested against the whole tool name ("*" and "" match all); on other events every hook of that event
 * runs (their matchers filter sub-kinds the payload does not always carry). Gemini CLI tests the
 * expression anywhere in the name (hookPlanner.ts: `new RegExp(matcher).test(toolName)`), not anchored.
 */
export function matcherMatches(event: string, matcher: string, toolName: string | undefined, agent?: Agent): boolean {
  const m = agent === 'gemini' ? matcher.trim() : matcher;
  if (!TOOL_EVENTS.has(event) || m === '' || m === '*') return true;
  if (toolName === undefined) return false;
  try {
    return new RegExp(agent === 'gemini' ? m : `^(?:${m})$`).test(toolName);
  } catch {
    return matcher === toolName;
  }
}
