// The spool's quarantine (bad/) is bounded: past the collector's bound, a drain removes the oldest entries,
// each with its .reason, down to 90% of it, so that a server refusing every event for days cannot fill the
// developer's disk. Only the collector's own regular files go: a link and its target stay.
import { existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import type { WireRecord } from '../../common/wire.ts';
import { recordingServerForTests } from '../helpers/recording-server.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-quarantine-bound', level: 'silent' });
const records: WireRecord[] = [];
const server = recordingServerForTests(records);

describe("the collector's quarantine", () => {
  it('keeps at most its bound: the oldest entries go with their reasons, down to 90% of it', async () => {
    const dir = tempDir();
    const agentmeterHome = join(dir, 'am');
    const bad = spoolDirs(agentmeterHome).bad;
    mkdirSync(bad, { recursive: true });
    // 14 entries, entry-0 the oldest; a link to a file outside, older than all of them.
    const start = Date.UTC(2026, 10, 1) / 1000;
    for (let i = 0; i < 14; i++) {
      const name = `entry-${String(i).padStart(2, '0')}`;
      writeFileSync(join(bad, name), '{}');
      writeFileSync(join(bad, `${name}.reason`), 'refused\n');
      utimesSync(join(bad, name), start + i * 60, start + i * 60);
    }
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'not the collector’s');
    symlinkSync(outside, join(bad, 'a-link'));
    const collector = new Collector({
      server: server.url,
      apiKey: 'am_test',
      agentmeterHome,
      home: join(dir, 'home'),
      log,
      quarantineMost: 10,
    });
    expect((await collector.drain()).error).toBeUndefined();
    await collector.close();
    // 15 entries (the link too) pass the bound of 10: the 5 oldest of the collector's 14 go, 9 (90%) stay.
    const left = readdirSync(bad).sort();
    expect(left.filter((n) => !n.endsWith('.reason'))).toEqual([
      'a-link',
      'entry-05',
      'entry-06',
      'entry-07',
      'entry-08',
      'entry-09',
      'entry-10',
      'entry-11',
      'entry-12',
      'entry-13',
    ]);
    expect(left.filter((n) => n.endsWith('.reason'))).toHaveLength(9);
    expect(existsSync(outside)).toBe(true);
  });
});
