// What describes an agent's hooks to the installer, the doctor and the collector: where its settings
// files are, which events it emits and how it runs a command hook. Each agent's folder gives its own
// (collector/agents/<agent>/hooks.ts); collector/install/settings.ts reads them through the agent table.
// This module imports nothing of the agents, so they can import it.
import { existsSync, readFileSync } from 'node:fs';
import type { HooksMap } from './settings.ts';

export interface SettingsLocation {
  /** The file that holds the hooks. */
  file: string;
  /** true: the hooks map is the file's top-level object; false: it is under the `hooks` key. */
  topLevel: boolean;
  /** A TOML file (Codex's config.toml, hooks under `[hooks]` beside its trust `state`); JSON otherwise. */
  toml?: boolean;
  /** Entries shaped otherwise than Claude Code's matcher groups (the agent's `format`); absent: groups. */
  format?: HooksFileFormat;
}

/**
 * A hooks file whose entries per event are not Claude Code's matcher groups (`{matcher, hooks: [...]}`) but
 * the handlers themselves (Cursor's `{command, matcher?, timeout?, ...}`): how its entries read as groups,
 * which is what the installer, the doctor and the collector work on, and how groups are written back.
 * Keys of an entry that groups do not know are kept through the round trip.
 */
export interface HooksFileFormat {
  /** The file's `hooks` object as matcher groups (left as it is when it is not an object of lists). */
  toGroups(events: unknown): unknown;
  /** Matcher groups as the file's `hooks` object. */
  fromGroups(hooks: HooksMap): Record<string, unknown>;
  /** Top-level keys a file the installer creates starts with (Cursor's `version: 1`). */
  readonly newFile?: Record<string, unknown>;
}

/** Whether the agent will run our hooks of a file it asks the user to trust first (Codex), and how to trust them. */
export interface HookTrust {
  /** Each of our hooks by event: trusted, untrusted, or disabled by the user. */
  byEvent: Record<string, 'trusted' | 'untrusted' | 'disabled'>;
  /** How a user trusts the hooks; printed by `hooks install` and `hooks status`. */
  hint: string;
  /** The agent's trust record could not be read: nothing can be said about trust. */
  problem?: string;
}

/** What turning an agent's OpenTelemetry export on or off did (collector/install/telemetry.ts). */
export type TelemetryOutcome = 'added' | 'already' | 'kept-yours' | 'removed' | 'unsupported' | 'none';

/**
 * An agent's OpenTelemetry export kept in a file of its own (not the hooks file): where, and the file's
 * text with our export added or taken out (recognized by its exact text, so the user's is never touched).
 */
export interface TelemetryFile {
  file(home: string): string;
  add(text: string, endpoint: string): { text: string; outcome: TelemetryOutcome };
  remove(text: string): { text: string; outcome: TelemetryOutcome };
}

/**
 * An agent's OpenTelemetry export switched on in its hooks file's own settings: the settings root with our
 * export added, or taken out (recognized by its exact values, so the user's is never touched).
 */
export interface SettingsTelemetry {
  add(root: Record<string, unknown>, endpoint: string): { root: Record<string, unknown>; outcome: TelemetryOutcome };
  remove(root: Record<string, unknown>): { root: Record<string, unknown>; outcome: TelemetryOutcome };
}

/** Where an administrator's policy file is on each system, or why the agent has none we can write. */
export type ManagedSettings = { linux: string; darwin: string; win32: string } | { refused: string };

export interface AgentHooks {
  /** The folder under the user's home the agent keeps its settings in (named in messages). */
  readonly homeDir: string;
  /** The environment variable that moves that folder elsewhere (Codex's CODEX_HOME), if the agent reads one. */
  readonly homeVariable?: string;
  /** The command that starts the agent (an agent on PATH is found even before its first run). */
  readonly binary: string;
  /** Every hook event we register; tool events get matcher "*". */
  readonly events: readonly string[];
  /** Whether a command hook may be `async: true` (the agent does not wait for it). */
  readonly supportsAsync: boolean;
  /** The unit of a command hook's `timeout`. */
  readonly timeoutUnit: 'seconds' | 'milliseconds';
  /** How a tool matcher is tested: against the whole tool name, or anywhere in it (Gemini CLI). */
  readonly matcher: 'whole' | 'anywhere';
  /**
   * Whether a configured matcher lets a hook run for an event, for an agent whose matchers are read per
   * event otherwise than Claude Code's tool matchers (Cursor); absent: `matcher` above, on tool events.
   */
  matches?(event: string, matcher: string, toolName: string | undefined): boolean;
  /** Another sign the agent is used here besides its folder and command (VS Code's Copilot Chat extension). */
  usedHere?(home: string): boolean;
  /** The folder whose existence says the agent is used here. */
  settingsDir(home: string, env: NodeJS.ProcessEnv): string;
  /** The user-level settings file the installer writes. */
  userSettings(home: string): SettingsLocation;
  /** The system-wide managed settings file, by system. */
  readonly managed: ManagedSettings;
  /** Every settings file whose hooks apply to a session in `cwd`, user level first. */
  hookFiles(home: string, cwd: string | undefined): SettingsLocation[];
  /** Why the agent would not run a settings file's hooks although ours is there, from the file's own switches. */
  blockers(root: Record<string, unknown>, isOurs: (command: string) => boolean): string[];
  /** What to tell after an install (an agent that runs a hook only once trusted: how to trust it). */
  readonly trustHint?: string;
  /** Where the agent's own OpenTelemetry export is turned on in its hooks file's settings (collector/install/telemetry.ts). */
  readonly settingsTelemetry?: SettingsTelemetry;
  /** Where it is turned on when not in its hooks file (Codex: config.toml; Copilot: VS Code's settings). */
  readonly telemetryFile?: TelemetryFile;
  /** Whether its settings take a status line command (Claude Code's `statusLine`), which `agentmeter statusline` can be. */
  readonly statusLine?: boolean;
  /** For such an agent: whether it will run our hooks of `file`. */
  trust?(home: string, file: string, hooks: HooksMap, isOurs: (command: string | undefined) => boolean): HookTrust;
  /** How its hooks files shape their entries, where not as Claude Code's matcher groups. */
  readonly format?: HooksFileFormat;
  /** The event that may block a prompt (credit limits: the hook gets "prompt" there), besides Claude Code's names. */
  readonly promptEvent?: string;
  /**
   * What the agent needs on stdout from our hook for `event`, where it reads every hook's stdout as its
   * answer (Cursor: JSON, or the hook failed): the installed command prints it after the hook, which stays
   * the bare writer. Undefined: the hook's own (empty) output.
   */
  reply?(event: string): string | undefined;
}

/** For agents whose settings have no switch that turns hooks off beyond the common ones. */
export const noBlockers = (): string[] => [];

/** A JSON object (not null, not an array): what settings files, their `hooks` and hook entries must be. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

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
