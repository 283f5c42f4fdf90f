// Options shared by the admin commands: the database file, or a running server and an owner/manager key.
import type { Argv } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import type { AdminBackend } from '../admin-backend.ts';
import { hiddenKeyDefault } from '../machine-options.ts';

export interface TargetArgs {
  db?: string;
  server?: string;
  key?: string;
  org?: string;
}

export function targetOptions<T>(y: Argv<T>): Argv<T & TargetArgs> {
  const env = loadConfig().env;
  return y
    .option('db', { type: 'string', describe: 'DuckDB file (when the server is stopped)' })
    .option('server', { type: 'string', describe: 'Running server URL (env AGENTMETER_SERVER)', default: env.AGENTMETER_SERVER })
    .option('key', {
      type: 'string',
      describe: 'Owner or manager API key for --server (env AGENTMETER_API_KEY)',
      ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
    })
    .option('org', { type: 'string', describe: 'Organization id (required with --db)' }) as Argv<T & TargetArgs>;
}

/** The backend the arguments name, loaded when a command runs so the others start without it. */
export async function adminBackend(args: TargetArgs): Promise<AdminBackend> {
  const { adminBackend: open } = await import('../admin-backend.ts');
  return open(args);
}
