// $AGENTMETER_HOME/collector.env: the server URL and API key of this machine's collector, as written by
// the server's install.sh (GET /install.sh). The format is the environment the collector already reads
// (common/config.ts): `AGENTMETER_SERVER=…` and `AGENTMETER_API_KEY=…` lines, so a systemd unit can also
// name it as its EnvironmentFile. The process environment and command-line flags win over the file.
// The file holds a key: it must be a regular file of this user, not a link, readable by no one else.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config, Env } from './config.ts';
import { EnvSchema } from './config.ts';
import { UserError } from './errors.ts';
import { currentUid } from './private-files.ts';

export const MACHINE_CONFIG_NAME = 'collector.env';
export const machineConfigPath = (agentmeterHome: string) => join(agentmeterHome, MACHINE_CONFIG_NAME);

/** The names the file may set. */
const NAMES = ['AGENTMETER_SERVER', 'AGENTMETER_API_KEY'] as const;
type Name = (typeof NAMES)[number];
export type MachineConfig = Partial<Pick<Env, Name>>;

/** Pure: the file's text as settings, or the reason it is not usable (with the line that is wrong). */
export function parseMachineConfig(text: string, file: string): MachineConfig {
  const out: Record<string, string> = {};
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Z_]+)=(.*)$/.exec(line);
    if (!match || !(NAMES as readonly string[]).includes(match[1]!))
      throw new UserError(`${file} line ${index + 1}: expected AGENTMETER_SERVER=<url> or AGENTMETER_API_KEY=<key>`);
    out[match[1]!] = match[2]!;
  });
  const parsed = EnvSchema.pick({ AGENTMETER_SERVER: true, AGENTMETER_API_KEY: true }).safeParse(out);
  if (!parsed.success) throw new UserError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/**
 * Reads the file when it exists (an absent file is no settings). Opened without following a link; a file
 * of another user or one that others can read is refused rather than used, since it holds a key.
 */
export function readMachineConfig(agentmeterHome: string): MachineConfig {
  const file = machineConfigPath(agentmeterHome);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'ELOOP') throw new UserError(`${file} is a symbolic link; agentmeter does not follow links in its own folders`);
    throw new UserError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UserError(`${file} is not a regular file`);
    const uid = currentUid();
    if (uid !== undefined && stat.uid !== uid) throw new UserError(`${file} belongs to uid ${stat.uid}, not to this user (uid ${uid})`);
    if (stat.mode & 0o077) throw new UserError(`${file} holds an API key and can be read by others: chmod 600 ${file}`);
    return parseMachineConfig(readFileSync(fd, 'utf8'), file);
  } finally {
    closeSync(fd);
  }
}

/** The server URL and key for this machine's commands: the environment first, then collector.env. */
export function machineSettings(config: Config): MachineConfig & { fromFile: { server: boolean; key: boolean } } {
  const file = readMachineConfig(config.agentmeterHome);
  const server = config.env.AGENTMETER_SERVER ?? file.AGENTMETER_SERVER;
  const key = config.env.AGENTMETER_API_KEY ?? file.AGENTMETER_API_KEY;
  return {
    ...(server ? { AGENTMETER_SERVER: server } : {}),
    ...(key ? { AGENTMETER_API_KEY: key } : {}),
    fromFile: {
      server: !config.env.AGENTMETER_SERVER && Boolean(file.AGENTMETER_SERVER),
      key: !config.env.AGENTMETER_API_KEY && Boolean(file.AGENTMETER_API_KEY),
    },
  };
}
