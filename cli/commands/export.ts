import type { CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { UserError } from '../../common/errors.ts';
import { parseDay } from '../../common/time.ts';
import type { ExportFormat } from '../../pipeline/export.ts';

interface ExportArgs {
  db?: string;
  from: string;
  to: string;
  out: string;
  format: ExportFormat;
  org?: string;
  'raw-csv': boolean;
}

export const exportCommand: CommandModule<object, ExportArgs> = {
  command: 'export',
  describe:
    'Write the raw tables and daily aggregates of a date range as Parquet or CSV, partitioned by organization and day (hive layout)',
  builder: (y) => {
    const env = loadConfig().env;
    return y
      .option('db', {
        type: 'string',
        default: env.AGENTMETER_DB,
        describe: 'DuckDB file, opened read-only (env AGENTMETER_DB; the server stopped)',
      })
      .option('from', { type: 'string', demandOption: true, describe: 'First day (YYYY-MM-DD, UTC)' })
      .option('to', { type: 'string', demandOption: true, describe: 'Last day (YYYY-MM-DD, UTC)' })
      .option('out', { type: 'string', demandOption: true, describe: 'Directory to write into (created private if missing)' })
      .option('format', { choices: ['parquet', 'csv'] as const, default: 'parquet' as const, describe: 'File format' })
      .option('org', { type: 'string', describe: "One organization's rows only (its id, as `agentmeter orgs list` shows it)" })
      .option('raw-csv', {
        type: 'boolean',
        default: false,
        describe: 'CSV: keep text that starts with = + - @ as stored (for a warehouse), instead of prefixing an apostrophe',
      })
      .check((a) => {
        if (!a.db) throw new Error('--db is required (or AGENTMETER_DB)');
        // Real calendar days, as `batch` checks them: 2026-02-30 is refused, not moved to March.
        for (const key of ['from', 'to'] as const)
          if (parseDay(a[key]) === undefined) throw new Error(`--${key} takes a real calendar day, YYYY-MM-DD (got ${a[key]})`);
        if (a.from > a.to) throw new Error(`--from ${a.from} is after --to ${a.to}`);
        if (a.org !== undefined && !/^org_[0-9a-f]{16}$/.test(a.org))
          throw new Error(`--org takes an organization id (org_ and 16 hex digits)`);
        if (a['raw-csv'] && a.format !== 'csv') throw new Error('--raw-csv applies to --format csv only');
        return true;
      })
      .example('$0 export --db agentmeter.duckdb --from 2026-03-01 --to 2026-03-31 --out ./export', 'March as Parquet')
      .example('$0 export --db agentmeter.duckdb --from 2026-03-01 --to 2026-03-01 --out ./export --format csv', 'One day as CSV')
      .example(
        '$0 export --db agentmeter.duckdb --from 2026-03-01 --to 2026-03-31 --out ./acme --org org_0123456789abcdef',
        'One organization',
      ) as never;
  },
  handler: async (args) => {
    // Loaded here, not at the top: every other command starts without the pipeline and DuckDB.
    const { openDb } = await import('../../common/db/duckdb.ts');
    const { createLogger } = await import('../../common/logger.ts');
    const { exportTables } = await import('../../pipeline/export.ts');
    const config = loadConfig();
    const log = createLogger({ name: 'agentmeter-export', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
    let db: Db;
    try {
      db = await openDb(args.db!, { readOnly: true });
    } catch (error) {
      // DuckDB lets one process write a file and no other open it meanwhile, even to read.
      if (error instanceof UserError && /in use by another process/.test(error.message)) {
        throw new UserError(
          `The database ${args.db} is in use by another process (the server?). DuckDB lets no other process open it while one writes: ` +
            'stop the server for the export, or export from a copy of the file taken while the server was stopped.',
        );
      }
      throw error;
    }
    try {
      const tables = await exportTables(db, {
        from: args.from,
        to: args.to,
        out: args.out,
        format: args.format,
        rawCsv: args['raw-csv'],
        ...(args.org !== undefined ? { orgId: args.org } : {}),
        log,
      });
      const rows = tables.reduce((sum, t) => sum + t.rows, 0);
      const what = `${args.format}${args.format === 'csv' && !args['raw-csv'] ? ', formula-like text prefixed with an apostrophe' : ''}`;
      process.stdout.write(
        `Exported ${rows} rows in ${tables.length} tables to ${args.out}${args.org ? ` for ${args.org}` : ''} (${what})\n`,
      );
    } finally {
      await db.close();
    }
  },
};
