import type { Argv, CommandModule } from 'yargs';
import { Role } from '../../common/roles.ts';
import { adminBackend, type TargetArgs, targetOptions } from './target.ts';

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
      .command<TargetArgs & { change: string; user: string; email: string }>(
        'alias <change>',
        'Give a user another address (add) or take one away (remove): commits it authored land for them (owners)',
        (c) =>
          targetOptions(c)
            .positional('change', { choices: ['add', 'remove'] as const, demandOption: true })
            .option('user', { type: 'string', demandOption: true, describe: 'The user: an id or their e-mail' })
            .option('email', { type: 'string', demandOption: true, describe: 'The other address, e.g. a code host no-reply address' })
            .example(
              '$0 users alias add --server http://127.0.0.1:8080 --key am_OWNER --user ana@example.com --email 123+ana@users.noreply.github.com',
              'A GitHub squash merge authored by the no-reply address lands for ana',
            ) as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const addresses = await backend.alias({
              user: args.user,
              email: args.email,
              remove: args.change === 'remove',
              ...(args.org ? { org: args.org } : {}),
            });
            process.stdout.write(`aliases of ${args.user}: ${addresses.length ? addresses.join(', ') : 'none'}\n`);
          } finally {
            await backend.close();
          }
        },
      )
      .command<TargetArgs & { json?: boolean }>(
        'list',
        'List the users of the organization with their roles and active keys',
        (c) =>
          targetOptions(c)
            .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .example('$0 users list --db a.duckdb --org org_123', 'With the server stopped')
            .example(
              '$0 users list --server http://127.0.0.1:8080 --key am_OWNER',
              'Through a running server (owner or manager key)',
            ) as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const users = await backend.listUsers(args.org ? { org: args.org } : {});
            if (args.json) process.stdout.write(`${JSON.stringify(users, null, 2)}\n`);
            else
              for (const u of users)
                process.stdout.write(
                  `${u.id}\t${u.email}\t${u.role}\t${u.activeKeys} active key${u.activeKeys === 1 ? '' : 's'}\tcreated ${u.createdAt}\tlast sign-in ${u.lastSignInAt ?? 'never'}\n`,
                );
          } finally {
            await backend.close();
          }
        },
      )
      .command<TargetArgs & { user: string; erase?: boolean }>(
        'remove <user>',
        "Remove a user (owners only): revoke their API keys and computers' credentials; --erase also deletes their data",
        (c) =>
          targetOptions(c)
            .positional('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or e-mail' })
            .option('erase', {
              type: 'boolean',
              default: false,
              describe:
                "Also delete the user's hook events, token usage, assistant messages, sessions and computers, and rebuild the days they were on (cannot be undone)",
            })
            .example('$0 users remove bo@example.com --db a.duckdb --org org_123', 'Revoke access; the figures keep their usage')
            .example(
              '$0 users remove usr_0123456789abcdef --erase --server http://127.0.0.1:8080 --key am_OWNER',
              'The right to erasure: no figure counts them afterwards',
            ) as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const r = await backend.removeUser({ user: args.user, erase: args.erase ?? false, ...(args.org ? { org: args.org } : {}) });
            process.stdout.write(
              `removed ${r.userId}: ${r.keysRevoked} API key${r.keysRevoked === 1 ? '' : 's'} and ${r.computersRevoked} computer${r.computersRevoked === 1 ? '' : 's'} revoked\n`,
            );
            if (r.erased)
              process.stdout.write(
                `erased ${r.erased.events} hook events, ${r.erased.usage} usage records, ${r.erased.assistantMessages} assistant messages, ${r.erased.sessions} sessions (${r.erased.sessionMessages} messages); ${r.daysRebuilt} days rebuilt\n`,
              );
          } finally {
            await backend.close();
          }
        },
      )
      .command<TargetArgs & { user: string }>(
        'confirm-rename <user>',
        "Confirm the directory's rename of an owner (SCIM), held until an owner confirms it (owners only, with their own key)",
        (c) =>
          targetOptions(c)
            .positional('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or current e-mail' })
            .example('$0 users confirm-rename ana@example.com --server http://127.0.0.1:8080 --key am_OWNER', 'Through a running server')
            .example('$0 users confirm-rename usr_0123456789abcdef --db a.duckdb --org org_123', 'With the server stopped') as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const r = await backend.confirmRename({ user: args.user, ...(args.org ? { org: args.org } : {}) });
            process.stdout.write(`renamed ${r.userId}: ${r.from} is now ${r.to} (asked by the directory at ${r.requestedAt})\n`);
          } finally {
            await backend.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
