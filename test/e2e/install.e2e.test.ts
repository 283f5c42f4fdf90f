// Enrolling a machine as the README says, against a real server process in a temporary HOME: install.sh
// fetched over HTTP and run by sh with --no-service; a hook event through the installed hook, shipped by
// the installed bundle, is on the server; a second run changes no byte; doctor from the bundle reports
// healthy, then the stopped collector and the backlog; uninstall leaves the agents' settings as they were.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DoctorReport } from '../../cli/doctor/checks.ts';
import { collectorPidPath } from '../../collector/pidfile.ts';
import { MIN_NODE } from '../../common/node-version.ts';
import { VERSION } from '../../common/version.ts';
import { LAPTOP_BUNDLE } from '../../scripts/build-laptop.mjs';
import { freePort, type ServerProcess, seedAccount, startServerProcess, waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const amHome = join(home, '.agentmeter');
const bin = join(amHome, 'bin');
const claudeSettings = join(home, '.claude', 'settings.json');
// As Claude Code keeps it: other hooks and keys, two-space JSON without a final newline.
const CLAUDE_BEFORE = JSON.stringify(
  {
    model: 'opus',
    permissions: { allow: ['Bash(npm test:*)'], deny: [] },
    hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }] },
    env: { FOO: 'bar' },
  },
  null,
  2,
);
const FACTORY_SETTINGS = '{\n  "model": "claude-sonnet-4-5"\n}\n';

let server: ServerProcess;
let key: string;
/** The collector key install.sh minted with `key` and wrote to collector.env. */
let collectorKey: string;
let script: string;
let collector: ChildProcess | undefined;

/** Only what a developer's shell has: no AGENTMETER_* from the test run. */
const env = (extra: Record<string, string> = {}) => ({ HOME: home, PATH: process.env['PATH']!, LOG_LEVEL: 'warn', TZ: 'UTC', ...extra });

/** `curl -fsSL SERVER/install.sh | sh -s -- …`: the script on sh's standard input. */
const runInstaller = (args: string[], extraEnv: Record<string, string> = {}, text = script) =>
  spawnSync('sh', ['-s', '--', ...args], { input: text, env: env(extraEnv), encoding: 'utf8', timeout: 120_000 });

const agentmeter = (args: string[]) => spawnSync(join(bin, 'agentmeter'), args, { env: env(), encoding: 'utf8', timeout: 120_000 });

/** Every file and folder under HOME with its mode, and each file's bytes and modification time (not rewritten). */
function snapshot(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (path: string) => {
    const stat = lstatSync(path);
    out.set(path, `${stat.mode.toString(8)} ${stat.isFile() ? `${stat.mtimeMs} ${readFileSync(path).toString('base64')}` : ''}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(home);
  return out;
}

/** Runs our hook as Claude Code would: the command the installer wrote, by a shell, payload on stdin. */
function fireClaudeHook(payload: Record<string, unknown>): void {
  const settings = JSON.parse(readFileSync(claudeSettings, 'utf8'));
  const command = settings.hooks[payload['hook_event_name'] as string]
    .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
    .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
  const run = spawnSync('sh', ['-c', command], { input: JSON.stringify(payload), env: env(), encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
}

function doctor() {
  const run = agentmeter(['doctor', '--json']);
  expect(run.stderr).toBe('');
  const report = DoctorReport.parse(JSON.parse(run.stdout));
  return { status: run.status, report, byName: new Map(report.checks.map((c) => [c.name, c])) };
}

beforeAll(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(home, '.factory'), { recursive: true });
  writeFileSync(claudeSettings, CLAUDE_BEFORE);
  writeFileSync(join(home, '.factory', 'settings.json'), FACTORY_SETTINGS);
  ({ key } = await seedAccount(db, 'member', 'dev@example.com'));
  server = await startServerProcess(db);
  const res = await fetch(`${server.url}/install.sh`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/x-shellscript; charset=utf-8');
  script = await res.text();
}, 120_000);
afterAll(async () => {
  collector?.kill('SIGTERM');
  await server?.stop();
});

describe('curl -fsSL SERVER/install.sh | sh -s -- --key … --no-service', { timeout: 180_000 }, () => {
  it('installs the bundle, the hook, the settings and the hooks of every agent found', () => {
    const run = runInstaller(['--key', key, '--no-service']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(`run the collector with ${join(bin, 'agentmeter')} collect`);
    expect(statSync(amHome).mode & 0o777).toBe(0o700);
    expect(statSync(bin).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(bin, 'agentmeter.mjs')).equals(readFileSync(LAPTOP_BUNDLE))).toBe(true);
    expect(statSync(join(bin, 'agentmeter-hook.sh')).mode & 0o777).toBe(0o700);
    const config = join(amHome, 'collector.env');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    // The personal key given minted a collector key for this machine: that one is written, not the given one.
    const written = /\nAGENTMETER_SERVER=(.*)\nAGENTMETER_API_KEY=(am_[A-Za-z0-9_-]+)\n/.exec(readFileSync(config, 'utf8'));
    expect(written?.[1]).toBe(server.url);
    collectorKey = written![2]!;
    expect(collectorKey).not.toBe(key);
    expect(run.stdout).toContain('minted a collector key for this machine');
    expect(agentmeter(['--version']).stdout).toBe(`${VERSION}\n`);
    // Both agents were found (their folders exist): Claude Code's own keys and hooks kept, Droid's hooks added.
    const claude = JSON.parse(readFileSync(claudeSettings, 'utf8'));
    expect(claude.model).toBe('opus');
    expect(claude.hooks.PostToolUse[0].hooks[0].command).toBe('npx prettier --write "$FILE"');
    expect(JSON.stringify(claude.hooks.Stop)).toContain(`'${join(bin, 'agentmeter-hook.sh')}' claude`);
    expect(readFileSync(join(home, '.factory', 'hooks.json'), 'utf8')).toContain(`'${join(bin, 'agentmeter-hook.sh')}' droid`);
  });

  it('a hook event goes through the installed hook and the installed collector to the server', async () => {
    fireClaudeHook({ hook_event_name: 'Stop', session_id: 'install-e2e', cwd: home, permission_mode: 'default' });
    const shipped = agentmeter(['collect', '--once']);
    expect(shipped.status, shipped.stderr).toBe(0);
    expect(shipped.stdout).toContain('shipped 1,');
    const res = await fetch(`${server.url}/api/v0/machines`, { headers: { authorization: `Bearer ${key}` } });
    const { machines } = (await res.json()) as {
      machines: { machineId: string; events: number; agents: string[]; collectorVersion: string }[];
    };
    expect(machines).toHaveLength(1);
    expect(machines[0]).toMatchObject({ events: 1, agents: ['claude'], collectorVersion: VERSION });
    // The machine's key is a collector key, listed under the machine, that may not read the machines list.
    const machineKeys = async () => {
      const listed = await fetch(`${server.url}/api/v0/machines/keys`, { headers: { authorization: `Bearer ${key}` } });
      return ((await listed.json()) as { keys: { scope: string; machineId: string | null; name: string }[] }).keys;
    };
    await expect.poll(async () => (await machineKeys())[0]?.machineId).toBe(machines[0]!.machineId);
    const keys = await machineKeys();
    expect(keys).toEqual([expect.objectContaining({ scope: 'collector', name: expect.stringMatching(/^install\.sh on /) })]);
    expect((await fetch(`${server.url}/api/v0/machines`, { headers: { authorization: `Bearer ${collectorKey}` } })).status).toBe(403);
  });

  it('a second run changes nothing: the same files, byte for byte, and no new backup', () => {
    const before = snapshot();
    const run = runInstaller(['--key', key, '--no-service']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/^agentmeter: (installed|wrote) /m);
    expect(run.stdout).toContain('settings.json: nothing to change');
    const after = snapshot();
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [path, content] of before) expect(after.get(path), path).toBe(content);
  });

  it("a collector key given (the dashboard's Enroll this machine) is written as is, and mints nothing", () => {
    const other = tempDir();
    const run = runInstaller(['--no-service'], { HOME: other, AGENTMETER_API_KEY: collectorKey });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('minted');
    expect(readFileSync(join(other, '.agentmeter', 'collector.env'), 'utf8')).toContain(`\nAGENTMETER_API_KEY=${collectorKey}\n`);
  });

  it('doctor from the bundle: healthy with the collector running', async () => {
    collector = spawn(join(bin, 'agentmeter'), ['collect'], { env: env(), stdio: 'ignore' });
    await waitFor(() => existsSync(collectorPidPath(amHome)), 60_000, 'the collector pid file');
    const { status, report, byName } = doctor();
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(status).toBe(0);
    expect(byName.get('collector')!.detail).toBe(`running (pid ${collector.pid})`);
    expect(byName.get('key')!.detail).toBe('valid (dev@example.com, member)');
    expect(byName.get('hook: droid')!.ok).toBe(true);
  });

  it('doctor reports the stopped collector and the spooled backlog, with the fix', async () => {
    const exited = new Promise((resolve) => collector!.once('exit', resolve));
    collector!.kill('SIGTERM');
    await exited;
    collector = undefined;
    fireClaudeHook({ hook_event_name: 'Stop', session_id: 'install-e2e', cwd: home, permission_mode: 'default' });
    const { status, report, byName } = doctor();
    expect(status).toBe(1);
    expect(report.ok).toBe(false);
    // The server and key come from collector.env: the fix needs neither.
    // By its full path: install.sh puts agentmeter in ~/.agentmeter/bin, which is not on PATH.
    expect(byName.get('collector')).toMatchObject({ ok: false, fix: `${join(bin, 'agentmeter')} collect` });
    expect(byName.get('spool')).toMatchObject({ ok: false, fix: `${join(bin, 'agentmeter')} collect --once` });
    expect(byName.get('spool')!.detail).toMatch(/^1 event waiting in .* and no collector ships them$/);
    expect(byName.get('settings')).toMatchObject({ ok: true, detail: `${join(amHome, 'collector.env')} (server and key)` });

    // A collector.env others can read is refused by the collector: the doctor says so instead of stopping.
    chmodSync(join(amHome, 'collector.env'), 0o644);
    try {
      const loose = doctor();
      expect(loose.status).toBe(1);
      expect(loose.byName.get('settings')).toMatchObject({ ok: false });
      expect(loose.byName.get('settings')!.detail).toContain(`can be read by others: chmod 600 ${join(amHome, 'collector.env')}`);
    } finally {
      chmodSync(join(amHome, 'collector.env'), 0o600);
    }
  });

  it('uninstall ships the backlog and leaves the settings as they were before the install', async () => {
    const run = agentmeter(['uninstall']);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('shipped 1 spooled event');
    expect(readFileSync(claudeSettings, 'utf8')).toBe(CLAUDE_BEFORE);
    expect(readFileSync(join(home, '.factory', 'settings.json'), 'utf8')).toBe(FACTORY_SETTINGS);
    expect(existsSync(join(home, '.factory', 'hooks.json'))).toBe(false);
    const res = await fetch(`${server.url}/api/v0/machines`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await res.json()) as { machines: { events: number }[] }).machines[0]!.events).toBe(2);
    expect(existsSync(amHome)).toBe(true);

    const purged = spawnSync('node', [join(bin, 'agentmeter.mjs'), 'uninstall', '--purge'], { env: env(), encoding: 'utf8' });
    expect(purged.status, purged.stdout + purged.stderr).toBe(0);
    expect(existsSync(amHome)).toBe(false);
    expect(readFileSync(claudeSettings, 'utf8')).toBe(CLAUDE_BEFORE);
  });
});

// A container, WSL without systemd, a minimal Linux: no systemd user instance to reach (the test's
// environment has no XDG_RUNTIME_DIR nor DBUS_SESSION_BUS_ADDRESS, so systemctl --user cannot reach one,
// or systemctl is missing altogether). launchd is macOS's, where a GUI session always has one.
describe.skipIf(process.platform === 'darwin')('install.sh without a systemd user instance', { timeout: 180_000 }, () => {
  it('finishes with exit 0, says the collector is not running and the full command that runs it; doctor agrees', () => {
    const fresh = tempDir();
    const freshBin = join(fresh, '.agentmeter', 'bin');
    const run = runInstaller(['--key', key], { HOME: fresh });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('no collector service: '))).toMatch(/systemd/);
    // collector.env holds the server and the key: the command needs neither.
    expect(lines).toContain(`The collector is not running. Run it with: ${join(freshBin, 'agentmeter')} collect`);
    expect(lines).toContain(
      `  at every login: add this line to your ~/.profile: ${join(freshBin, 'agentmeter')} collect >/dev/null 2>&1 &`,
    );
    expect(lines.at(-2)).toBe(`agentmeter: done: ${join(freshBin, 'agentmeter')} doctor checks this machine`);
    expect(existsSync(join(fresh, '.config', 'systemd'))).toBe(false);
    const doctorRun = spawnSync(join(freshBin, 'agentmeter'), ['doctor', '--json'], { env: env({ HOME: fresh }), encoding: 'utf8' });
    const byName = new Map(DoctorReport.parse(JSON.parse(doctorRun.stdout)).checks.map((c) => [c.name, c]));
    expect(byName.get('collector')).toMatchObject({ ok: false, fix: `${join(freshBin, 'agentmeter')} collect` });
    expect(byName.get('service')).toMatchObject({ ok: true });
    // The command printed runs the collector: it ships.
    const once = spawnSync(join(freshBin, 'agentmeter'), ['collect', '--once'], { env: env({ HOME: fresh }), encoding: 'utf8' });
    expect(once.status, once.stderr).toBe(0);
  });
});

describe('the installer and the bundle refuse what they cannot work with, in one line', { timeout: 120_000 }, () => {
  const fakeBin = (files: Record<string, string>, links: string[]) => {
    const path = join(tempDir(), 'bin');
    mkdirSync(path);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(path, name), text, { mode: 0o755 });
    for (const tool of links) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, join(path, tool));
    }
    return path;
  };

  it('a Node.js too old', () => {
    const path = fakeBin({ node: '#!/bin/sh\necho 18.19.1\n' }, ['curl', 'sha256sum']);
    const run = runInstaller(['--key', key, '--no-service', '--home', join(tempDir(), 'am')], { PATH: `${path}:/usr/bin:/bin` });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `agentmeter install: Node.js 18.19.1 is too old (agentmeter needs ${MIN_NODE} or newer): install a current Node.js LTS (https://nodejs.org) and run this again\n`,
    );
    // The bundle itself, started by hand on an old Node.js: one line, not a stack trace.
    const old = spawnSync(
      process.execPath,
      ['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.19.1"})', LAPTOP_BUNDLE, 'doctor'],
      { encoding: 'utf8' },
    );
    expect(old.status).toBe(1);
    expect(old.stdout).toBe('');
    expect(old.stderr).toBe(
      `agentmeter: needs Node.js ${MIN_NODE} or newer, and this is Node.js 18.19.1; install a current Node.js LTS (https://nodejs.org) and run it again\n`,
    );
  });

  it('no Node.js at all', () => {
    const path = fakeBin({}, ['curl', 'sha256sum', 'cut', 'dirname', 'mkdir', 'chmod']);
    const run = spawnSync('/bin/sh', ['-s', '--', '--key', key], { input: script, env: { HOME: home, PATH: path }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `agentmeter install: Node.js is not installed (agentmeter needs Node.js ${MIN_NODE} or newer): install it (https://nodejs.org) and run this again\n`,
    );
  });

  it("a malformed settings file: left untouched and named; the other agent's hook is installed", () => {
    const other = tempDir();
    mkdirSync(join(other, '.claude'));
    mkdirSync(join(other, '.factory'));
    writeFileSync(join(other, '.claude', 'settings.json'), '{"model": ');
    const run = runInstaller(['--key', key, '--no-service'], { HOME: other });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`agentmeter: claude: ${join(other, '.claude', 'settings.json')} is not JSON`);
    expect(run.stderr).toContain('agentmeter install: installing the hooks failed');
    expect(readFileSync(join(other, '.claude', 'settings.json'), 'utf8')).toBe('{"model": ');
    expect(readFileSync(join(other, '.factory', 'hooks.json'), 'utf8')).toContain('agentmeter-hook.sh');
  });

  it('uninstall with the server unreachable: stops the collector, keeps the spool, and --purge removes it', async () => {
    const other = tempDir();
    mkdirSync(join(other, '.claude'));
    const otherHome = join(other, '.agentmeter');
    const installed = runInstaller(['--key', key, '--no-service'], { HOME: other });
    expect(installed.status, installed.stderr).toBe(0);
    // The server moved away: nothing listens at the configured URL any more.
    const config = join(otherHome, 'collector.env');
    writeFileSync(config, readFileSync(config, 'utf8').replaceAll(server.url, `http://127.0.0.1:${await freePort()}`));
    const run = (args: string[]) =>
      spawnSync(join(otherHome, 'bin', 'agentmeter'), args, { env: env({ HOME: other }), encoding: 'utf8', timeout: 120_000 });
    const running = spawn(join(otherHome, 'bin', 'agentmeter'), ['collect'], { env: env({ HOME: other }), stdio: 'ignore' });
    await waitFor(() => existsSync(collectorPidPath(otherHome)), 60_000, 'the collector pid file');
    const settings = JSON.parse(readFileSync(join(other, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.Stop[0].hooks[0].command as string;
    expect(
      spawnSync('sh', ['-c', command], { input: '{"hook_event_name":"Stop","session_id":"s"}', env: env({ HOME: other }) }).status,
    ).toBe(0);

    const kept = run(['uninstall']);
    expect(kept.status, kept.stdout + kept.stderr).toBe(1);
    expect(kept.stdout).toContain(`stopped the collector (pid ${running.pid})`);
    expect(kept.stdout).toMatch(/could not ship the spool \(.*\): 1 event kept in /);
    expect(running.exitCode ?? (await new Promise((resolve) => running.once('exit', resolve)))).toBe(0);
    expect(readdirSync(join(otherHome, 'spool', 'new'))).toHaveLength(1);
    expect(existsSync(join(other, '.claude', 'settings.json'))).toBe(false);

    // A collector.env others can read is refused, but the uninstall still finishes and purges.
    chmodSync(config, 0o644);
    const purged = run(['uninstall', '--purge']);
    expect(purged.status, purged.stdout + purged.stderr).toBe(0);
    expect(purged.stdout).toMatch(/could not ship the spool \(.*collector\.env.*\): 1 event removed with --purge/);
    expect(existsSync(otherHome)).toBe(false);
  });

  it('a download that does not match its sum, and a linked home', () => {
    const tampered = script.replace(/^BUNDLE_SHA256='[0-9a-f]+'$/m, `BUNDLE_SHA256='${'0'.repeat(64)}'`);
    const target = join(tempDir(), 'am');
    const bad = runInstaller(['--key', key, '--no-service', '--home', target], {}, tampered);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(
      /^agentmeter install: agentmeter.mjs from .* does not match its SHA-256 sum .*nothing was changed; run the installer again\n$/,
    );
    expect(existsSync(join(target, 'bin', 'agentmeter.mjs'))).toBe(false);
    expect(existsSync(join(target, 'collector.env'))).toBe(false);

    const real = tempDir();
    const link = join(tempDir(), 'link');
    symlinkSync(real, link);
    const linked = runInstaller(['--key', key, '--no-service', '--home', link]);
    expect(linked.status).toBe(1);
    expect(linked.stderr).toBe(`agentmeter install: ${link} is a symbolic link; agentmeter does not follow links in its own folders\n`);
    expect(readdirSync(real)).toEqual([]);
  });
});
