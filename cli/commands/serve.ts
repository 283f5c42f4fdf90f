import type { CommandModule } from 'yargs';
import { DEFAULT_JWT_MAX_LIFETIME, lifetimeSeconds, loadConfig } from '../../common/config.ts';
import {
  DEFAULT_CACHE_LIMITS,
  DEFAULT_INGEST_QUOTA,
  DEFAULT_READ_MODEL_LIMITS,
  MetricsToken,
  MIN_TOKEN_LENGTH,
  SHUTDOWN_GRACE_MS,
} from '../../common/serve-defaults.ts';

const MIB = 1024 * 1024;

interface ServeArgs {
  db: string;
  host: string;
  port: number;
  'batch-at': string;
  batch: boolean;
  pricing?: string;
  'cache-entries': number;
  'cache-mb': number;
  'analytics-rows': number;
  'decode-workers'?: number;
  'ingest-records-per-minute': number;
  'ingest-mb-per-minute': number;
  'shutdown-grace': number;
  'metrics-token'?: string;
  'jwt-max-lifetime': string;
  'public-url'?: string;
  'trust-proxy'?: string;
  'allow-private-oidc': boolean;
  'allow-private-webhooks': boolean;
}

export const serveCommand: CommandModule<object, ServeArgs> = {
  command: 'serve',
  describe: 'Run the agentmeter server on a DuckDB file',
  builder: (y) =>
    y
      .option('db', { type: 'string', demandOption: true, describe: 'DuckDB file (created and migrated if absent)' })
      .option('jwt-max-lifetime', {
        type: 'string',
        default: loadConfig().env.AGENTMETER_JWT_MAX_LIFETIME ?? DEFAULT_JWT_MAX_LIFETIME,
        describe: 'Longest lifetime (exp - iat) of an accepted JWT: 24h, 90m, 2d … (env AGENTMETER_JWT_MAX_LIFETIME)',
      })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to listen on' })
      .option('public-url', {
        type: 'string',
        describe:
          'The URL developer machines reach this server at (https://agentmeter.example.com behind a TLS proxy): /install.sh writes it into their collector settings (default: the Host they asked with)',
      })
      .option('allow-private-oidc', {
        type: 'boolean',
        default: false,
        describe:
          'Let organizations sign in with an identity provider over http or on a private or loopback address (default: https and public addresses only; docs/oidc.md)',
      })
      .option('port', { type: 'number', default: 8080, describe: 'Port (0 picks a free one)' })
      .option('allow-private-webhooks', {
        type: 'boolean',
        default: false,
        describe: 'Let budget alerts go to private, loopback and link-local addresses (refused by default: docs/budgets.md)',
      })
      .option('batch-at', { type: 'string', default: '00:15', describe: 'Daily batch time, HH:MM UTC' })
      .option('batch', { type: 'boolean', default: true, describe: 'Run the daily batch (--no-batch turns it off)' })
      .option('pricing', { type: 'string', describe: 'Pricing file (default pipeline/pricing.json)' })
      .option('cache-entries', {
        type: 'number',
        default: DEFAULT_CACHE_LIMITS.maxEntries,
        describe: 'Most analytics answers kept until the next batch (0: no cache)',
      })
      .option('cache-mb', {
        type: 'number',
        default: DEFAULT_CACHE_LIMITS.maxBytes / MIB,
        describe: 'Most memory those answers take, in MiB (0: no cache)',
      })
      .option('analytics-rows', {
        type: 'number',
        default: DEFAULT_READ_MODEL_LIMITS.maxRows,
        describe:
          'Most aggregate rows held in memory to answer analytics queries, about 190 bytes each (0: every answer reads the database)',
      })
      .option('decode-workers', {
        type: 'number',
        describe: 'Threads that decode ingest batches (default: cores - 1, from 2 to 4; 0: on the event loop)',
      })
      .option('ingest-records-per-minute', {
        type: 'number',
        default: DEFAULT_INGEST_QUOTA.recordsPerMinute,
        describe: 'Records one user may send a minute, over all their keys, before ingest answers 429 with Retry-After (0: no quota)',
      })
      .option('ingest-mb-per-minute', {
        type: 'number',
        default: DEFAULT_INGEST_QUOTA.bytesPerMinute / MIB,
        describe: 'MiB of records (decoded) one user may send a minute, before ingest answers 429 with Retry-After (0: no quota)',
      })
      .option('trust-proxy', {
        type: 'string',
        describe:
          'Reverse proxies in front of the server (comma-separated IPs or CIDRs): their X-Forwarded-Proto/-Host/-For are believed (the sign-in cookie is Secure behind TLS)',
      })
      .option('shutdown-grace', {
        type: 'number',
        default: SHUTDOWN_GRACE_MS / 1000,
        describe:
          "Seconds in-flight requests get to finish on SIGTERM before their connections are closed (keep it under the service manager's stop timeout: systemd waits 90 s)",
      })
      .option('metrics-token', {
        type: 'string',
        describe:
          'Serve GET /metrics (Prometheus) to this bearer token, at least 32 characters (or AGENTMETER_METRICS_TOKEN; off without either)',
      })
      .check((a) => {
        const token = a['metrics-token'];
        if (token !== undefined && !MetricsToken.safeParse(token).success)
          throw new Error(`--metrics-token takes at least ${MIN_TOKEN_LENGTH} characters`);
        if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(String(a['batch-at']))) throw new Error('--batch-at takes HH:MM (UTC)');
        const url = a['public-url'];
        if (url !== undefined && !/^https?:\/\/[A-Za-z0-9.\-[\]:]+(\/[A-Za-z0-9._~\-/]*)?$/.test(url))
          throw new Error('--public-url takes an http:// or https:// URL (a host, an optional port and path)');
        const entries = a['cache-entries'];
        if (!(Number.isInteger(entries) && entries >= 0)) throw new Error('--cache-entries takes a whole number, 0 or more');
        const mb = a['cache-mb'];
        if (!(Number.isFinite(mb) && mb >= 0)) throw new Error('--cache-mb takes a number of MiB, 0 or more');
        lifetimeSeconds(String(a['jwt-max-lifetime']), '--jwt-max-lifetime');
        const rows = a['analytics-rows'];
        if (!(Number.isInteger(rows) && rows >= 0)) throw new Error('--analytics-rows takes a whole number, 0 or more');
        const grace = a['shutdown-grace'];
        if (!(Number.isFinite(grace) && grace >= 0 && grace <= 3600)) throw new Error('--shutdown-grace takes seconds, from 0 to 3600');
        for (const name of ['ingest-records-per-minute', 'ingest-mb-per-minute'] as const) {
          const value = a[name];
          if (!(Number.isFinite(value) && value >= 0)) throw new Error(`--${name} takes a number, 0 (no quota) or more`);
        }
        const workers = a['decode-workers'];
        if (workers !== undefined && !(Number.isInteger(workers) && workers >= 0 && workers <= 64))
          throw new Error('--decode-workers takes a whole number from 0 to 64');
        return true;
      })
      .example('$0 serve --db ./agentmeter.duckdb', 'Serve on http://127.0.0.1:8080')
      .example('$0 serve --db /var/lib/agentmeter.duckdb --host 0.0.0.0 --port 9000', 'Serve on every interface') as never,
  handler: async (args) => {
    // Loaded here, not at the top: every other command starts without the server and DuckDB.
    const { startServer } = await import('../../api/server.ts');
    const { createLogger } = await import('../../common/logger.ts');
    const { serveOnFreePort } = await import('../listen.ts');
    const config = loadConfig();
    const log = createLogger({ name: 'agentmeter-server', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
    // Behind a proxy, /install.sh builds the server address it hands developer machines from the Host or
    // X-Forwarded-Host each request brings, which the proxy may pass on as the client sent it.
    if (args['trust-proxy'] && !args['public-url'])
      log.warn(
        { trustProxy: args['trust-proxy'] },
        '--trust-proxy without --public-url: /install.sh names this server by the forwarded Host of each request; set --public-url to the address developer machines use',
      );
    const { server } = await serveOnFreePort({ dbPath: args.db, host: args.host, port: args.port }, (db, port, beforeListen) =>
      startServer({
        db,
        log,
        jwtSecret: config.env.AGENTMETER_JWT_SECRET,
        jwtMaxLifetimeSeconds: lifetimeSeconds(args['jwt-max-lifetime'], '--jwt-max-lifetime'),
        host: args.host,
        port,
        beforeListen,
        shutdownGraceMs: Math.round(args['shutdown-grace'] * 1000),
        batchAt: args.batch ? args['batch-at'] : null,
        pricingFile: args.pricing,
        cache: { maxEntries: args['cache-entries'], maxBytes: Math.floor(args['cache-mb'] * MIB) },
        readModel: { maxRows: args['analytics-rows'] },
        decodeWorkers: args['decode-workers'],
        ingestLimits: {
          maxRecordsPerWindow: Math.floor(args['ingest-records-per-minute']),
          maxBytesPerWindow: Math.floor(args['ingest-mb-per-minute'] * MIB),
        },
        metricsToken: args['metrics-token'] ?? config.env.AGENTMETER_METRICS_TOKEN,
        trustProxy: args['trust-proxy'],
        publicUrl: args['public-url'],
        allowPrivateOidc: args['allow-private-oidc'],
        alerts: { allowPrivate: args['allow-private-webhooks'] },
      }),
    );
    log.info({ url: server.url, db: args.db }, 'listening');
    // The URL on stdout (alone on its line) lets scripts and tests find a server started with --port 0.
    process.stdout.write(`agentmeter listening on ${server.url}\n`);
  },
};
