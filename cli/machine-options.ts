// The --server and --key options of the machine's commands (collect, doctor, uninstall), one wording for
// all: a flag wins, then the environment, then $AGENTMETER_HOME/collector.env (written by install.sh).
import type { Argv } from 'yargs';
import type { MachineConfig } from '../common/machine-config.ts';

/**
 * A --key option's default (the environment, or collector.env), which `--help` does not print: help is
 * pasted into issues, chats and CI logs, and a key must never reach them.
 */
export const hiddenKeyDefault = (key: string | undefined) =>
  key === undefined ? {} : { default: key, defaultDescription: 'set, not shown' };

/** Adds --server and --key, defaulting to `defaults` (the environment or collector.env) when given. */
export function serverAndKeyOptions<T>(y: Argv<T>, defaults: MachineConfig = {}) {
  return y
    .option('server', {
      type: 'string',
      default: defaults.AGENTMETER_SERVER,
      describe: 'Server URL (env AGENTMETER_SERVER, else ~/.agentmeter/collector.env)',
    })
    .option('key', {
      type: 'string',
      ...hiddenKeyDefault(defaults.AGENTMETER_API_KEY),
      describe: 'Your API key (env AGENTMETER_API_KEY, else ~/.agentmeter/collector.env)',
    });
}
