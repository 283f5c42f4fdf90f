// The yargs runner shared by the full command (cli/main.ts) and the laptop bundle's (cli/laptop.ts): each
// passes its own list of commands; this turns errors into one clear line on stderr and a non-zero exit.
// Imports no command, so the laptop bundle carries only the commands it lists.
import yargs, { type Argv, type CommandModule } from 'yargs';
import { ZodError } from 'zod';
import { UserError } from '../common/errors.ts';
import { writeFailure } from '../common/private-files.ts';
import { VERSION } from '../common/version.ts';
import { describeZodError } from '../common/wire.ts';

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

/**
 * The command line for `commands` (each a yargs module with its own argument types): names, usage, help
 * and version, strict about unknown commands and options. runCommands adds what a failure does; a test
 * can parse with a callback, which gets the output (help included) instead of the process exiting.
 */
// biome-ignore lint/suspicious/noExplicitAny: each command module has its own argument types; yargs checks them
export function commandLine(commands: CommandModule<any, any>[]): Argv {
  let cli = yargs().scriptName('agentmeter').usage('$0 <command> [options]\n\nSelf-hosted usage analytics for AI coding agents.');
  for (const command of commands) cli = cli.command(command);
  return cli
    .demandCommand(1, 'Name a command; see --help.')
    .strict()
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(VERSION)
    .wrap(Math.min(110, process.stdout.columns || 110));
}

/** A file system error (a read-only disk, a folder not ours): it names its path, which says enough without a stack. */
const isFileError = (error: unknown): error is NodeJS.ErrnoException & { path: string; syscall: string } =>
  error instanceof Error &&
  typeof (error as NodeJS.ErrnoException).path === 'string' &&
  typeof (error as NodeJS.ErrnoException).syscall === 'string';

/** Runs the command line against `commands`. */
// biome-ignore lint/suspicious/noExplicitAny: each command module has its own argument types; yargs checks them
export async function runCommands(argv: string[], commands: CommandModule<any, any>[]): Promise<void> {
  endQuietlyOnClosedPipe();
  try {
    await commandLine(commands)
      .fail((message, error) => {
        // yargs passes a message for a bad command line (its own checks and the commands' .check(),
        // whose Error would otherwise print as a stack trace), and only the error for a failed handler.
        if (error && !message) throw error;
        process.stderr.write(`agentmeter: ${message} (see --help)\n`);
        process.exit(2);
      })
      .parseAsync(argv);
  } catch (error) {
    if (error instanceof UserError) {
      process.stderr.write(`agentmeter: ${error.message}\n`);
      process.exit(error.exitCode);
    } else if (error instanceof ZodError) process.stderr.write(`agentmeter: invalid input: ${describeZodError(error)}\n`);
    else if (isFileError(error)) process.stderr.write(`agentmeter: cannot ${error.syscall} ${error.path}: ${writeFailure(error)}\n`);
    else process.stderr.write(`agentmeter: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  }
}
