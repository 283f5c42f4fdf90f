// The collector as a user service: pure renderers of a systemd user unit (Linux) and a launchd agent
// (macOS) from one ServiceSpec, with the quoting each format needs. Writing, enabling and asking the
// service manager live in cli/service/manager.ts.
import { join } from 'node:path';
import { EXIT_CREDENTIALS_REFUSED, UserError } from '../../common/errors.ts';

export const SYSTEMD_UNIT = 'agentmeter-collector.service';
export const LAUNCHD_LABEL = 'dev.agentmeter.collector';
/** The first line of every file we write: we only ever replace or remove a file that carries it. */
export const WRITTEN_BY = 'Written by `agentmeter service install`';
/** Seconds launchd waits before starting the collector again; also how often a refused key is retried there. */
export const LAUNCHD_THROTTLE_S = 60;
/** Seconds systemd waits before restarting a collector that failed (any exit but a refused key). */
export const SYSTEMD_RESTART_S = 10;

export interface ServiceSpec {
  /** The command before `collect`: the agentmeter executable's absolute path (or node and a script). */
  program: string[];
  /** The collector's environment, in order (AGENTMETER_HOME when not the default, the server, the key, PATH). */
  environment: [string, string][];
  /** Where launchd writes the collector's stdout and stderr (systemd sends them to the journal). */
  logDir: string;
}

export const systemdUnitPath = (configHome: string) => join(configHome, 'systemd', 'user', SYSTEMD_UNIT);
export const launchdPlistPath = (home: string) => join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
export const launchdLogPaths = (logDir: string) => ({
  stdout: join(logDir, 'collector.out.log'),
  stderr: join(logDir, 'collector.err.log'),
});

// Neither format can carry these faithfully (a newline would end a unit line; XML 1.0 has no NUL).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function validate(spec: ServiceSpec): void {
  const [exe] = spec.program;
  if (!exe?.startsWith('/')) throw new UserError(`the collector's executable must be an absolute path, not "${exe ?? ''}"`);
  for (const arg of [...spec.program, spec.logDir])
    if (CONTROL.test(arg)) throw new UserError(`a service cannot run a path with control characters (${JSON.stringify(arg)})`);
  for (const [name, value] of spec.environment) {
    if (!ENV_NAME.test(name)) throw new UserError(`"${name}" is not an environment variable name`);
    if (CONTROL.test(value)) throw new UserError(`${name} has control characters; a service file cannot carry them`);
  }
}

/**
 * One word of a unit file line, double-quoted: backslash and quote escaped (systemd unquotes with C
 * escapes), `%` doubled (specifiers are expanded in every setting), and in ExecStart's arguments `$`
 * doubled (variables are expanded there, but not in the command's path nor in Environment=).
 */
export function systemdQuote(word: string, dollars: 'escape' | 'literal'): string {
  let out = word.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('%', '%%');
  if (dollars === 'escape') out = out.replaceAll('$', '$$$$');
  return `"${out}"`;
}

export function renderSystemdUnit(spec: ServiceSpec): string {
  validate(spec);
  const [exe, ...rest] = spec.program as [string, ...string[]];
  // systemd refuses a command path with quotes or backslashes ("special characters"), and leaves `$$`
  // in it as it is: such a path cannot be written so that systemd runs it.
  if (/["'\\$]/.test(exe))
    throw new UserError(
      `systemd cannot run a program whose path has quotes, a backslash or "$" in it: ${exe} (give another path with --exec)`,
    );
  const exec = [systemdQuote(exe, 'literal'), ...[...rest, 'collect'].map((a) => systemdQuote(a, 'escape'))].join(' ');
  return [
    `# ${WRITTEN_BY}; \`agentmeter service uninstall\` removes it.`,
    '# It holds the collector key: keep it private (mode 0600). Logs: journalctl --user -u agentmeter-collector',
    '[Unit]',
    "Description=agentmeter collector: ships this machine's AI coding agent events to the agentmeter server",
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec}`,
    ...spec.environment.map(([name, value]) => `Environment=${systemdQuote(`${name}=${value}`, 'literal')}`),
    // A failure is retried; a refused key is not (it stays refused, and the unit shows it as failed).
    'Restart=on-failure',
    `RestartSec=${SYSTEMD_RESTART_S}`,
    `RestartPreventExitStatus=${EXIT_CREDENTIALS_REFUSED}`,
    // Hardening a user manager applies without privileges or namespaces (the filters below are seccomp,
    // which NoNewPrivileges allows). No MemoryDenyWriteExecute: Node's JIT needs writable code.
    'UMask=0077',
    'NoNewPrivileges=yes',
    'LockPersonality=yes',
    'RestrictRealtime=yes',
    'RestrictSUIDSGID=yes',
    'RestrictNamespaces=yes',
    'SystemCallArchitectures=native',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

/** Text for an XML element's content or attribute. */
export const xmlEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&apos;');

export function renderLaunchdPlist(spec: ServiceSpec): string {
  validate(spec);
  const logs = launchdLogPaths(spec.logDir);
  const str = (indent: string, text: string) => `${indent}<string>${xmlEscape(text)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    `<!-- ${WRITTEN_BY}; \`agentmeter service uninstall\` removes it. It holds the collector key: keep it private (mode 0600). -->`,
    '<plist version="1.0">',
    '<dict>',
    '\t<key>Label</key>',
    str('\t', LAUNCHD_LABEL),
    '\t<key>ProgramArguments</key>',
    '\t<array>',
    ...[...spec.program, 'collect'].map((a) => str('\t\t', a)),
    '\t</array>',
    '\t<key>EnvironmentVariables</key>',
    '\t<dict>',
    ...spec.environment.flatMap(([name, value]) => [`\t\t<key>${xmlEscape(name)}</key>`, str('\t\t', value)]),
    '\t</dict>',
    '\t<key>RunAtLoad</key>',
    '\t<true/>',
    // Started again when it exits with a failure; launchd cannot spare one exit status as systemd does,
    // so a refused key is tried again once a throttle interval (one request a minute).
    '\t<key>KeepAlive</key>',
    '\t<dict>',
    '\t\t<key>SuccessfulExit</key>',
    '\t\t<false/>',
    '\t</dict>',
    '\t<key>ThrottleInterval</key>',
    `\t<integer>${LAUNCHD_THROTTLE_S}</integer>`,
    '\t<key>ProcessType</key>',
    '\t<string>Background</string>',
    '\t<key>Umask</key>',
    `\t<integer>${0o077}</integer>`,
    '\t<key>StandardOutPath</key>',
    str('\t', logs.stdout),
    '\t<key>StandardErrorPath</key>',
    str('\t', logs.stderr),
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}
