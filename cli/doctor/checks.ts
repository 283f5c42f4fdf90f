// `agentmeter doctor`'s verdicts: each check is a pure function from facts gathered on the machine
// (cli/doctor/probe.ts) to {name, ok, detail, fix?}. A failed check always says the command that fixes it.
import { z } from 'zod';
import { sweptAt, TMP_MAX_AGE_MS } from '../../collector/spool.ts';
import type { Agent } from '../../common/agents.ts';

export const Check = z.object({
  name: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  /** The command (or step) that fixes it; present on every failed check. */
  fix: z.string().optional(),
});
export type Check = z.infer<typeof Check>;

/**
 * The `doctor --json` output: ok is false when any check failed (the command then exits 1); service is
 * the collector's user service as found (null where the platform has no service manager of ours).
 */
export const DoctorReport = z.object({
  ok: z.boolean(),
  checks: z.array(Check),
  service: z.lazy(() => ServiceFacts.nullable()).optional(),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const report = (checks: Check[], service?: ServiceFacts | null): DoctorReport => ({
  ok: checks.every((c) => c.ok),
  checks,
  ...(service !== undefined ? { service } : {}),
});

/** Pending events older than this mean the collector is not keeping up, even when it runs. */
export const BACKLOG_AGE_MS = 10 * 60_000;
/** Clock skew above this misplaces events in daily aggregates near midnight, and breaks JWT checks. */
export const MAX_SKEW_MS = 5 * 60_000;

/** How the doctor was told where the server is and which key to use, to print fixes that work as typed. */
export interface Connection {
  /** The agentmeter program as typed, an absolute path (cli/program.ts): `agentmeter` is rarely on PATH. */
  program: string;
  server?: string;
  serverFromEnv: boolean;
  hasKey: boolean;
  keyFromEnv: boolean;
}

/** The collect command line for this machine (never with the key itself: it would end up in a terminal log). */
export function collectCommand(connection: Connection, once: boolean): string {
  const server = connection.serverFromEnv || !connection.server ? '' : ` --server ${connection.server}`;
  const key = connection.keyFromEnv && connection.hasKey ? '' : ' --key <your key>';
  const missingServer = connection.server ? '' : ' --server <server URL>';
  return `${connection.program} collect${once ? ' --once' : ''}${server}${missingServer}${key}`;
}

export interface HookPlace {
  kind: 'user' | 'managed';
  file: string;
  /** The file could not be read as settings (malformed JSON, a hooks section we do not understand). */
  error?: string;
  /** Our hook is on every event of the agent, as the installer writes it. */
  installed: boolean;
  /** Some events have our hook, or have it in an older form. */
  partial: boolean;
  /** The scripts our hook commands name, and whether each exists and is executable. */
  scripts: { path: string; runnable: boolean }[];
  /** A managed file's script in a folder others than root and the file's owner can change, and why. */
  unsafeScript?: { path: string; problem: string };
  /** Why the agent would not run the hook although the file has it (a switch in the file, Codex trust). */
  blockers: string[];
  /** What turns it on again, where that is not editing the file (Codex: trusting the hooks in /hooks). */
  blockerFix?: string;
}

export interface AgentHookFacts {
  agent: Agent;
  /** The agent's configuration folder exists (~/.claude, ~/.factory): the agent is used here. */
  present: boolean;
  places: HookPlace[];
}

/** `program`: the agentmeter command line the fix starts with (Connection.program). */
export function checkHook(f: AgentHookFacts, program: string): Check {
  const name = `hook: ${f.agent}`;
  const install = `${program} hooks install --agent ${f.agent}`;
  const broken = f.places.find((p) => p.error);
  if (broken) {
    return {
      name,
      ok: false,
      detail: broken.error!,
      fix: `repair the JSON of ${broken.file}, then: ${install}${broken.kind === 'managed' ? ' --managed' : ''}`,
    };
  }
  const installed = f.places.filter((p) => p.installed);
  if (installed.length === 0) {
    const partial = f.places.find((p) => p.partial);
    if (partial) {
      return {
        name,
        ok: false,
        detail: `installed on some events only, or in an older form, in ${partial.file}`,
        fix: partial.kind === 'managed' ? `sudo ${install} --managed` : install,
      };
    }
    if (!f.present) return { name, ok: true, detail: `${f.agent} is not used on this machine (no settings folder); nothing to check` };
    return {
      name,
      ok: false,
      detail: `not installed (looked in ${f.places.map((p) => p.file).join(' and ')})`,
      fix: install,
    };
  }
  for (const place of installed) {
    const bad = place.scripts.find((s) => !s.runnable);
    if (bad) {
      return {
        name,
        ok: false,
        detail: `the hook in ${place.file} runs ${bad.path}, which is missing or not executable: the agent's events are lost`,
        fix: place.kind === 'managed' ? `sudo ${install} --managed --hook-path ${bad.path}` : install,
      };
    }
  }
  const unsafe = f.places.find((p) => p.unsafeScript);
  if (unsafe?.unsafeScript) {
    const { path, problem } = unsafe.unsafeScript;
    return {
      name,
      ok: false,
      detail: `the hook in ${unsafe.file} runs ${path}, in a folder another user can change (${problem}): they could run their own code in every user's agent`,
      fix: `sudo ${install} --managed --hook-path /opt/agentmeter/agentmeter-hook.sh (a folder only root can write), then remove ${path}`,
    };
  }
  const blocked = installed.find((p) => p.blockers.length > 0);
  if (blocked) {
    return {
      name,
      ok: false,
      detail: `installed in ${blocked.file}, but the agent will not run it: ${blocked.blockers.join('; ')}`,
      fix: blocked.blockerFix ?? `turn the agent's hooks back on in ${blocked.file} (see ${program} hooks status --agent ${f.agent})`,
    };
  }
  return { name, ok: true, detail: `installed in ${installed.map((p) => `${p.file} (${p.kind})`).join(' and ')}; the hook script runs` };
}

/**
 * The collector's user service as the service manager describes it (cli/service/manager.ts
 * serviceStatus), with the command that restarts it. Undefined where this platform has no service
 * manager of ours (neither Linux nor macOS).
 */
export const ServiceFacts = z.object({
  manager: z.enum(['systemd', 'launchd']),
  file: z.string(),
  installed: z.boolean(),
  /** The file carries agentmeter's first line. */
  ours: z.boolean(),
  state: z.enum(['running', 'stopped', 'failed', 'not installed', 'unknown']),
  detail: z.string(),
  pid: z.number().int().optional(),
  /** The command that shows the service's log. */
  logs: z.string(),
  restart: z.string(),
  /** Whether the service manager can be used here; asked only when no service is installed. */
  reachable: z.boolean().optional(),
});
export type ServiceFacts = z.infer<typeof ServiceFacts>;

export interface CollectorFacts {
  service?: ServiceFacts;
  pidFile?: number;
  pidAlive: boolean;
}

export const collectorRunning = (f: CollectorFacts) => f.service?.state === 'running' || f.pidAlive;

/** The service install command line for this machine (the key never in it, as collectCommand). */
export function serviceInstallCommand(connection: Connection): string {
  return collectCommand(connection, false).replace(`${connection.program} collect`, `${connection.program} service install`);
}

/** How to get a collector running: the user service where one can be installed, else `collect` by hand. */
function startFix(f: CollectorFacts, connection: Connection): string {
  if (f.service?.installed) return `${f.service.restart} (why it stopped: ${f.service.logs})`;
  if (f.service?.reachable)
    return `${serviceInstallCommand(connection)} (or, under your own supervisor: ${collectCommand(connection, false)})`;
  return collectCommand(connection, false);
}

/**
 * How to get waiting events shipped now. With a collector running, a `collect --once` beside it would be
 * refused (two collectors on one spool would each ship the other's files): the running one is restarted.
 */
export function shipNowFix(f: CollectorFacts, connection: Connection): string {
  if (f.service?.state === 'running') return `${f.service.restart} (why it fell behind: ${f.service.logs})`;
  if (f.pidAlive) return `stop the collector you started (pid ${f.pidFile}) and start it again: ${collectCommand(connection, false)}`;
  return collectCommand(connection, true);
}

export function checkCollector(f: CollectorFacts, connection: Connection): Check {
  const name = 'collector';
  const s = f.service;
  if (s?.state === 'running') return { name, ok: true, detail: `running (${s.manager} service${s.pid ? `, pid ${s.pid}` : ''})` };
  if (f.pidAlive) return { name, ok: true, detail: `running (pid ${f.pidFile})` };
  if (s?.installed) {
    return { name, ok: false, detail: `not running: its ${s.manager} service is ${s.state} (${s.detail})`, fix: startFix(f, connection) };
  }
  return {
    name,
    ok: false,
    detail: `not running${f.pidFile ? ` (pid ${f.pidFile} from its pid file is gone)` : ''}: spooled events are not shipped`,
    fix: startFix(f, connection),
  };
}

/**
 * The service itself. Not having one is fine (a collector run by hand or by another supervisor is
 * judged by the collector check); an installed service that is not running, with nothing else
 * shipping, is a problem with its restart command.
 */
export function checkService(f: CollectorFacts, connection: Connection): Check {
  const name = 'service';
  const s = f.service;
  if (!s) return { name, ok: true, detail: 'no user service manager on this platform; the collector runs by hand' };
  if (!s.installed) {
    const running = f.pidAlive ? `; the collector runs without one (pid ${f.pidFile})` : '';
    const how = s.reachable ? `; to start it at every login: ${serviceInstallCommand(connection)}` : '';
    return { name, ok: true, detail: `not installed (${s.file})${running}${how}` };
  }
  const foreign = s.ours ? '' : ' (not written by agentmeter)';
  if (s.state === 'running') return { name, ok: true, detail: `${s.file}${foreign}: ${s.detail}` };
  if (f.pidAlive)
    return { name, ok: true, detail: `${s.file}${foreign} is ${s.state} (${s.detail}); a collector runs without it (pid ${f.pidFile})` };
  return {
    name,
    ok: false,
    detail: `${s.file}${foreign} is ${s.state}: ${s.detail}`,
    fix:
      s.state === 'unknown'
        ? `run the doctor in a login session of this user; then: ${s.restart}`
        : `${s.restart} (why it stopped: ${s.logs})`,
  };
}

export interface SpoolFacts {
  dir: string;
  /** What is wrong with the spool's folders (a link, another user's folder), if anything. */
  problem?: string;
  /** Why the hook cannot write into the spool (a read-only file system, a folder it may not write), if it cannot. */
  unwritable?: string;
  pending: number;
  oldestMs?: number;
  /** tmp/, and its files no hook writes any more (collector/spool.ts tmpFiles). */
  tmpDir?: string;
  abandoned?: number;
  oldestAbandonedMs?: number;
}

const ago = (ms: number) =>
  ms < 90_000 ? `${Math.round(ms / 1000)} s` : ms < 5_400_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`;

/**
 * Pure: what `collect status` and `doctor` say of abandoned tmp/ files: how many, the oldest's age, and
 * when the collector's sweep removes it (TMP_MAX_AGE_MS after its last write).
 */
export function describeAbandoned(count: number, oldestMs: number, now: number, tmpDir: string): string {
  const removal = sweptAt(oldestMs);
  const when = removal <= now ? 'at its next sweep (hourly)' : `at ${new Date(removal).toISOString()} (in ${ago(removal - now)})`;
  return (
    `${count} abandoned file${count === 1 ? '' : 's'} in ${tmpDir} (a hook stopped before it finished copying its event; never shipped), ` +
    `the oldest last written ${new Date(oldestMs).toISOString()} (${ago(Math.max(0, now - oldestMs))} ago); ` +
    `a running collector removes each ${TMP_MAX_AGE_MS / 3_600_000} h after its last write, the oldest ${when}`
  );
}

/** Abandoned tmp/ files: harmless (never shipped, removed by the sweep), so named but not a problem. */
export function checkAbandoned(f: SpoolFacts, now: number): Check {
  const name = 'spool tmp';
  if (!f.abandoned || f.oldestAbandonedMs === undefined) return { name, ok: true, detail: 'no abandoned files' };
  return { name, ok: true, detail: describeAbandoned(f.abandoned, f.oldestAbandonedMs, now, f.tmpDir ?? 'spool/tmp') };
}

export function checkSpool(f: SpoolFacts, collector: CollectorFacts, connection: Connection, now: number): Check {
  const running = collectorRunning(collector);
  const name = 'spool';
  if (f.problem)
    return { name, ok: false, detail: f.problem, fix: 'move the folder aside, then run any agent once: the hook recreates it' };
  if (f.unwritable)
    return {
      name,
      ok: false,
      detail: f.unwritable,
      fix: 'make the folder writable by this user (chmod u+w), or remount its file system read-write, or free space on it',
    };
  if (f.pending === 0) return { name, ok: true, detail: `empty (${f.dir})` };
  const age = f.oldestMs === undefined ? 0 : Math.max(0, now - f.oldestMs);
  const detail = `${f.pending} event${f.pending === 1 ? '' : 's'} waiting in ${f.dir}, the oldest from ${new Date(f.oldestMs ?? now).toISOString()} (${ago(age)} ago)`;
  if (running && age <= BACKLOG_AGE_MS) return { name, ok: true, detail };
  return {
    name,
    ok: false,
    detail: `${detail}${running ? ': the collector is not keeping up' : ' and no collector ships them'}`,
    fix: shipNowFix(collector, connection),
  };
}

/**
 * $AGENTMETER_HOME/collector.env (install.sh writes it): absent is fine when the environment or flags
 * give the server and key; a file the collector refuses (readable by others, a link, a bad line) is a
 * problem, with its own fix in the message.
 */
export function checkSettingsFile(file: string, exists: boolean, problem: string | undefined): Check {
  const name = 'settings';
  if (problem)
    return { name, ok: false, detail: problem, fix: `fix ${file} as the detail says, or install again with the server's install.sh` };
  return { name, ok: true, detail: exists ? `${file} (server and key)` : `no ${file}: server and key from the environment or flags` };
}

export function checkQuarantine(dir: string, files: { name: string; reason: string }[]): Check {
  const name = 'quarantine';
  if (files.length === 0) return { name, ok: true, detail: 'no quarantined files' };
  const shown = files.slice(0, 5).map((f) => `${f.name}: ${f.reason}`);
  return {
    name,
    ok: false,
    detail: `${files.length} file${files.length === 1 ? '' : 's'} quarantined in ${dir} (never shipped): ${shown.join('; ')}${files.length > 5 ? '; …' : ''}`,
    fix: `read the reasons (cat ${dir}/*.reason); once handled, remove them: rm ${dir}/*`,
  };
}

/** What GET /healthz and the authenticated GET answered (or why they could not be asked). */
export interface ServerFacts {
  url?: string;
  health?: { status: number; date?: string } | { error: string };
  me?: { status: number; detail?: string; who?: string } | { error: string };
}

export function checkServer(f: ServerFacts, connection: Connection): Check {
  const name = 'server';
  if (!f.url) return { name, ok: false, detail: 'no server configured', fix: 'set AGENTMETER_SERVER=<server URL> (or pass --server)' };
  const h = f.health;
  if (!h || 'error' in h) {
    return {
      name,
      ok: false,
      detail: `${f.url} cannot be reached: ${h?.error ?? 'not asked'}`,
      fix: `check the URL and the network (curl ${f.url}/healthz); a wrong URL: ${collectCommand({ ...connection, server: '<server URL>', serverFromEnv: false }, false)}`,
    };
  }
  if (h.status !== 200)
    return { name, ok: false, detail: `${f.url}/healthz answered ${h.status}`, fix: 'ask the server operator (its log says why)' };
  return { name, ok: true, detail: `${f.url} is reachable` };
}

export function checkKey(f: ServerFacts, connection: Connection): Check {
  const name = 'key';
  if (!connection.hasKey)
    return { name, ok: false, detail: 'no API key configured', fix: 'set AGENTMETER_API_KEY=<your key> (or pass --key)' };
  const m = f.me;
  if (!m) return { name, ok: true, detail: 'not checked: the server was not reached' };
  if ('error' in m) return { name, ok: false, detail: `the key could not be checked: ${m.error}`, fix: 'see the server check' };
  if (m.status === 200) return { name, ok: true, detail: `valid${m.who ? ` (${m.who})` : ''}` };
  if (m.status === 401 || m.status === 403) {
    return {
      name,
      ok: false,
      detail: `the server refuses the key (${m.status}${m.detail ? `: ${m.detail}` : ''}); the collector stops on a refused key`,
      fix: 'ask an owner or manager for a new key (agentmeter keys create), then set AGENTMETER_API_KEY to it',
    };
  }
  return {
    name,
    ok: false,
    detail: `the key check answered ${m.status}${m.detail ? `: ${m.detail}` : ''}`,
    fix: 'ask the server operator',
  };
}

export interface ShipFacts {
  lastShipAt: number | null;
  lastShipRecords: number;
  totalShipped: number;
  lastError: string | null;
  lastErrorAt: number | null;
}

export function checkLastShip(f: ShipFacts, pending: number, collector: CollectorFacts, connection: Connection, now: number): Check {
  const name = 'last ship';
  const last = f.lastShipAt
    ? `${new Date(f.lastShipAt).toISOString()} (${ago(Math.max(0, now - f.lastShipAt))} ago, ${f.lastShipRecords} records)`
    : 'never';
  if (f.lastError) {
    return {
      name,
      ok: false,
      detail: `the last attempt failed at ${new Date(f.lastErrorAt ?? now).toISOString()}: ${f.lastError}; last success: ${last}`,
      fix: `fix what the server and key checks say, then: ${shipNowFix(collector, connection)}`,
    };
  }
  if (!f.lastShipAt && pending > 0) {
    return { name, ok: false, detail: `nothing shipped yet while ${pending} events wait`, fix: shipNowFix(collector, connection) };
  }
  return { name, ok: true, detail: `${last}; ${f.totalShipped} records shipped in total` };
}

export function checkClock(f: ServerFacts, now: number): Check {
  const name = 'clock';
  const h = f.health;
  const date = h && !('error' in h) ? h.date : undefined;
  const server = date ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(server)) return { name, ok: true, detail: 'not checked: no answer from the server with a Date header' };
  const skew = now - server;
  // The Date header has whole seconds: a second of difference is only rounding.
  const detail = `${Math.abs(skew) < 1500 ? 'in step with' : `${ago(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'}`} the server`;
  if (Math.abs(skew) <= MAX_SKEW_MS) return { name, ok: true, detail };
  return {
    name,
    ok: false,
    detail: `this machine's clock is ${detail}: event times and daily totals will be off`,
    fix: 'turn on network time: sudo timedatectl set-ntp true (Linux), sudo sntp -sS time.apple.com (macOS)',
  };
}

/**
 * What answered a GET of the OTLP receiver's address: the collector's receiver, another user's (which refuses
 * this user's connections), ours unable to tell whose the connection is, another program, or nothing.
 */
export type ReceiverAnswer =
  | { kind: 'ours' }
  | { kind: 'another-user' }
  | { kind: 'untold' }
  | { kind: 'other'; status: number }
  | { kind: 'none'; reason: string };

export interface ReceiverFacts {
  /** Where the receiver listens: its status file's address, else the default the agents are pointed at. */
  listen: string;
  /** The counts of the receiver's status file (collector/otel/receiver.ts), when a collector started one. */
  status?: { requests: number; facts: number; refused: number; unmapped: number };
  answer: ReceiverAnswer;
}

/**
 * The collector's OTLP receiver (docs/metrics.md §11). Another program on its address is a problem even
 * when ours is off: the agents' exports, pointed there by `hooks install`, would reach it (on a shared
 * machine, another user's collector, which would count them as that user's).
 */
export function checkReceiver(f: ReceiverFacts, running: boolean, connection: Connection): Check {
  const name = 'otel receiver';
  const elsewhere = `run the collector with --otlp-listen 127.0.0.1:<free port> and point the agents there: ${connection.program} hooks install --otlp-endpoint http://127.0.0.1:<free port>`;
  if (f.answer.kind === 'another-user')
    return {
      name,
      ok: false,
      detail: `another user's collector listens on ${f.listen} and refuses this user's connections: the agents' OpenTelemetry is lost`,
      fix: elsewhere,
    };
  if (f.answer.kind === 'untold')
    return {
      name,
      ok: false,
      detail: `the collector's receiver on ${f.listen} cannot tell which user opens its connections (the system's socket tables do not list them), so it refuses them: the agents' OpenTelemetry is lost`,
      fix: 'let the agents reach the receiver on this machine directly, not through a port forwarder or from another network namespace (a container)',
    };
  if (f.answer.kind === 'other')
    return {
      name,
      ok: false,
      detail: `another program answers on ${f.listen} (HTTP ${f.answer.status}): the agents' OpenTelemetry goes to it, not to agentmeter`,
      fix: `stop that program, or ${elsewhere}`,
    };
  if (!running) return { name, ok: true, detail: `not checked: it runs inside the collector, which is not running` };
  if (f.answer.kind === 'ours') {
    const s = f.status;
    const counts = s ? `: ${s.requests} requests, ${s.facts} facts spooled, ${s.unmapped} unmapped, ${s.refused} refused` : '';
    return { name, ok: true, detail: `listening on ${f.listen}${counts}` };
  }
  if (!f.status)
    return {
      name,
      ok: true,
      detail: `off (the collector runs with --otlp-listen off): agents' OpenTelemetry exports are not received (${f.answer.reason})`,
    };
  return {
    name,
    ok: false,
    detail: `the collector's receiver does not answer on ${f.listen} (${f.answer.reason}): it did not start, so the agents' OpenTelemetry is lost`,
    fix: `restart the collector and read its log for "OTLP receiver not started"; if the port is taken, ${elsewhere}`,
  };
}
