// Gathers the facts `agentmeter doctor` judges (cli/doctor/checks.ts): settings files, the hook script,
// the collector's pid file and user service (systemd or launchd), the spool, the collector state and two requests to the
// server. Reads only: it changes nothing on the machine. Light: no collector daemon, no server code.
import { accessSync, constants, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  HOOK_SCRIPT_NAME,
  type InstallTarget,
  isOurCommand,
  SettingsError,
  sharedScriptProblem,
  status,
} from '../../collector/install/installer.ts';
import {
  agentPresent,
  locationOf,
  managedSettings,
  managedSettingsLocation,
  readHooksMap,
  type SettingsLocation,
  userSettingsLocation,
} from '../../collector/install/settings.ts';
import { DEFAULT_OTLP_LISTEN, OTHER_USERS_REFUSAL, readReceiverStatus, UNTOLD_OWNER_REFUSAL } from '../../collector/otel/status.ts';
import { collectorAlive, readPidFile } from '../../collector/pidfile.ts';
import { listNew, newEntryProblem, spoolDirs, spoolProblem, spoolWriteProblem, tmpFiles } from '../../collector/spool.ts';
import { parseShipFields, statePath } from '../../collector/state.ts';
import type { Agent } from '../../common/agents.ts';
import { splitShellWords } from '../../common/shell-words.ts';
import { programLine } from '../program.ts';
import {
  restartCommand,
  type ServiceContext,
  type ServiceStatus,
  serviceFile,
  serviceStatus,
  unreachableReason,
} from '../service/manager.ts';
import type {
  AgentHookFacts,
  CollectorFacts,
  HookPlace,
  ReceiverAnswer,
  ReceiverFacts,
  ServerFacts,
  ServiceFacts,
  ShipFacts,
  SpoolFacts,
} from './checks.ts';

export interface ProbeOptions {
  home: string;
  agentmeterHome: string;
  defaultAgentmeterHome: boolean;
}

/** The hook scripts named by our commands in a hooks map, and whether each would run. */
function ourScripts(location: SettingsLocation): { path: string; runnable: boolean }[] {
  const map = readHooksMap(location) ?? {};
  const paths = new Set<string>();
  for (const groups of Object.values(map))
    for (const group of groups)
      for (const hook of group.hooks) {
        if (!isOurCommand(hook.command)) continue;
        const words = splitShellWords(hook.command ?? '', { operators: false }).commands[0] ?? [];
        const script = words.find((w) => w.endsWith(HOOK_SCRIPT_NAME));
        if (script) paths.add(script);
      }
  return [...paths].map((path) => {
    try {
      accessSync(path, constants.X_OK);
      return { path, runnable: true };
    } catch {
      return { path, runnable: false };
    }
  });
}

function place(kind: HookPlace['kind'], target: InstallTarget, location: SettingsLocation): HookPlace {
  try {
    const s = status(target);
    // What would keep the agent from running the hook although the file has it: a switch in the file, or
    // (Codex) hooks the user has not trusted yet, which Codex skips.
    const blockers = [...s.blockers];
    let blockerFix: string | undefined;
    if (s.trust && !s.trust.problem) {
      const skipped = Object.entries(s.trust.byEvent)
        .filter(([, state]) => state !== 'trusted')
        .map(([event, state]) => `${event} (${state})`);
      if (skipped.length) {
        blockers.push(`Codex skips the agentmeter hook where it is not trusted: ${skipped.join(', ')}`);
        blockerFix = s.trust.hint;
      }
    }
    const scripts = ourScripts(location);
    // A managed file's script runs in every user's agent: each it names is judged, not only the first.
    const unsafe =
      kind === 'managed'
        ? scripts.map((s) => ({ path: s.path, problem: sharedScriptProblem(s.path, location.file) })).find((s) => s.problem)
        : undefined;
    return {
      kind,
      file: location.file,
      installed: s.missingEvents.length === 0 && s.outdatedEvents.length === 0,
      partial: s.installedEvents.length + s.outdatedEvents.length > 0,
      scripts,
      ...(unsafe ? { unsafeScript: { path: unsafe.path, problem: unsafe.problem! } } : {}),
      blockers,
      ...(blockerFix ? { blockerFix } : {}),
    };
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    return { kind, file: location.file, error: error.message, installed: false, partial: false, scripts: [], blockers: [] };
  }
}

export function probeHook(agent: Agent, options: ProbeOptions, managedFile?: string): AgentHookFacts {
  const base = { agent, home: options.home, agentmeterHome: options.agentmeterHome, defaultAgentmeterHome: options.defaultAgentmeterHome };
  const user = userSettingsLocation(agent, options.home);
  const places = [place('user', { ...base, settingsFile: user.file }, user)];
  // An agent that keeps managed hooks where agentmeter does not install (Codex: requirements.toml) has no
  // managed place to check, unless one was named.
  if (!('refused' in managedSettings(agent)) || managedFile) {
    const managed: SettingsLocation = managedFile
      ? locationOf(agent, { file: managedFile, topLevel: false })
      : managedSettingsLocation(agent);
    // A managed install names its own shared script: judge the file against the script it names.
    const managedScript = ourScripts(managed)[0]?.path;
    if (existsSync(managed.file))
      places.push(
        place('managed', { ...base, settingsFile: managed.file, ...(managedScript ? { hookPath: managedScript } : {}) }, managed),
      );
  }
  return { agent, present: agentPresent(agent, options.home), places };
}

export function probeCollector(options: ProbeOptions & { service?: ServiceContext }): CollectorFacts {
  const pidFile = readPidFile(options.agentmeterHome);
  const pidAlive = pidFile !== undefined && collectorAlive(pidFile);
  const service = options.service
    ? probeService(options.service, join(options.agentmeterHome, 'logs'), pidAlive, programLine(options.agentmeterHome))
    : undefined;
  return { pidAlive, ...(pidFile !== undefined ? { pidFile } : {}), ...(service ? { service } : {}) };
}

/**
 * The service as its manager describes it. The manager is asked only about a file that exists, and
 * whether it can be reached only when nothing runs (to know whether `service install` would work).
 * `program` is the agentmeter command line the fixes start with.
 */
export function probeService(ctx: ServiceContext, logDir: string, pidAlive: boolean, program: string): ServiceFacts {
  let status: ServiceStatus;
  try {
    status = serviceStatus(ctx, logDir);
  } catch (error) {
    // A link or a folder at the unit's place: reported, not followed.
    const file = serviceFile(ctx);
    return {
      manager: ctx.manager,
      file,
      installed: true,
      ours: false,
      state: 'unknown',
      detail: (error as Error).message,
      logs: '',
      restart: `move ${file} aside, then: ${program} service install`,
    };
  }
  let reachable: boolean | undefined;
  if (!status.installed && !pidAlive) {
    reachable = unreachableReason(ctx) === undefined;
  }
  return { ...status, restart: restartCommand(ctx.manager, ctx.uid), ...(reachable !== undefined ? { reachable } : {}) };
}

export function probeSpool(agentmeterHome: string): SpoolFacts {
  const dirs = spoolDirs(agentmeterHome);
  const problem = spoolProblem(dirs);
  if (problem) return { dir: dirs.new, problem, pending: 0 };
  const unwritable = spoolWriteProblem(dirs);
  let pending = 0;
  let oldestMs: number | undefined;
  for (const name of listNew(dirs)) {
    try {
      const stat = lstatSync(join(dirs.new, name));
      if (newEntryProblem(dirs, name, stat)) continue;
      pending++;
      if (oldestMs === undefined || stat.mtimeMs < oldestMs) oldestMs = stat.mtimeMs;
    } catch {
      // Shipped while we counted.
    }
  }
  const tmp = tmpFiles(dirs);
  return {
    dir: dirs.new,
    ...(unwritable ? { unwritable } : {}),
    pending,
    ...(oldestMs !== undefined ? { oldestMs } : {}),
    tmpDir: dirs.tmp,
    abandoned: tmp.abandoned,
    ...(tmp.oldestAbandonedMs !== undefined ? { oldestAbandonedMs: tmp.oldestAbandonedMs } : {}),
  };
}

export function probeQuarantine(agentmeterHome: string): { dir: string; files: { name: string; reason: string }[] } {
  const dir = spoolDirs(agentmeterHome).bad;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { dir, files: [] };
  }
  const files = names
    .filter((n) => !n.endsWith('.reason') && !n.includes('.tmp-'))
    .sort()
    .map((name) => {
      let reason = 'no reason recorded';
      try {
        reason = readFileSync(join(dir, `${name}.reason`), 'utf8').trim() || reason;
      } catch {
        // Kept as "no reason recorded".
      }
      return { name, reason };
    });
  return { dir, files };
}

/** The collector's state as saved; read only (a corrupt file is left for the collector to set aside). */
export function probeShip(agentmeterHome: string): ShipFacts & { problem?: string } {
  const empty = { lastShipAt: null, lastShipRecords: 0, totalShipped: 0, lastError: null, lastErrorAt: null };
  const path = statePath(agentmeterHome);
  if (!existsSync(path)) return empty;
  try {
    return parseShipFields(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    return { ...empty, lastError: `the collector state ${path} is unreadable (${(error as Error).message})`, lastErrorAt: Date.now() };
  }
}

const TIMEOUT_MS = 5000;

/** GET /healthz (reachability, and the Date header for clock skew), then an authenticated GET /api/v0/auth/me. */
export async function probeServer(url: string | undefined, key: string | undefined): Promise<ServerFacts> {
  if (!url) return {};
  const base = url.replace(/\/+$/, '');
  const facts: ServerFacts = { url: base };
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.arrayBuffer();
    const date = res.headers.get('date');
    facts.health = { status: res.status, ...(date ? { date } : {}) };
  } catch (error) {
    facts.health = { error: describeFetchError(error) };
    return facts;
  }
  if (!key) return facts;
  try {
    const res = await fetch(`${base}/api/v0/auth/me`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const detail = typeof body?.['detail'] === 'string' ? body['detail'] : undefined;
    const email = typeof body?.['email'] === 'string' ? body['email'] : undefined;
    const role = typeof body?.['role'] === 'string' ? body['role'] : undefined;
    facts.me = { status: res.status, ...(detail ? { detail } : {}), ...(email ? { who: role ? `${email}, ${role}` : email } : {}) };
  } catch (error) {
    facts.me = { error: describeFetchError(error) };
  }
  return facts;
}

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * Pure: what an answer to a GET of /v1/metrics says answered it. The collector's receiver answers 405 naming
 * OTLP's POST; 403 saying it answers only its own user's agents when it is another user's, or that it
 * cannot tell whose the connection is; anything else is another program.
 */
export function receiverAnswerOf(status: number, body: string): ReceiverAnswer {
  if (status === 405 && body.includes('OTLP requests are POST')) return { kind: 'ours' };
  if (status === 403 && body.includes(OTHER_USERS_REFUSAL)) return { kind: 'another-user' };
  if (status === 403 && body.includes(UNTOLD_OWNER_REFUSAL)) return { kind: 'untold' };
  return { kind: 'other', status };
}

/** What answers a GET of the receiver's address (receiverAnswerOf), or why nothing does. */
export async function probeReceiverAnswer(listen: string): Promise<ReceiverAnswer> {
  try {
    const res = await fetch(`http://${listen}/v1/metrics`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    return receiverAnswerOf(res.status, await res.text());
  } catch (error) {
    return { kind: 'none', reason: describeFetchError(error) };
  }
}

/** The receiver's status file and what answers on its address (the default one when no collector started it). */
export async function probeReceiver(agentmeterHome: string): Promise<ReceiverFacts> {
  const status = readReceiverStatus(agentmeterHome);
  const listen = status && !status.listen.endsWith(':0') ? status.listen : DEFAULT_OTLP_LISTEN;
  const answer = await probeReceiverAnswer(listen);
  return {
    listen,
    ...(status ? { status: { requests: status.requests, facts: status.facts, refused: status.refused, unmapped: status.unmapped } } : {}),
    answer,
  };
}
