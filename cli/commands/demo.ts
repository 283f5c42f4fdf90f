import type { CommandModule } from 'yargs';
import { DEFAULT_JWT_MAX_LIFETIME, lifetimeSeconds, loadConfig } from '../../common/config.ts';

interface DemoArgs {
  db: string;
  build: boolean;
  host: string;
  port: number;
}

/**
 * The main job of `npm start`: an embedded database filled from the sample data (generated once, fed
 * through the real hook and collector), served on localhost, with a manager key to try it.
 */
export const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe: 'Serve a database filled with the sample organization on localhost (loads it on first start) and print a manager key',
  builder: (y) =>
    y
      .option('db', { type: 'string', default: 'data/agentmeter.duckdb', describe: 'DuckDB file' })
      .option('host', { type: 'string', default: '127.0.0.1' })
      .option('port', { type: 'number', default: 8080 })
      .option('build', {
        type: 'boolean',
        default: false,
        describe:
          'Build the dashboard (web/dist) and the laptop bundle (dist/laptop) when missing or stale, beside loading the sample (what `npm start` does)',
      })
      .example('$0 demo', 'What `npm start` runs') as never,
  handler: async (args) => {
    // Loaded here, not at the top: every other command starts without the server and DuckDB.
    const { startServer } = await import('../../api/server.ts');
    const { AccountStore } = await import('../../api/accounts/store.ts');
    const { createLogger } = await import('../../common/logger.ts');
    const { loadSample, newDemoKey, SAMPLE_ORG_NAME } = await import('../../sample-data/load.ts');
    const { serveOnFreePort } = await import('../listen.ts');
    const { buildAssetsInBackground } = await import('../background-builds.ts');
    const config = loadConfig();
    const log = createLogger({ name: 'agentmeter-demo', level: config.env.LOG_LEVEL ?? 'warn' });
    // The port first: on a busy port nothing is created, no folder, no database, no sample data, no build.
    let builds: Promise<void> | undefined;
    const { db, server } = await serveOnFreePort({ dbPath: args.db, host: args.host, port: args.port }, (db, port, beforeListen) => {
      if (args.build) {
        builds = buildAssetsInBackground();
        // Awaited before the start is announced; until then a failure must not end the process unhandled.
        builds.catch(() => undefined);
      }
      return startServer({
        db,
        log,
        jwtSecret: config.env.AGENTMETER_JWT_SECRET,
        jwtMaxLifetimeSeconds: lifetimeSeconds(
          config.env.AGENTMETER_JWT_MAX_LIFETIME ?? DEFAULT_JWT_MAX_LIFETIME,
          'AGENTMETER_JWT_MAX_LIFETIME',
        ),
        host: args.host,
        port,
        beforeListen,
        batchAt: '00:15',
        // The demo's ingest is the sample's forty shipments: decoded on the event loop they cost ~0.2 s,
        // where starting the decode worker threads cost more (~2 s of CPU when each compiled the TypeScript).
        decodeWorkers: 0,
      });
    });
    const accounts = new AccountStore(db);
    const say = (line: string) => process.stdout.write(`${line}\n`);
    let org = (await accounts.listOrgs()).find((o) => o.name === SAMPLE_ORG_NAME);
    if (!org) {
      say(`first start: loading the sample organization into ${args.db} through the real hook and collector…`);
      org = (await loadSample({ db, accounts, server: server.url, runBatch: server.services.runBatch, log, progress: say })).org;
    } else {
      // Days that ended since the last start.
      await server.services.runBatch({ trigger: 'demo', log });
    }
    const managers = (
      await db.all<{ id: string; email: string }>(
        "SELECT id, email FROM users WHERE org_id = $org AND role = 'manager' ORDER BY email LIMIT 1",
        { org: org.id },
      )
    )[0]!;
    const manager = (await accounts.getUser(org.id, managers.id))!;
    // A new key each start (keys are stored only as hashes, so an old one cannot be shown again); the
    // keys the demo minted before, this start's sample collector keys included, are revoked.
    const { key } = await newDemoKey(db, accounts, org, manager);
    server.services.auth.invalidate();
    await builds;
    const end = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const start = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    say(
      [
        '',
        `agentmeter is serving ${args.db} on ${server.url}`,
        `organization: ${org.id} (${org.name})`,
        `manager key for ${manager.email} (new each start; the previous one is revoked):`,
        `  ${key}`,
        `dashboard: open ${server.url}/ and sign in with that key`,
        'or try:',
        `  curl -s -H "Authorization: Bearer ${key}" "${server.url}/api/v1/analytics/activity?startDate=${start}&endDate=${end}"`,
        '',
      ].join('\n'),
    );
  },
};
