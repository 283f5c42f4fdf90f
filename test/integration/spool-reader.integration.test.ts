// The collector reads its batches of spool files on a worker thread (collector/spool-reader.ts): it must
// read exactly as readEntry does, one file at a time on the loop: the hook's files parsed with their tmp/
// twin, everything else (a link, a folder, a fifo, a socket, a misnamed entry, a file linked in from
// elsewhere) left alone with its reason and never followed or waited on, in the listing's order, across
// the several answers a batch takes (by count and by bytes).

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSpool, HOOK_BODY_CAP, listNew, readEntry, type SpoolRead, spoolDirs } from '../../collector/spool.ts';
import { readEntries } from '../../collector/spool-reader.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const event = (i: number) => ({ session_id: `s-${i}`, hook_event_name: 'PostToolUse', tool_name: 'Bash', cwd: '/w' });

/** A read with its body as a digest: comparing megabytes byte by byte in expect is slow. */
const summary = (read: SpoolRead) =>
  read.kind === 'ok' ? { ...read.value, body: createHash('sha256').update(read.value.body).digest('hex') } : read;

async function readAll(dirs: ReturnType<typeof spoolDirs>, names: string[]): Promise<[string, SpoolRead][]> {
  const out: [string, SpoolRead][] = [];
  for await (const slice of readEntries(dirs, names)) out.push(...slice);
  return out;
}

describe('the spool reader worker', () => {
  it('reads as readEntry does, in order, across answers split by count and by bytes, following nothing', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const dirs = spoolDirs(amHome);
    ensureSpool(dirs);
    // More files than two answers hold by count, and nine of about a megabyte, more than one holds by bytes.
    for (let i = 0; i < 1300; i++) writeSpoolFile(amHome, event(i));
    const big = `{"session_id":"big","hook_event_name":"Stop","pad":"${'x'.repeat(HOOK_BODY_CAP - 100)}"}`;
    for (let i = 0; i < 9; i++) writeSpoolFile(amHome, big);
    // One the hook wrote with no tmp/ twin left (a file with one link), and one that is not JSON.
    writeFileSync(join(dirs.new, 'test-single-1'), 'agentmeter-spool=1\nagent=claude\n\n{"session_id":"one"}');
    writeFileSync(join(dirs.new, 'test-nohead-1'), 'not a spool file');
    const outside = join(home, 'outside');
    writeFileSync(outside, 'agentmeter-spool=1\nagent=claude\n\n{"session_id":"outside"}');
    symlinkSync(outside, join(dirs.new, 'test-link-1'));
    linkSync(outside, join(dirs.new, 'test-hardlink-1'));
    // A second link whose tmp/ name is another file: not the hook's twin.
    linkSync(outside, join(dirs.new, 'test-hardlink-2'));
    writeFileSync(join(dirs.tmp, 'test-hardlink-2'), 'another file');
    mkdirSync(join(dirs.new, 'test-dir-1'));
    expect(spawnSync('mkfifo', [join(dirs.new, 'test-fifo-1')]).status).toBe(0);
    writeFileSync(join(dirs.new, '.hidden'), 'agentmeter-spool=1\nagent=claude\n\n{}');
    const socket = createServer();
    await new Promise<void>((resolve) => socket.listen(join(dirs.new, 'test-socket-1'), resolve));
    try {
      const names = listNew(dirs);
      expect(names.length).toBe(1300 + 9 + 9);
      const reads = await readAll(dirs, names);
      expect(reads.map(([name]) => name)).toEqual(names);
      expect(reads.map(([, read]) => summary(read))).toEqual(names.map((name) => summary(readEntry(dirs, name))));

      const byName = new Map(reads);
      const reason = (name: string) => (byName.get(name) as { reason: string }).reason;
      expect(reason('test-link-1')).toBe('a symbolic link');
      expect(reason('test-dir-1')).toBe('a folder');
      expect(reason('test-fifo-1')).toBe('not a regular file');
      expect(reason('test-socket-1')).toBe('not a regular file');
      expect(reason('.hidden')).toBe('its name is not one the hook gives');
      expect(reason('test-hardlink-1')).toBe('has other hard links');
      expect(reason('test-hardlink-2')).toBe('has other hard links');
      expect(byName.get('test-nohead-1')?.kind).toBe('quarantine');
      const ok = reads.filter(([, read]) => read.kind === 'ok').map(([, read]) => read as Extract<SpoolRead, { kind: 'ok' }>);
      expect(ok).toHaveLength(1300 + 9 + 1);
      // Every file the hook delivered by a hard link is known to have its tmp/ twin; the single one not.
      expect(ok.filter((read) => read.value.twin).length).toBe(1309);
      expect(ok.filter((read) => read.value.body.length > HOOK_BODY_CAP - 100)).toHaveLength(9);
      // Nothing was moved or removed by reading.
      expect(readdirSync(dirs.new).sort()).toEqual([...names].sort());
    } finally {
      await new Promise((resolve) => socket.close(resolve));
    }
  });

  it('reads nothing and yields nothing for an empty batch', async () => {
    const dirs = spoolDirs(join(tempDir(), '.agentmeter'));
    ensureSpool(dirs);
    expect(await readAll(dirs, [])).toEqual([]);
  });
});
