// Every command of the full CLI, found by walking the "Commands:" of each --help, has a --help of its own
// with usage examples. Parsed in this process (cli/run.ts's commandLine hands the output to a callback
// instead of exiting): a process per command cost a Node start each, ~20 s of the suite. The real
// binary's --help runs in processes in cli-startup.integration and cli.e2e.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/main.ts';
import { commandLine } from '../../cli/run.ts';

function help(path: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    commandLine(COMMANDS).parse([...path, '--help'], {}, (error: Error | undefined, _argv: unknown, output: string) =>
      error ? reject(error) : resolve(output),
    );
  });
}

/** The commands a help text lists under "Commands:", each as its words after `agentmeter`. Pure. */
function listedCommands(text: string): string[][] {
  const section = text.split('\n\n').find((block) => block.startsWith('Commands:'));
  if (!section) return [];
  // A description too long for its line goes on below, indented: only lines that start with the name count.
  return section
    .split('\n')
    .filter((line) => line.startsWith('  agentmeter '))
    .map((line) => line.trim().split(/\s{2,}/)[0]!)
    .map((usage) =>
      usage
        .split(' ')
        .slice(1)
        .filter((word) => !/^[<[]/.test(word)),
    );
}

describe('agentmeter --help', () => {
  it('lists every command, and each command at the end of the tree shows its usage with examples', async () => {
    const leaves: string[][] = [];
    const queue: string[][] = [[]];
    const seen = new Set<string>();
    while (queue.length) {
      const path = queue.shift()!;
      expect(seen.has(path.join(' ')), `${path.join(' ')} listed twice`).toBe(false);
      seen.add(path.join(' '));
      const text = await help(path);
      expect(text, path.join(' ')).toContain('agentmeter');
      const children = listedCommands(text);
      if (children.length === 0) {
        leaves.push(path);
        expect(text, `agentmeter ${path.join(' ')} --help`).toContain('Examples:');
      } else queue.push(...children);
    }
    const names = leaves.map((path) => path.join(' '));
    // The walk reached the tree's ends: these are among them (a broken listing would stop it short).
    for (const command of ['serve', 'users add', 'keys revoke', 'hooks install', 'collect', 'doctor', 'demo', 'computer run'])
      expect(names).toContain(command);
    expect(new Set(names).size).toBe(names.length);
  });
});
