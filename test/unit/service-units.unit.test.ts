// The collector's user service: the exact systemd unit (Linux) and launchd plist (macOS), the quoting of
// awkward paths, and the install/uninstall/status logic against a recording runner (no systemd needed).
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  installService,
  planInstall,
  type Runner,
  type RunResult,
  type ServiceContext,
  serviceStatus,
  uninstallService,
} from '../../cli/service/manager.ts';
import {
  launchdPlistPath,
  renderLaunchdPlist,
  renderSystemdUnit,
  type ServiceSpec,
  systemdQuote,
  systemdUnitPath,
  xmlEscape,
} from '../../cli/service/units.ts';
import { EXIT_CREDENTIALS_REFUSED, UserError } from '../../common/errors.ts';
import { tempDir } from '../helpers/tmp.ts';

const spec: ServiceSpec = {
  program: ['/home/dev/.agentmeter/bin/agentmeter'],
  environment: [
    ['AGENTMETER_SERVER', 'https://agentmeter.internal'],
    ['AGENTMETER_API_KEY', 'am_test'],
    ['PATH', '/usr/local/bin:/usr/bin:/bin'],
  ],
  logDir: '/home/dev/.agentmeter/logs',
};

const LINUX_UNIT = `# Written by \`agentmeter service install\`; \`agentmeter service uninstall\` removes it.
# It holds the collector key: keep it private (mode 0600). Logs: journalctl --user -u agentmeter-collector
[Unit]
Description=agentmeter collector: ships this machine's AI coding agent events to the agentmeter server

[Service]
Type=simple
ExecStart="/home/dev/.agentmeter/bin/agentmeter" "collect"
Environment="AGENTMETER_SERVER=https://agentmeter.internal"
Environment="AGENTMETER_API_KEY=am_test"
Environment="PATH=/usr/local/bin:/usr/bin:/bin"
Restart=on-failure
RestartSec=10
RestartPreventExitStatus=78
UMask=0077
NoNewPrivileges=yes
LockPersonality=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
SystemCallArchitectures=native

[Install]
WantedBy=default.target
`;

const MACOS_PLIST = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by \`agentmeter service install\`; \`agentmeter service uninstall\` removes it. It holds the collector key: keep it private (mode 0600). -->
<plist version="1.0">
<dict>
\t<key>Label</key>
\t<string>dev.agentmeter.collector</string>
\t<key>ProgramArguments</key>
\t<array>
\t\t<string>/Users/dev/.agentmeter/bin/agentmeter</string>
\t\t<string>collect</string>
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
\t\t<key>AGENTMETER_SERVER</key>
\t\t<string>https://agentmeter.internal</string>
\t\t<key>AGENTMETER_API_KEY</key>
\t\t<string>am_test</string>
\t\t<key>PATH</key>
\t\t<string>/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin</string>
\t</dict>
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<dict>
\t\t<key>SuccessfulExit</key>
\t\t<false/>
\t</dict>
\t<key>ThrottleInterval</key>
\t<integer>60</integer>
\t<key>ProcessType</key>
\t<string>Background</string>
\t<key>Umask</key>
\t<integer>63</integer>
\t<key>StandardOutPath</key>
\t<string>/Users/dev/.agentmeter/logs/collector.out.log</string>
\t<key>StandardErrorPath</key>
\t<string>/Users/dev/.agentmeter/logs/collector.err.log</string>
</dict>
</plist>
`;

describe('the service files', () => {
  it('Linux: the systemd user unit, whole', () => {
    expect(renderSystemdUnit(spec)).toBe(LINUX_UNIT);
    expect(LINUX_UNIT).toContain(`RestartPreventExitStatus=${EXIT_CREDENTIALS_REFUSED}`);
    expect(systemdUnitPath('/home/dev/.config')).toBe('/home/dev/.config/systemd/user/agentmeter-collector.service');
  });

  it('macOS: the launchd agent plist, whole', () => {
    const mac: ServiceSpec = {
      program: ['/Users/dev/.agentmeter/bin/agentmeter'],
      environment: [
        ['AGENTMETER_SERVER', 'https://agentmeter.internal'],
        ['AGENTMETER_API_KEY', 'am_test'],
        ['PATH', '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin'],
      ],
      logDir: '/Users/dev/.agentmeter/logs',
    };
    expect(renderLaunchdPlist(mac)).toBe(MACOS_PLIST);
    expect(launchdPlistPath('/Users/dev')).toBe('/Users/dev/Library/LaunchAgents/dev.agentmeter.collector.plist');
  });

  it('a non-default AGENTMETER_HOME and paths with spaces, %, $, quotes and XML characters are quoted for each format', () => {
    const odd: ServiceSpec = {
      program: ['/opt/My Tools/100% node', '/srv/a "b" $HOME\\x.js'],
      environment: [
        ['AGENTMETER_HOME', "/home/dev/agent meter's <home> & 50%$"],
        ['AGENTMETER_API_KEY', 'am_"k"'],
      ],
      logDir: '/home/dev/agent meter/logs',
    };
    const unit = renderSystemdUnit(odd);
    // % doubled everywhere (specifiers); $ doubled only in ExecStart's arguments (variables); \ and " escaped.
    expect(unit).toContain('ExecStart="/opt/My Tools/100%% node" "/srv/a \\"b\\" $$HOME\\\\x.js" "collect"\n');
    expect(unit).toContain(`Environment="AGENTMETER_HOME=/home/dev/agent meter's <home> & 50%%$"\n`);
    expect(unit).toContain('Environment="AGENTMETER_API_KEY=am_\\"k\\""\n');
    const plist = renderLaunchdPlist(odd);
    expect(plist).toContain('\t\t<string>/opt/My Tools/100% node</string>\n\t\t<string>/srv/a &quot;b&quot; $HOME\\x.js</string>\n');
    expect(plist).toContain('\t\t<key>AGENTMETER_HOME</key>\n\t\t<string>/home/dev/agent meter&apos;s &lt;home&gt; &amp; 50%$</string>\n');
    expect(plist).toContain('<string>/home/dev/agent meter/logs/collector.err.log</string>');
    expect(xmlEscape(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    expect(systemdQuote('a%b$c', 'literal')).toBe('"a%%b$c"');
    expect(systemdQuote('a%b$c', 'escape')).toBe('"a%%b$$c"');
  });

  it('refuses what a format cannot carry: control characters, a relative program, a bad variable name, a quote in systemd’s program path', () => {
    const bad = (over: Partial<ServiceSpec>) => ({ ...spec, ...over });
    for (const render of [renderSystemdUnit, renderLaunchdPlist]) {
      expect(() => render(bad({ program: ['/bin/a\nExecStartPre=/bin/evil'] }))).toThrow(UserError);
      expect(() => render(bad({ program: ['bin/agentmeter'] }))).toThrow(/absolute path/);
      expect(() => render(bad({ environment: [['AGENTMETER_HOME', 'x\ny']] }))).toThrow(/control characters/);
      expect(() => render(bad({ environment: [['A B', 'x']] }))).toThrow(/not an environment variable name/);
    }
    // systemd refuses quotes and backslashes in the command path itself, and keeps `$$` there as it is.
    for (const path of ["/opt/it's/agentmeter", '/opt/"q"/agentmeter', '/opt/a\\b/agentmeter', '/opt/$x/agentmeter'])
      expect(() => renderSystemdUnit(bad({ program: [path] }))).toThrow(/systemd cannot run a program whose path/);
    expect(renderLaunchdPlist(bad({ program: ["/opt/it's/agentmeter"] }))).toContain('<string>/opt/it&apos;s/agentmeter</string>');
  });

  const analyze = spawnSync('systemd-analyze', ['--version']);
  it.skipIf(analyze.error !== undefined)('systemd-analyze verify accepts the unit for a program under an awkward path', () => {
    const dir = join(tempDir(), 'My Tools 100% & <x>');
    mkdirSync(dir);
    const program = join(dir, 'agentmeter');
    writeFileSync(program, '#!/bin/sh\nexit 0\n');
    chmodSync(program, 0o755);
    const unit = join(dirname(dir), 'agentmeter-collector.service');
    writeFileSync(unit, renderSystemdUnit({ ...spec, program: [program, '$x "y"'], environment: [['AGENTMETER_HOME', '/a b/%c$"d"']] }));
    const verify = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    expect(verify.stderr).toBe('');
    expect(verify.status).toBe(0);
  });
});

/** A runner that records every command and answers from a table (the first matching prefix wins). */
function recorder(answers: [string, Partial<RunResult>][] = []): { run: Runner; calls: string[] } {
  const calls: string[] = [];
  const run: Runner = (command, args) => {
    const line = [command, ...args].join(' ');
    calls.push(line);
    const answer = answers.find(([prefix]) => line.startsWith(prefix))?.[1] ?? {};
    return { status: 0, stdout: '', stderr: '', ...answer };
  };
  return { run, calls };
}

function context(manager: 'systemd' | 'launchd', answers: [string, Partial<RunResult>][] = []) {
  const home = tempDir();
  const { run, calls } = recorder(answers);
  const ctx: ServiceContext = { manager, home, configHome: join(home, '.config'), uid: 501, run };
  return { ctx, calls, home, spec: { ...spec, logDir: join(home, '.agentmeter', 'logs') } };
}

describe('install, uninstall and status', () => {
  it('systemd: writes the unit 0600, reloads, enables and restarts; a second run rewrites and restarts nothing', () => {
    const { ctx, calls, spec: s } = context('systemd', [['loginctl', { stdout: 'no\n' }]]);
    const first = installService(ctx, s);
    const file = join(ctx.configHome, 'systemd', 'user', 'agentmeter-collector.service');
    expect(readFileSync(file, 'utf8')).toBe(renderSystemdUnit(s));
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(calls).toEqual([
      'systemctl --user show-environment',
      'systemctl --user daemon-reload',
      'systemctl --user enable agentmeter-collector.service',
      'systemctl --user restart agentmeter-collector.service',
      'loginctl show-user 501 --property=Linger --value',
    ]);
    expect(first.notes.join()).toContain('loginctl enable-linger');
    const mtime = lstatSync(file).mtimeMs;
    calls.length = 0;
    const second = installService(ctx, s);
    expect(second.changed).toBe(false);
    expect(lstatSync(file).mtimeMs).toBe(mtime);
    expect(calls).toEqual([
      'systemctl --user show-environment',
      'systemctl --user enable --now agentmeter-collector.service',
      'loginctl show-user 501 --property=Linger --value',
    ]);
    // A changed key rewrites the unit and restarts the collector with it.
    calls.length = 0;
    installService(ctx, { ...s, environment: [['AGENTMETER_API_KEY', 'am_new']] });
    expect(calls).toContain('systemctl --user restart agentmeter-collector.service');

    calls.length = 0;
    uninstallService(ctx);
    expect(() => lstatSync(file)).toThrow();
    expect(calls).toEqual([
      'systemctl --user show-environment',
      'systemctl --user disable --now agentmeter-collector.service',
      'systemctl --user daemon-reload',
      'systemctl --user reset-failed agentmeter-collector.service',
    ]);
  });

  it('systemd without a user instance, or without systemctl: one clear line, nothing written', () => {
    for (const answer of [
      { status: 1, stderr: 'Failed to connect to bus: No medium found\n' },
      { status: null, missing: true, stderr: 'spawnSync systemctl ENOENT' },
    ]) {
      const { ctx, spec: s } = context('systemd', [['systemctl --user show-environment', answer]]);
      expect(() => installService(ctx, s)).toThrow(`run \`${s.program[0]} collect\` under your own supervisor`);
      expect(() => lstatSync(join(ctx.configHome, 'systemd'))).toThrow();
    }
  });

  it('launchd: writes the plist and its private log folder, enables and bootstraps; a second run only kickstarts', () => {
    const loaded = { current: false };
    const { ctx, calls, home, spec: s } = context('launchd');
    const inner = ctx.run;
    ctx.run = (command, args) => {
      const result = inner(command, args);
      if (args[0] === 'print' && args[1] === 'gui/501/dev.agentmeter.collector') return { ...result, status: loaded.current ? 0 : 113 };
      if (args[0] === 'bootstrap') loaded.current = true;
      if (args[0] === 'bootout') loaded.current = false;
      return result;
    };
    installService(ctx, s);
    const file = join(home, 'Library', 'LaunchAgents', 'dev.agentmeter.collector.plist');
    expect(readFileSync(file, 'utf8')).toBe(renderLaunchdPlist(s));
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(lstatSync(s.logDir).mode & 0o777).toBe(0o700);
    expect(calls).toEqual([
      'launchctl print gui/501',
      'launchctl print gui/501/dev.agentmeter.collector',
      'launchctl enable gui/501/dev.agentmeter.collector',
      `launchctl bootstrap gui/501 ${file}`,
    ]);
    calls.length = 0;
    expect(installService(ctx, s).changed).toBe(false);
    expect(calls).toEqual([
      'launchctl print gui/501',
      'launchctl print gui/501/dev.agentmeter.collector',
      'launchctl kickstart gui/501/dev.agentmeter.collector',
    ]);
    // A changed file: the loaded agent is booted out and bootstrapped again from the new file.
    calls.length = 0;
    installService(ctx, { ...s, environment: [['AGENTMETER_API_KEY', 'am_new']] });
    expect(calls.slice(2)).toEqual([
      'launchctl bootout gui/501/dev.agentmeter.collector',
      'launchctl enable gui/501/dev.agentmeter.collector',
      `launchctl bootstrap gui/501 ${file}`,
    ]);
    calls.length = 0;
    uninstallService(ctx);
    expect(calls).toEqual(['launchctl print gui/501/dev.agentmeter.collector', 'launchctl bootout gui/501/dev.agentmeter.collector']);
    expect(() => lstatSync(file)).toThrow();
  });

  it('refuses a link at the file or as its folder, and a file agentmeter did not write (unless forced)', () => {
    const { ctx, spec: s, home } = context('systemd');
    const dir = join(ctx.configHome, 'systemd', 'user');
    const file = join(dir, 'agentmeter-collector.service');
    mkdirSync(dir, { recursive: true });
    const elsewhere = join(home, 'elsewhere');
    writeFileSync(elsewhere, 'not a unit');
    symlinkSync(elsewhere, file);
    expect(() => installService(ctx, s)).toThrow(/symbolic link/);
    expect(() => uninstallService(ctx)).toThrow(/symbolic link/);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not a unit');

    const other = context('systemd');
    const otherDir = join(other.ctx.configHome, 'systemd');
    const target = join(other.home, 'target');
    mkdirSync(otherDir, { recursive: true });
    mkdirSync(target);
    symlinkSync(target, join(otherDir, 'user'));
    expect(() => installService(other.ctx, other.spec)).toThrow(/symbolic link/);
    expect(() => lstatSync(join(target, 'agentmeter-collector.service'))).toThrow();

    const theirs = context('systemd');
    const theirFile = join(theirs.ctx.configHome, 'systemd', 'user', 'agentmeter-collector.service');
    mkdirSync(dirname(theirFile), { recursive: true });
    writeFileSync(theirFile, '[Service]\nExecStart=/usr/bin/my-own\n');
    expect(() => installService(theirs.ctx, theirs.spec)).toThrow(/not written by agentmeter/);
    expect(() => uninstallService(theirs.ctx)).toThrow(/not written by agentmeter/);
    expect(readFileSync(theirFile, 'utf8')).toBe('[Service]\nExecStart=/usr/bin/my-own\n');
    expect(planInstall(theirs.ctx, theirs.spec, { force: true }).changed).toBe(true);
  });

  it('status: what systemctl show and launchctl print say, and not installed without asking', () => {
    const none = context('systemd');
    expect(serviceStatus(none.ctx, none.spec.logDir)).toMatchObject({ installed: false, state: 'not installed' });
    expect(none.calls).toEqual([]);

    const show = (props: string) => {
      const c = context('systemd', [['systemctl --user show agentmeter-collector.service', { stdout: props }]]);
      installService(c.ctx, c.spec);
      return serviceStatus(c.ctx, c.spec.logDir);
    };
    expect(show('ActiveState=active\nSubState=running\nUnitFileState=enabled\nMainPID=4242\nExecMainStatus=0\n')).toMatchObject({
      state: 'running',
      pid: 4242,
      detail: 'active (running), enabled',
      logs: 'journalctl --user -u agentmeter-collector.service',
    });
    expect(show('ActiveState=failed\nSubState=failed\nUnitFileState=enabled\nMainPID=0\nExecMainStatus=78\n')).toMatchObject({
      state: 'failed',
      detail: 'failed (failed), enabled, last exit status 78',
    });
    expect(show('ActiveState=activating\nSubState=auto-restart\nUnitFileState=enabled\nMainPID=0\nExecMainStatus=1\n').state).toBe(
      'failed',
    );
    expect(show('ActiveState=inactive\nSubState=dead\nUnitFileState=disabled\nMainPID=0\nExecMainStatus=0\n').state).toBe('stopped');

    const print =
      'gui/501/dev.agentmeter.collector = {\n\tactive count = 1\n\tstate = running\n\tpid = 777\n\tlast exit code = (never exited)\n\tenvironment = {\n\t\tstate => x\n\t}\n}\n';
    const mac = context('launchd', [['launchctl print gui/501/dev.agentmeter.collector', { stdout: print }]]);
    installService(mac.ctx, mac.spec);
    expect(serviceStatus(mac.ctx, mac.spec.logDir)).toMatchObject({
      state: 'running',
      pid: 777,
      detail: 'loaded, running, last exit code (never exited)',
    });
    const exited = context('launchd', [
      ['launchctl print gui/501/dev.agentmeter.collector', { stdout: '\tstate = not running\n\tlast exit code = 78\n' }],
    ]);
    installService(exited.ctx, exited.spec);
    expect(serviceStatus(exited.ctx, exited.spec.logDir)).toMatchObject({
      state: 'failed',
      detail: 'loaded, not running, last exit code 78',
    });
  });
});
