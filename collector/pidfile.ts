// $AGENTMETER_HOME/collector/collector.pid: written by a running `agentmeter collect` (0600), removed when
// it exits, so `agentmeter doctor` can tell whether a collector runs without a service manager. Light:
// imported by the doctor, which must not load the collector daemon.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';

export const collectorPidPath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'collector.pid');

/** Writes this process's pid and removes the file when the process exits (only if it still names us). */
export function holdPidFile(agentmeterHome: string): void {
  const path = collectorPidPath(agentmeterHome);
  ensurePrivateDir(agentmeterHome);
  ensurePrivateDir(dirname(path));
  writePrivateFile(path, `${process.pid}\n`);
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
