// Where each agent keeps its hook configuration and how that configuration is shaped. Used by the
// installer (to add and remove our hook) and by the collector (to know which hooks ran for an event).
// Imports nothing of ours: hooks/ stands alone.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';

export type Agent = 'claude' | 'droid' | 'codex';
export const AGENTS: readonly Agent[] = ['claude', 'droid', 'codex'];

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
};

export const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest']);

/**
 * Events whose hook must run synchronously: UserPromptSubmit is where a prompt can be blocked (credit
 * limits), so it never runs async. Every other event is registered `async: true` where the agent
 * supports it (Claude Code), so the agent does not wait for us at all.
 */
export const SYNC_EVENTS = new Set(['UserPromptSubmit']);
export const SUPPORTS_ASYNC: Record<Agent, boolean> = { claude: true, droid: false, codex: true };

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

/** Whether an agent is installed for this user: its configuration folder exists. */
export function agentPresent(agent: Agent, home: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = agent === 'claude' ? join(home, '.claude') : agent === 'droid' ? join(home, '.factory') : codexHome(home, env);
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The user-level settings file the installer writes for an agent.
 * Claude Code: ~/.claude/settings.json (`hooks` key).
 * Droid: ~/.factory/settings.json when it already has a `hooks` key, else ~/.factory/hooks.json.
 * Codex CLI: $CODEX_HOME/hooks.json, hooks under the `hooks` key (Codex's HooksFile). Codex also reads
 *   `[hooks]` in config.toml, which we never rewrite: a TOML rewrite would not keep the user's file.
 */
export function userSettingsLocation(agent: Agent, home: string): SettingsLocation {
  if (agent === 'claude') return { file: join(home, '.claude', 'settings.json'), topLevel: false };
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
  const files: SettingsLocation[] =
    agent === 'claude'
      ? [{ file: join(home, '.claude', 'settings.json'), topLevel: false }]
      : [{ file: join(home, '.factory', 'settings.json'), topLevel: false }, locationFor(join(home, '.factory', 'hooks.json'))];
  if (cwd) {
    const dir = agent === 'claude' ? '.claude' : '.factory';
    files.push({ file: join(cwd, dir, 'settings.json'), topLevel: false });
    files.push({ file: join(cwd, dir, 'settings.local.json'), topLevel: false });
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
    const candidate = location.topLevel ? json : (json as { hooks?: unknown } | null)?.hooks;
    const parsed = HooksMap.safeParse(candidate ?? {});
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function flattenHooks(map: HooksMap): ConfiguredHook[] {
  const out: ConfiguredHook[] = [];
  for (const [event, groups] of Object.entries(map)) {
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
 * runs (their matchers filter sub-kinds the payload does not always carry).
 */
export function matcherMatches(event: string, matcher: string, toolName: string | undefined): boolean {
  if (!TOOL_EVENTS.has(event) || matcher === '' || matcher === '*') return true;
  if (toolName === undefined) return false;
  try {
    return new RegExp(`^(?:${matcher})$`).test(toolName);
  } catch {
    return matcher === toolName;
  }
}
