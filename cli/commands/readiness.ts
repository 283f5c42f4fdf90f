import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { describeZodError } from '../../common/wire.ts';
import { ReadinessReportInput } from '../../api/readiness/schema.ts';

interface UploadArgs {
  file: string;
  server?: string;
  key?: string;
}

export const readinessCommand: CommandModule = {
  command: 'readiness <action>',
  describe: 'Readiness reports of repositories',
  builder: (y: Argv) =>
    y
      .command<UploadArgs>(
        'upload <file>',
        'Upload a readiness report (JSON in the reference shape); prints its reportId alone on the last line',
        (c) => {
          const env = loadConfig().env;
          return c
            .positional('file', { type: 'string', demandOption: true, describe: 'The report, a JSON file' })
            .option('server', { type: 'string', default: env.AGENTMETER_SERVER, describe: 'Server URL (env AGENTMETER_SERVER)' })
            .option('key', { type: 'string', default: env.AGENTMETER_API_KEY, describe: 'Your API key (env AGENTMETER_API_KEY)' })
            .example('$0 readiness upload report.json --server http://127.0.0.1:8080 --key am_…', '') as never;
        },
        async (args) => {
          if (!args.server || !args.key) throw new UserError('--server URL and --key KEY (or AGENTMETER_SERVER, AGENTMETER_API_KEY) are required');
          let json: unknown;
          try {
            json = JSON.parse(readFileSync(args.file, 'utf8'));
          } catch (error) {
            throw new UserError(`${args.file} is not readable JSON: ${(error as Error).message}`);
          }
          const parsed = ReadinessReportInput.safeParse(json);
          if (!parsed.success) throw new UserError(`${args.file} is not a valid readiness report: ${describeZodError(parsed.error)}`);
          let response: Response;
          try {
            response = await fetch(new URL('/api/organization/maturity-level-reports', args.server), {
              method: 'POST',
              headers: { authorization: `Bearer ${args.key}`, 'content-type': 'application/json' },
              body: JSON.stringify(parsed.data),
            });
          } catch (error) {
            throw new UserError(`cannot reach ${args.server}: ${(error as Error).message}`);
          }
          const body: unknown = await response.json().catch(() => ({}));
          if (!response.ok) throw new UserError(`server answered ${response.status}: ${(body as { detail?: string }).detail ?? response.statusText}`);
          const stored = z.object({ report: z.object({ reportId: z.string() }), repoId: z.string() }).parse(body);
          process.stdout.write(`stored for ${stored.repoId}\n${stored.report.reportId}\n`);
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
