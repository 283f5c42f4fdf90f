// A folder no one may write into, for the tests of a read-only disk: mode 0555 for a user, and for root
// (whom modes do not stop) the immutable attribute, which stops root too on the file systems that have
// it (ext4, xfs, btrfs). Undefined where neither works: the test is then skipped, not passed.
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a file can be created in `dir` (the probe is removed). */
function writable(dir: string): boolean {
  const probe = join(dir, '.write-probe');
  try {
    writeFileSync(probe, '');
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}

/** Makes `dir` unwritable; answers the function that undoes it, or undefined when it cannot be done here. */
export function makeUnwritable(dir: string): (() => void) | undefined {
  if (process.getuid?.() !== 0) {
    chmodSync(dir, 0o555);
    if (!writable(dir)) return () => chmodSync(dir, 0o700);
    chmodSync(dir, 0o700);
    return undefined;
  }
  if (spawnSync('chattr', ['+i', dir]).status !== 0) return undefined;
  const undo = () => void spawnSync('chattr', ['-i', dir]);
  if (!writable(dir)) return undo;
  undo();
  return undefined;
}
