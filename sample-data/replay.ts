// Feeds a sample plan through the real path: for each user, a HOME with the hook installed by the real
// installer, the real hook script run once per event in its own process (its time replayed with
// AGENTMETER_EVENT_TIME, the event on its stdin through a pipe, as an agent sends it), and the real
// collector shipping that user's spool to the server with the user's own API key: once for the user's
// whole history, and also at each midnight a Droid session runs across (so Droid's cumulative token
// readings split by day as they would live).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_INGEST_LIMITS } from '../api/ingest/limits.ts';
import { AGENT_HOOKS } from '../collector/agents/hooks-table.ts';
import type { GitRunner } from '../collector/code/git.ts';
import { Collector } from '../collector/daemon.ts';
import { install, installedScriptPath } from '../collector/install/installer.ts';
import { userSettingsLocation } from '../collector/install/settings.ts';
import { AGENTS } from '../common/agents.ts';
import type { Logger } from '../common/logger.ts';
import { type PlannedEvent, SAMPLES, type SamplePlan } from './generator.ts';
import { ProjectRepos, projectsOf } from './project-repos.ts';
import { shAssignments, shQuote } from './sh.ts';

export interface ReplayOptions {
  server: string;
  /** One API key per plan user, same order. */
  keys: string[];
  workDir: string;
  log: Logger;
  /** How the collectors run git (default: their own, a fork of this process per command). */
  git?: GitRunner;
  /** The load's shipments at once (default: SHIPPING_MOST, the replay's alone). */
  shipping?: ShippingSlots;
  /** Users replayed at once (default: three per core, at least four). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Users' shipments (collector drains) at once: each has at most one ingest request in flight, and the
 * server admits this many of one organization's at once; more are answered 429 and wait 2 s to retry.
 */
export const SHIPPING_MOST = DEFAULT_INGEST_LIMITS.maxInFlightPerOrg;

/** The shipments of one load (the replay's and the git activity's): at most `most` at once. */
export class ShippingSlots {
  private used = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly most = SHIPPING_MOST) {}

  async run<T>(ship: () => Promise<T>): Promise<T> {
    while (this.used >= this.most) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.used++;
    try {
      return await ship();
    } finally {
      this.used--;
      this.queue.shift()?.();
    }
  }
}

/** Events written to a driver at a time (between two progress counts). */
const PROGRESS_STEP = 200;

/** Ends each event's here-document; a payload is one line of JSON, so it can never be this line. */
const EOF_MARK = 'AGENTMETER_SAMPLE_EVENT_END';

/**
 * The shell lines for a segment of events (the events between two shipments): the agent's file writes
 * (transcript lines, Droid's session settings) with the `printf` builtin, then the real hook script in a
 * process of its own with the agent's environment and the event on stdin. Written in time order, so each
 * write comes before the hook of the event it belongs to, as an agent does it.
 */
export function segmentScript(events: PlannedEvent[], home: string, script: string): string {
  const lines: string[] = [];
  for (const event of events) {
    for (const op of event.before) {
      const path = join(home, op.path);
      lines.push(`printf '%s' ${shQuote(op.content)} ${op.mode === 'append' ? '>>' : '>'} ${shQuote(path)} || exit 3`);
    }
    const payload = JSON.stringify(event.payload).replaceAll('"~/', `"${home}/`);
    lines.push(hookLines({ AGENTMETER_EVENT_TIME: new Date(event.at).toISOString(), ...event.env }, script, event.agent, payload));
  }
  return `${lines.join('\n')}\n`;
}

/** The hook script run once for an agent's event (`payload`, one line of JSON) on its stdin; a failure ends the driver with exit 4. */
export function hookLines(env: Record<string, string>, script: string, agent: string, payload: string): string {
  return [`${shAssignments(env)} sh ${shQuote(script)} ${agent} <<'${EOF_MARK}' || exit 4`, payload, EOF_MARK].join('\n');
}

/**
 * The drivers' nice value, the lowest priority: the hooks they run (and the sample's own git) stand in for
 * the agents on people's machines, and take only what the server and the collectors leave. The collectors'
 * git runs at 10 (collector/code/git.ts), and a collector waits for its origin lookups on the server's
 * thread: behind the hooks, those waits held that thread 4 to 9 s of a first start.
 */
export const DRIVER_NICENESS = 19;

/** What the driver's exit codes say: the lines of its scripts end it so when a command fails. */
const DRIVER_EXITS: Record<number, string> = {
  3: 'a file an event edits could not be written',
  4: 'a hook failed',
  5: "the user's home could not be entered",
  6: "a git command of the user's project repositories failed",
};

/**
 * A long-lived `sh` that runs segments as they are written to its stdin and says `done <n>` after each:
 * forking sh is cheap where forking this Node process (hundreds of MB, DuckDB inside) is not (~25 ms of
 * CPU each), so the replay starts one per worker, not one per segment or per user, and no event goes
 * through a file of ours on the way to the hook. `useHome` moves it to a user's HOME.
 */
export class HookDriver {
  private readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with why the driver ended: its exit code, or the error that kept it from running. */
  private readonly exited: Promise<string>;
  private out = '';
  private waiting: { marker: string; resolve: () => void } | undefined;
  private segments = 0;

  constructor(home: string) {
    // In a HOME of its own: the user's, or the replay's work folder until `useHome` names a user.
    this.child = spawn('sh', ['-s'], { cwd: home, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home } });
    if (this.child.pid !== undefined) {
      try {
        setPriority(this.child.pid, DRIVER_NICENESS);
      } catch {
        // A system that refuses: the driver runs at this process's priority.
      }
    }
    this.child.stderr.resume();
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.out += chunk;
      if (this.waiting && this.out.includes(this.waiting.marker)) {
        this.out = '';
        const { resolve } = this.waiting;
        this.waiting = undefined;
        resolve();
      }
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => resolve(`could not start sh: ${error.message}`));
      this.child.once('exit', (code, signal) =>
        resolve(code === 0 ? 'ok' : `exited ${code ?? signal}${code !== null && DRIVER_EXITS[code] ? ` (${DRIVER_EXITS[code]})` : ''}`),
      );
    });
    // A driver that died is reported by run() through `exited`; its stdin must not crash the process.
    this.child.stdin.on('error', () => undefined);
  }

  /** Moves the driver to another user's HOME (its working folder and $HOME, which the hooks inherit). */
  useHome(home: string): Promise<void> {
    return this.run(`cd ${shQuote(home)} || exit 5\nHOME=${shQuote(home)}; export HOME\n`);
  }

  /** Runs the segment's lines; resolves once every hook of it has exited. */
  async run(text: string): Promise<void> {
    const marker = `done ${++this.segments}\n`;
    const done = new Promise<void>((resolve) => (this.waiting = { marker, resolve }));
    this.child.stdin.write(`${text}printf ${shQuote(marker.replace('\n', '\\n'))}\n`);
    const ended = await Promise.race([done.then(() => undefined), this.exited]);
    if (ended !== undefined) throw new Error(`sample replay: the hook driver ${ended === 'ok' ? 'ended early' : ended}`);
  }

  /** Stops the driver (a replay that failed elsewhere); its hooks in flight finish on their own. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const ended = await this.exited;
    if (ended !== 'ok') throw new Error(`sample replay: the hook driver ${ended}`);
  }
}

/** Adds the user's own extra hooks (counted in hooks_by_event like ours) to their settings file. */
function addExtraHooks(home: string, hooks: SamplePlan['extraHooks'][number]): void {
  for (const hook of hooks) {
    const location = userSettingsLocation(hook.agent, home);
    const json = JSON.parse(readFileSync(location.file, 'utf8')) as { hooks?: Record<string, unknown[]> };
    const map = (location.topLevel ? json : (json.hooks ??= {})) as Record<string, unknown[]>;
    (map[hook.event] ??= []).push({ matcher: hook.matcher, hooks: [{ type: 'command', command: hook.command }] });
    writeFileSync(location.file, `${JSON.stringify(json, null, 2)}\n`);
  }
}

/**
 * The user's events cut where the collector must ship. An agent's usage dated when it is read (Droid's: the
 * difference between cumulative readings of a session's settings file, dated at the session's latest event
 * in the batch that read it) is read at the end of each day its session is still open, as a running
 * collector (which ships within a second) would read it. Elsewhere one shipment holds many days: the collector sends the
 * same records whether it ships them a day or a month at a time (the ids name what is read, usage lines
 * carry their own times), and each shipment costs the collector and the server a fixed amount.
 */
export function segments(events: PlannedEvent[]): PlannedEvent[][] {
  const day = (event: PlannedEvent) => new Date(event.at).toISOString().slice(0, 10);
  const datedAtReading = (event: PlannedEvent) => SAMPLES[event.agent].usageDatedAtReading === true;
  // The last day of each such session.
  const lastDay = new Map<unknown, string>();
  for (const event of events) if (datedAtReading(event)) lastDay.set(event.payload['session_id'], day(event));
  const out: PlannedEvent[][] = [];
  let segment: PlannedEvent[] = [];
  let today = '';
  /** Those sessions seen today that go on after today. */
  const open = new Set<unknown>();
  for (const event of events) {
    const eventDay = day(event);
    if (eventDay !== today) {
      if (open.size && segment.length) {
        out.push(segment);
        segment = [];
      }
      open.clear();
      today = eventDay;
    }
    const session = event.payload['session_id'];
    if (datedAtReading(event) && lastDay.get(session)! > eventDay) open.add(session);
    segment.push(event);
  }
  if (segment.length) out.push(segment);
  return out;
}

export async function replay(plan: SamplePlan, options: ReplayOptions): Promise<{ events: number; shipped: number }> {
  const total = plan.events.reduce((a, e) => a + e.length, 0);
  let done = 0;
  let shipped = 0;
  // Busiest users first, so the last ones to finish are short and the cores stay busy to the end.
  const order = plan.users.map((_, u) => u).sort((a, b) => plan.events[b]!.length - plan.events[a]!.length);
  /**
   * Runs a user's hooks on the driver and ships them; resolves once the driver is free for the next user,
   * with the user's last shipment, which goes on meanwhile: it reads only this user's home, which nothing
   * writes any more, and its end (the landed commits, the limit and status requests, which wait for the
   * server's paced live build) would otherwise hold the driver idle.
   */
  const shipping = options.shipping ?? new ShippingSlots();
  const replayUser = async (u: number, driver: HookDriver): Promise<{ lastShipment: Promise<void> }> => {
    const user = plan.users[u]!;
    const home = join(options.workDir, `user-${u}`);
    const agentmeterHome = join(home, '.agentmeter');
    for (const agent of user.agents) install({ agent, home, agentmeterHome, defaultAgentmeterHome: true });
    addExtraHooks(home, plan.extraHooks[u] ?? []);
    const script = installedScriptPath(agentmeterHome);
    const folders = new Set<string>();
    for (const event of plan.events[u]!) for (const op of event.before) folders.add(dirname(join(home, op.path)));
    for (const folder of folders) mkdirSync(folder, { recursive: true });
    // The projects are real repositories, and each day's work lands on their default branch.
    const repos = new ProjectRepos(home, options.workDir, u, user.email);
    const first = plan.events[u]![0];
    const collector = new Collector({
      server: options.server,
      apiKey: options.keys[u]!,
      agentmeterHome,
      home,
      log: options.log,
      maxAttempts: 5,
      ...(options.git ? { git: options.git } : {}),
    });
    const ship = () =>
      shipping.run(async () => {
        const result = await collector.drain();
        if (result.error) throw new Error(`sample replay: shipping ${user.email}'s events failed: ${result.error}`);
        shipped += result.shipped;
      });
    let lastShipment: Promise<void> | undefined;
    try {
      await driver.useHome(home);
      if (first) await driver.run(repos.create(projectsOf(plan.events[u]!), first.at - 3_600_000));
      const parts = segments(plan.events[u]!);
      for (const [k, segment] of parts.entries()) {
        // Written to the driver in parts, so progress shows while a long segment runs.
        for (let i = 0; i < segment.length; i += PROGRESS_STEP) {
          const part = segment.slice(i, i + PROGRESS_STEP);
          await driver.run(segmentScript(part, home, script));
          const before = Math.floor(done / 2000);
          done += part.length;
          if (Math.floor(done / 2000) > before) options.onProgress?.(done, total);
        }
        const day = repos.commitDay(segment, segment.at(-1)!.at + 600_000, k === parts.length - 1);
        if (day.script) await driver.run(day.script);
        if (day.commits > 0) collector.scanSoon();
        // A segment before the last ships before the next runs (the next reads what this one left).
        if (k < parts.length - 1) await ship();
        else lastShipment = ship();
      }
    } finally {
      // Failed before the last shipment began: the collector's removals end here.
      if (!lastShipment) await collector.close();
    }
    return { lastShipment: (lastShipment ?? Promise.resolve()).finally(() => collector.close()) };
  };
  const workers = Math.min(order.length, options.concurrency ?? Math.max(4, availableParallelism() * 3));
  let next = 0;
  let failed = false;
  // The installer and the collectors run in this process and find an agent's folder through its home
  // variable (CODEX_HOME, COPILOT_HOME): unset while the sample replays, each sample user's files are under
  // their own home, and those of whoever runs the demo (their real settings, hooks and sessions) are never
  // read into the sample, nor written.
  const homeVariables = AGENTS.flatMap((agent) => AGENT_HOOKS[agent].homeVariable ?? []);
  const theirs = Object.fromEntries(homeVariables.map((name) => [name, process.env[name]]));
  for (const name of homeVariables) delete process.env[name];
  // An interrupted load (Ctrl-C closes the server, then the process exits): the drivers stop starting
  // hooks before the scratch homes are removed (load.ts), or the hooks would create them again.
  const drivers = new Set<HookDriver>();
  const stopDrivers = () => {
    for (const driver of drivers) driver.kill();
  };
  process.prependOnceListener('exit', stopDrivers);
  /** The users' last shipments under way; one that fails stops further users, as a failed hook does. */
  const shipments: Promise<void>[] = [];
  try {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        const driver = new HookDriver(options.workDir);
        drivers.add(driver);
        try {
          // After a failure no further user starts: the replay rejects with the first error.
          while (!failed && next < order.length) {
            const { lastShipment } = await replayUser(order[next++]!, driver).catch((error: unknown) => {
              failed = true;
              throw error;
            });
            lastShipment.catch(() => {
              failed = true;
            });
            shipments.push(lastShipment);
          }
          await driver.close();
        } finally {
          // A driver that failed, or whose worker did: its hooks in flight finish on their own.
          driver.kill();
          drivers.delete(driver);
        }
      }),
    );
    await Promise.all(shipments);
  } finally {
    // Nothing ships from the homes once the replay has returned, after a failure either.
    await Promise.allSettled(shipments);
    // After a failure, the other workers' drivers may still be running a segment: they stop here, so that
    // nothing writes into the homes once the replay has returned.
    stopDrivers();
    process.off('exit', stopDrivers);
    for (const [name, value] of Object.entries(theirs)) if (value !== undefined) process.env[name] = value;
  }
  options.onProgress?.(total, total);
  return { events: total, shipped };
}
