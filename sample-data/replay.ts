// Feeds a sample plan through the real path: for each user, a HOME with the hook installed by the real
// installer, the real hook script run once per event (its time replayed with AGENTMETER_EVENT_TIME), and
// the real collector shipping that user's spool to the server with the user's own API key, day by day
// (so Droid's cumulative token readings split by day as they would live).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Collector } from '../collector/daemon.ts';
import type { Logger } from '../common/logger.ts';
import { install, installedScriptPath } from '../hooks/installer.ts';
import { userSettingsLocation } from '../hooks/settings.ts';
import type { PlannedEvent, SamplePlan } from './generator.ts';

export interface ReplayOptions {
  server: string;
  /** One API key per plan user, same order. */
  keys: string[];
  workDir: string;
  log: Logger;
  /** Users replayed at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

const q = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * Runs a segment of events (the events between two shipments) through the hook script, in order, from one
 * `sh` driver: each event is still the real hook run in its own process with the agent's environment, but
 * forking sh is cheap where forking this Node process 20,000 times is not. Transcript and session-file
 * writes happen in the same order, in the same script.
 */
async function runSegment(events: PlannedEvent[], home: string, script: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const lines = ['#!/bin/sh'];
  events.forEach((event, i) => {
    event.before.forEach((op, k) => {
      const path = join(home, op.path);
      mkdirSync(dirname(path), { recursive: true });
      const chunk = join(dir, `op-${i}-${k}`);
      writeFileSync(chunk, op.content);
      lines.push(`cat ${q(chunk)} ${op.mode === 'append' ? '>>' : '>'} ${q(path)} || exit 3`);
    });
    const payload = join(dir, `event-${i}.json`);
    writeFileSync(payload, JSON.stringify(event.payload).replaceAll('"~/', `"${home}/`));
    const env = { AGENTMETER_EVENT_TIME: new Date(event.at).toISOString(), ...event.env };
    const assignments = Object.entries(env)
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ');
    lines.push(`${assignments} sh ${q(script)} ${event.agent} < ${q(payload)} || exit 4`);
  });
  const driver = join(dir, 'driver.sh');
  writeFileSync(driver, `${lines.join('\n')}\n`);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn('sh', [driver], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home }, stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`sample replay: the hook driver exited ${code}`);
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

export async function replay(plan: SamplePlan, options: ReplayOptions): Promise<{ events: number; shipped: number }> {
  const total = plan.events.reduce((a, e) => a + e.length, 0);
  let done = 0;
  let shipped = 0;
  let nextUser = 0;
  const worker = async () => {
    while (nextUser < plan.users.length) {
      const u = nextUser++;
      const user = plan.users[u]!;
      const home = join(options.workDir, `user-${u}`);
      const agentmeterHome = join(home, '.agentmeter');
      // Codex's file is named here so that a CODEX_HOME of the process running the demo is never touched.
      for (const agent of user.agents)
        install({
          agent,
          home,
          agentmeterHome,
          defaultAgentmeterHome: true,
          ...(agent === 'codex' ? { settingsFile: join(home, '.codex', 'hooks.json') } : {}),
        });
      addExtraHooks(home, plan.extraHooks[u] ?? []);
      const script = installedScriptPath(agentmeterHome);
      const collector = new Collector({
        server: options.server,
        apiKey: options.keys[u]!,
        agentmeterHome,
        home,
        log: options.log,
        maxAttempts: 5,
      });
      const drain = async () => {
        const result = await collector.drain();
        if (result.error) throw new Error(`sample replay: shipping ${user.email}'s events failed: ${result.error}`);
        shipped += result.shipped;
      };
      // Droid's usage is the difference between cumulative readings, dated when read: ship at the end
      // of each day with Droid activity, as a running collector would. Other days ship in one go.
      let day = '';
      let droidToday = false;
      let segment: PlannedEvent[] = [];
      const flush = async () => {
        await runSegment(segment, home, script, join(options.workDir, `segment-${u}`));
        const before = Math.floor(done / 2000);
        done += segment.length;
        if (Math.floor(done / 2000) > before) options.onProgress?.(done, total);
        segment = [];
        await drain();
      };
      for (const event of plan.events[u]!) {
        const eventDay = new Date(event.at).toISOString().slice(0, 10);
        if (day && eventDay !== day && droidToday) await flush();
        if (eventDay !== day) droidToday = false;
        droidToday ||= event.agent === 'droid';
        day = eventDay;
        segment.push(event);
      }
      await flush();
      await collector.close();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  options.onProgress?.(total, total);
  return { events: total, shipped };
}
