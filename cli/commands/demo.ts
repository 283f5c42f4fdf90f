import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { AccountStore } from '../../api/store/accounts.ts';
import { startServer } from '../../api/server.ts';

interface DemoArgs {
  db: string;
  host: string;
  port: number;
}

export const DEMO_ORG_NAME = 'Demo organization';
export const DEMO_MANAGER_EMAIL = 'demo-manager@example.com';

/** The main job of `npm start`: an embedded database with a demo organization, served on localhost. */
export const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe: 'Create (if absent) a demo database, then serve it on localhost and print a manager key',
  builder: (y) =>
    y
      .option('db', { type: 'string', default: 'data/agentmeter.duckdb', describe: 'DuckDB file' })
      .option('host', { type: 'string', default: '127.0.0.1' })
      .option('port', { type: 'number', default: 8080 })
      .example('$0 demo', 'What `npm start` runs') as never,
  handler: async (args) => {
    const config = loadConfig();
    const log = createLogger({ name: 'agentmeter-demo', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
    const fresh = !existsSync(args.db);
    mkdirSync(dirname(args.db), { recursive: true });
    const db = await openDb(args.db);
    const accounts = new AccountStore(db);
    let org = (await accounts.listOrgs()).find((o) => o.name === DEMO_ORG_NAME);
    if (!org) org = await accounts.createOrg(DEMO_ORG_NAME);
    const manager = (await accounts.findUserByEmail(org.id, DEMO_MANAGER_EMAIL)) ?? (await accounts.createUser({ orgId: org.id, email: DEMO_MANAGER_EMAIL, role: 'manager' }));
    // A new key each start: keys are stored only as hashes, so an old one cannot be shown again.
    const { key } = await accounts.createKey(manager, `demo ${new Date().toISOString()}`);
    log.info({ db: args.db, fresh, org: org.id }, 'demo database ready');
    const server = await startServer({ db, log, jwtSecret: config.env.AGENTMETER_JWT_SECRET, host: args.host, port: args.port });
    process.stdout.write(
      [
        '',
        `agentmeter is serving ${args.db} on ${server.url}`,
        `organization: ${org.id} (${org.name})`,
        `manager key for ${DEMO_MANAGER_EMAIL} (new each start):`,
        `  ${key}`,
        'try:',
        `  curl -s -H "Authorization: Bearer ${key}" ${server.url}/api/v0/admin/whoami`,
        '',
      ].join('\n'),
    );
  },
};
