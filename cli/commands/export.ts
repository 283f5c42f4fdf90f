import type { CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { UserError } from '../../common/errors.ts';
import type { ExportFormat } from '../../pipeline/export.ts';

interface ExportArgs {
  db?: string;
  from: string;
  to: string;
  out: string;
  format: ExportFormat;
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
      .check((a) => {
        if (!a.db) throw new Error('--db is required (or AGENTMETER_DB)');
        for (const key of ['from', 'to'] as const)
          if (!/^\d{4}-\d{2}-\d{2}$/.test(a[key]) || Number.isNaN(Date.parse(`${a[key]}T00:00:00Z`)))
            throw new Error(`--${key} takes YYYY-MM-DD`);
        if (a.from > a.to) throw new Error(`--from ${a.from} is after --to ${a.to}`);
        return true;
      })
      .example('$0 export --db agentmeter.duckdb --from 2026-03-01 --to 2026-03-31 --out ./export', 'March as Parquet')
      .example('$0 export --db agentmeter.duckdb --from 2026-03-01 --to 2026-03-01 --out ./export --format csv', 'One day as CSV') as never;
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
      const tables = await exportTables(db, { from: args.from, to: args.to, out: args.out, format: args.format, log });
      const rows = tables.reduce((sum, t) => sum + t.rows, 0);
      process.stdout.write(`Exported ${rows} rows in ${tables.length} tables to ${args.out} (${args.format})\n`);
    } finally {
      await db.close();
    }
  },
};
