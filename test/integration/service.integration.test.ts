// `agentmeter service install|status|uninstall` as a user runs them, in a temporary HOME, with a fake
// systemctl, loginctl and launchctl first on PATH: small sh scripts that record their arguments and
// answer as the real ones would. Asserts the files written, the commands run, and idempotence; then
// what `agentmeter doctor` says of the service.
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DoctorReport } from '../../cli/doctor/checks.ts';
import { shellLine } from '../../cli/program.ts';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

// systemctl: `show-environment` fails unless the user instance is "up" (FAKE_SYSTEMD=up); `show` answers
// with FAKE_ACTIVE (default active). launchctl keeps whether the agent is loaded in a file beside its log.
const SYSTEMCTL = `#!/bin/sh
printf '%s\\n' "systemctl $*" >> "$FAKE_LOG"
case "$*" in
  *show-environment*) [ "$FAKE_SYSTEMD" = up ] || { echo "Failed to connect to bus: No medium found" >&2; exit 1; }; echo "HOME=$HOME";;
  *"--user show agentmeter-collector.service"*)
    if [ "\${FAKE_ACTIVE:-active}" = active ]; then printf 'ActiveState=active\\nSubState=running\\nUnitFileState=enabled\\nMainPID=4242\\nExecMainStatus=0\\n'
    else printf 'ActiveState=failed\\nSubState=failed\\nUnitFileState=enabled\\nMainPID=0\\nExecMainStatus=78\\n'; fi;;
esac
exit 0
`;
const LOGINCTL = `#!/bin/sh
printf '%s\\n' "loginctl $*" >> "$FAKE_LOG"
echo no
`;
const LAUNCHCTL = `#!/bin/sh
printf '%s\\n' "launchctl $*" >> "$FAKE_LOG"
loaded="$FAKE_LOG.loaded"
case "$1" in
  print) case "$2" in
    */dev.agentmeter.collector) [ -f "$loaded" ] || { echo "Could not find service" >&2; exit 113; }
      printf 'gui/501/dev.agentmeter.collector = {\\n\\tstate = running\\n\\tpid = 777\\n\\tlast exit code = (never exited)\\n}\\n';;
    *) echo "gui/$(id -u) = {";;
  esac;;
  bootstrap) : > "$loaded";;
  bootout) rm -f "$loaded";;
esac
exit 0
`;

function machine(systemd: 'up' | 'down' = 'up') {
  const dir = tempDir();
  const home = join(dir, 'home dir');
  const bin = join(dir, 'bin');
  const log = join(dir, 'commands.log');
  mkdirSync(bin, { recursive: true });
  mkdirSync(home);
  writeFileSync(join(bin, 'systemctl'), SYSTEMCTL, { mode: 0o755 });
  writeFileSync(join(bin, 'loginctl'), LOGINCTL, { mode: 0o755 });
  writeFileSync(join(bin, 'launchctl'), LAUNCHCTL, { mode: 0o755 });
  // The installed laptop command the service runs.
  const exe = join(home, '.agentmeter', 'bin', 'agentmeter');
  mkdirSync(dirname(exe), { recursive: true });
  writeFileSync(exe, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
    FAKE_LOG: log,
    FAKE_SYSTEMD: systemd,
    AGENTMETER_SERVER: 'http://127.0.0.1:9',
    AGENTMETER_API_KEY: 'am_secret_key_1',
  };
  const commands = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
  const clear = () => writeFileSync(log, '');
  const run = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });
  return { home, exe, env, commands, clear, run };
}

describe('agentmeter service on Linux (systemd user unit)', { timeout: 300_000 }, () => {
  it('--dry-run prints the unit with the key masked, and writes and runs nothing', () => {
    const m = machine();
    const dry = m.run(['service', 'install', '--dry-run', '--manager', 'systemd']);
    expect(dry.status, dry.stderr).toBe(0);
    const unit = join(m.home, '.config', 'systemd', 'user', 'agentmeter-collector.service');
    expect(dry.stdout).toContain(`would write ${unit} (mode 0600; the key shown as <your key>):`);
    expect(dry.stdout).toContain(`ExecStart="${m.exe}" "collect"\n`);
    expect(dry.stdout).toContain('Environment="AGENTMETER_API_KEY=<your key>"\n');
    expect(dry.stdout).not.toContain('am_secret_key_1');
    expect(dry.stdout).toContain('would run:\n  systemctl --user daemon-reload\n  systemctl --user enable agentmeter-collector.service\n');
    expect(existsSync(unit)).toBe(false);
    expect(m.commands()).toEqual([]);
  });

  it('install writes the unit and starts it; a second run changes nothing; status; doctor; uninstall', () => {
    const m = machine();
    const installed = m.run(['service', 'install', '--manager', 'systemd']);
    expect(installed.status, installed.stderr).toBe(0);
    const unit = join(m.home, '.config', 'systemd', 'user', 'agentmeter-collector.service');
    const text = readFileSync(unit, 'utf8');
    expect(text).toContain(`ExecStart="${m.exe}" "collect"\n`);
    expect(text).toContain('Environment="AGENTMETER_SERVER=http://127.0.0.1:9"\n');
    expect(text).toContain('Environment="AGENTMETER_API_KEY=am_secret_key_1"\n');
    expect(text).toContain(`Environment="PATH=${dirname(process.execPath)}:`);
    expect(text).not.toContain('AGENTMETER_HOME'); // the default home needs none
    expect(lstatSync(unit).mode & 0o777).toBe(0o600);
    expect(m.commands()).toEqual([
      'systemctl --user show-environment',
      'systemctl --user daemon-reload',
      'systemctl --user enable agentmeter-collector.service',
      'systemctl --user restart agentmeter-collector.service',
      `loginctl show-user ${process.getuid!()} --property=Linger --value`,
      'systemctl --user show agentmeter-collector.service --property=ActiveState,SubState,UnitFileState,MainPID,ExecMainStatus',
    ]);
    expect(installed.stdout).toContain('collector: running (active (running), enabled)');
    expect(installed.stdout).toContain('loginctl enable-linger');

    // Idempotent: the same unit is neither rewritten nor restarted.
    const mtime = lstatSync(unit).mtimeMs;
    m.clear();
    const again = m.run(['service', 'install', '--manager', 'systemd']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain(`${unit} is up to date`);
    expect(lstatSync(unit).mtimeMs).toBe(mtime);
    expect(readFileSync(unit, 'utf8')).toBe(text);
    expect(m.commands().filter((c) => /daemon-reload|restart/.test(c))).toEqual([]);
    expect(m.commands()).toContain('systemctl --user enable --now agentmeter-collector.service');

    const status = m.run(['service', 'status', '--manager', 'systemd']);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('service: running (pid 4242)');

    // The doctor: a running service is fine; a failed one is a problem with its restart command.
    const healthy = DoctorReport.parse(JSON.parse(m.run(['doctor', '--json']).stdout));
    expect(healthy.service).toMatchObject({ manager: 'systemd', installed: true, state: 'running', pid: 4242 });
    expect(healthy.checks.find((c) => c.name === 'collector')).toMatchObject({ ok: true, detail: 'running (systemd service, pid 4242)' });
    const failedRun = m.run(['doctor', '--json'], { FAKE_ACTIVE: 'failed' });
    expect(failedRun.status).toBe(1);
    const failed = DoctorReport.parse(JSON.parse(failedRun.stdout));
    expect(failed.checks.find((c) => c.name === 'service')).toEqual({
      name: 'service',
      ok: false,
      detail: `${unit} is failed: failed (failed), enabled, last exit status 78`,
      fix: 'systemctl --user restart agentmeter-collector.service (why it stopped: journalctl --user -u agentmeter-collector.service)',
    });
    const stopped = m.run(['service', 'status', '--manager', 'systemd'], { FAKE_ACTIVE: 'failed' });
    expect(stopped.status).toBe(3);

    m.clear();
    const removed = m.run(['service', 'uninstall', '--manager', 'systemd']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(unit)).toBe(false);
    expect(m.commands()).toEqual([
      'systemctl --user show-environment',
      'systemctl --user disable --now agentmeter-collector.service',
      'systemctl --user daemon-reload',
      'systemctl --user reset-failed agentmeter-collector.service',
    ]);
    const gone = m.run(['service', 'status', '--manager', 'systemd']);
    expect(gone.status).toBe(3);
    expect(gone.stdout).toContain('service: not installed');
    // Uninstalling again is harmless.
    expect(m.run(['service', 'uninstall', '--manager', 'systemd']).status).toBe(0);
  });

  it('a non-default AGENTMETER_HOME with a space and a quote goes into the unit, quoted', () => {
    const m = machine();
    const amHome = join(m.home, `agent "meter" 100%`);
    const r = m.run(['service', 'install', '--manager', 'systemd', '--exec', m.exe], { AGENTMETER_HOME: amHome });
    expect(r.status, r.stderr).toBe(0);
    const text = readFileSync(join(m.home, '.config', 'systemd', 'user', 'agentmeter-collector.service'), 'utf8');
    expect(text).toContain(`Environment="AGENTMETER_HOME=${amHome.replaceAll('"', '\\"').replaceAll('%', '%%')}"\n`);
  });

  it('without a systemd user instance: one clear line naming the full command, exit 1, nothing written; the doctor suggests collect', () => {
    const m = machine('down');
    const collect = `${shellLine([m.exe])} collect`;
    const r = m.run(['service', 'install', '--manager', 'systemd']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^agentmeter: systemctl cannot reach your systemd user instance \(Failed to connect to bus: No medium found\);/,
      ),
    ]);
    expect(r.stderr).toContain(`run \`${collect}\` under your own supervisor`);
    expect(existsSync(join(m.home, '.config'))).toBe(false);
    const report = DoctorReport.parse(JSON.parse(m.run(['doctor', '--json']).stdout));
    expect(report.checks.find((c) => c.name === 'collector')!.fix).toBe(collect);
    expect(report.checks.find((c) => c.name === 'service')).toMatchObject({ ok: true });
  });

  it('--if-available without a systemd user instance: exit 0, why, and the full command to run at login or by hand', () => {
    const m = machine('down');
    const collect = `${shellLine([m.exe])} collect`;
    const r = m.run(['service', 'install', '--if-available', '--manager', 'systemd']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'no collector service: systemctl cannot reach your systemd user instance (Failed to connect to bus: No medium found); there is none in a container, WSL without systemd, or a shell from su or sudo.',
      // The server and key come from the environment here, not collector.env: the command says they are needed.
      `The collector is not running. Run it with: ${collect} --server <server URL> --key <your key>`,
      `  at every login: add this line to your ~/.profile: ${collect} >/dev/null 2>&1 &`,
      '  or under a supervisor of your own (a container entrypoint, supervisord, runit, tmux).',
    ]);
    expect(r.stdout).not.toContain('am_secret_key_1');
    expect(existsSync(join(m.home, '.config'))).toBe(false);
    // With a user instance, --if-available installs as before.
    const up = machine();
    const installed = up.run(['service', 'install', '--if-available', '--manager', 'systemd']);
    expect(installed.status, installed.stderr).toBe(0);
    expect(existsSync(join(up.home, '.config', 'systemd', 'user', 'agentmeter-collector.service'))).toBe(true);
  });

  it('with a user instance and nothing running, the doctor names service install as the fix, by full path', () => {
    const m = machine();
    const program = shellLine([m.exe]);
    const report = DoctorReport.parse(JSON.parse(m.run(['doctor', '--json']).stdout));
    expect(report.checks.find((c) => c.name === 'collector')!.fix).toBe(
      `${program} service install (or, under your own supervisor: ${program} collect)`,
    );
  });

  it('refuses a server and key it does not have', () => {
    const m = machine();
    const r = m.run(['service', 'install', '--manager', 'systemd'], { AGENTMETER_API_KEY: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('--key (or AGENTMETER_API_KEY, or collector.env) is required');
    expect(m.commands()).toEqual([]);
  });

  it('with the settings in collector.env (as install.sh writes them), the unit holds no key; uninstall removes the service', () => {
    const m = machine();
    const envFile = join(m.home, '.agentmeter', 'collector.env');
    writeFileSync(envFile, 'AGENTMETER_SERVER=http://127.0.0.1:9\nAGENTMETER_API_KEY=am_secret_key_2\n', { mode: 0o600 });
    const noEnv = { AGENTMETER_SERVER: '', AGENTMETER_API_KEY: '' };
    // A Codex home the user moved goes with the collector, which reads Codex's files there.
    const installed = m.run(['service', 'install', '--manager', 'systemd'], { ...noEnv, CODEX_HOME: '/srv/codex home' });
    expect(installed.status, installed.stderr).toBe(0);
    const unit = join(m.home, '.config', 'systemd', 'user', 'agentmeter-collector.service');
    const text = readFileSync(unit, 'utf8');
    expect(text).toContain('Environment="CODEX_HOME=/srv/codex home"\n');
    expect(text).not.toContain('QWEN_RUNTIME_DIR');
    expect(text).not.toContain('AGENTMETER_API_KEY');
    expect(text).not.toContain('am_secret_key');
    m.clear();
    const removed = m.run(['uninstall'], noEnv);
    expect(removed.stdout).toContain(`removed the collector service (${unit})`);
    expect(existsSync(unit)).toBe(false);
    expect(m.commands()).toContain('systemctl --user disable --now agentmeter-collector.service');
  });
});

describe('agentmeter service on macOS (launchd agent)', { timeout: 300_000 }, () => {
  it('install writes the plist and bootstraps it; a second run only kickstarts; status; uninstall boots it out', () => {
    const m = machine();
    const uid = process.getuid!();
    const plist = join(m.home, 'Library', 'LaunchAgents', 'dev.agentmeter.collector.plist');
    const installed = m.run(['service', 'install', '--manager', 'launchd']);
    expect(installed.status, installed.stderr).toBe(0);
    const text = readFileSync(plist, 'utf8');
    expect(text).toContain(`\t\t<string>${m.exe}</string>\n\t\t<string>collect</string>\n`);
    expect(text).toContain('\t\t<key>AGENTMETER_API_KEY</key>\n\t\t<string>am_secret_key_1</string>\n');
    expect(text).toContain(`<string>${join(m.home, '.agentmeter', 'logs', 'collector.err.log')}</string>`);
    expect(lstatSync(plist).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(m.home, '.agentmeter', 'logs')).mode & 0o777).toBe(0o700);
    expect(m.commands()).toEqual([
      `launchctl print gui/${uid}`,
      `launchctl print gui/${uid}/dev.agentmeter.collector`,
      `launchctl enable gui/${uid}/dev.agentmeter.collector`,
      `launchctl bootstrap gui/${uid} ${plist}`,
      `launchctl print gui/${uid}/dev.agentmeter.collector`,
    ]);

    m.clear();
    const again = m.run(['service', 'install', '--manager', 'launchd']);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(plist, 'utf8')).toBe(text);
    expect(m.commands()).toEqual([
      `launchctl print gui/${uid}`,
      `launchctl print gui/${uid}/dev.agentmeter.collector`,
      `launchctl kickstart gui/${uid}/dev.agentmeter.collector`,
      `launchctl print gui/${uid}/dev.agentmeter.collector`,
    ]);

    const status = m.run(['service', 'status', '--manager', 'launchd', '--json']);
    expect(status.status).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ manager: 'launchd', file: plist, installed: true, state: 'running', pid: 777 });

    m.clear();
    const dryOut = m.run(['service', 'uninstall', '--manager', 'launchd', '--dry-run']);
    expect(dryOut.stdout).toBe(`would remove ${plist}\nwould run:\n  launchctl bootout gui/${uid}/dev.agentmeter.collector\n`);
    expect(existsSync(plist)).toBe(true);
    const removed = m.run(['service', 'uninstall', '--manager', 'launchd']);
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(plist)).toBe(false);
    expect(m.commands()).toEqual([
      `launchctl print gui/${uid}/dev.agentmeter.collector`,
      `launchctl bootout gui/${uid}/dev.agentmeter.collector`,
    ]);
  });
});
