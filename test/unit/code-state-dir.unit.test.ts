// The code state's folder under $AGENTMETER_HOME (collector/code/state-dir.ts): the former folder is moved
// whole on the first start that finds it, and a former folder that is not a real folder of ours is neither
// moved nor read.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../collector/code/ledger.ts';
import { CODE_STATE_DIR, codeStateDir, FORMER_CODE_STATE_DIR, readableStateDir } from '../../collector/code/state-dir.ts';
import { CodeTracker, readCodeStatus } from '../../collector/code/tracker.ts';
import { collectorPidPath } from '../../collector/pidfile.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = Date.UTC(2026, 10, 20);
const log = createLogger({ name: 'test', level: 'silent' });
const REPOS = JSON.stringify({ version: 2, repos: {}, droppedLines: 7, addresses: [] });

/** A home whose former folder holds a repos.json that says 7 ledger lines were dropped. */
function homeWithFormerState(mode = 0o700): { home: string; former: string } {
  const home = tempDir();
  const former = join(home, FORMER_CODE_STATE_DIR);
  mkdirSync(former);
  chmodSync(former, mode);
  writeFileSync(join(former, 'repos.json'), REPOS, { mode: 0o600 });
  return { home, former };
}

describe('the code state folder', () => {
  it('is named after the feature', () => {
    expect(CODE_STATE_DIR).toBe('code');
  });

  it('moves the former folder whole on the first start, and a ledger in it still credits its lines', () => {
    // Made 0755 by hand since: the move makes it private again.
    const { home, former } = homeWithFormerState(0o755);
    const lines = new Ledger(former);
    lines.append('/repo', [{ relPath: 'src/a.ts', fingerprints: ['const a = 1;'], ts: NOW, agent: 'claude', model: 'm' }]);
    const key = lines.lineKey('src/a.ts', 'const a = 1;');
    // `collect status` before any collector started reads the former folder, writing nothing.
    expect(readableStateDir(home)).toBe(former);
    const before = readdirSync(former).sort();
    expect(readCodeStatus(home).droppedLines).toBe(7);
    expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
    expect(readdirSync(former).sort()).toEqual(before);

    const tracker = new CodeTracker(home, log);

    expect(tracker.dir).toBe(join(home, CODE_STATE_DIR));
    expect(existsSync(former)).toBe(false);
    expect(lstatSync(tracker.dir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(tracker.dir, 'repos.json'), 'utf8')).toBe(REPOS);
    // The per-machine key moved with the lines, so the same line has the same key and is found.
    expect(tracker.ledger.lineKey('src/a.ts', 'const a = 1;')).toBe(key);
    expect(
      tracker.ledger
        .lookup('/repo', new Set([key]))
        .index.get(key)
        ?.map((l) => l.agent),
    ).toEqual(['claude']);
    expect(readCodeStatus(home).droppedLines).toBe(7);
    expect(codeStateDir(home).outcome).toBe('none');
  });

  it('keeps the new folder when both exist, and leaves the former one untouched', () => {
    const { home, former } = homeWithFormerState();
    mkdirSync(join(home, CODE_STATE_DIR), { mode: 0o700 });

    expect(codeStateDir(home, log)).toEqual({ dir: join(home, CODE_STATE_DIR), outcome: 'kept-both' });
    expect(readFileSync(join(former, 'repos.json'), 'utf8')).toBe(REPOS);
    expect(existsSync(join(home, CODE_STATE_DIR, 'repos.json'))).toBe(false);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
  });

  it('neither moves nor reads a former folder that is a link, and does not follow it', () => {
    const elsewhere = homeWithFormerState().former;
    const home = tempDir();
    symlinkSync(elsewhere, join(home, FORMER_CODE_STATE_DIR));

    expect(codeStateDir(home, log).outcome).toBe('refused');
    expect(lstatSync(join(home, FORMER_CODE_STATE_DIR)).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(elsewhere, 'repos.json'), 'utf8')).toBe(REPOS);
    expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
    expect(readCodeStatus(home).droppedLines).toBe(0);
    // Once the new folder exists, the link is still what is reported, not two folders.
    mkdirSync(join(home, CODE_STATE_DIR), { mode: 0o700 });
    expect(codeStateDir(home, log).outcome).toBe('refused');
  });

  it('neither moves nor reads a shared former folder (sticky bit)', () => {
    const { home, former } = homeWithFormerState(0o1700);
    expect(codeStateDir(home, log).outcome).toBe('refused');
    expect(readFileSync(join(former, 'repos.json'), 'utf8')).toBe(REPOS);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
  });

  it('uses the former folder where it is while another collector runs on the home, and moves it later', async () => {
    const { home, former } = homeWithFormerState();
    // A live process whose command line runs `collect`, named by the home's pid file: a collector started
    // before the update, which keeps writing the former folder.
    const running = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'collect'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => running.once('spawn', resolve));
      mkdirSync(join(home, 'collector'), { mode: 0o700 });
      writeFileSync(collectorPidPath(home), `${running.pid}\n`, { mode: 0o600 });

      expect(codeStateDir(home, log)).toEqual({ dir: former, outcome: 'in-use' });
      expect(new CodeTracker(home, log).dir).toBe(former);
      expect(readFileSync(join(former, 'repos.json'), 'utf8')).toBe(REPOS);
      expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
    } finally {
      running.kill();
      await new Promise((resolve) => running.once('exit', resolve));
    }
    // That collector is gone (its pid file left behind): the next start moves the folder.
    expect(codeStateDir(home, log)).toEqual({ dir: join(home, CODE_STATE_DIR), outcome: 'moved' });
    expect(readFileSync(join(home, CODE_STATE_DIR, 'repos.json'), 'utf8')).toBe(REPOS);
  });

  it('neither moves nor reads a former name that is a file', () => {
    const home = tempDir();
    writeFileSync(join(home, FORMER_CODE_STATE_DIR), REPOS);

    expect(codeStateDir(home, log).outcome).toBe('refused');
    expect(readFileSync(join(home, FORMER_CODE_STATE_DIR), 'utf8')).toBe(REPOS);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
  });

  it('makes the moved folder private, whatever mode it had', () => {
    const { home } = homeWithFormerState(0o755);
    expect(codeStateDir(home, log).outcome).toBe('moved');
    expect(lstatSync(join(home, CODE_STATE_DIR)).mode & 0o777).toBe(0o700);
  });

  it('changes nothing on a new machine', () => {
    const home = tempDir();
    expect(codeStateDir(home, log)).toEqual({ dir: join(home, CODE_STATE_DIR), outcome: 'none' });
    expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
  });
});
