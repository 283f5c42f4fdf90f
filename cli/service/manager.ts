// Installs, removes and asks about the collector's user service: the file from cli/service/units.ts,
// written without following a link, and the service manager's commands (systemctl --user on Linux,
// launchctl on macOS) through an injectable Runner, so tests run without either.
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { sleepSync } from '../../common/backoff.ts';
import { UserError } from '../../common/errors.ts';
import { ensurePrivateDir, lstatOrUndefined, ownDirProblem, PRIVATE_DIR_MODE, writePrivateFile } from '../../common/private-files.ts';
import { shellLine } from '../program.ts';
import {
  LAUNCHD_LABEL,
  launchdLogPaths,
  launchdPlistPath,
  renderLaunchdPlist,
  renderSystemdUnit,
  type ServiceSpec,
  SYSTEMD_UNIT,
  systemdUnitPath,
  WRITTEN_BY,
} from './units.ts';

export type ServiceManager = 'systemd' | 'launchd';

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The program is not on this machine (ENOENT). */
  missing?: boolean;
}
export type Runner = (command: string, args: string[]) => RunResult;

export const spawnRunner: Runner = (command, args) => {
  const run = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    return { status: null, stdout: '', stderr: run.error.message, ...(missing ? { missing } : {}) };
  }
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

export interface ServiceContext {
  manager: ServiceManager;
  home: string;
  /** $XDG_CONFIG_HOME, or ~/.config: where systemd looks for user units. */
  configHome: string;
  uid: number;
  run: Runner;
}

/** The service manager for this platform, or undefined where we have none (Windows, the BSDs). */
export function platformManager(platform: NodeJS.Platform = process.platform): ServiceManager | undefined {
  return platform === 'linux' ? 'systemd' : platform === 'darwin' ? 'launchd' : undefined;
}

/** systemd reads user units from $XDG_CONFIG_HOME/systemd/user when that is set (absolute), else ~/.config. */
export const configHomeOf = (home: string, env: NodeJS.ProcessEnv = process.env) =>
  env['XDG_CONFIG_HOME']?.startsWith('/') ? env['XDG_CONFIG_HOME'] : join(home, '.config');

/** The context of this machine and user, or undefined where the platform has no service manager of ours. */
export function localContext(home: string, manager = platformManager()): ServiceContext | undefined {
  if (!manager) return undefined;
  return { manager, home, configHome: configHomeOf(home), uid: process.getuid?.() ?? 0, run: spawnRunner };
}

export const serviceFile = (ctx: Pick<ServiceContext, 'manager' | 'home' | 'configHome'>) =>
  ctx.manager === 'systemd' ? systemdUnitPath(ctx.configHome) : launchdPlistPath(ctx.home);

export const renderService = (manager: ServiceManager, spec: ServiceSpec) =>
  manager === 'systemd' ? renderSystemdUnit(spec) : renderLaunchdPlist(spec);

const launchdDomain = (uid: number) => `gui/${uid}`;
const launchdService = (uid: number) => `${launchdDomain(uid)}/${LAUNCHD_LABEL}`;

const firstLine = (r: RunResult) => (r.stderr.trim() || r.stdout.trim()).split('\n')[0] ?? '';

/**
 * Why the service manager cannot be used here, or undefined when it can: systemd missing or without a
 * user instance for us (containers, WSL without systemd, `su` or `sudo` without a login session),
 * launchd without a GUI session for this user.
 */
export function unreachableReason(ctx: ServiceContext): string | undefined {
  if (ctx.manager === 'systemd') {
    const r = ctx.run('systemctl', ['--user', 'show-environment']);
    if (r.missing) return 'systemd is not on this machine (no systemctl)';
    if (r.status !== 0)
      return `systemctl cannot reach your systemd user instance (${firstLine(r) || `exit ${r.status}`}); there is none in a container, WSL without systemd, or a shell from su or sudo`;
    return undefined;
  }
  const r = ctx.run('launchctl', ['print', launchdDomain(ctx.uid)]);
  if (r.missing) return 'launchd is not on this machine (no launchctl)';
  if (r.status !== 0)
    return `launchd has no session of yours to run the collector in (${launchdDomain(ctx.uid)}: ${firstLine(r) || `exit ${r.status}`}); log in at the Mac`;
  return undefined;
}

/**
 * Throws one clear line when the service manager cannot be used here, naming the full command that runs
 * the collector instead (`collect` is the collector's command line, program path first).
 */
export function assertReachable(ctx: ServiceContext, collect: string): void {
  const reason = unreachableReason(ctx);
  if (reason)
    throw new UserError(
      `${reason}: run \`${collect}\` under your own supervisor instead (a login script, a container entrypoint, supervisord, runit, tmux)`,
    );
}

/** What is at the service file's place: nothing, our file (with its text), or something we must not touch. */
export function readServiceFile(path: string): { exists: false } | { exists: true; ours: boolean; text: string } {
  const stat = lstatOrUndefined(path);
  if (!stat) return { exists: false };
  if (stat.isSymbolicLink())
    throw new UserError(`${path} is a symbolic link; agentmeter does not write or remove through links. Remove it first.`);
  if (!stat.isFile()) throw new UserError(`${path} is not a regular file; remove it first.`);
  const text = readFileSync(path, 'utf8');
  return { exists: true, ours: text.includes(WRITTEN_BY), text };
}

/**
 * The service file's folder, created (0700, as XDG asks of ~/.config) when missing. A link, something
 * that is not a folder, or a folder of another user is refused: the file would land where it points.
 */
function ensureServiceDir(path: string): void {
  const dir = dirname(path);
  let stat = lstatOrUndefined(dir);
  if (!stat) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    stat = lstatSync(dir);
  }
  const problem = ownDirProblem(dir, stat);
  if (problem) throw new UserError(`${problem}; the service file was not written.`);
}

export interface InstallPlan {
  manager: ServiceManager;
  file: string;
  content: string;
  /** The file is missing or differs: it is (re)written. */
  changed: boolean;
  /** The service manager's commands, in order. */
  commands: string[][];
}

export interface InstallResult extends InstallPlan {
  /** A note for the person (lingering off: the collector stops at logout). */
  notes: string[];
}

/** The systemd commands of an install; the launchd ones depend on whether the agent is loaded. */
function systemdCommands(changed: boolean): string[][] {
  if (!changed) return [['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT]];
  // restart, not start: a collector already running must pick the new unit up.
  return [
    ['systemctl', '--user', 'daemon-reload'],
    ['systemctl', '--user', 'enable', SYSTEMD_UNIT],
    ['systemctl', '--user', 'restart', SYSTEMD_UNIT],
  ];
}

function launchdCommands(uid: number, file: string, changed: boolean, loaded: boolean): string[][] {
  const service = launchdService(uid);
  // kickstart without -k starts the agent only when it is not running.
  if (!changed && loaded) return [['launchctl', 'kickstart', service]];
  return [
    ...(loaded ? [['launchctl', 'bootout', service]] : []),
    // A disabled label refuses bootstrap; enabling is a no-op otherwise. RunAtLoad starts it.
    ['launchctl', 'enable', service],
    ['launchctl', 'bootstrap', launchdDomain(uid), file],
  ];
}

const launchdLoaded = (ctx: ServiceContext) => ctx.run('launchctl', ['print', launchdService(ctx.uid)]).status === 0;

/** What an install would write and run; `loaded` is asked of launchd unless given (a dry run does not ask). */
export function planInstall(ctx: ServiceContext, spec: ServiceSpec, options: { force?: boolean; loaded?: boolean } = {}): InstallPlan {
  const file = serviceFile(ctx);
  const content = renderService(ctx.manager, spec);
  const found = readServiceFile(file);
  if (found.exists && !found.ours && !options.force)
    throw new UserError(`${file} was not written by agentmeter; move it aside, or pass --force to replace it`);
  const changed = !found.exists || found.text !== content;
  const commands =
    ctx.manager === 'systemd' ? systemdCommands(changed) : launchdCommands(ctx.uid, file, changed, options.loaded ?? launchdLoaded(ctx));
  return { manager: ctx.manager, file, content, changed, commands };
}

function runChecked(ctx: ServiceContext, command: string[]): RunResult {
  const [program, ...args] = command as [string, ...string[]];
  let result = ctx.run(program, args);
  // launchd may still be tearing the old agent down right after bootout ("5: Input/output error").
  for (let attempt = 1; result.status !== 0 && args[0] === 'bootstrap' && attempt < 5; attempt++) {
    sleepSync(500);
    result = ctx.run(program, args);
  }
  if (result.status !== 0) throw new UserError(`\`${command.join(' ')}\` failed: ${firstLine(result) || `exit ${result.status}`}`);
  return result;
}

export function installService(ctx: ServiceContext, spec: ServiceSpec, options: { force?: boolean } = {}): InstallResult {
  assertReachable(ctx, shellLine([...spec.program, 'collect']));
  const plan = planInstall(ctx, spec, options);
  if (plan.changed) {
    ensureServiceDir(plan.file);
    // launchd opens the log files itself; their folder is ours and private, so no one plants a link there.
    if (ctx.manager === 'launchd') {
      ensurePrivateDir(dirname(spec.logDir));
      ensurePrivateDir(spec.logDir);
    }
    writePrivateFile(plan.file, plan.content);
  }
  for (const command of plan.commands) runChecked(ctx, command);
  return { ...plan, notes: ctx.manager === 'systemd' ? lingerNotes(ctx) : [] };
}

const userName = (uid: number) => {
  try {
    return userInfo().username;
  } catch {
    return String(uid); // no passwd entry (a container's arbitrary uid)
  }
};

/** A user manager runs only while its user is logged in, unless lingering is on for them. */
function lingerNotes(ctx: ServiceContext): string[] {
  const r = ctx.run('loginctl', ['show-user', String(ctx.uid), '--property=Linger', '--value']);
  if (r.status !== 0 || r.stdout.trim() !== 'no') return [];
  return [
    `the collector runs while you are logged in; to keep it running without a login session: loginctl enable-linger ${userName(ctx.uid)}`,
  ];
}

export interface UninstallPlan {
  file: string;
  /** The file is there and ours: it is removed. */
  remove: boolean;
  commands: string[][];
}

export function planUninstall(ctx: ServiceContext, options: { force?: boolean; loaded?: boolean } = {}): UninstallPlan {
  const file = serviceFile(ctx);
  const found = readServiceFile(file);
  if (found.exists && !found.ours && !options.force)
    throw new UserError(`${file} was not written by agentmeter; it was left as it is (pass --force to remove it)`);
  if (ctx.manager === 'systemd') {
    if (!found.exists) return { file, remove: false, commands: [] };
    return {
      file,
      remove: true,
      commands: [
        ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT],
        // After the file is gone: systemd forgets the unit, and a failed state with it.
        ['systemctl', '--user', 'daemon-reload'],
        ['systemctl', '--user', 'reset-failed', SYSTEMD_UNIT],
      ],
    };
  }
  const loaded = options.loaded ?? launchdLoaded(ctx);
  return { file, remove: found.exists, commands: loaded ? [['launchctl', 'bootout', launchdService(ctx.uid)]] : [] };
}

export function uninstallService(ctx: ServiceContext, options: { force?: boolean } = {}): UninstallPlan {
  const plan = planUninstall(ctx, options);
  if (ctx.manager === 'systemd' && plan.remove) {
    const [stop, reload, reset] = plan.commands as [string[], string[], string[]];
    // A user instance that cannot be reached has nothing running to stop; the file still goes.
    const reachable = ctx.run('systemctl', ['--user', 'show-environment']).status === 0;
    if (reachable) runChecked(ctx, stop);
    rmSync(plan.file, { force: true });
    if (reachable) {
      runChecked(ctx, reload);
      const [program, ...args] = reset as [string, ...string[]];
      ctx.run(program, args); // fails when the unit never failed: nothing to reset
    }
    return plan;
  }
  for (const command of plan.commands) runChecked(ctx, command);
  if (plan.remove) rmSync(plan.file, { force: true });
  return plan;
}

export type ServiceState = 'running' | 'stopped' | 'failed' | 'not installed' | 'unknown';

export interface ServiceStatus {
  manager: ServiceManager;
  file: string;
  installed: boolean;
  /** The file carries our first line (false: someone else's file has our unit's name). */
  ours: boolean;
  state: ServiceState;
  /** What the service manager said, in a few words (ActiveState/SubState, launchd's state, last exit). */
  detail: string;
  pid?: number;
  /** The command that shows its log. */
  logs: string;
}

/** Asks the service manager about the collector's service; asks nothing when the file is not there. */
export function serviceStatus(ctx: ServiceContext, logDir: string): ServiceStatus {
  const file = serviceFile(ctx);
  const found = readServiceFile(file);
  const logs =
    ctx.manager === 'systemd'
      ? `journalctl --user -u ${SYSTEMD_UNIT}`
      : `tail ${launchdLogPaths(logDir).stderr} ${launchdLogPaths(logDir).stdout}`;
  const base = { manager: ctx.manager, file, installed: found.exists, ours: found.exists && found.ours, logs };
  if (!found.exists) return { ...base, state: 'not installed', detail: `no ${file}` };
  if (ctx.manager === 'systemd') {
    const r = ctx.run('systemctl', [
      '--user',
      'show',
      SYSTEMD_UNIT,
      '--property=ActiveState,SubState,UnitFileState,MainPID,ExecMainStatus',
    ]);
    if (r.status !== 0) return { ...base, state: 'unknown', detail: `systemctl --user show failed: ${firstLine(r) || 'no answer'}` };
    const props = parseProperties(r.stdout);
    const active = props.get('ActiveState') ?? 'unknown';
    const pid = Number(props.get('MainPID'));
    const exit = props.get('ExecMainStatus');
    const detail = `${active} (${props.get('SubState') ?? '?'}), ${props.get('UnitFileState') ?? 'unknown'}${active !== 'active' && exit && exit !== '0' ? `, last exit status ${exit}` : ''}`;
    // "activating (auto-restart)" is a collector that failed and waits for its next try.
    const restarting = props.get('SubState') === 'auto-restart';
    const state: ServiceState =
      (active === 'active' || active === 'activating' || active === 'reloading') && !restarting
        ? 'running'
        : active === 'failed' || restarting
          ? 'failed'
          : 'stopped';
    return { ...base, state, detail, ...(state === 'running' && pid > 0 ? { pid } : {}) };
  }
  const r = ctx.run('launchctl', ['print', launchdService(ctx.uid)]);
  if (r.missing) return { ...base, state: 'unknown', detail: 'launchctl is not on this machine' };
  if (r.status !== 0) return { ...base, state: 'stopped', detail: 'not loaded (installed but not bootstrapped)' };
  const props = parseProperties(r.stdout, ' = ');
  const launchState = props.get('state') ?? 'unknown';
  const pid = Number(props.get('pid'));
  const exit = props.get('last exit code');
  const running = launchState === 'running';
  const failed = !running && exit !== undefined && exit !== '0' && !exit.startsWith('(never');
  return {
    ...base,
    state: running ? 'running' : failed ? 'failed' : 'stopped',
    detail: `loaded, ${launchState}${exit !== undefined ? `, last exit code ${exit}` : ''}`,
    ...(running && pid > 0 ? { pid } : {}),
  };
}

/** `Key=value` lines (systemctl show), or `key = value` lines (launchctl print; the first of each key). */
function parseProperties(text: string, separator = '='): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of text.split('\n')) {
    const at = line.indexOf(separator);
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    if (!props.has(key)) props.set(key, line.slice(at + separator.length).trim());
  }
  return props;
}

/** The restart command of an installed service, for the doctor's fix. */
export const restartCommand = (manager: ServiceManager, uid: number) =>
  manager === 'systemd' ? `systemctl --user restart ${SYSTEMD_UNIT}` : `launchctl kickstart -k ${launchdService(uid)}`;
