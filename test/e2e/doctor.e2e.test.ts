// `agentmeter doctor` against a real server process in a temporary HOME: healthy with the hook installed,
// a collector running and a valid key; then each problem reported with its fix and a non-zero exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Check, DoctorReport } from '../../cli/doctor/checks.ts';
import { collectorPidPath } from '../../collector/pidfile.ts';
import { CLI, cliEnv, runCli, type ServerProcess, seedAccount, startServerProcess, waitFor } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const amHome = join(home, '.agentmeter');
let server: ServerProcess;
let key: string;
let collector: ChildProcess | undefined;

const readPidFileText = () => (existsSync(collectorPidPath(amHome)) ? readFileSync(collectorPidPath(amHome), 'utf8').trim() : '');
// A service manager that cannot be reached (as in a container), whatever this machine has: the doctor's
// fixes then start the collector by hand. test/integration/service.integration.test.ts covers a service.
const noServiceBin = join(dir, 'bin');
/** How the doctor names the checkout's command in its fixes: this Node on bin/agentmeter.js, by full path. */
const PROGRAM = `${process.execPath} ${CLI}`;
const env = () => ({
  HOME: home,
  AGENTMETER_SERVER: server.url,
  AGENTMETER_API_KEY: key,
  PATH: `${noServiceBin}${delimiter}${process.env['PATH'] ?? ''}`,
});

function doctor(extra: Record<string, string> = {}): { status: number | null; report: DoctorReport; byName: Map<string, Check> } {
  const run = runCli(['doctor', '--json'], { ...env(), ...extra });
  expect(run.stderr).toBe('');
  const report = DoctorReport.parse(JSON.parse(run.stdout));
  return { status: run.status, report, byName: new Map(report.checks.map((c) => [c.name, c])) };
}

beforeAll(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(noServiceBin);
  for (const name of ['systemctl', 'launchctl'])
    writeFileSync(join(noServiceBin, name), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n', { mode: 0o755 });
  ({ key } = await seedAccount(db, 'member', 'dev@example.com'));
  server = await startServerProcess(db);
}, 120_000);
afterAll(async () => {
  collector?.kill('SIGTERM');
  await server?.stop();
});

describe('agentmeter doctor', { timeout: 120_000 }, () => {
  it('reports a healthy machine: hook installed, collector running, server reachable, key valid', async () => {
    const installed = runCli(['hooks', 'install', '--agent', 'claude'], { HOME: home });
    expect(installed.status, installed.stderr).toBe(0);
    collector = spawn(process.execPath, [CLI, 'collect'], { env: cliEnv(env()), stdio: 'ignore' });
    await waitFor(() => existsSync(collectorPidPath(amHome)), 60_000, 'the collector pid file');

    const { status, report, byName } = doctor();
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(status).toBe(0);
    expect(byName.get('hook: claude')!.detail).toContain(join(home, '.claude', 'settings.json'));
    // Every supported agent is looked at; one not used on this machine is fine.
    expect(byName.get('hook: gemini')).toMatchObject({
      ok: true,
      detail: 'gemini is not used on this machine (no settings folder); nothing to check',
    });
    expect(byName.get('collector')!.detail).toBe(`running (pid ${collector.pid})`);
    // No service, and none needed: the collector runs by hand.
    expect(byName.get('service')).toMatchObject({ ok: true });
    expect(byName.get('service')!.detail).toMatch(/^not installed \(.*\); the collector runs without one \(pid \d+\)$/);
    expect(report.service).toMatchObject({ installed: false, state: 'not installed' });
    expect(byName.get('key')!.detail).toBe('valid (dev@example.com, member)');
    expect(byName.get('clock')!.ok).toBe(true);
  });

  it('refuses a second collector on the same spool while the first runs, naming it', () => {
    const second = runCli(['collect'], env());
    expect(second.status).not.toBe(0);
    expect(second.stderr).toContain(`another collector (pid ${collector!.pid}) already ships ${amHome}`);
    expect(readFileSync(collectorPidPath(amHome), 'utf8').trim()).toBe(String(collector!.pid));
  });

  it('reports the stopped collector and the spooled backlog, each with the command that fixes it', async () => {
    const exited = new Promise((resolve) => collector!.once('exit', resolve));
    collector!.kill('SIGTERM');
    await exited;
    collector = undefined;
    expect(existsSync(collectorPidPath(amHome))).toBe(false);
    writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's1' });
    writeSpoolFile(amHome, { hook_event_name: 'Stop', session_id: 's1' });

    const { status, report, byName } = doctor();
    expect(status).toBe(1);
    expect(report.ok).toBe(false);
    expect(byName.get('collector')).toMatchObject({ ok: false, fix: `${PROGRAM} collect` });
    expect(byName.get('spool')).toMatchObject({ ok: false, fix: `${PROGRAM} collect --once` });
    expect(byName.get('spool')!.detail).toMatch(/^2 events waiting in .* and no collector ships them$/);
    expect(byName.get('hook: claude')!.ok).toBe(true);
  });

  it('replaces a pid file left by a collector that is gone', async () => {
    writeFileSync(collectorPidPath(amHome), '999999999\n');
    collector = spawn(process.execPath, [CLI, 'collect'], { env: cliEnv(env()), stdio: 'ignore' });
    await waitFor(() => readPidFileText() === String(collector!.pid), 60_000, 'the new collector in the pid file');
    const exited = new Promise((resolve) => collector!.once('exit', resolve));
    collector.kill('SIGTERM');
    await exited;
    collector = undefined;
    expect(existsSync(collectorPidPath(amHome))).toBe(false);
  });

  it('reports a key the server refuses', () => {
    const { status, byName } = doctor({ AGENTMETER_API_KEY: 'am_not_a_real_key_at_all' });
    expect(status).toBe(1);
    expect(byName.get('server')!.ok).toBe(true);
    expect(byName.get('key')).toMatchObject({ ok: false });
    expect(byName.get('key')!.detail).toMatch(/^the server refuses the key \(401/);
    expect(byName.get('key')!.fix).toContain('agentmeter keys create');
  });

  it('reports a hook whose script would not run', () => {
    const script = join(amHome, 'bin', 'agentmeter-hook.sh');
    chmodSync(script, 0o600);
    try {
      const { status, byName } = doctor();
      expect(status).toBe(1);
      expect(byName.get('hook: claude')).toMatchObject({ ok: false, fix: `${PROGRAM} hooks install --agent claude` });
      expect(byName.get('hook: claude')!.detail).toContain(`runs ${script}, which is missing or not executable`);
    } finally {
      chmodSync(script, 0o700);
    }
  });

  it('reports an uninstalled hook', () => {
    const removed = runCli(['hooks', 'uninstall', '--agent', 'claude'], { HOME: home });
    expect(removed.status, removed.stderr).toBe(0);
    const { status, byName } = doctor();
    expect(status).toBe(1);
    expect(byName.get('hook: claude')).toMatchObject({ ok: false, fix: `${PROGRAM} hooks install --agent claude` });
  });
});
