// Installs, removes and reports the agentmeter hook in an agent's settings file. Every other hook and
// setting is kept as it was; a malformed file is reported and never overwritten; every write is preceded
// by a backup and done atomically (temporary file + rename).

import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from '../../common/agents.ts';
import { RUNS_AS_LAPTOP_BUNDLE } from '../../common/built.ts';
import { jsonReadProblem } from '../../common/json-read-problem.ts';
import { currentUid, lstatOrUndefined } from '../../common/private-files.ts';
import { AGENT_HOOKS } from '../agents/hooks-table.ts';
import {
  AGENT_EVENTS,
  HOOKS_CONFIG_FIELDS,
  HooksMap,
  type HookTrust,
  hookBlockers,
  hookReply,
  hookTrust,
  isPromptEvent,
  locationFor,
  locationOf,
  type SettingsLocation,
  SUPPORTS_ASYNC,
  splitHooksObject,
  TIMEOUT_UNIT,
  TOOL_EVENTS,
  userSettingsLocation,
} from './settings.ts';
import { TelemetryConfigError, type TelemetryOutcome } from './telemetry.ts';

export const HOOK_SCRIPT_NAME = 'agentmeter-hook.sh';
/**
 * The hook script the installer copies: beside the laptop bundle, which is built with it there
 * (scripts/build-laptop.mjs; docs/design/the-hook-script-sits-beside-the-bundle.md), else in the
 * repository's hooks/ (the sources, and the server's build, where import.meta.url names this file).
 */
export const HOOK_SCRIPT_SOURCE = fileURLToPath(
  new URL(RUNS_AS_LAPTOP_BUNDLE ? `./${HOOK_SCRIPT_NAME}` : `../../hooks/${HOOK_SCRIPT_NAME}`, import.meta.url),
);
/** Seconds the agent may wait for our hook; it takes milliseconds, this only bounds a stuck disk. */
export const HOOK_TIMEOUT_SECONDS = 10;

export interface InstallTarget {
  agent: Agent;
  /** The user's home directory (where ~/.claude and ~/.factory are). */
  home: string;
  /** AGENTMETER_HOME: where the hook script is copied and the spool lives. */
  agentmeterHome: string;
  /** Whether agentmeterHome is the default (~/.agentmeter); if not, the command sets it. */
  defaultAgentmeterHome: boolean;
  /** A project settings file instead of the user-level one. */
  settingsFile?: string;
  /**
   * Managed (system-wide) install: the hook script is copied here, readable and runnable by every user,
   * and the command names it without AGENTMETER_HOME, so each user's hook spools under their own $HOME.
   */
  hookPath?: string;
  /**
   * Also turn the agent's own OpenTelemetry export on, to this receiver (docs/metrics.md §11): install
   * adds it where the user has none, uninstall takes ours out whatever this says.
   */
  otlpEndpoint?: string;
}

/** Where a managed install puts the hook script: a system path every user of the machine can run. */
export const DEFAULT_MANAGED_HOOK_PATH = '/usr/local/lib/agentmeter/agentmeter-hook.sh';

export interface HookChange {
  action: 'add' | 'update' | 'remove';
  event: string;
  matcher: string;
  command: string;
}

export interface InstallResult {
  file: string;
  changes: HookChange[];
  written: boolean;
  backup?: string;
  /** The agent's OpenTelemetry export: what was done, in which file (and the copy of that file made before, if one was). */
  telemetry?: { file: string; outcome: TelemetryOutcome; backup?: string };
}

export interface HookStatus {
  file: string;
  exists: boolean;
  installedEvents: string[];
  missingEvents: string[];
  outdatedEvents: string[];
  scriptInstalled: boolean;
  /**
   * Switches in the file that keep the agent from running our hook although it is installed (empty: it
   * would run): `disableAllHooks` (Claude Code, Qwen Code), Qwen's `hooks.enabled`/`hooks.disabled`,
   * Gemini's `hooksConfig.enabled`/`disabled`.
   */
  blockers: string[];
  /** Codex CLI: which of our hooks it trusts (it skips untrusted ones), and how to trust them. */
  /** For an agent that runs hooks only once the user trusted them (Codex): whether it will run ours. */
  trust?: HookTrust;
  /** A managed install's shared script in a folder another user can change (sharedScriptProblem): why. */
  unsafeFolder?: string;
}

export class SettingsError extends Error {}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export function isOurCommand(command: string | undefined): boolean {
  return typeof command === 'string' && command.includes(HOOK_SCRIPT_NAME);
}

export function installedScriptPath(agentmeterHome: string): string {
  return join(agentmeterHome, 'bin', HOOK_SCRIPT_NAME);
}

/**
 * The exact command line the agent runs for our hook. On UserPromptSubmit it carries "prompt": the one
 * event where the hook may block (credit limits). For an agent that reads every hook's stdout as its answer
 * (Cursor), the hook's own output is set aside and the answer the agent needs is printed after it by the
 * shell that runs the command (printf is a builtin: no process more); a hook that blocks (status 2) prints
 * none, and the agent reads the status.
 */
export function hookCommand(target: InstallTarget, event?: string): string {
  const script = shellQuote(target.hookPath ?? installedScriptPath(target.agentmeterHome));
  const env = target.defaultAgentmeterHome || target.hookPath ? '' : `AGENTMETER_HOME=${shellQuote(target.agentmeterHome)} `;
  const command = `${env}${script} ${target.agent}${event && isPromptEvent(target.agent, event) ? ' prompt' : ''}`;
  const reply = event === undefined ? undefined : hookReply(target.agent, event);
  return reply === undefined ? command : `${command} >/dev/null && printf '%s\\n' ${shellQuote(reply)}`;
}

function location(target: InstallTarget): SettingsLocation {
  return target.settingsFile ? locationOf(target.agent, locationFor(target.settingsFile)) : userSettingsLocation(target.agent, target.home);
}

/**
 * The settings file of a target that may be written, checked before it is read: as root, not in another
 * user's home; a regular file (through a link: one is refused only when a change to it is due, with
 * refuseSettingsLink, so that a run that changes nothing passes on settings kept with dotfiles).
 */
function checkedLocation(target: InstallTarget): SettingsLocation {
  refuseOtherUsersHome(target);
  const loc = location(target);
  refuseIrregularFile(loc.file);
  return loc;
}

/** Throws a SettingsError when the settings file that is about to change is a link, naming the option that changes the file it leads to. */
const refuseSettingsLink = (loc: SettingsLocation): void =>
  refuseLink(loc.file, (leadsTo) => ` To change that file instead, name it: --settings ${shellQuote(leadsTo)}.`);

/**
 * Refuses, as root, to write into another user's home (`sudo agentmeter hooks install` where sudo keeps
 * HOME): the settings file written anew, its backup and $AGENTMETER_HOME would all be root's, a 0600
 * settings file then unreadable to the user's own agent, and the spool unwritable to their hook. A
 * managed install (hookPath) writes system files, and is meant to run as root.
 */
function refuseOtherUsersHome(target: InstallTarget): void {
  if (currentUid() !== 0 || target.hookPath) return;
  let owner: number;
  try {
    owner = statSync(target.home).uid;
  } catch {
    return; // No home yet: whatever is made there is root's, as root asked.
  }
  if (owner !== 0)
    throw new SettingsError(
      `${target.home} belongs to uid ${owner} and this runs as root: what it writes there would be root's (the agent's settings unreadable to its user, the spool unwritable to the hook). Nothing was changed; run it as that user, without sudo.`,
    );
}

/**
 * Refuses, as root, to change a file of another user, or to create one in their folder: the file is a
 * user's own (the VS Code settings a managed install would turn the export on in, with a sudo that keeps
 * HOME), and written anew it would be root's, which their editor then cannot save. `instead` is appended.
 */
function refuseOtherUsersFile(file: string, instead: string): void {
  if (currentUid() !== 0) return;
  let at = file;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  const owner = statSync(at).uid;
  if (owner !== 0)
    throw new SettingsError(
      `${at} belongs to uid ${owner} and this runs as root: written anew, it would be root's. Nothing was changed.${instead}`,
    );
}

/**
 * Throws a SettingsError for a file that is a symbolic link (kept with the user's dotfiles), called before
 * a change to it is written. A write renames a new file over the name: over a link it would cut the link,
 * and the file it leads to would silently stop being the agent's settings; and nothing of agentmeter
 * writes through a link it did not make. `instead` says what to do, given the file the link leads to.
 */
function refuseLink(file: string, instead: (leadsTo: string) => string): void {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return; // Missing: created as a regular file.
  }
  if (!link) return;
  const leadsTo = fileAtTheEnd(file);
  throw new SettingsError(
    `${file} is a symbolic link (to ${leadsTo}); agentmeter does not write through links, and replacing it would cut it. It was left untouched.${instead(leadsTo)}`,
  );
}

/**
 * The file a link leads to at the end of every link (a home-manager link leads to another link in the
 * store): the one that --settings can change. Where the links lead nowhere, where the first one points.
 */
function fileAtTheEnd(link: string): string {
  try {
    return realpathSync(link);
  } catch {
    return resolve(dirname(link), readlinkSync(link));
  }
}

/** Throws a SettingsError, before it is read, for a file that is there and, through any link, not a regular file (a fifo would hold the read for good). */
function refuseIrregularFile(file: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch {
    return; // Missing (or a link that leads nowhere): created, or refused as a link, when written.
  }
  if (!stat.isFile()) throw new SettingsError(`${file} is not a regular file; it was left untouched.`);
}

interface LoadedSettings {
  root: Record<string, unknown>;
  hooks: HooksMap;
  /** Setting keys inside `hooks` that are not events (Qwen Code's `enabled`, `disabled`), written back as they were. */
  hookSettings: Record<string, unknown>;
  existed: boolean;
}

function loadSettings(loc: SettingsLocation): LoadedSettings {
  if (!existsSync(loc.file)) return { root: {}, hooks: {}, hookSettings: {}, existed: false };
  const text = readFileSync(loc.file, 'utf8');
  let root: unknown;
  try {
    root = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new SettingsError(`${loc.file} is ${jsonReadProblem(error)}; it was left untouched.`);
  }
  if (!root || typeof root !== 'object' || Array.isArray(root)) {
    throw new SettingsError(`${loc.file} does not hold a JSON object; it was left untouched.`);
  }
  const split = loc.topLevel ? { events: root, settings: {} } : splitHooksObject((root as Record<string, unknown>)['hooks'] ?? {});
  const rawHooks = loc.format ? loc.format.toGroups(split.events) : split.events;
  const parsed = HooksMap.safeParse(rawHooks);
  if (!parsed.success) {
    throw new SettingsError(
      `${loc.file} has a "hooks" section agentmeter does not understand (${parsed.error.issues[0]?.message ?? 'invalid'}); it was left untouched.`,
    );
  }
  // Work on the file's own objects (deep copy) so unknown keys inside hook entries survive.
  const hooks = structuredClone(rawHooks) as HooksMap;
  return { root: root as Record<string, unknown>, hooks, hookSettings: split.settings, existed: true };
}

/** Our timeout in the agent's own unit (Gemini CLI and Qwen Code count milliseconds). */
export function hookTimeout(agent: Agent): number {
  return TIMEOUT_UNIT[agent] === 'milliseconds' ? HOOK_TIMEOUT_SECONDS * 1000 : HOOK_TIMEOUT_SECONDS;
}

function desiredEntry(target: InstallTarget, event: string): Record<string, unknown> {
  const entry: Record<string, unknown> = { type: 'command', command: hookCommand(target, event), timeout: hookTimeout(target.agent) };
  if (SUPPORTS_ASYNC[target.agent] && !isPromptEvent(target.agent, event)) entry['async'] = true;
  return entry;
}

const sameEntry = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  a['command'] === b['command'] && a['timeout'] === b['timeout'] && a['async'] === b['async'];

/** Pure: the hooks map with our hook on every event of the agent, and what changed. */
export function withOurHook(hooks: HooksMap, target: InstallTarget): { hooks: HooksMap; changes: HookChange[] } {
  const next = structuredClone(hooks);
  const changes: HookChange[] = [];
  for (const event of AGENT_EVENTS[target.agent]) {
    const desired = desiredEntry(target, event);
    const matcher = TOOL_EVENTS.has(event) ? '*' : '';
    const groups = (next[event] ??= []);
    let found = false;
    for (const group of groups) {
      for (let i = 0; i < group.hooks.length; i++) {
        const hook = group.hooks[i];
        if (!hook || !isOurCommand(hook.command)) continue;
        if (found) {
          // A second copy of our hook (from an older install) would count every event twice.
          group.hooks.splice(i--, 1);
          changes.push({ action: 'remove', event, matcher: group.matcher ?? '', command: hook.command ?? '' });
          continue;
        }
        found = true;
        if (!sameEntry(hook, desired)) {
          group.hooks[i] = { ...hook, ...desired };
          if (!('async' in desired)) delete group.hooks[i]!['async'];
          changes.push({ action: 'update', event, matcher: group.matcher ?? '', command: String(desired['command']) });
        }
      }
    }
    next[event] = groups.filter((group) => group.hooks.length > 0);
    if (!found) {
      const group: Record<string, unknown> = matcher ? { matcher, hooks: [desired] } : { hooks: [desired] };
      next[event].push(group as HooksMap[string][number]);
      changes.push({ action: 'add', event, matcher, command: String(desired['command']) });
    }
  }
  return { hooks: next, changes };
}

/** Pure: the hooks map without any agentmeter hook; events left empty are removed. */
export function withoutOurHook(hooks: HooksMap): { hooks: HooksMap; changes: HookChange[] } {
  const next = structuredClone(hooks);
  const changes: HookChange[] = [];
  for (const [event, groups] of Object.entries(next)) {
    // Gemini CLI's non-event settings (enabled, disabled, notifications) stay as they are.
    if (HOOKS_CONFIG_FIELDS.has(event) || !Array.isArray(groups)) continue;
    for (const group of groups) {
      const kept = group.hooks.filter((hook) => {
        if (!isOurCommand(hook.command)) return true;
        changes.push({ action: 'remove', event, matcher: group.matcher ?? '', command: hook.command ?? '' });
        return false;
      });
      group.hooks = kept;
    }
    const remaining = groups.filter((group) => group.hooks.length > 0);
    if (remaining.length === 0 && groups.length > 0 && changes.some((c) => c.event === event)) delete next[event];
    else next[event] = remaining;
  }
  return { hooks: next, changes };
}

/**
 * Writes a temporary file that this call creates itself: whatever stands at the name (a file left by a
 * killed run, or a link someone planted) is removed first (rmSync removes a link, never its target), and
 * the file is opened exclusively, so nothing is written through a link. Its mode is exactly `mode`,
 * whatever the umask: a mode given to open loses the umask's bits, and a managed policy file written 0600
 * under an administrator's umask 077 would be unreadable to every user's agent.
 */
function writeNewFile(path: string, data: string | Uint8Array, mode: number): void {
  rmSync(path, { force: true });
  writeFileSync(path, data, { mode, flag: 'wx' });
  chmodSync(path, mode);
}

/**
 * The settings file's new content: the file as read with its hooks replaced. The hooks object's own
 * settings (Gemini's and Qwen's enabled/disabled/notifications) stay in it; an emptied object goes.
 */
function settingsRoot(loc: SettingsLocation, loaded: LoadedSettings, hooks: HooksMap): Record<string, unknown> {
  if (loc.topLevel) return hooks;
  const allHooks = { ...loaded.hookSettings, ...(loc.format ? loc.format.fromGroups(hooks) : hooks) };
  // A file the install creates starts with the keys its format asks for (Cursor's `version`).
  const start = loaded.existed ? {} : (loc.format?.newFile ?? {});
  const root: Record<string, unknown> = { ...start, ...loaded.root, hooks: allHooks };
  if (Object.keys(allHooks).length === 0) delete root['hooks'];
  return root;
}

/**
 * Copies a settings file to a backup named by the time. Exclusive: a link planted at the name is never
 * written through, and a second backup in the same millisecond (an install and an uninstall in a row)
 * takes a counter after the time, which sorts after it (backupsOf takes the newest by name).
 */
function backUp(file: string): string {
  const stamped = `${file}.agentmeter-backup-${new Date().toISOString().replaceAll(':', '-')}`;
  for (let n = 0; ; n++) {
    const name = n === 0 ? stamped : `${stamped}-${String(n).padStart(3, '0')}`;
    try {
      copyFileSync(file, name, constants.COPYFILE_EXCL);
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 999) throw error;
    }
  }
}

/** Writes a settings file's new content (settingsRoot's, with the agent's telemetry), backing the old one up. */
function writeRoot(loc: SettingsLocation, loaded: LoadedSettings, root: Record<string, unknown>): string | undefined {
  mkdirSync(dirname(loc.file), { recursive: true });
  let backup: string | undefined;
  let mode = 0o644;
  if (loaded.existed) {
    mode = statSync(loc.file).mode & 0o777;
    backup = backUp(loc.file);
  }
  const tmp = `${loc.file}.agentmeter-tmp-${process.pid}`;
  writeNewFile(tmp, `${JSON.stringify(root, null, 2)}\n`, mode);
  renameSync(tmp, loc.file);
  return backup;
}

/**
 * Why a folder is no place for the script every user's agent runs, or undefined when only root (and the
 * installing user) can change what is in it. Each folder from it up to the root, as named and as its links
 * resolve, must belong to root or this user and be writable by neither its group nor others; a folder
 * above it may be one everyone writes with the sticky bit (/tmp), where nobody can move another's entry.
 * The group's bits count whatever the group (root's too): where a folder has an access list, they are its
 * mask, the most any user or group it names may do. Folders not made yet are made by the installer, 0755.
 */
export function sharedFolderProblem(folder: string, uid: number): string | undefined {
  const target = resolve(folder);
  let existing = target;
  while (!lstatOrUndefined(existing) && dirname(existing) !== existing) existing = dirname(existing);
  let real: string;
  try {
    real = realpathSync(existing);
  } catch {
    return `${existing} is a link that leads nowhere`;
  }
  // The script's own folder, its links resolved, when it exists already: no sticky bit excuses it.
  const own = new Set(existing === target ? [target, real] : [target]);
  for (const start of new Set([existing, real]))
    for (let dir = start; ; dir = dirname(dir)) {
      const found = lstatOrUndefined(dir);
      if (found && !found.isSymbolicLink()) {
        if (found.uid !== 0 && found.uid !== uid) return `${dir} belongs to uid ${found.uid}`;
        const writable = (found.mode & 0o022) !== 0;
        if (writable && ((found.mode & 0o1000) === 0 || own.has(dir)))
          return `${dir} is writable by ${found.mode & 0o002 ? 'every user' : `its group (gid ${found.gid}) or users its access list names`}`;
      }
      if (dirname(dir) === dir) break;
    }
  return undefined;
}

/**
 * Why an installed shared script's folder is one another user can change (sharedFolderProblem), judged
 * for root and the owner of the managed settings file naming it, who could change the hook's command
 * anyway; undefined when none can. For installs made before the installer judged the folder.
 */
export function sharedScriptProblem(script: string, settingsFile: string): string | undefined {
  return sharedFolderProblem(dirname(script), lstatOrUndefined(settingsFile)?.uid ?? currentUid() ?? 0);
}

/** Refuses a shared hook script's path in a folder another user could change (sharedFolderProblem). */
function refuseSharedFolder(path: string): void {
  const uid = currentUid();
  const problem = uid === undefined ? undefined : sharedFolderProblem(dirname(path), uid);
  if (problem)
    throw new SettingsError(
      `the shared hook script would be in a folder another user can change (${problem}): they could run their own code in every user's agent. Choose a folder only root can write with --hook-path (for instance /opt/agentmeter/agentmeter-hook.sh).`,
    );
}

/**
 * Copies the hook script to a system path for a managed install: 0755 (every user runs it), written to a
 * temporary file and renamed so a link already at the path is replaced, never followed. Its folder is
 * judged again once made: one another user made in the meantime (below /tmp, say) is refused.
 */
export function installSharedScript(path: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  refuseSharedFolder(path);
  const source = readFileSync(HOOK_SCRIPT_SOURCE);
  const tmp = `${path}.tmp-${process.pid}`;
  writeNewFile(tmp, source, 0o755);
  chmodSync(tmp, 0o755);
  renameSync(tmp, path);
  return path;
}

/** Copies the hook script to $AGENTMETER_HOME/bin so the installed command does not depend on this checkout. */
export function installScript(agentmeterHome: string): string {
  const dest = installedScriptPath(agentmeterHome);
  // Private folders whatever the umask (a mode given to mkdir can only lose bits to it); the collector
  // tightens folders an older version created looser, and refuses any that is a link.
  for (const dir of [agentmeterHome, dirname(dest), join(agentmeterHome, 'spool', 'tmp'), join(agentmeterHome, 'spool', 'new')])
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  const source = readFileSync(HOOK_SCRIPT_SOURCE);
  if (!existsSync(dest) || !readFileSync(dest).equals(source)) {
    const tmp = `${dest}.tmp-${process.pid}`;
    writeNewFile(tmp, source, 0o700);
    renameSync(tmp, dest);
  }
  // Run by the agent as this user only.
  chmodSync(dest, 0o700);
  return dest;
}

export function install(target: InstallTarget, options: { dryRun?: boolean } = {}): InstallResult {
  // Before anything is written (a telemetry file comes first), and in a dry run too.
  if (target.hookPath) refuseSharedFolder(target.hookPath);
  const loc = checkedLocation(target);
  const loaded = loadSettings(loc);
  const { hooks, changes } = withOurHook(loaded.hooks, target);
  // Before the telemetry file below is written.
  if (changes.length) refuseSettingsLink(loc);
  // The agent's telemetry goes in its hooks file's settings (Claude Code, Gemini CLI, Qwen Code) or a file of
  // its own (Codex's config.toml, VS Code's settings for Copilot).
  let root = settingsRoot(loc, loaded, hooks);
  let telemetry: InstallResult['telemetry'];
  const { settingsTelemetry, telemetryFile: own } = AGENT_HOOKS[target.agent];
  if (target.otlpEndpoint && own) {
    const endpoint = target.otlpEndpoint;
    telemetry = updateTextFile(
      own.file(target.home),
      (text) => own.add(text, endpoint),
      options.dryRun ?? false,
      () => ' Pass --no-otel to install the hook alone.',
    );
  } else if (target.otlpEndpoint && !loc.topLevel) {
    const added = settingsTelemetry?.add(root, target.otlpEndpoint) ?? { root, outcome: 'unsupported' as const };
    root = added.root;
    telemetry = { file: loc.file, outcome: added.outcome };
    if (added.outcome === 'added') refuseSettingsLink(loc);
  }
  const withTelemetry = telemetry ? { telemetry } : {};
  if (options.dryRun) return { file: loc.file, changes, written: false, ...withTelemetry };
  if (target.hookPath) installSharedScript(target.hookPath);
  else installScript(target.agentmeterHome);
  const telemetryAdded = telemetry?.file === loc.file && telemetry.outcome === 'added';
  if (changes.length === 0 && !telemetryAdded) return { file: loc.file, changes, written: false, ...withTelemetry };
  const backup = writeRoot(loc, loaded, root);
  return { file: loc.file, changes, written: true, ...(backup ? { backup } : {}), ...withTelemetry };
}

/**
 * An agent's telemetry file (Codex's config.toml, VS Code's settings for Copilot) with `change` applied (our
 * export added or taken out), backed up first as a settings file is, then written through a new temporary
 * file (never through a link) with the file's own mode; nothing is written when nothing changes.
 * A link (the file kept with dotfiles) is read through, and refused only when a change is due (a dry run
 * says so too): a hook-only install or an uninstall must not fail on a file they leave as it is. So is,
 * as root, another user's file (refuseOtherUsersFile). `ifLinked`: what the user can do instead, given
 * the file to change by hand.
 */
function updateTextFile(
  file: string,
  change: (text: string) => { text: string; outcome: TelemetryOutcome },
  dryRun: boolean,
  ifLinked: (leadsTo: string) => string,
): { file: string; outcome: TelemetryOutcome; backup?: string } {
  refuseIrregularFile(file);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  let next: { text: string; outcome: TelemetryOutcome };
  try {
    next = change(before);
  } catch (error) {
    if (error instanceof TelemetryConfigError) throw new SettingsError(error.message);
    throw error;
  }
  if (next.text === before) return { file, outcome: next.outcome };
  refuseLink(file, ifLinked);
  refuseOtherUsersFile(file, ifLinked(file));
  if (dryRun) return { file, outcome: next.outcome };
  mkdirSync(dirname(file), { recursive: true });
  const existed = existsSync(file);
  const mode = existed ? statSync(file).mode & 0o777 : 0o600;
  const backup = existed ? backUp(file) : undefined;
  const tmp = `${file}.agentmeter-tmp-${process.pid}`;
  writeNewFile(tmp, next.text, mode);
  renameSync(tmp, file);
  return { file, outcome: next.outcome, ...(backup ? { backup } : {}) };
}

export type StatusLineOutcome = 'added' | 'already' | 'kept-yours';

/** Pure: the settings with our status line command, unless they hold another one (kept, never replaced). */
export function withOurStatusLine(
  root: Record<string, unknown>,
  command: string,
): { root: Record<string, unknown>; outcome: StatusLineOutcome } {
  const existing = root['statusLine'] as { command?: unknown } | undefined;
  if (existing !== undefined) {
    const ours = typeof existing?.command === 'string' && / statusline$/.test(existing.command) && existing.command.includes('agentmeter');
    return { root, outcome: ours ? 'already' : 'kept-yours' };
  }
  return { root: { ...root, statusLine: { type: 'command', command, padding: 0 } }, outcome: 'added' };
}

/**
 * The status line command: this very `agentmeter` (the Node.js running it and its entry file), with
 * AGENTMETER_HOME when it is not the default, as the hook's command has it.
 */
export function statusLineCommand(target: InstallTarget, nodePath: string, entry: string): string {
  const env = target.defaultAgentmeterHome ? '' : `AGENTMETER_HOME=${shellQuote(target.agentmeterHome)} `;
  return `${env}${shellQuote(nodePath)} ${shellQuote(entry)} statusline`;
}

/** Offers `agentmeter statusline` as the agent's status line (Claude Code), keeping one the user has. */
export function installStatusLine(
  target: InstallTarget,
  command: string,
  options: { dryRun?: boolean } = {},
): { file: string; outcome: StatusLineOutcome | 'unsupported'; backup?: string } {
  const loc = checkedLocation(target);
  if (!AGENT_HOOKS[target.agent].statusLine || loc.topLevel) return { file: loc.file, outcome: 'unsupported' };
  const loaded = loadSettings(loc);
  const { root, outcome } = withOurStatusLine(loaded.root, command);
  if (outcome === 'added') refuseSettingsLink(loc);
  if (outcome !== 'added' || options.dryRun) return { file: loc.file, outcome };
  const backup = writeRoot(loc, loaded, root);
  return { file: loc.file, outcome, ...(backup ? { backup } : {}) };
}

/** The installer's backups of a settings file, newest first (their names end in an ISO time). */
function backupsOf(file: string): string[] {
  const prefix = `${basename(file)}.agentmeter-backup-`;
  try {
    return readdirSync(dirname(file))
      .filter((name) => name.startsWith(prefix))
      .sort()
      .reverse()
      .map((name) => join(dirname(file), name));
  } catch {
    return [];
  }
}

/**
 * The bytes to restore after our hooks are taken out: the newest backup that holds exactly the settings
 * left (the file as it was before the install, whatever its formatting), else the settings as JSON.
 */
function restoredText(loc: SettingsLocation, root: unknown): { text: string; restoredFrom?: string } {
  const wanted = JSON.stringify(root);
  for (const backup of backupsOf(loc.file)) {
    try {
      const text = readFileSync(backup, 'utf8');
      if (JSON.stringify(text.trim() === '' ? {} : JSON.parse(text)) === wanted) return { text, restoredFrom: backup };
    } catch {
      // Not a backup we can read: the next one, or the JSON.
    }
  }
  return { text: `${JSON.stringify(root, null, 2)}\n` };
}

export function uninstall(target: InstallTarget, options: { dryRun?: boolean } = {}): InstallResult {
  const loc = checkedLocation(target);
  const { settingsTelemetry, telemetryFile: own } = AGENT_HOOKS[target.agent];
  const ownFile = own
    ? {
        telemetry: updateTextFile(
          own.file(target.home),
          (text) => own.remove(text),
          options.dryRun ?? false,
          (leadsTo) => ` Take agentmeter's export out of ${leadsTo} by hand, then run this again.`,
        ),
      }
    : {};
  if (!existsSync(loc.file)) return { file: loc.file, changes: [], written: false, ...ownFile };
  const loaded = loadSettings(loc);
  const { hooks, changes } = withoutOurHook(loaded.hooks);
  let root = settingsRoot(loc, loaded, hooks);
  let telemetry: InstallResult['telemetry'] = ownFile.telemetry;
  if (!loc.topLevel && !own) {
    const removed = settingsTelemetry?.remove(root) ?? { root, outcome: 'unsupported' as const };
    root = removed.root;
    telemetry = { file: loc.file, outcome: removed.outcome };
  }
  const withTelemetry = telemetry ? { telemetry } : {};
  const telemetryRemoved = telemetry?.file === loc.file && telemetry.outcome === 'removed';
  if (changes.length || telemetryRemoved) refuseSettingsLink(loc);
  if (options.dryRun || (changes.length === 0 && !telemetryRemoved)) return { file: loc.file, changes, written: false, ...withTelemetry };
  const restored = restoredText(loc, root);
  const backup = backUp(loc.file);
  // Keys the install's format started the file with (Cursor's `version`) are not the user's.
  const newFile = loc.format?.newFile ?? {};
  const left = Object.keys(root).filter((key) => !(Object.hasOwn(newFile, key) && root[key] === newFile[key]));
  if (left.length === 0 && !restored.restoredFrom) {
    // Nothing but our hooks, and no backup of an earlier file: the install created it, so it goes.
    rmSync(loc.file);
    return { file: loc.file, changes, written: true, backup, ...withTelemetry };
  }
  const tmp = `${loc.file}.agentmeter-tmp-${process.pid}`;
  writeNewFile(tmp, restored.text, statSync(loc.file).mode & 0o777);
  renameSync(tmp, loc.file);
  return { file: loc.file, changes, written: true, backup, ...withTelemetry };
}

export function status(target: InstallTarget): HookStatus {
  const loc = location(target);
  const exists = existsSync(loc.file);
  const loaded = loadSettings(loc);
  const installedEvents: string[] = [];
  const missingEvents: string[] = [];
  const outdatedEvents: string[] = [];
  for (const event of AGENT_EVENTS[target.agent]) {
    const ours = (loaded.hooks[event] ?? []).flatMap((g) => g.hooks).filter((h) => isOurCommand(h.command));
    if (ours.length === 0) missingEvents.push(event);
    else if (ours.some((h) => !sameEntry(h, desiredEntry(target, event)))) outdatedEvents.push(event);
    else installedEvents.push(event);
  }
  const disabled = hooksDisabled(loaded);
  const result: HookStatus = {
    file: loc.file,
    exists,
    installedEvents,
    missingEvents,
    outdatedEvents,
    scriptInstalled: existsSync(target.hookPath ?? installedScriptPath(target.agentmeterHome)),
    blockers: [...(disabled ? [disabled] : []), ...hookBlockers(target.agent, loaded.root, isOurCommand)],
  };
  const trust = hookTrust(target.agent, target.home, loc.file, loaded.hooks, isOurCommand);
  if (trust) result.trust = trust;
  if (target.hookPath && existsSync(target.hookPath)) {
    const unsafe = sharedScriptProblem(target.hookPath, loc.file);
    if (unsafe) result.unsafeFolder = unsafe;
  }
  return result;
}

/** Pure: why the agent would skip our hook although the file registers it: `disableAllHooks: true` (Claude Code and Qwen Code). */
function hooksDisabled(loaded: LoadedSettings): string | undefined {
  return loaded.root['disableAllHooks'] === true ? '"disableAllHooks": true turns every hook off' : undefined;
}

/** Human-readable lines for a set of changes, as `--dry-run` prints them. */
export function describeChanges(result: InstallResult): string[] {
  if (result.changes.length === 0) return [`${result.file}: nothing to change`];
  const sign = { add: '+', update: '~', remove: '-' } as const;
  return [
    `${result.file}:`,
    ...result.changes.map((c) => `  ${sign[c.action]} ${c.event}${c.matcher ? ` [${c.matcher}]` : ''}: ${c.command}`),
  ];
}
