import type { Argv, CommandModule } from 'yargs';

/** The database and the account store, loaded when a command runs so the others start without DuckDB. */
async function accountsOn(path: string) {
  const { openDb } = await import('../../common/db/duckdb.ts');
  const { AccountStore } = await import('../../api/store/accounts.ts');
  const db = await openDb(path);
  return { db, accounts: new AccountStore(db) };
}

export const orgsCommand: CommandModule = {
  command: 'orgs <action>',
  describe: 'Manage organizations (on the database file; the server must be stopped)',
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
      .demandCommand(1),
  handler: () => undefined,
};
