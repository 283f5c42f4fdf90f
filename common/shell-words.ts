// Shell-like word splitting, the one tokenizer of a shell line in the project: the collector recognises
// `git commit` in a tool's command with it, redaction (common/redact.ts) finds a credential in a hook
// command whatever its quoting, the doctor finds the hook script a configured command runs, and the
// computer agent reads the agent command an operator writes in a flag. It never executes or expands
// anything. Quoting is read as POSIX sh reads it: single quotes keep every character; inside double
// quotes a backslash escapes only $ ` " and \ (before anything else it stays, `"C:\dir"` is C:\dir);
// outside quotes it escapes the next character, and a backslash that ends the line stays. Not read:
// line continuations (backslash-newline), here-documents, expansions.

export interface ShellWord {
  /** The word as the shell would pass it (quotes and escapes removed). */
  value: string;
  /** pos[i]: the index in the line of value[i], so that a part of the value can be found in the line. */
  pos: number[];
  /** The first word of a simple command (the line's first word, or the first after an operator). */
  startsCommand: boolean;
}

export interface ShellWordsOptions {
  /**
   * Read a command line: ;, &, |, newlines, backquotes and parentheses separate simple commands, the
   * redirections < and > end words, and words end at spaces, tabs and carriage returns. Without, those
   * characters are parts of words (one command, such as an argument vector written in a flag), and words
   * end at any whitespace.
   */
  operators: boolean;
}

/** Characters that end a simple command when operators are read. */
const SEPARATORS = new Set([';', '|', '&', '(', ')', '\n', '`']);
/** Redirections: they end a word, and the word after them still belongs to the same command. */
const REDIRECTIONS = new Set(['<', '>']);

/** Pure. The words of a line, with where each character came from. Never fails: an open quote runs to the end. */
export function shellWords(line: string, { operators }: ShellWordsOptions): { words: ShellWord[]; openQuote: '"' | "'" | null } {
  const words: ShellWord[] = [];
  let value = '';
  let pos: number[] = [];
  let inWord = false;
  let startsCommand = true;
  let quote: '"' | "'" | null = null;
  const push = (i: number) => {
    value += line[i];
    pos.push(i);
    inWord = true;
  };
  const endWord = () => {
    if (inWord) {
      words.push({ value, pos, startsCommand });
      startsCommand = false;
    }
    value = '';
    pos = [];
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else push(i);
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '$`"\\'.includes(line[i + 1]!)) push(++i);
      else push(i);
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      push(i + 1 < line.length ? ++i : i);
    } else if (operators ? c === ' ' || c === '\t' || c === '\r' : /\s/.test(c)) {
      endWord();
    } else if (operators && (SEPARATORS.has(c) || REDIRECTIONS.has(c))) {
      endWord();
      if (SEPARATORS.has(c)) startsCommand = true;
    } else push(i);
  }
  endWord();
  return { words, openQuote: quote };
}

export interface ShellCommands {
  /** Simple commands, each a list of words (one command when operators are not read). */
  commands: string[][];
  /** The quote left open at the end of the line, if any. */
  openQuote: '"' | "'" | null;
}

/** Pure. The line's simple commands, each as its words' values (see shellWords). */
export function splitShellWords(line: string, options: ShellWordsOptions): ShellCommands {
  const { words, openQuote } = shellWords(line, options);
  const commands: string[][] = [];
  for (const word of words) {
    if (word.startsCommand || commands.length === 0) commands.push([]);
    commands.at(-1)!.push(word.value);
  }
  return { commands, openQuote };
}
