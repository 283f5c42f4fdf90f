import { hostname, userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { hiddenKeyDefault } from '../machine-options.ts';
import { callServer } from '../server-call.ts';

interface RegisterArgs {
  server?: string;
  key?: string;
  name: string;
}

interface RunArgs {
  'agent-command': string;
  input: 'arg' | 'stdin';
  'model-flag': string;
  cwd: string;
  'allow-root': string[];
  'poll-wait-ms': number;
}

const Registered = z.object({ computer: z.object({ id: z.string(), name: z.string() }), token: z.string() });

export const computerCommand: CommandModule = {
  command: 'computer <action>',
  describe: 'Run sessions on this machine: register it as a computer, then run the computer agent',
  builder: (y: Argv) =>
    y
      .command<RegisterArgs>(
        'register',
        'Register this machine as a computer (bring your own machine); prints its id on the last line',
        (c) => {
          const env = loadConfig().env;
          return c
            .option('server', { type: 'string', default: env.AGENTMETER_SERVER, describe: 'Server URL (env AGENTMETER_SERVER)' })
            .option('key', {
              type: 'string',
              ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
              describe: 'Your API key (env AGENTMETER_API_KEY)',
            })
            .option('name', { type: 'string', demandOption: true, describe: 'A name people will recognize, e.g. "Ana\'s workstation"' })
            .example(
              '$0 computer register --server http://agentmeter.internal:8080 --key am_… --name "build box"',
              'Register, then start `agentmeter computer run`',
            ) as never;
        },
        async (args) => {
          if (!args.server) throw new UserError('--server URL (or AGENTMETER_SERVER) is required');
          if (!args.key) throw new UserError('--key (or AGENTMETER_API_KEY) is required');
          // Loaded here, not at the top: every other command starts without the computer agent.
          const { credentialsPath, hostId, saveCredentials } = await import('../../computer/credentials.ts');
          const config = loadConfig();
          const registered = await callServer(args.server, args.key, 'POST', '/api/v0/computers', Registered, {
            name: args.name,
            hostname: hostname(),
            remoteUser: userInfo().username,
            hostId: hostId(config.agentmeterHome),
          });
          saveCredentials(config.agentmeterHome, {
            server: args.server,
            computerId: registered.computer.id,
            name: registered.computer.name,
            token: registered.token,
          });
          process.stdout.write(
            `registered computer "${registered.computer.name}"; its credentials are in ${credentialsPath(config.agentmeterHome)}\n`,
          );
          process.stdout.write(
            'start it in the folder its sessions may use (or name folders with --allow-root DIR): agentmeter computer run\n',
          );
          process.stdout.write(`${registered.computer.id}\n`);
        },
      )
      .command<RunArgs>(
        'run',
        "The computer agent: takes this computer's session messages from the server and runs the agent for each",
        (c) =>
          c
            .option('agent-command', {
              type: 'string',
              default: 'droid exec',
              describe: 'The agent to run per message (split into words, never run through a shell)',
            })
            .option('input', {
              choices: ['arg', 'stdin'] as const,
              default: 'stdin' as const,
              describe: 'The message text goes in on stdin (droid exec and claude -p read it there), or as the last argument after "--"',
            })
            .option('model-flag', {
              type: 'string',
              default: '--model',
              describe: 'Flag that passes the session\'s model ("" never passes it)',
            })
            .option('cwd', {
              type: 'string',
              default: process.cwd(),
              describe: 'Where sessions without a cwd run (inside an allowed folder)',
            })
            .option('allow-root', {
              type: 'string',
              array: true,
              default: [process.cwd()],
              describe:
                'A folder sessions may run in, with everything below it (repeatable; default: the folder this was started in). A session whose cwd resolves elsewhere, after ".." and links, fails',
            })
            .option('poll-wait-ms', { type: 'number', default: 25_000, describe: 'Longest one long-poll waits on the server' })
            .example('$0 computer run', 'Run `droid exec` with each message on its stdin, in this folder or below it')
            .example(
              '$0 computer run --agent-command "claude -p" --allow-root ~/src --cwd ~/src',
              'Run Claude Code headless in ~/src',
            ) as never,
        async (args) => {
          const { loadCredentials } = await import('../../computer/credentials.ts');
          const { splitCommand } = await import('../../computer/command.ts');
          const { ComputerAgent } = await import('../../computer/agent.ts');
          const { createLogger } = await import('../../common/logger.ts');
          const config = loadConfig();
          const credentials = loadCredentials(config.agentmeterHome);
          let command: string[];
          try {
            command = splitCommand(args['agent-command']);
          } catch (error) {
            throw new UserError(`--agent-command: ${(error as Error).message}`);
          }
          if (command.length === 0) throw new UserError('--agent-command is empty');
          const log = createLogger({ name: 'agentmeter-computer', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
          const agent = new ComputerAgent({
            credentials,
            log,
            command,
            input: args.input,
            modelFlag: args['model-flag'],
            defaultCwd: resolve(args.cwd),
            allowedRoots: args['allow-root'].map((root) => resolve(root)),
            env: process.env,
            pollWaitMs: args['poll-wait-ms'],
          });
          for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => agent.stop());
          const ok = await agent.run();
          if (!ok)
            throw new UserError("the computer's checks failed (see above; the server shows the computer in error): fix them and run again");
          // Stopped in order (the last result delivered): exit even if an idle connection lingers.
          process.exit(0);
        },
      )
      .demandCommand(1, 'Name an action: register or run'),
  handler: () => undefined,
};
