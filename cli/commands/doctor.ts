import { existsSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { AGENTS } from '../../common/agents.ts';
import { type Config, loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { type MachineConfig, machineConfigPath, machineSettings } from '../../common/machine-config.ts';
import { serverAndKeyOptions } from '../machine-options.ts';
import { programLine } from '../program.ts';

/** The settings, or none and the reason collector.env is refused: the doctor reports it rather than stopping. */
function settingsOrProblem(config: Config): MachineConfig & { problem?: string } {
  try {
    return machineSettings(config);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    return {
      ...(config.env.AGENTMETER_SERVER ? { AGENTMETER_SERVER: config.env.AGENTMETER_SERVER } : {}),
      ...(config.env.AGENTMETER_API_KEY ? { AGENTMETER_API_KEY: config.env.AGENTMETER_API_KEY } : {}),
      problem: error.message,
    };
  }
}

interface DoctorArgs {
  server?: string;
  key?: string;
  json?: boolean;
}

export const doctorCommand: CommandModule<object, DoctorArgs> = {
  command: 'doctor',
  describe: "Check this machine: the agents' hooks, the collector and its service, the spool, the server, the key, the clock",
  builder: (y: Argv) => {
    const env = settingsOrProblem(loadConfig());
    return serverAndKeyOptions(y, env)
      .option('json', { type: 'boolean', default: false, describe: 'One JSON object {ok, checks: [{name, ok, detail, fix?}]}' })
      .example('$0 doctor', 'Every check, each problem with the command that fixes it; exit 1 when something is wrong')
      .example('$0 doctor --json', 'For scripts') as never;
  },
  handler: async (args) => {
    // Loaded here, not at the top: every other command starts without the doctor's modules.
    const checks = await import('../doctor/checks.ts');
    const probe = await import('../doctor/probe.ts');
    const config = loadConfig();
    // "From env": the fix commands need not name it (the environment or collector.env supplies it).
    const settings = settingsOrProblem(config);
    const connection = {
      program: programLine(config.agentmeterHome),
      ...(args.server ? { server: args.server } : {}),
      serverFromEnv: args.server !== undefined && args.server === settings.AGENTMETER_SERVER,
      hasKey: Boolean(args.key),
      keyFromEnv: args.key !== undefined && args.key === settings.AGENTMETER_API_KEY,
    };
    const options = { home: config.home, agentmeterHome: config.agentmeterHome, defaultAgentmeterHome: config.defaultAgentmeterHome };
    const server = await probe.probeServer(args.server, args.key);
    const now = Date.now();
    const { localContext } = await import('../service/manager.ts');
    const service = localContext(config.home);
    const collector = probe.probeCollector({ ...options, ...(service ? { service } : {}) });
    const spool = probe.probeSpool(config.agentmeterHome);
    const quarantine = probe.probeQuarantine(config.agentmeterHome);
    const result = checks.report(
      [
        // Every agent we support; one whose settings folder is absent is reported as not used here.
        ...AGENTS.map((agent) => checks.checkHook(probe.probeHook(agent, options), connection.program)),
        checks.checkCollector(collector, connection),
        checks.checkService(collector, connection),
        checks.checkSpool(spool, collector, connection, now),
        checks.checkAbandoned(spool, now),
        checks.checkQuarantine(quarantine.dir, quarantine.files),
        checks.checkReceiver(await probe.probeReceiver(config.agentmeterHome), checks.collectorRunning(collector), connection),
        checks.checkSettingsFile(
          machineConfigPath(config.agentmeterHome),
          existsSync(machineConfigPath(config.agentmeterHome)),
          settings.problem,
        ),
        checks.checkServer(server, connection),
        checks.checkKey(server, connection),
        checks.checkLastShip(probe.probeShip(config.agentmeterHome), spool.pending, collector, connection, now),
        checks.checkClock(server, now),
      ],
      collector.service ?? null,
    );
    if (args.json) process.stdout.write(`${JSON.stringify(checks.DoctorReport.parse(result), null, 2)}\n`);
    else {
      for (const c of result.checks) {
        process.stdout.write(`${c.ok ? 'ok     ' : 'PROBLEM'} ${c.name}: ${c.detail}\n`);
        if (c.fix) process.stdout.write(`        fix: ${c.fix}\n`);
      }
      process.stdout.write(result.ok ? 'all good\n' : `${result.checks.filter((c) => !c.ok).length} problem(s)\n`);
    }
    process.exitCode = result.ok ? 0 : 1;
  },
};
