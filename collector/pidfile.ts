// $AGENTMETER_HOME/collector/collector.pid: written by a running `agentmeter collect` (0600), removed when
// it exits, so `agentmeter doctor` can tell whether a collector runs without a service manager. Light:
// imported by the doctor, which must not load the collector daemon.
import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../common/errors.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.ts';

export const collectorPidPath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'collector.pid');

/**
 * Claims the spool for this collector: creates the pid file exclusively (O_EXCL, so of two collectors
 * starting at once only one wins) and removes it when the process exits. A file left by a collector
 * that is gone is replaced; one naming a live collector is refused: two daemons on one spool (a
 * service and a hand-started `collect`) would each ship the other's files and fight over the state.
 */
export function holdPidFile(agentmeterHome: string): void {
  const path = collectorPidPath(agentmeterHome);
  ensurePrivateDir(agentmeterHome);
  ensurePrivateDir(dirname(path));
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = readPidFile(agentmeterHome);
      if (holder !== undefined && holder !== process.pid && collectorAlive(holder)) {
        throw new UserError(
          `another collector (pid ${holder}) already ships ${agentmeterHome}; stop it first (agentmeter service uninstall, or kill ${holder})`,
        );
      }
      rmSync(path, { force: true }); // stale: its collector is gone
    }
  }
  process.once('exit', () => {
    if (readPidFile(agentmeterHome) === process.pid) rmSync(path, { force: true });
  });
}

/** The pid the file names, or undefined when there is no readable file. */
export function readPidFile(agentmeterHome: string): number | undefined {
  try {
    const pid = Number(readFileSync(collectorPidPath(agentmeterHome), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` is a live agentmeter collector: the process exists and, where /proc tells (Linux), its
 * command line runs `collect` (a stale file whose pid was reused by another program does not count).
 */
export function collectorAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('collect');
  } catch {
    return true; // no /proc (macOS): the live pid is all there is to go on
  }
}
