import type { CommandModule } from 'yargs';
import { z } from 'zod';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import type { BatchReport } from '../../pipeline/batch.ts';
import { hiddenKeyDefault } from '../machine-options.ts';
import { callServer } from '../server-call.ts';

interface BatchArgs {
  db?: string;
  server?: string;
  key?: string;
  from?: string;
  to?: string;
  pricing?: string;
  json?: boolean;
}

const Report = z.object({
  runId: z.number(),
  mode: z.enum(['incremental', 'range']),
  days: z.number(),
  firstDay: z.string().nullable(),
  lastDay: z.string().nullable(),
  unpricedModels: z.array(z.string()),
  unpricedUsdModels: z.array(z.string()),
  ms: z.number(),
});

export const batchCommand: CommandModule<object, BatchArgs> = {
  command: 'batch',
  describe: 'Rebuild the daily aggregates: every day that received events since the last run, plus yesterday (or --from/--to)',
  builder: (y) => {
    const env = loadConfig().env;
    return y
      .option('db', { type: 'string', describe: 'DuckDB file (server stopped)' })
      .option('server', {
        type: 'string',
        default: env.AGENTMETER_SERVER,
        describe: "Run inside this running server, for the key's organization only (env AGENTMETER_SERVER)",
      })
      .option('key', {
        type: 'string',
        ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
        describe: 'Owner or manager key for --server (env AGENTMETER_API_KEY)',
      })
      .option('from', { type: 'string', describe: 'First day to rebuild (YYYY-MM-DD)' })
      .option('to', { type: 'string', describe: 'Last day to rebuild (YYYY-MM-DD; default yesterday)' })
      .option('pricing', { type: 'string', describe: 'Pricing file (default pipeline/pricing.json); --db only' })
      .option('json', { type: 'boolean', default: false, describe: 'Print the report as JSON' })
      .example('$0 batch --db agentmeter.duckdb', 'What changed since the last run, plus yesterday')
      .example('$0 batch --db agentmeter.duckdb --from 2026-02-01 --to 2026-02-28', 'A backfill, with progress')
      .example('$0 batch --server http://127.0.0.1:8080 --key am_MANAGER', 'Inside the running server') as never;
  },
  handler: async (args) => {
    // Loaded here, not at the top: every other command starts without the pipeline and DuckDB.
    const { batchRangeProblem, runBatch, yesterdayOf } = await import('../../pipeline/batch.ts');
    const config = loadConfig();
    // Checked before the database or the server is touched.
    const problem = batchRangeProblem(args.from, args.to, yesterdayOf(new Date()));
    if (problem) throw new UserError(`--from/--to: ${problem}`);
    let report: BatchReport;
    if (args.db) {
      const { createLogger } = await import('../../common/logger.ts');
      const { openExistingDb } = await import('../../common/db/duckdb.ts');
      const log = createLogger({ name: 'agentmeter-batch', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
      const db = await openExistingDb(args.db);
      try {
        report = await runBatch(db, {
          trigger: 'cli',
          log,
          ...(args.from ? { from: args.from } : {}),
          ...(args.to ? { to: args.to } : {}),
          ...(args.pricing ? { pricingFile: args.pricing } : {}),
        });
      } catch (error) {
        throw error instanceof UserError ? error : new UserError((error as Error).message);
      } finally {
        await db.close();
      }
    } else if (args.server && args.key) {
      report = await callServer(args.server, args.key, 'POST', '/api/v0/admin/batch', Report, {
        ...(args.from ? { from: args.from } : {}),
        ...(args.to ? { to: args.to } : {}),
      });
    } else {
      throw new UserError('give --db FILE (server stopped) or --server URL --key KEY (server running)');
    }
    if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
    else {
      process.stdout.write(
        `batch ${report.runId} (${report.mode}): ${report.days} days rebuilt${report.days ? ` (${report.firstDay} … ${report.lastDay})` : ''} in ${report.ms} ms\n`,
      );
      if (report.unpricedModels.length)
        process.stdout.write(`unpriced models (counted at 1x; add them to the pricing file): ${report.unpricedModels.join(', ')}\n`);
      if (report.unpricedUsdModels.length)
        process.stdout.write(
          `models without a dollar price (cost null; set one with agentmeter pricing set): ${report.unpricedUsdModels.join(', ')}\n`,
        );
    }
  },
};
