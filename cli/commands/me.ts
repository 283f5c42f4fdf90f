// `agentmeter statusline` (one line for an agent's status line, from the collector's cache, never the
// network) and `agentmeter me` (the same figures in a few lines, fresh from the server when it answers).
// The laptop bundle answers `statusline` before loading yargs (cli/statusline-fast.ts); this is the same
// answer through the full CLI.
import type { Argv, CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { machineSettings } from '../../common/machine-config.ts';
import { readStatusCache, statusLine, statusLines } from '../../common/status-line.ts';
import { serverAndKeyOptions } from '../machine-options.ts';

export const statuslineCommand: CommandModule = {
  command: 'statusline',
  describe: "One line for an agent's status line: your credits today, this month, and the share of your budget (from the local cache)",
  builder: (y: Argv) =>
    y
      .example('$0 statusline', 'agentmeter 1,050 today · 12,400 this month · 105% of budget')
      .example('$0 hooks install --agent claude --statusline', "Makes it Claude Code's status line"),
  handler: () => {
    process.stdout.write(`${statusLine(readStatusCache(loadConfig().agentmeterHome), Date.now())}\n`);
  },
};

interface MeArgs {
  server?: string;
  key?: string;
}

export const meCommand: CommandModule<object, MeArgs> = {
  command: 'me',
  describe: 'Your credits today and this month, and your limit',
  builder: (y: Argv) =>
    serverAndKeyOptions(y, machineSettings(loadConfig())).example(
      '$0 me',
      'Asks the server, else prints the cached figures and their age',
    ) as unknown as Argv<MeArgs>,
  handler: async (args) => {
    const home = loadConfig().agentmeterHome;
    const { refreshStatusCache } = await import('../../collector/status-cache.ts');
    const fresh = args.server && args.key ? await refreshStatusCache(args.server, args.key, home) : undefined;
    const status = fresh ?? readStatusCache(home);
    if (!status)
      throw new UserError(
        args.server && args.key
          ? `the server ${args.server} did not answer, and no figures are cached yet`
          : "no server and key: pass --server and --key, or install with the server's install.sh",
      );
    process.stdout.write(`${statusLines(status, Date.now(), fresh !== undefined).join('\n')}\n`);
  },
};
