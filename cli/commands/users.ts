import type { Argv, CommandModule } from 'yargs';
import { Role } from '../../api/store/accounts.ts';
import { adminBackend } from '../admin-backend.ts';
import { type TargetArgs, targetOptions } from './target.ts';

export const usersCommand: CommandModule = {
  command: 'users <action>',
  describe: 'Manage users',
  builder: (y: Argv) =>
    y
      .command<TargetArgs & { email: string; role: string; 'key-name'?: string }>(
        'add',
        'Create a user and one API key; the key is printed once, alone on the last line',
        (c) =>
          targetOptions(c)
            .option('email', { type: 'string', demandOption: true })
            .option('role', { type: 'string', choices: Role.options, demandOption: true })
            .option('key-name', { type: 'string', describe: 'A label for the key' })
            .example('$0 users add --db a.duckdb --org org_123 --email ana@example.com --role manager', 'With the server stopped')
            .example(
              '$0 users add --server http://127.0.0.1:8080 --key am_OWNER --email bo@example.com --role member',
              'Through a running server',
            ) as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const result = await backend.addUser({
              email: args.email,
              role: Role.parse(args.role),
              ...(args.org ? { org: args.org } : {}),
              ...(args['key-name'] ? { keyName: args['key-name'] } : {}),
            });
            process.stdout.write(`user ${result.userId} (${args.email}, ${args.role}) in ${result.orgId}\n`);
            process.stdout.write('API key (shown once; store it now):\n');
            process.stdout.write(`${result.apiKey}\n`);
          } finally {
            await backend.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
