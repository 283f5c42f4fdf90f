import type { Argv, CommandModule } from 'yargs';
import { KEY_SCOPES, type KeyScope } from '../../common/key-scopes.ts';
import { adminBackend, type TargetArgs, targetOptions } from './target.ts';

export const keysCommand: CommandModule = {
  command: 'keys <action>',
  describe: "Create, list and revoke a user's API keys",
  builder: (y: Argv) =>
    y
      .command<TargetArgs & { user: string; name?: string; scope: KeyScope }>(
        'create',
        'Create an API key for a user; the key is printed once, alone on the last line',
        (c) =>
          targetOptions(c)
            .option('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or e-mail' })
            .option('name', { type: 'string', describe: 'A label for the key' })
            .option('scope', {
              choices: KEY_SCOPES,
              default: 'personal',
              describe: "collector: only what a developer machine needs (install.sh); personal: what the user's role allows",
            })
            .example('$0 keys create --db a.duckdb --org org_123 --user ana@example.com', '')
            .example('$0 keys create --server https://am.example.com --key am_OWNER --user ana@example.com --scope collector', '') as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const { apiKey, key } = await backend.createKey({
              user: args.user,
              ...(args.org ? { org: args.org } : {}),
              ...(args.name ? { name: args.name } : {}),
              scope: args.scope,
            });
            process.stdout.write(
              `key ${key.id} (${key.prefix}…, ${key.scope}) for ${key.userId}\nAPI key (shown once; store it now):\n${apiKey}\n`,
            );
          } finally {
            await backend.close();
          }
        },
      )
      .command<TargetArgs & { user: string; json?: boolean }>(
        'list',
        "List a user's keys (never the keys themselves)",
        (c) =>
          targetOptions(c)
            .option('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or e-mail' })
            .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .example('$0 keys list --server http://127.0.0.1:8080 --key am_OWNER --user ana@example.com', '') as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const keys = await backend.listKeys({ user: args.user, ...(args.org ? { org: args.org } : {}) });
            if (args.json) process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
            else
              for (const k of keys)
                process.stdout.write(
                  `${k.id}\t${k.prefix}…\t${k.name ?? '-'}\t${k.kind}\t${k.scope}${k.machineId ? ` (machine ${k.machineId})` : ''}\tcreated ${k.createdAt}\tlast used ${k.lastUsedAt ?? 'never'}\t${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}\n`,
                );
          } finally {
            await backend.close();
          }
        },
      )
      .command<TargetArgs & { id: string }>(
        'revoke <id>',
        'Revoke an API key by its id (key_…)',
        (c) =>
          targetOptions(c)
            .positional('id', { type: 'string', demandOption: true })
            .example('$0 keys revoke key_0123 --db a.duckdb --org org_123', '') as never,
        async (args) => {
          const backend = await adminBackend(args);
          try {
            const revoked = await backend.revokeKey({ keyId: args.id, ...(args.org ? { org: args.org } : {}) });
            process.stdout.write(revoked ? `revoked ${args.id}\n` : `${args.id} was already revoked\n`);
          } finally {
            await backend.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
