// Where the sample replay keeps its throwaway homes.
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { scratchBase } from '../../sample-data/load.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('scratchBase', () => {
  it('takes a chosen TMPDIR over memory', () => {
    expect(scratchBase({ TMPDIR: tmpdir() }, '/dev/shm')).toBe(tmpdir());
  });

  it('passes over a folder that is not a tmpfs, and one that does not exist', () => {
    const disk = tempDir();
    // The test's own temporary folder is a tmpfs on some machines: then this case says nothing.
    if (statfsSync(disk).type !== 0x01021994) expect(scratchBase({}, disk)).toBe(tmpdir());
    expect(scratchBase({}, '/nonexistent/agentmeter-shm')).toBe(tmpdir());
  });

  it('takes /dev/shm where it is a tmpfs with room', () => {
    let shm: { type: number; free: number } | undefined;
    try {
      const fs = statfsSync('/dev/shm');
      shm = { type: fs.type, free: fs.bavail * fs.bsize };
    } catch {
      shm = undefined;
    }
    const expected = shm && shm.type === 0x01021994 && shm.free >= 256 * 1024 * 1024 ? '/dev/shm' : tmpdir();
    expect(scratchBase({}, '/dev/shm')).toBe(expected);
  });
});
