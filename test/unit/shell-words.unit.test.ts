// The one shell tokenizer (common/shell-words.ts) reads quotes and escapes as POSIX sh does: checked
// against the system's own sh, and through each caller (the collector's command recognition, the
// computer agent's command, redaction). Before, the collector and the computer agent dropped a
// backslash before any character inside double quotes ("C:\tools" became C:tools) while redaction kept
// it, as sh does.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellCommands } from '../../collector/derive.ts';
import { redactCommand } from '../../common/redact.ts';
import { shellWords, splitShellWords } from '../../common/shell-words.ts';
import { splitCommand } from '../../computer/command.ts';

/** The words sh itself passes to a command for `line` (no expansion in these lines: no $, globs or ~ unquoted). */
function wordsOfSh(line: string): string[] {
  const out = execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const LINES = [
  String.raw`"C:\tools\agent.sh" --config "C:\agents\cfg.json"`,
  String.raw`"say \"hi\"" 'it''s' x\ y ""`,
  String.raw`"d\$y" "e\`f" "b\\z" "a\b" 'c\d' e\f`,
  '--flag=\'a b\' "tab\tin" end\\',
];

describe('shell words', () => {
  it.each(LINES)('splits %s as sh does', (line) => {
    const expected = wordsOfSh(line);
    expect(splitShellWords(line, { operators: false }).commands).toEqual([expected]);
    expect(splitShellWords(line, { operators: true }).commands).toEqual([expected]);
  });

  it('keeps a backslash inside double quotes before anything but $ ` " \\ (the escape the two tokenizers read apart)', () => {
    const line = String.raw`agent --config "C:\agents\cfg.json" --say "\"hi\""`;
    expect(splitCommand(line)).toEqual(['agent', '--config', String.raw`C:\agents\cfg.json`, '--say', '"hi"']);
    expect(shellCommands(String.raw`git commit -m "fix C:\dir \"x\"" && gh pr create`)).toEqual([
      ['git', 'commit', '-m', String.raw`fix C:\dir "x"`],
      ['gh', 'pr', 'create'],
    ]);
    // Redaction already read it so: the credential is masked, quoting and backslashes kept around it.
    expect(redactCommand(String.raw`deploy --token "ghp_abcdefghijklmnopqrstuvwxyz0123456789" --dir "C:\x"`)).toBe(
      String.raw`deploy --token "***" --dir "C:\x"`,
    );
  });

  it('cuts a command line at operators; redirections end a word, not the command', () => {
    expect(splitShellWords(`a 'b; c' && d "e|f" | g`, { operators: true }).commands).toEqual([['a', 'b; c'], ['d', 'e|f'], ['g']]);
    expect(splitShellWords('git commit -m x>log; (cd y && git push)', { operators: true }).commands).toEqual([
      ['git', 'commit', '-m', 'x', 'log'],
      ['cd', 'y'],
      ['git', 'push'],
    ]);
    expect(splitShellWords('a;b >c', { operators: false }).commands).toEqual([['a;b', '>c']]);
  });

  it('gives the position in the line of every character of a word', () => {
    const line = String.raw`x "a\"b" c\ d`;
    const { words } = shellWords(line, { operators: true });
    expect(words.map((w) => w.value)).toEqual(['x', 'a"b', 'c d']);
    for (const word of words) expect([...word.value].every((ch, i) => line[word.pos[i]!] === ch)).toBe(true);
    expect(words.map((w) => w.startsCommand)).toEqual([true, false, false]);
  });

  it('says which quote is left open', () => {
    expect(splitShellWords(`droid "exec`, { operators: false })).toEqual({ commands: [['droid', 'exec']], openQuote: '"' });
    expect(() => splitCommand(`droid 'exec`)).toThrow("unclosed '");
  });

  it('keeps a backslash that ends the line in the word, as sh does: a secret before it is masked with it', () => {
    // 0b25b9a's redaction left the backslash outside the mask (`API_KEY=***\`); the one tokenizer keeps it
    // in the word, so the mask covers it too. More is hidden, nothing is shown.
    expect(splitShellWords('echo a\\', { operators: true }).commands).toEqual([['echo', 'a\\']]);
    expect(redactCommand('export API_KEY=s3cr3tvalue\\')).toBe('export API_KEY=***');
    expect(redactCommand('curl --password x\\')).toBe('curl --password ***');
  });
});
