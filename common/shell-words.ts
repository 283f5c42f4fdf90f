// Shell-like word splitting, shared by the collector (recognising `git commit` in a tool's command) and
// the computer agent (the agent command an operator writes in a flag). It never executes or expands
// anything. Single or double quotes group words; a backslash escapes the next character outside single
// quotes, and inside double quotes.

export interface ShellWords {
  /** Simple commands, each a list of words (one command when operators are not split on). */
  commands: string[][];
  /** The quote left open at the end of the line, if any. */
  openQuote: '"' | "'" | null;
}

/**
 * Pure. With `operators`, the line is cut into simple commands on ;, &&, ||, |, &, newlines, backquotes
 * and subshell parentheses, and words end at spaces and tabs. Without, those characters are parts of
 * words, and words end at any whitespace.
 */
export function splitShellWords(line: string, { operators }: { operators: boolean }): ShellWords {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) commands.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (operators && (c === ';' || c === '|' || c === '&' || c === '\n' || c === '(' || c === ')' || c === '`')) {
      endCommand();
    } else if (operators ? c === ' ' || c === '\t' : /\s/.test(c)) {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return { commands, openQuote: quote };
}
