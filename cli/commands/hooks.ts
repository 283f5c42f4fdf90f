import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import {
  DEFAULT_MANAGED_HOOK_PATH,
  describeChanges,
  type InstallTarget,
  install,
  installStatusLine,
  SettingsError,
  status,
  statusLineCommand,
  uninstall,
} from '../../collector/install/installer.ts';
import {
  AGENT_BINARY,
  AGENT_HOME_DIR,
  agentFound,
  managedSettings,
  managedSettingsLocation,
  trustHint,
} from '../../collector/install/settings.ts';
import { DEFAULT_OTLP_ENDPOINT, type TelemetryOutcome } from '../../collector/install/telemetry.ts';
import { AGENTS, type Agent } from '../../common/agents.ts';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';

interface HookArgs {
  agent: Agent;
  statusline?: boolean;
  'all-found'?: boolean;
  settings?: string;
  managed?: boolean;
  'hook-path'?: string;
  'dry-run'?: boolean;
  otel?: boolean;
  'otlp-endpoint'?: string;
}

function target(args: HookArgs, agent: Agent = args.agent): InstallTarget {
  const config = loadConfig();
  const base = {
    agent,
    home: config.home,
    agentmeterHome: config.agentmeterHome,
    defaultAgentmeterHome: config.defaultAgentmeterHome,
    ...(args.otel ? { otlpEndpoint: args['otlp-endpoint'] ?? DEFAULT_OTLP_ENDPOINT } : {}),
  };
  const managed = managedSettings(agent);
  if (args.managed && 'refused' in managed) throw new UserError(managed.refused);
  if (!args.managed) {
    if (args['hook-path']) throw new UserError('--hook-path applies to --managed installs only');
    return { ...base, ...(args.settings ? { settingsFile: resolve(args.settings) } : {}) };
  }
  // The managed file applies to every user of the machine: the command names a shared script and no
  // AGENTMETER_HOME, so each user's hook spools under their own home.
  const hookPath = resolve(args['hook-path'] ?? DEFAULT_MANAGED_HOOK_PATH);
  return { ...base, settingsFile: args.settings ? resolve(args.settings) : managedSettingsLocation(agent).file, hookPath };
}

const common = <T>(y: Argv<T>, agentRequired = true) =>
  y
    .option('agent', { type: 'string', choices: AGENTS, demandOption: agentRequired, describe: 'Which agent' })
    .option('settings', {
      type: 'string',
      describe: 'A project settings file instead of the user-level one (with --managed: instead of the system path)',
    })
    .option('managed', {
      type: 'boolean',
      default: false,
      describe: "The agent's system-wide managed settings file, for every user of the machine (run as root)",
    })
    .option('hook-path', {
      type: 'string',
      describe: `With --managed: where the shared hook script is copied (default ${DEFAULT_MANAGED_HOOK_PATH})`,
    })
    .option('dry-run', { type: 'boolean', default: false, describe: 'Print the change without writing' });

/** The line saying what happened to the agent's own OpenTelemetry export (nothing when nothing was tried). */
function telemetryLine(agent: Agent, telemetry: { file: string; outcome: TelemetryOutcome; backup?: string } | undefined): string {
  if (!telemetry) return '';
  const said: Partial<Record<TelemetryOutcome, string>> = {
    added: `${agent}: OpenTelemetry export to the collector turned on in ${telemetry.file}`,
    already: `${agent}: OpenTelemetry export to the collector is on already`,
    'kept-yours': `${agent}: you export OpenTelemetry elsewhere (${telemetry.file}); kept, so edit decisions are not received`,
    removed: `${agent}: OpenTelemetry export to the collector removed from ${telemetry.file}`,
    unsupported: `${agent}: no OpenTelemetry export agentmeter can turn on`,
  };
  const line = said[telemetry.outcome];
  return line ? `${line}\n${telemetry.backup ? `backup: ${telemetry.backup}\n` : ''}` : '';
}

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
          common(c, false)
            .option('statusline', {
              type: 'boolean',
              default: false,
              describe: "Also set `agentmeter statusline` as the agent's status line (Claude Code), unless you have one",
            })
            .option('otel', {
              type: 'boolean',
              default: true,
              describe:
                "Also turn on the agent's own OpenTelemetry export to the collector's receiver, unless you export elsewhere (--no-otel: hooks only)",
            })
            .option('otlp-endpoint', {
              type: 'string',
              default: process.env['AGENTMETER_OTLP_LISTEN'] ? `http://${process.env['AGENTMETER_OTLP_LISTEN']}` : DEFAULT_OTLP_ENDPOINT,
              describe: "Where the agents send it: the collector's receiver (collect --otlp-listen)",
            })
            .option('all-found', {
              type: 'boolean',
              default: false,
              describe: `Every supported agent used on this machine (its settings folder or its command exists: ${AGENTS.map((a) => `~/${AGENT_HOME_DIR[a]} or ${AGENT_BINARY[a]}`).join(', ')})`,
            })
            .check((a) => {
              if (Boolean(a['agent']) === Boolean(a['all-found'])) throw new Error('Name an agent (--agent) or pass --all-found');
              if (a['all-found'] && (a['managed'] || a['settings'])) throw new Error('--all-found installs in user settings only');
              return true;
            })
            .example('$0 hooks install --agent claude', 'Writes ~/.claude/settings.json')
            .example('$0 hooks install --all-found', "Each agent found here, in the user's settings")
            .example('$0 hooks install --agent droid --dry-run', 'Shows what would change in ~/.factory/hooks.json')
            .example('$0 hooks install --agent gemini', 'Writes ~/.gemini/settings.json')
            .example('$0 hooks install --agent qwen', 'Writes ~/.qwen/settings.json (Qwen Code)')
            .example('$0 hooks install --agent codex', 'Writes $CODEX_HOME/hooks.json; then trust the hooks in codex with /hooks')
            .example('$0 hooks install --agent claude --settings .claude/settings.json', 'A project file')
            .example('sudo $0 hooks install --agent claude --managed', "Every user's Claude Code, through the managed settings") as never,
        (args) => {
          const home = loadConfig().home;
          const agents = args['all-found'] ? AGENTS.filter((agent) => agentFound(agent, home)) : [args.agent];
          if (agents.length === 0)
            process.stdout.write(
              `no supported agent found (looked for ${AGENTS.map((a) => `~/${AGENT_HOME_DIR[a]}`).join(', ')} and ${AGENTS.map((a) => AGENT_BINARY[a]).join(', ')} on PATH); run this again after installing one\n`,
            );
          // One agent's malformed settings file does not keep the hook from the others.
          const failed: string[] = [];
          for (const agent of agents) {
            try {
              const result = guard(() => install(target(args, agent), { dryRun: args['dry-run'] ?? false }));
              for (const line of describeChanges(result)) process.stdout.write(`${line}\n`);
              if (result.backup) process.stdout.write(`backup: ${result.backup}\n`);
              process.stdout.write(telemetryLine(agent, result.telemetry));
              if (args.statusline) {
                const t = target(args, agent);
                const command = statusLineCommand(t, process.execPath, process.argv[1]!);
                const line = guard(() => installStatusLine(t, command, { dryRun: args['dry-run'] ?? false }));
                process.stdout.write(
                  `${
                    {
                      added: `${agent}: status line set to \`agentmeter statusline\` in ${line.file}`,
                      already: `${agent}: the status line is agentmeter's already`,
                      'kept-yours': `${agent}: you have a status line in ${line.file}; kept. To show agentmeter's figures instead, set statusLine.command to: ${command}`,
                      unsupported: `${agent}: no status line setting agentmeter knows of`,
                    }[line.outcome]
                  }\n`,
                );
              }
            } catch (error) {
              if (!(error instanceof UserError) || agents.length === 1) throw error;
              process.stderr.write(`agentmeter: ${agent}: ${error.message}\n`);
              failed.push(agent);
            }
          }
          if (args['dry-run']) process.stdout.write('(dry run: nothing written)\n');
          else for (const hint of new Set(agents.map(trustHint).filter((h) => h !== undefined))) process.stdout.write(`${hint}\n`);
          if (failed.length) throw new UserError(`the hook was not installed for ${failed.join(', ')} (see above)`);
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
          process.stdout.write(telemetryLine(args.agent, result.telemetry));
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
          if (s.unsafeFolder)
            process.stdout.write(
              `  hook script's folder: another user can change it (${s.unsafeFolder}): install again with --hook-path in a folder only root can write\n`,
            );
          for (const blocker of s.blockers) process.stdout.write(`  will not run: ${blocker}\n`);
          if (s.trust) {
            const byState = (state: string) =>
              Object.entries(s.trust!.byEvent)
                .filter(([, v]) => v === state)
                .map(([event]) => event);
            const untrusted = byState('untrusted');
            const disabled = byState('disabled');
            const trusted = byState('trusted');
            if (s.trust.problem) process.stdout.write(`  trust: unknown (${s.trust.problem})\n`);
            else if (trusted.length > 0 && untrusted.length === 0 && disabled.length === 0)
              process.stdout.write('  trust: trusted in Codex; the hooks run\n');
            else if (s.installedEvents.length + s.outdatedEvents.length > 0) {
              if (untrusted.length) process.stdout.write(`  installed, not yet trusted (Codex skips them): ${untrusted.join(', ')}\n`);
              if (disabled.length) process.stdout.write(`  disabled in Codex's /hooks: ${disabled.join(', ')}\n`);
              process.stdout.write(`  ${s.trust.hint}\n`);
            }
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
