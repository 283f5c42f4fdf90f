// The collector's pid file (collector/pidfile.ts) over a stale file left by a collector that is gone: two
// collectors starting at once must not both remove it and both run. The stale file is removed only after
// its holder is read again under the replacing lock; a lock held by a live process is waited for, one left
// by a process that is gone is taken over.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectorPidPath, holdPidFile, readPidFile } from '../../collector/pidfile.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A pid no process has now: a process that ran and ended. */
const goneProcess = () => spawnSync('true').pid!;

/** An AGENTMETER_HOME whose pid file names a collector that is gone. */
function homeWithStalePidFile(): { home: string; stale: number } {
  const home = join(tempDir(), '.agentmeter');
  mkdirSync(join(home, 'collector'), { recursive: true, mode: 0o700 });
  const stale = goneProcess();
  writeFileSync(collectorPidPath(home), `${stale}\n`, { mode: 0o600 });
  return { home, stale };
}

const sleeper = spawn('sleep', ['60']);
afterAll(() => {
  sleeper.kill();
});

describe('holdPidFile over a stale pid file', () => {
  it('refuses when another collector replaced the stale file after it was read', () => {
    const { home, stale } = homeWithStalePidFile();
    const other = sleeper.pid!;
    // The stand-in for collectorAlive: when asked about the stale pid, another collector starting at the
    // same moment has just replaced the file with its own.
    const alive = (pid: number) => {
      if (pid === stale) {
        writeFileSync(collectorPidPath(home), `${other}\n`);
        return false;
      }
      return pid === other;
    };
    expect(() => holdPidFile(home, alive)).toThrow(`another collector (pid ${other}) already ships ${home}`);
    expect(readPidFile(home)).toBe(other);
  });

  it('waits for a live process replacing it, then refuses, leaving the file as it was', () => {
    const { home, stale } = homeWithStalePidFile();
    const lock = `${collectorPidPath(home)}.replacing`;
    writeFileSync(lock, `${sleeper.pid}\n`, { mode: 0o600 });
    expect(() => holdPidFile(home, () => false)).toThrow(`another collector (pid ${sleeper.pid}) is starting on ${home}`);
    expect(readPidFile(home)).toBe(stale);
    expect(readFileSync(lock, 'utf8')).toBe(`${sleeper.pid}\n`);
  });

  it('takes over a replacing lock left by a process that is gone, and claims the file', () => {
    const { home } = homeWithStalePidFile();
    const lock = `${collectorPidPath(home)}.replacing`;
    writeFileSync(lock, `${goneProcess()}\n`, { mode: 0o600 });
    holdPidFile(home, () => false);
    expect(readPidFile(home)).toBe(process.pid);
    expect(existsSync(lock)).toBe(false);
  });
});
