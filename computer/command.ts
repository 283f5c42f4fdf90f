// The agent command a computer runs for each message, as an argument vector: it is never handed to a
// shell, so nothing in a message can become shell syntax.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Splits a command line the way a person writes it in a flag: words separated by spaces; single or double
 * quotes group words; a backslash escapes the next character outside single quotes. Pure.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in the agent command`);
  if (inWord) words.push(word);
  return words;
}

/** The argument vector for one message: the command, the model flag when the session names a model, then
 * the text as the last argument (unless it goes in on stdin). Pure. */
export function agentArgs(command: readonly string[], options: { text: string; model: string | null; modelFlag: string; input: 'arg' | 'stdin' }): string[] {
  const args = [...command.slice(1)];
  if (options.model && options.modelFlag) args.push(options.modelFlag, options.model);
  if (options.input === 'arg') args.push(options.text);
  return args;
}

/** Where the executable is, or why it cannot be run. */
export function resolveExecutable(name: string, path = process.env['PATH'] ?? ''): { path: string } | { error: string } {
  const candidates = name.includes('/') ? [name] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, name));
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
