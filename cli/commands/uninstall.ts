import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { machineSettings } from '../../common/machine-config.ts';
import { serverAndKeyOptions } from '../machine-options.ts';

interface UninstallArgs {
  purge: boolean;
  server?: string;
  key?: string;
}

/** How long uninstall waits for a running collector to stop after SIGTERM (it finishes its batch first). */
const STOP_WAIT_MS = 20_000;

/**
 * What agentmeter makes in its home folder: the command and bundle, the spool, the collector's state,
 * the code ledger (and its former folder), logs, settings, the machine id, a computer's credentials, the
 * credit-limit files and the status line's cache. Temporary files of an interrupted write are its too.
 */
const AGENTMETER_HOME_ENTRIES = new Set([
  'bin',
  'spool',
  'collector',
  'code',
  'impact',
  'logs',
  'collector.env',
  'machine-id',
  'computer.json',
  'limit-exceeded',
  'limit-warning',
  'limit-warned',
  'status.json',
]);
const AGENTMETER_TEMPORARY = /^(\.answer-\d+|\.collector\.env\.new-\d+|.+\.tmp-\d+)$/;

/** The entries of `home` agentmeter did not make. */
function foreignEntries(home: string): string[] {
  return readdirSync(home).filter((name) => !AGENTMETER_HOME_ENTRIES.has(name) && !AGENTMETER_TEMPORARY.test(name));
}

export const uninstallCommand: CommandModule<object, UninstallArgs> = {
  command: 'uninstall',
  describe: "Take agentmeter off this machine: remove the hooks from every agent's settings, ship what is spooled",
  builder: (y: Argv) =>
    // No defaults here: the handler reads collector.env only when there is a spool to ship.
    serverAndKeyOptions(y)
      .option('purge', {
        type: 'boolean',
        default: false,
        describe: 'Also remove $AGENTMETER_HOME (~/.agentmeter): the spool, even unshipped, the key and the installed command',
      })
      .example(
        '~/.agentmeter/bin/agentmeter uninstall',
        'Hooks removed, the spool shipped; the spool is kept if the server cannot be reached',
      )
      .example('~/.agentmeter/bin/agentmeter uninstall --purge', 'Nothing of agentmeter left on the machine') as never,
  handler: async (args) => {
    const config = loadConfig();
    const home = config.agentmeterHome;
    const { AGENTS } = await import('../../common/agents.ts');
    const { describeChanges, SettingsError, uninstall } = await import('../../collector/install/installer.ts');
    let problems = 0;
    const say = (line: string) => process.stdout.write(`${line}\n`);

    // 1. The hooks first, so no event is spooled after the last ship below.
    for (const agent of AGENTS) {
      try {
        const result = uninstall({ agent, home: config.home, agentmeterHome: home, defaultAgentmeterHome: config.defaultAgentmeterHome });
        for (const line of describeChanges(result)) say(line);
      } catch (error) {
        if (!(error instanceof SettingsError)) throw error;
        problems++;
        say(`${agent}: ${error.message} Remove the agentmeter hook from it by hand.`);
      }
    }

    // 2. The collector's user service (systemd unit, launchd agent; cli/service/), before the pid-file
    // collector below, so its service manager does not start it again. A file agentmeter did not write is
    // left alone and reported.
    const service = await import('../service/manager.ts');
    const ctx = service.localContext(config.home);
    if (ctx && existsSync(service.serviceFile(ctx))) {
      try {
        const plan = service.uninstallService(ctx);
        if (plan.remove) say(`removed the collector service (${plan.file})`);
      } catch (error) {
        if (!(error instanceof UserError)) throw error;
        problems++;
        say(`the collector service: ${error.message}`);
      }
    }

    // 3. A collector started by hand (its pid file names a live `collect`): stopped, so it neither races
    // the last ship below nor runs on without its folder after --purge.
    const { collectorAlive, readPidFile } = await import('../../collector/pidfile.ts');
    const pid = readPidFile(home);
    if (pid !== undefined && collectorAlive(pid)) {
      process.kill(pid, 'SIGTERM');
      const until = Date.now() + STOP_WAIT_MS;
      while (collectorAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      if (collectorAlive(pid))
        throw new UserError(`the collector (pid ${pid}) did not stop within ${STOP_WAIT_MS / 1000} s; stop it and run uninstall again`);
      say(`stopped the collector (pid ${pid})`);
    }

    // 4. What is left in the spool, shipped in one pass.
    const { spoolCounts, spoolDirs, spoolProblem } = await import('../../collector/spool.ts');
    const dirs = spoolDirs(home);
    const pending = existsSync(dirs.new) && !spoolProblem(dirs) ? spoolCounts(dirs).pending : 0;
    let kept = 0;
    if (pending > 0) {
      // A collector.env that is refused (readable by others, a link, a bad line) must not stop the
      // uninstall half way: the hooks are already gone, and --purge still has its work to do.
      let error: string | undefined;
      let server = args.server;
      let key = args.key;
      try {
        const settings = machineSettings(config);
        server ??= settings.AGENTMETER_SERVER;
        key ??= settings.AGENTMETER_API_KEY;
        if (!server || !key) error = 'no server or key configured';
      } catch (problem) {
        if (!(problem instanceof UserError)) throw problem;
        error = problem.message;
      }
      if (error === undefined && server && key) {
        const { Collector } = await import('../../collector/daemon.ts');
        const { createLogger } = await import('../../common/logger.ts');
        const log = createLogger({ name: 'agentmeter-uninstall', level: config.env.LOG_LEVEL ?? 'silent' });
        // Two tries a second apart: an uninstall says "unreachable" rather than retrying for minutes.
        const collector = new Collector({
          server,
          apiKey: key,
          agentmeterHome: home,
          home: config.home,
          log,
          backoff: { baseMs: 500, maxMs: 1000 },
        });
        const result = await collector.drain(2);
        await collector.close();
        say(
          `shipped ${result.shipped} spooled event${result.shipped === 1 ? '' : 's'}${result.quarantined ? `, quarantined ${result.quarantined}` : ''}`,
        );
        error = result.error;
      }
      if (error) {
        kept = spoolCounts(dirs).pending;
        say(
          `could not ship the spool (${error}): ${kept} event${kept === 1 ? '' : 's'} ${args.purge ? 'removed with --purge' : `kept in ${dirs.new}`}`,
        );
      }
    }

    // 5. --purge: the whole folder, after checking it is a real folder (a link is removed, never followed)
    // that holds only what agentmeter makes: AGENTMETER_HOME (or install.sh --home) may name a folder of
    // the user's, even their HOME, and nothing of theirs is removed with it.
    if (args.purge && existsSync(home)) {
      const stat = lstatSync(home);
      const foreign = stat.isDirectory() && !stat.isSymbolicLink() ? foreignEntries(home) : [];
      if (resolve(home) === resolve(config.home) || resolve(home) === '/' || foreign.length > 0) {
        problems++;
        say(
          `kept ${home}: it holds ${foreign.length ? `${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` and ${foreign.length - 5} more` : ''}, which agentmeter did not make` : 'your own files'}; remove agentmeter's own entries by hand (${[...AGENTMETER_HOME_ENTRIES].join(', ')})`,
        );
      } else {
        rmSync(home, { recursive: stat.isDirectory() && !stat.isSymbolicLink(), force: true });
        say(`removed ${home}`);
      }
    } else if (!args.purge) {
      say(`kept ${home} (the spool, the key in collector.env and the command); --purge removes it`);
    }
    if (kept > 0 && !args.purge) problems++;
    say(problems ? `uninstalled, with ${problems} thing(s) left to do (see above)` : 'uninstalled');
    process.exitCode = problems ? 1 : 0;
  },
};
