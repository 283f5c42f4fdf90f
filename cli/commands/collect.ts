import type { Argv, CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import { EXIT_CREDENTIALS_REFUSED, UserError } from '../../common/errors.ts';
import { machineSettings } from '../../common/machine-config.ts';
import { serverAndKeyOptions } from '../machine-options.ts';

interface CollectArgs {
  server?: string;
  key?: string;
  once?: boolean;
  'batch-size': number;
  'max-age-ms': number;
  'retry-max-ms': number;
  'otlp-listen': string;
}

async function startReceiver(listen: string, agentmeterHome: string, log: import('../../common/logger.ts').Logger) {
  const { OtlpReceiver } = await import('../../collector/otel/receiver.ts');
  const { ensureSpool, spoolDirs } = await import('../../collector/spool.ts');
  const dirs = spoolDirs(agentmeterHome);
  ensureSpool(dirs);
  const receiver = new OtlpReceiver({ listen, dirs, log });
  try {
    await receiver.start();
  } catch (error) {
    // Another collector (or program) holds the port: hooks and transcripts still work without it.
    log.error({ listen, error: (error as Error).message }, "OTLP receiver not started; the agents' OpenTelemetry is not received");
    return undefined;
  }
  return receiver;
}

export const collectCommand: CommandModule<object, CollectArgs> = {
  command: 'collect [action]',
  describe: 'Ship spooled events to the server (runs until stopped; --once drains and exits)',
  builder: (y: Argv) => {
    // The environment, else $AGENTMETER_HOME/collector.env (written by the server's install.sh).
    const env = machineSettings(loadConfig());
    return serverAndKeyOptions(y, env)
      .positional('action', { type: 'string', choices: ['status'], describe: '"status": spool depth, quarantined count, last ship' })
      .option('once', {
        type: 'boolean',
        default: false,
        describe: 'Drain the spool and exit: 0 when nothing is left to retry (shipped, or quarantined with a reason)',
      })
      .option('batch-size', { type: 'number', default: 5000, describe: 'Most events per request' })
      .option('max-age-ms', { type: 'number', default: 1000, describe: 'Longest an event waits for a fuller batch' })
      .option('retry-max-ms', { type: 'number', default: 30_000, describe: 'Longest wait between retries while the server is down' })
      .option('otlp-listen', {
        type: 'string',
        default: process.env['AGENTMETER_OTLP_LISTEN'] || '127.0.0.1:4318',
        describe:
          'Where the OTLP/HTTP receiver listens for the agents\' OpenTelemetry (a loopback host:port; "off": no receiver). Env: AGENTMETER_OTLP_LISTEN',
      })
      .example('$0 collect --server http://agentmeter.internal:8080 --key am_…', 'Run the collector')
      .example('$0 collect --once', 'Ship what is spooled now (server and key from the environment)')
      .example('$0 collect status', 'Spool depth and last successful ship') as never;
  },
  handler: async (args) => {
    const config = loadConfig();
    if ((args as { action?: string }).action === 'status') {
      // Loaded here, not at the top: every other command starts without the collector.
      const { spoolCounts, spoolDirs, spoolProblem, spoolWriteProblem } = await import('../../collector/spool.ts');
      const { readState, statePath } = await import('../../collector/state.ts');
      const dirs = spoolDirs(config.agentmeterHome);
      // Counting through a spool folder that is a link would describe some other folder.
      const problem = spoolProblem(dirs);
      if (problem) throw new UserError(`${problem}; the collector refuses this spool until it is fixed`);
      const now = Date.now();
      const counts = spoolCounts(dirs, now);
      const { describeAbandoned } = await import('../doctor/checks.ts');
      // Read only: a corrupt state file is set aside by the collector's next start, not by a look at it.
      const { state, problem: stateProblem, unreadable } = readState(config.agentmeterHome);
      const { readCodeStatus } = await import('../../collector/code/tracker.ts');
      const code = readCodeStatus(config.agentmeterHome);
      const unwritable = spoolWriteProblem(dirs);
      const { describeReceiver } = await import('../../collector/otel/describe.ts');
      const { readReceiverStatus } = await import('../../collector/otel/status.ts');
      process.stdout.write(
        `${[
          `spool: ${dirs.root}`,
          ...(unwritable ? [`not writable: ${unwritable}`] : []),
          `pending: ${counts.pending}`,
          `being written: ${counts.inProgress}`,
          ...(counts.abandoned && counts.oldestAbandonedMs !== undefined
            ? [`abandoned: ${describeAbandoned(counts.abandoned, counts.oldestAbandonedMs, now, dirs.tmp)}`]
            : []),
          `quarantined: ${counts.quarantined}${counts.quarantined ? ` (see ${dirs.bad}/*.reason)` : ''}`,
          ...(counts.leftAlone
            ? [`left alone: ${counts.leftAlone} (entries of ${dirs.new} that are not the hook's files: links, folders, other users' files)`]
            : []),
          ...(unreadable
            ? [
                `collector state: ${statePath(config.agentmeterHome)} is unreadable (${unreadable}); the collector's next start sets it aside and starts afresh`,
              ]
            : []),
          ...(stateProblem ? [`collector state: ${stateProblem}`] : []),
          `last successful ship: ${state.lastShipAt ? `${new Date(state.lastShipAt).toISOString()} (${state.lastShipRecords} records)` : 'never'}`,
          `shipped in total: ${state.totalShipped}`,
          ...Object.entries(state.dropped).map(([reason, count]) => `dropped: ${count} (${reason})`),
          ...(state.lastError ? [`last error: ${state.lastError} at ${new Date(state.lastErrorAt ?? 0).toISOString()}`] : []),
          `code: watching ${code.watched} repositories; ${code.pending} landed commits waiting to ship; ${code.droppedLines} ledger lines dropped by the size cap`,
          describeReceiver(readReceiverStatus(config.agentmeterHome)),
        ].join('\n')}\n`,
      );
      return;
    }
    if (!args.server) throw new UserError('--server URL (or AGENTMETER_SERVER) is required');
    if (!args.key) throw new UserError('--key (or AGENTMETER_API_KEY) is required');
    const { Collector } = await import('../../collector/daemon.ts');
    const { createLogger } = await import('../../common/logger.ts');
    const { holdPidFile } = await import('../../collector/pidfile.ts');
    const log = createLogger({ name: 'agentmeter-collector', ...(config.env.LOG_LEVEL ? { level: config.env.LOG_LEVEL } : {}) });
    const collector = new Collector({
      server: args.server,
      apiKey: args.key,
      agentmeterHome: config.agentmeterHome,
      home: config.home,
      log,
      batchSize: args['batch-size'],
      maxAgeMs: args['max-age-ms'],
      backoff: { baseMs: Math.min(500, args['retry-max-ms']), maxMs: args['retry-max-ms'] },
    });
    if (args.once) {
      // A drain beside a running collector would ship the same spool twice over: Droid's usage, read as
      // the difference from the totals each collector last saw, would be counted by both. `--once` claims
      // the spool as the daemon does (refused while one runs) before it drains.
      holdPidFile(config.agentmeterHome);
      const result = await collector.drain();
      process.stdout.write(
        `shipped ${result.shipped}, quarantined ${result.quarantined}${result.dropped ? `, dropped ${result.dropped} (not the agent's own: see collect status)` : ''}${result.leftAlone ? `, left alone ${result.leftAlone} (not the hook's files: see collect status)` : ''}${result.error ? `, not shipped: ${result.error}` : ''}\n`,
      );
      if (result.refused) process.stderr.write(`agentmeter: ${result.error}\n`);
      process.exit(result.refused ? EXIT_CREDENTIALS_REFUSED : result.error ? 1 : 0);
    }
    // The agents' OpenTelemetry: facts go into the spool the collector drains (collector/otel/). Started
    // before the signal handlers and the pid file, so a stop that comes once the pid file is there finds
    // the collector running, with nothing left to await before it.
    const receiver = args['otlp-listen'] === 'off' ? undefined : await startReceiver(args['otlp-listen'], config.agentmeterHome, log);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => collector.stop());
    // Tells `agentmeter doctor` a collector runs; removed at exit.
    holdPidFile(config.agentmeterHome);
    const ended = await collector.run();
    await receiver?.stop();
    // The spool keeps every event; the collector exits non-zero so its service manager shows why.
    if (ended.refused) throw new UserError(`collector stopped: ${ended.refused}`, { exitCode: EXIT_CREDENTIALS_REFUSED });
    // Stopped in order (the last batch acknowledged, the state saved): exit now. chokidar can leave a
    // file watcher behind when files arrive while it closes, and that must not keep a stopped daemon alive.
    process.exit(0);
  },
};
