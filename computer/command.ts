// The agent command a computer runs for each message, as an argument vector: it is never handed to a
// shell, so nothing in a message can become shell syntax.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { splitShellWords } from '../common/shell-words.ts';

/**
 * Splits a command line the way a person writes it in a flag: words separated by spaces; quotes and
 * backslashes read as sh reads them (common/shell-words.ts). Pure.
 */
export function splitCommand(line: string): string[] {
  const { commands, openQuote } = splitShellWords(line, { operators: false });
  if (openQuote) throw new Error(`unclosed ${openQuote} in the agent command`);
  return commands[0] ?? [];
}

/**
 * The argument vector for one message: the command, the model flag when the session names a model, then,
 * unless the text goes in on stdin, `--` and the text as the last argument: after `--` the agent reads
 * it as its prompt even when it starts with "-" (`--dangerously-skip-permissions` is text, not a flag).
 * Pure.
 */
export function agentArgs(
  command: readonly string[],
  options: { text: string; model: string | null; modelFlag: string; input: 'arg' | 'stdin' },
): string[] {
  const args = [...command.slice(1)];
  if (options.model && options.modelFlag) args.push(options.modelFlag, options.model);
  if (options.input === 'arg') args.push('--', options.text);
  return args;
}

/** Where the executable is, or why it cannot be run. */
export function resolveExecutable(name: string, path = process.env['PATH'] ?? ''): { path: string } | { error: string } {
  const candidates = name.includes('/')
    ? [name]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return { path: candidate };
    } catch {
      // Not here.
    }
  }
  return { error: name.includes('/') || isAbsolute(name) ? `${name} is not an executable file` : `${name} not found on PATH` };
}
