import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { writePrivateFile } from '../../common/private-files.ts';
import { type ReadinessReport, ReadinessReportInput } from '../../common/readiness.ts';
import { shareableRepoUrl } from '../../common/repo-id.ts';
import { describeZodError } from '../../common/wire.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { hiddenKeyDefault } from '../machine-options.ts';
import { callServer } from '../server-call.ts';

interface UploadArgs {
  file: string;
  server?: string;
  key?: string;
}

interface EvaluateArgs {
  path: string;
  upload?: boolean;
  out?: string;
  json?: boolean;
  server?: string;
  key?: string;
}

/** POSTs a report; returns the stored reportId and repoId. */
async function upload(server: string, key: string, report: unknown): Promise<{ reportId: string; repoId: string }> {
  const stored = await callServer(
    server,
    key,
    'POST',
    '/api/organization/maturity-level-reports',
    z.object({ report: z.object({ reportId: z.string() }), repoId: z.string() }),
    report,
  );
  return { reportId: stored.report.reportId, repoId: stored.repoId };
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
            .option('key', {
              type: 'string',
              ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
              describe: 'Your API key (env AGENTMETER_API_KEY)',
            })
            .example('$0 readiness upload report.json --server http://127.0.0.1:8080 --key am_…', '') as never;
        },
        async (args) => {
          if (!args.server || !args.key)
            throw new UserError('--server URL and --key KEY (or AGENTMETER_SERVER, AGENTMETER_API_KEY) are required');
          let json: unknown;
          try {
            json = JSON.parse(readFileSync(args.file, 'utf8'));
          } catch (error) {
            throw new UserError(`${args.file} is not readable JSON: ${(error as Error).message}`);
          }
          // A report written by another tool may name its remote with a token in it: what leaves the
          // machine is the URL without userinfo, query and fragment (a local path is refused below).
          const url = (json as { repoUrl?: unknown } | null)?.repoUrl;
          const shareable = typeof url === 'string' ? shareableRepoUrl(url) : undefined;
          if (shareable !== undefined && shareable !== url) {
            (json as { repoUrl: string }).repoUrl = shareable;
            process.stderr.write(`repoUrl uploaded as ${shareable} (without userinfo, query and fragment)\n`);
          }
          const parsed = ReadinessReportInput.safeParse(json);
          if (!parsed.success) throw new UserError(`${args.file} is not a valid readiness report: ${describeZodError(parsed.error)}`);
          const stored = await upload(args.server, args.key, parsed.data);
          process.stdout.write(`stored for ${stored.repoId}\n${stored.reportId}\n`);
        },
      )
      .command<EvaluateArgs>(
        'evaluate <path>',
        'Evaluate a local git repository: prints the level (1-5) and every criterion with its rationale',
        (c) => {
          const env = loadConfig().env;
          return c
            .positional('path', { type: 'string', demandOption: true, describe: 'The repository' })
            .option('out', { type: 'string', describe: 'Write the report (JSON) to this file' })
            .option('json', { type: 'boolean', default: false, describe: 'Print the report as JSON instead of the summary' })
            .option('upload', {
              type: 'boolean',
              default: false,
              describe: 'Upload the report (prints its reportId alone on the last line)',
            })
            .option('server', {
              type: 'string',
              default: env.AGENTMETER_SERVER,
              describe: 'Server URL for --upload (env AGENTMETER_SERVER)',
            })
            .option('key', {
              type: 'string',
              ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
              describe: 'API key for --upload (env AGENTMETER_API_KEY)',
            })
            .example('$0 readiness evaluate .', 'The level and criteria of this repository')
            .example('$0 readiness evaluate ~/src/app --upload --server http://agentmeter:8080 --key am_…', 'Evaluate and upload') as never;
        },
        async (args) => {
          if (args.upload && (!args.server || !args.key))
            throw new UserError('--upload needs --server URL and --key KEY (or AGENTMETER_SERVER, AGENTMETER_API_KEY)');
          // Loaded here, not at the top: the evaluator brings the language tables of linguist-languages.
          const { evaluate, summarize } = await import('../../readiness/evaluator.ts');
          const evaluation = evaluate(resolve(args.path), { agentVersion: packageJson.version });
          const report: ReadinessReport = evaluation.report;
          // 0600 whatever the umask, and never written through a link planted at the name.
          if (args.out) writePrivateFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
          process.stdout.write(`${args.json ? JSON.stringify(report, null, 2) : summarize(evaluation)}\n`);
          if (args.upload) {
            const stored = await upload(args.server!, args.key!, report);
            process.stdout.write(`uploaded for ${stored.repoId}\n${stored.reportId}\n`);
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
