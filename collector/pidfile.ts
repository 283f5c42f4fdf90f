// $AGENTMETER_HOME/collector/collector.pid: written by a running `agentmeter collect` (0600), removed when
// it exits, so `agentmeter doctor` can tell whether a collector runs without a service manager. Light:
// imported by the doctor, which must not load the collector daemon.
import { closeSync, constants, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../common/errors.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../common/private-files.ts';

export const collectorPidPath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'collector.pid');

/** Held while a stale pid file is removed: of two collectors starting at once, one removes it at a time. */
const replacingPath = (agentmeterHome: string) => `${collectorPidPath(agentmeterHome)}.replacing`;

/** How long a collector waits for another that is replacing a stale pid file (it takes microseconds). */
const REPLACING_WAIT_MS = 2000;
const REPLACING_POLL_MS = 10;

/** Creates `path` holding this process's pid, unless it exists (O_EXCL); never through a link. */
function createHolding(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The pid a file names, or undefined when there is no readable file. */
function pidIn(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process `pid` exists (one of another user's counts). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Refuses when the pid file names a live collector other than this one. */
function refuseLiveHolder(agentmeterHome: string, alive: (pid: number) => boolean): void {
  const holder = readPidFile(agentmeterHome);
  if (holder !== undefined && holder !== process.pid && alive(holder))
    throw new UserError(
      `another collector (pid ${holder}) already ships ${agentmeterHome}; stop it first (agentmeter service uninstall, or kill ${holder})`,
    );
}

/**
 * Runs `fn` holding the replacing lock: a file naming this process, created exclusively. A lock whose
 * process is gone (it died in those microseconds) is taken over; one held by a live process is waited for.
 */
function whileReplacing(agentmeterHome: string, fn: () => void): void {
  const lock = replacingPath(agentmeterHome);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; !createHolding(lock); waited += REPLACING_POLL_MS) {
    const holder = pidIn(lock);
    if (holder !== undefined && !processExists(holder)) {
      rmSync(lock, { force: true });
      continue;
    }
    if (waited >= REPLACING_WAIT_MS)
      throw new UserError(`another collector (pid ${holder ?? 'unknown'}) is starting on ${agentmeterHome}; try again, or remove ${lock}`);
    Atomics.wait(pause, 0, 0, REPLACING_POLL_MS);
  }
  try {
    fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Claims the spool for this collector: creates the pid file exclusively (O_EXCL, so of two collectors
 * starting at once only one wins) and removes it when the process exits. A file left by a collector
 * that is gone is replaced; one naming a live collector is refused: two daemons on one spool (a
 * service and a hand-started `collect`) would each ship the other's files and fight over the state.
 * The stale file is removed only after its holder is read again under the replacing lock: two
 * collectors that both found it stale would otherwise both remove it, the second removing the first's
 * new file, and both run. `alive` tells a live collector (collectorAlive; a test's stand-in).
 */
export function holdPidFile(agentmeterHome: string, alive: (pid: number) => boolean = collectorAlive): void {
  const path = collectorPidPath(agentmeterHome);
  ensurePrivateDir(agentmeterHome);
  ensurePrivateDir(dirname(path));
  for (let attempt = 0; !createHolding(path); attempt++) {
    if (attempt >= 3) throw new UserError(`cannot claim ${path}: other collectors keep starting on ${agentmeterHome}`);
    refuseLiveHolder(agentmeterHome, alive);
    whileReplacing(agentmeterHome, () => {
      refuseLiveHolder(agentmeterHome, alive);
      rmSync(path, { force: true }); // stale: its collector is gone
    });
  }
  process.once('exit', () => {
    if (readPidFile(agentmeterHome) === process.pid) rmSync(path, { force: true });
  });
}

/** The pid the pid file names, or undefined when there is no readable file. */
export function readPidFile(agentmeterHome: string): number | undefined {
  return pidIn(collectorPidPath(agentmeterHome));
}

/**
 * Whether `pid` is a live agentmeter collector: the process exists and, where /proc tells (Linux), its
 * command line runs `collect` (a stale file whose pid was reused by another program does not count).
 */
export function collectorAlive(pid: number): boolean {
  if (!processExists(pid)) return false;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.includes('collect');
  } catch {
    return true; // no /proc (macOS): the live pid is all there is to go on
  }
}
