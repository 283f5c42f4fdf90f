import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { describeChanges, type InstallTarget, install, SettingsError, status, uninstall } from '../../hooks/installer.ts';
import type { Agent } from '../../hooks/settings.ts';

interface HookArgs {
  agent: Agent;
  settings?: string;
  'dry-run'?: boolean;
}

function target(args: HookArgs): InstallTarget {
  const config = loadConfig();
  return {
    agent: args.agent,
    home: config.home,
    agentmeterHome: config.agentmeterHome,
    defaultAgentmeterHome: config.defaultAgentmeterHome,
    ...(args.settings ? { settingsFile: resolve(args.settings) } : {}),
  };
}

const common = <T>(y: Argv<T>) =>
  y
    .option('agent', { type: 'string', choices: ['droid', 'claude'] as const, demandOption: true, describe: 'Which agent' })
    .option('settings', { type: 'string', describe: 'A project settings file instead of the user-level one' })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Print the change without writing' });

function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof SettingsError) throw new UserError(error.message);
    throw error;
  }
}

export const hooksCommand: CommandModule = {
  command: 'hooks <action>',
  describe: "Install, remove or inspect the agentmeter hook in an agent's settings",
  builder: (y: Argv) =>
    y
      .command<HookArgs>(
        'install',
        'Register the hook for every event of the agent (idempotent; backs the file up)',
        (c) =>
          common(c)
            .example('$0 hooks install --agent claude', 'Writes ~/.claude/settings.json')
            .example('$0 hooks install --agent droid --dry-run', 'Shows what would change in ~/.factory/hooks.json')
            .example('$0 hooks install --agent claude --settings .claude/settings.json', 'A project file') as never,
        (args) => {
          const result = guard(() => install(target(args), { dryRun: args['dry-run'] ?? false }));
          for (const line of describeChanges(result)) process.stdout.write(`${line}\n`);
          if (result.backup) process.stdout.write(`backup: ${result.backup}\n`);
          if (args['dry-run']) process.stdout.write('(dry run: nothing written)\n');
        },
      )
      .command<HookArgs>(
        'uninstall',
        'Remove only the agentmeter hook; every other hook stays',
        (c) => common(c).example('$0 hooks uninstall --agent droid', '') as never,
        (args) => {
          const result = guard(() => uninstall(target(args), { dryRun: args['dry-run'] ?? false }));
          for (const line of describeChanges(result)) process.stdout.write(`${line}\n`);
          if (result.backup) process.stdout.write(`backup: ${result.backup}\n`);
        },
      )
      .command<HookArgs & { json?: boolean }>(
        'status',
        'Say what is installed',
        (c) => common(c).option('json', { type: 'boolean', default: false }).example('$0 hooks status --agent claude', '') as never,
        (args) => {
          const s = guard(() => status(target(args)));
          if (args.json) {
            process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
            return;
          }
          const state =
            s.missingEvents.length === 0 && s.outdatedEvents.length === 0
              ? 'installed'
              : s.installedEvents.length
                ? 'partly installed'
                : 'not installed';
          process.stdout.write(`${args.agent}: ${state} in ${s.file}${s.exists ? '' : ' (file absent)'}\n`);
          if (s.installedEvents.length) process.stdout.write(`  events: ${s.installedEvents.join(', ')}\n`);
          if (s.missingEvents.length) process.stdout.write(`  missing: ${s.missingEvents.join(', ')}\n`);
          if (s.outdatedEvents.length) process.stdout.write(`  outdated (run install again): ${s.outdatedEvents.join(', ')}\n`);
          process.stdout.write(`  hook script: ${s.scriptInstalled ? 'present' : 'absent'}\n`);
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
