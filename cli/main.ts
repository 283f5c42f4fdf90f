// The `agentmeter` command. Each subcommand lives in cli/commands/; this file only wires them up and turns
// errors into one clear line on stderr and a non-zero exit.
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { ZodError, z } from 'zod';
import { UserError } from '../common/errors.ts';
import { describeZodError } from '../common/wire.ts';
import { batchCommand } from './commands/batch.ts';
import { collectCommand } from './commands/collect.ts';
import { computerCommand } from './commands/computer.ts';
import { demoCommand } from './commands/demo.ts';
import { doctorCommand } from './commands/doctor.ts';
import { exportCommand } from './commands/export.ts';
import { hooksCommand } from './commands/hooks.ts';
import { keysCommand } from './commands/keys.ts';
import { orgsCommand } from './commands/orgs.ts';
import { readinessCommand } from './commands/readiness.ts';
import { serveCommand } from './commands/serve.ts';
import { serviceCommand } from './commands/service.ts';
import { usersCommand } from './commands/users.ts';

/** The version in package.json, the one file that says it. */
export function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return z.object({ version: z.string().min(1) }).parse(JSON.parse(text)).version;
}

/**
 * Output to a pipe whose reader has gone (`agentmeter … | head -3`) ends the command quietly, as a
 * reader that stopped reading asked for, instead of an unhandled EPIPE with a stack trace. One handler
 * for every command, since any of them may print more than the reader wants.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`agentmeter: cannot write output: ${error.message}\n`);
    process.exit(1);
  });
}

export async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedPipe();
  try {
    await yargs(argv)
      .scriptName('agentmeter')
      .usage('$0 <command> [options]\n\nSelf-hosted usage analytics for AI coding agents.')
      .command(serveCommand)
      .command(orgsCommand)
      .command(usersCommand)
      .command(keysCommand)
      .command(hooksCommand)
      .command(collectCommand)
      .command(serviceCommand)
      .command(doctorCommand)
      .command(batchCommand)
      .command(exportCommand)
      .command(readinessCommand)
      .command(computerCommand)
      .command(demoCommand)
      .demandCommand(1, 'Name a command; see --help.')
      .strict()
      .recommendCommands()
      .help()
      .alias('h', 'help')
      .version(packageVersion())
      .wrap(Math.min(110, process.stdout.columns || 110))
      .fail((message, error) => {
        if (error) throw error;
        process.stderr.write(`agentmeter: ${message}\nRun with --help for usage.\n`);
        process.exit(2);
      })
      .parseAsync();
  } catch (error) {
    if (error instanceof UserError) {
      process.stderr.write(`agentmeter: ${error.message}\n`);
      process.exit(error.exitCode);
    } else if (error instanceof ZodError) process.stderr.write(`agentmeter: invalid input: ${describeZodError(error)}\n`);
    else process.stderr.write(`agentmeter: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
