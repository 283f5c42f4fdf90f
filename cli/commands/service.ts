import { delimiter, dirname, join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { type Config, loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { machineSettings } from '../../common/machine-config.ts';
import { agentmeterProgram, shellLine } from '../program.ts';
import type { ServiceContext, ServiceManager } from '../service/manager.ts';
import type { ServiceSpec } from '../service/units.ts';

interface ServiceArgs {
  server?: string;
  key?: string;
  exec?: string;
  'dry-run'?: boolean;
  force?: boolean;
  'if-available'?: boolean;
  json?: boolean;
  manager?: ServiceManager;
}

/** Folders a service's PATH always has; the service manager starts it with little more than these. */
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

/**
 * Where the agents' files are, when the installing user moved them: the collector running as a service
 * must read the same folders as the agents (Codex's hooks.json and rollouts, Qwen Code's chats).
 */
const AGENT_FOLDER_VARIABLES = ['CODEX_HOME', 'QWEN_RUNTIME_DIR'] as const;

/**
 * The collector's command and environment. The program is the installed `$AGENTMETER_HOME/bin/agentmeter`
 * (or --exec); without either, the command running now (a checkout's bin/agentmeter.js) under this Node.
 * PATH starts with this Node's folder: the service manager's own PATH would not find a Node from nvm or
 * Homebrew for an executable that starts with `#!/usr/bin/env node`. `server`/`key` go into the
 * environment only when given: what `$AGENTMETER_HOME/collector.env` holds (install.sh writes it) the
 * collector reads itself, so the key is then in one private file only.
 */
export function collectorSpec(
  config: Config,
  args: { server?: string | undefined; key?: string | undefined; exec?: string },
  env: NodeJS.ProcessEnv = process.env,
): ServiceSpec {
  const program = args.exec ? [resolve(args.exec)] : agentmeterProgram(config.agentmeterHome);
  const path = [...new Set([dirname(process.execPath), ...SYSTEM_PATH])].join(delimiter);
  return {
    program,
    environment: [
      ...(config.defaultAgentmeterHome ? [] : [['AGENTMETER_HOME', config.agentmeterHome] as [string, string]]),
      ...(args.server ? [['AGENTMETER_SERVER', args.server] as [string, string]] : []),
      ...(args.key ? [['AGENTMETER_API_KEY', args.key] as [string, string]] : []),
      ...AGENT_FOLDER_VARIABLES.flatMap((name) => (env[name] ? [[name, env[name]] as [string, string]] : [])),
      ['PATH', path],
    ],
    logDir: join(config.agentmeterHome, 'logs'),
  };
}

/** Why this platform has no service of ours. */
const noManager = () => `agentmeter has no service for ${process.platform} (systemd on Linux and launchd on macOS only)`;

async function context(args: ServiceArgs, config: Config): Promise<ServiceContext> {
  const { localContext } = await import('../service/manager.ts');
  const ctx = localContext(config.home, args.manager);
  if (!ctx)
    throw new UserError(
      `${noManager()}: run \`${shellLine([...agentmeterProgram(config.agentmeterHome), 'collect'])}\` under your own supervisor`,
    );
  return ctx;
}

/**
 * What `service install --if-available` says where no service manager can be used: why, that the
 * collector is not running, and the full command that runs it (collector.env gives it the server and
 * key, so the command needs no flags when install.sh wrote that file).
 */
export function withoutServiceManager(reason: string, collect: string, flagsNeeded: boolean): string[] {
  return [
    `no collector service: ${reason}.`,
    `The collector is not running. Run it with: ${collect}${flagsNeeded ? ' --server <server URL> --key <your key>' : ''}`,
    `  at every login: add this line to your ~/.profile: ${collect} >/dev/null 2>&1 &`,
    '  or under a supervisor of your own (a container entrypoint, supervisord, runit, tmux).',
  ];
}

const shown = shellLine;

const KEY_SHOWN = '<your key>';

export const serviceCommand: CommandModule = {
  command: 'service <action>',
  describe: 'Run the collector as a user service (systemd on Linux, launchd on macOS): install, uninstall, status',
  builder: (y: Argv) =>
    y
      .option('manager', {
        type: 'string',
        choices: ['systemd', 'launchd'] as const,
        hidden: true,
        describe: 'Service manager (default: the platform’s)',
      })
      .command<ServiceArgs>(
        'install',
        'Write the service file and start the collector (idempotent: an unchanged file is not rewritten or restarted)',
        (c) => {
          return c
            .option('server', { type: 'string', describe: 'Server URL (env AGENTMETER_SERVER, or $AGENTMETER_HOME/collector.env)' })
            .option('key', { type: 'string', describe: 'Your API key (env AGENTMETER_API_KEY, or $AGENTMETER_HOME/collector.env)' })
            .option('exec', {
              type: 'string',
              describe: 'The agentmeter executable the service runs (default $AGENTMETER_HOME/bin/agentmeter)',
            })
            .option('dry-run', { type: 'boolean', default: false, describe: 'Print the file and the commands; write and run nothing' })
            .option('force', { type: 'boolean', default: false, describe: 'Replace a service file agentmeter did not write' })
            .option('if-available', {
              type: 'boolean',
              default: false,
              describe:
                'Where no service manager can be used (no systemd user instance, no launchd session), print how to run the collector instead and exit 0',
            })
            .example('$0 service install --server https://agentmeter.internal --key am_…', 'Start the collector now and at every login')
            .example('$0 service install --dry-run', 'What would be written and run') as never;
        },
        async (args) => {
          const config = loadConfig();
          // Flags and the environment go into the service file; collector.env stays where it is.
          const settings = machineSettings(config);
          const server = args.server ?? (settings.fromFile.server ? undefined : settings.AGENTMETER_SERVER);
          const key = args.key ?? (settings.fromFile.key ? undefined : settings.AGENTMETER_API_KEY);
          if (!server && !settings.fromFile.server)
            throw new UserError(
              '--server URL (or AGENTMETER_SERVER, or collector.env) is required: the service runs the collector with it',
            );
          if (!key && !settings.fromFile.key)
            throw new UserError('--key (or AGENTMETER_API_KEY, or collector.env) is required: the service runs the collector with it');
          const manager = await import('../service/manager.ts');
          const spec = collectorSpec(config, { server, key, ...(args.exec ? { exec: args.exec } : {}) });
          if (args['if-available'] && !args['dry-run']) {
            const local = manager.localContext(config.home, args.manager);
            const reason = local ? manager.unreachableReason(local) : noManager();
            if (reason) {
              // The key is not printed: collector.env or the environment gives it to the command.
              const fromFile = settings.fromFile.server && settings.fromFile.key;
              process.stdout.write(`${withoutServiceManager(reason, shellLine([...spec.program, 'collect']), !fromFile).join('\n')}\n`);
              return;
            }
          }
          const ctx = await context(args, config);
          if (args['dry-run']) {
            // Printed with the key masked: a terminal's scrollback or a CI log is no place for it.
            const masked = {
              ...spec,
              environment: spec.environment.map(([n, v]) => [n, n === 'AGENTMETER_API_KEY' ? KEY_SHOWN : v] as [string, string]),
            };
            const plan = manager.planInstall(ctx, spec, { ...(args.force ? { force: true } : {}), loaded: false });
            const content = manager.renderService(ctx.manager, masked);
            const out = [
              plan.changed
                ? `would write ${plan.file} (mode 0600; the key shown as ${KEY_SHOWN}):`
                : `${plan.file} is up to date; it would not be rewritten`,
              ...(plan.changed ? [content] : []),
              'would run:',
              ...(ctx.manager === 'launchd' && plan.changed
                ? [`  (if loaded) launchctl bootout gui/${ctx.uid}/dev.agentmeter.collector`]
                : []),
              ...plan.commands.map((c) => `  ${shown(c)}`),
            ];
            process.stdout.write(`${out.join('\n')}\n`);
            return;
          }
          const result = manager.installService(ctx, spec, args.force ? { force: true } : {});
          const status = manager.serviceStatus(ctx, spec.logDir);
          process.stdout.write(
            `${[
              result.changed ? `wrote ${result.file}` : `${result.file} is up to date`,
              ...result.commands.map((c) => `ran: ${shown(c)}`),
              `collector: ${status.state} (${status.detail}); its log: ${status.logs}`,
              ...result.notes,
            ].join('\n')}\n`,
          );
        },
      )
      .command<ServiceArgs>(
        'uninstall',
        'Stop the collector service and remove its file (the spool and the collector state stay)',
        (c) =>
          c
            .option('dry-run', { type: 'boolean', default: false, describe: 'Print the commands; remove and run nothing' })
            .option('force', { type: 'boolean', default: false, describe: 'Remove a service file agentmeter did not write' })
            .example('$0 service uninstall', 'Stop the collector and remove its service file')
            .example('$0 service uninstall --dry-run', 'What would be removed and run') as never,
        async (args) => {
          const config = loadConfig();
          const manager = await import('../service/manager.ts');
          const ctx = await context(args, config);
          if (args['dry-run']) {
            const plan = manager.planUninstall(ctx, { ...(args.force ? { force: true } : {}), loaded: true });
            process.stdout.write(
              `${[
                plan.remove ? `would remove ${plan.file}` : `${plan.file} is not there; nothing to remove`,
                ...(plan.commands.length ? ['would run:', ...plan.commands.map((c) => `  ${shown(c)}`)] : []),
              ].join('\n')}\n`,
            );
            return;
          }
          const plan = manager.uninstallService(ctx, args.force ? { force: true } : {});
          process.stdout.write(
            `${[...plan.commands.map((c) => `ran: ${shown(c)}`), plan.remove ? `removed ${plan.file}` : `${plan.file} was not there; nothing to remove`].join('\n')}\n`,
          );
        },
      )
      .command<ServiceArgs>(
        'status',
        'Whether the collector service is installed and running (exit 0 when running, 3 otherwise)',
        (c) =>
          c
            .option('json', { type: 'boolean', default: false, describe: 'One JSON object' })
            .example('$0 service status', 'Installed? Running? Where its log is')
            .example('$0 service status --json', 'The same as one JSON object (exit 0 when running, 3 otherwise)') as never,
        async (args) => {
          const config = loadConfig();
          const manager = await import('../service/manager.ts');
          const ctx = await context(args, config);
          const status = manager.serviceStatus(ctx, join(config.agentmeterHome, 'logs'));
          if (args.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
          else
            process.stdout.write(
              `${[
                `service: ${status.state}${status.pid ? ` (pid ${status.pid})` : ''}`,
                `file: ${status.file}${status.installed && !status.ours ? ' (not written by agentmeter)' : ''}`,
                `${ctx.manager}: ${status.detail}`,
                ...(status.installed ? [`log: ${status.logs}`] : ['install it: agentmeter service install']),
              ].join('\n')}\n`,
            );
          // As LSB status commands: 0 running, 3 not running.
          process.exitCode = status.state === 'running' ? 0 : 3;
        },
      )
      .demandCommand(1, 'Name an action: install, uninstall or status.'),
  handler: () => undefined,
};
