// The code state's folder under $AGENTMETER_HOME (collector/code/state-dir.ts): the former folder is moved
// whole on the first start that finds it, and a former folder that is not a real folder of ours is neither
// moved nor read.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../collector/code/ledger.ts';
import { CODE_STATE_DIR, FORMER_CODE_STATE_DIR, moveFormerStateDir, readableStateDir } from '../../collector/code/state-dir.ts';
import { CodeTracker, readCodeStatus } from '../../collector/code/tracker.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = Date.UTC(2026, 10, 20);
const log = createLogger({ name: 'test', level: 'silent' });
const REPOS = JSON.stringify({ version: 2, repos: {}, droppedLines: 7, addresses: [] });

/** A home whose former folder holds a repos.json that says 7 ledger lines were dropped. */
function homeWithFormerState(): { home: string; former: string } {
  const home = tempDir();
  const former = join(home, FORMER_CODE_STATE_DIR);
  mkdirSync(former, { mode: 0o700 });
  writeFileSync(join(former, 'repos.json'), REPOS, { mode: 0o600 });
  return { home, former };
}

describe('the code state folder', () => {
  it('is named after the feature', () => {
    expect(CODE_STATE_DIR).toBe('code');
    expect(FORMER_CODE_STATE_DIR).not.toBe(CODE_STATE_DIR);
  });

  it('moves the former folder whole on the first start, and a ledger in it still credits its lines', () => {
    const { home, former } = homeWithFormerState();
    const lines = new Ledger(former);
    lines.append('/repo', [{ relPath: 'src/a.ts', fingerprints: ['const a = 1;'], ts: NOW, agent: 'claude', model: 'm' }]);
    const key = lines.lineKey('src/a.ts', 'const a = 1;');
    // `collect status` before any collector started reads the former folder, writing nothing.
    expect(readableStateDir(home)).toBe(former);
    expect(readCodeStatus(home).droppedLines).toBe(7);

    const tracker = new CodeTracker(home, log);

    expect(tracker.dir).toBe(join(home, CODE_STATE_DIR));
    expect(existsSync(former)).toBe(false);
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
    expect(moveFormerStateDir(home).outcome).toBe('none');
  });

  it('keeps the new folder when both exist, and leaves the former one untouched', () => {
    const { home, former } = homeWithFormerState();
    mkdirSync(join(home, CODE_STATE_DIR), { mode: 0o700 });

    expect(moveFormerStateDir(home, log)).toEqual({ dir: join(home, CODE_STATE_DIR), outcome: 'kept-both' });
    expect(readFileSync(join(former, 'repos.json'), 'utf8')).toBe(REPOS);
    expect(existsSync(join(home, CODE_STATE_DIR, 'repos.json'))).toBe(false);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
  });

  it('neither moves nor reads a former folder that is a link, and does not follow it', () => {
    const elsewhere = homeWithFormerState().former;
    const home = tempDir();
    symlinkSync(elsewhere, join(home, FORMER_CODE_STATE_DIR));

    expect(moveFormerStateDir(home, log).outcome).toBe('refused');
    expect(lstatSync(join(home, FORMER_CODE_STATE_DIR)).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(elsewhere, 'repos.json'), 'utf8')).toBe(REPOS);
    expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
    expect(readCodeStatus(home).droppedLines).toBe(0);
  });

  it('neither moves nor reads a former name that is a file', () => {
    const home = tempDir();
    writeFileSync(join(home, FORMER_CODE_STATE_DIR), REPOS);

    expect(moveFormerStateDir(home, log).outcome).toBe('refused');
    expect(readFileSync(join(home, FORMER_CODE_STATE_DIR), 'utf8')).toBe(REPOS);
    expect(readableStateDir(home)).toBe(join(home, CODE_STATE_DIR));
  });

  it('changes nothing on a new machine', () => {
    const home = tempDir();
    expect(moveFormerStateDir(home, log)).toEqual({ dir: join(home, CODE_STATE_DIR), outcome: 'none' });
    expect(existsSync(join(home, CODE_STATE_DIR))).toBe(false);
  });
});
