import type { Argv, CommandModule } from 'yargs';
import { readSecretFile } from '../secret-file.ts';
import { type TargetArgs, targetOptions } from './target.ts';

interface OidcArgs extends TargetArgs {
  issuer: string;
  'client-id': string;
  'client-secret-file': string;
  'groups-claim'?: string;
  provision: 'member' | 'none';
  'public-url'?: string;
  'allow-private-oidc'?: boolean;
}

/** The database and the account store, loaded when a command runs so the others start without DuckDB. */
async function accountsOn(path: string) {
  const { openDb } = await import('../../common/db/duckdb.ts');
  const { AccountStore } = await import('../../api/accounts/store.ts');
  const db = await openDb(path);
  return { db, accounts: new AccountStore(db) };
}

export const orgsCommand: CommandModule = {
  command: 'orgs <action>',
  describe: 'Manage organizations and their sign-in with an identity provider',
  builder: (y: Argv) =>
    y
      .command<{ db: string; name: string }>(
        'add',
        'Create an organization; prints its id',
        (c) =>
          c
            .option('db', { type: 'string', demandOption: true, describe: 'DuckDB file' })
            .option('name', { type: 'string', demandOption: true, describe: 'Organization name' })
            .example('$0 orgs add --db agentmeter.duckdb --name "Acme"', 'Prints org_…') as never,
        async (args) => {
          const { db, accounts } = await accountsOn(args.db);
          try {
            const org = await accounts.createOrg(args.name);
            process.stdout.write(`${org.id}\n`);
          } finally {
            await db.close();
          }
        },
      )
      .command<{ db: string }>(
        'list',
        'List organizations',
        (c) =>
          c
            .option('db', { type: 'string', demandOption: true, describe: 'DuckDB file' })
            .example('$0 orgs list --db agentmeter.duckdb', '') as never,
        async (args) => {
          const { db, accounts } = await accountsOn(args.db);
          try {
            for (const org of await accounts.listOrgs()) process.stdout.write(`${org.id}\t${org.name}\t${org.created_at}\n`);
          } finally {
            await db.close();
          }
        },
      )
      .command<OidcArgs>(
        'oidc',
        'Sign the organization in with its OpenID Connect provider (docs/oidc.md); owners only through a server',
        (c) =>
          targetOptions(c)
            .option('issuer', { type: 'string', demandOption: true, describe: "The provider's issuer URL (https)" })
            .option('client-id', { type: 'string', demandOption: true, describe: 'The client id registered at the provider' })
            .option('client-secret-file', { type: 'string', demandOption: true, describe: 'A file holding the client secret' })
            .option('groups-claim', { type: 'string', describe: "An ID token claim whose groups set the person's teams" })
            .option('provision', {
              choices: ['member', 'none'] as const,
              default: 'none' as const,
              describe: 'member: an unknown person who signs in becomes a member; none: they are refused',
            })
            .option('public-url', {
              type: 'string',
              describe: 'With --db: the URL browsers reach the server at (as serve --public-url), to print the callback URL',
            })
            .option('allow-private-oidc', {
              type: 'boolean',
              default: false,
              describe:
                'With --db: store an http issuer, or one on a private or loopback address (the server needs serve --allow-private-oidc too)',
            })
            .example(
              '$0 orgs oidc --db a.duckdb --org org_123 --public-url https://agentmeter.example.com --issuer https://login.example.com --client-id agentmeter --client-secret-file secret.txt',
              '',
            )
            .example(
              '$0 orgs oidc --server http://127.0.0.1:8080 --key am_OWNER --issuer https://acme.okta.com --client-id 0oa1 --client-secret-file s --groups-claim groups --provision member',
              '',
            ) as never,
        async (args) => {
          const clientSecret = readSecretFile(args['client-secret-file'], 'the client secret');
          const { identityBackend } = await import('../identity-backend.ts');
          const backend = await identityBackend(args);
          try {
            const { provider, urls } = await backend.setOidc({
              ...(args.org ? { org: args.org } : {}),
              issuer: args.issuer,
              clientId: args['client-id'],
              clientSecret,
              groupsClaim: args['groups-claim'],
              provision: args.provision,
              publicUrl: args['public-url'],
              allowPrivateOidc: args['allow-private-oidc'],
            });
            process.stdout.write(
              `OIDC sign-in set: issuer ${provider.issuer}, client ${provider.clientId}, provision ${provider.provision}, groups claim ${provider.groupsClaim ?? '-'}\nsign-in starts at ${urls.login}\nregister ${urls.callback} as the redirect URI at the provider\n`,
            );
          } finally {
            await backend.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
