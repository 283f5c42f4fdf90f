// The private ledger (docs/metrics.md §5 "Ledger") and a commit's lines from git's diff output.
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLinguistRules } from '../../collector/code/exclude.ts';
import { DiffCounter, unquote } from '../../collector/code/landed.ts';
import { Ledger, repoFileKey } from '../../collector/code/ledger.ts';
import { modelAt } from '../../collector/code/tracker.ts';
import { tempDir } from '../helpers/tmp.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20);

describe('the ledger', () => {
  it('stores keyed hashes only, in 0600 files of 0700 folders', () => {
    const dir = join(tempDir(), 'code');
    const ledger = new Ledger(dir);
    ledger.append('/repo', [
      { relPath: 'src/a.ts', fingerprints: ['const secret = 1;', 'const secret = 1;'], ts: NOW, agent: 'claude', model: 'm' },
    ]);
    const file = join(dir, 'ledger', `${repoFileKey('/repo')}.lines`);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('src/a.ts');
    expect(text.trim().split('\n')).toHaveLength(3);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dir, 'key')).mode & 0o777).toBe(0o600);
    // The same line of another file, or of another machine's key, is another key.
    expect(ledger.lineKey('src/a.ts', 'x')).not.toBe(ledger.lineKey('src/b.ts', 'x'));
    expect(new Ledger(join(tempDir(), 'code')).lineKey('src/a.ts', 'x')).not.toBe(ledger.lineKey('src/a.ts', 'x'));
  });

  it('looks lines up by key, oldest first, and remembers what was credited', () => {
    const ledger = new Ledger(join(tempDir(), 'code'));
    ledger.append('/r', [{ relPath: 'a', fingerprints: ['x'], ts: NOW - DAY, agent: 'codex', model: 'g' }]);
    ledger.append('/r', [{ relPath: 'a', fingerprints: ['x', 'y'], ts: NOW - 2 * DAY, agent: 'claude', model: 'c' }]);
    const key = ledger.lineKey('a', 'x');
    const { index } = ledger.lookup('/r', new Set([key]));
    expect(index.get(key)!.map((l) => l.agent)).toEqual(['claude', 'codex']);
    ledger.markCredited('/r', [index.get(key)![0]!.seq]);
    expect([...ledger.lookup('/r', new Set([key])).credited]).toEqual([index.get(key)![0]!.seq]);
  });

  it('compaction drops credited lines, lines past 30 days, and the oldest past the cap', () => {
    const ledger = new Ledger(join(tempDir(), 'code'));
    const lines = (ts: number, n: number) => ({
      relPath: 'a',
      fingerprints: Array.from({ length: n }, (_, i) => `l${ts}-${i}`),
      ts,
      agent: 'claude',
      model: 'm',
    });
    ledger.append('/r', [lines(NOW - 31 * DAY, 2), lines(NOW - 3 * DAY, 3), lines(NOW - DAY, 4)]);
    const old = ledger.lookup('/r', new Set([ledger.lineKey('a', `l${NOW - 3 * DAY}-0`)])).index;
    ledger.markCredited(
      '/r',
      [...old.values()][0]!.map((l) => l.seq),
    );
    expect(ledger.compact('/r', NOW, 5)).toEqual({ expired: 2, credited: 1, capped: 1, kept: 5 });
    // After compaction the old credited list no longer applies, and the oldest kept line went by the cap.
    const all = ledger.lookup('/r', new Set([ledger.lineKey('a', `l${NOW - 3 * DAY}-1`), ledger.lineKey('a', `l${NOW - 3 * DAY}-2`)]));
    expect([...all.index.values()].flat()).toHaveLength(1);
    expect(all.credited.size).toBe(0);
  });

  it('never writes through a link planted at its file', () => {
    const dir = join(tempDir(), 'code');
    mkdirSync(join(dir, 'ledger'), { recursive: true, mode: 0o700 });
    const target = join(tempDir(), 'target');
    writeFileSync(target, 'mine\n');
    symlinkSync(target, join(dir, 'ledger', `${repoFileKey('/r')}.lines`));
    const ledger = new Ledger(dir);
    expect(() => ledger.append('/r', [{ relPath: 'a', fingerprints: ['x'], ts: NOW, agent: 'claude', model: 'm' }])).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('mine\n');
  });
});

describe('a commit’s lines (DiffCounter)', () => {
  it('counts non-blank added and removed lines, leaves out excluded files, keeps fingerprints', () => {
    const counter = new DiffCounter(parseLinguistRules('gen/** linguist-generated\n'));
    for (const line of [
      'diff --git a/src/a.ts b/src/a.ts',
      'index 1..2 100644',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,2 +1,3 @@',
      '-old();',
      '+  new();',
      '+',
      '++++ plus',
      'diff --git a/gen/x.ts b/gen/x.ts',
      '--- /dev/null',
      '+++ b/gen/x.ts',
      '@@ -0,0 +1 @@',
      '+generated();',
      'diff --git a/gone.py b/gone.py',
      '--- a/gone.py',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-a = 1',
      '-b = 2',
      'diff --git a/img.png b/img.png',
      'Binary files a/img.png and b/img.png differ',
    ])
      counter.feed(line);
    expect(counter.result.linesAdded).toBe(2);
    expect(counter.result.linesDeleted).toBe(3);
    expect(Object.fromEntries(counter.result.adds)).toEqual({ 'src/a.ts': ['new();', '+++ plus'] });
  });

  it('matches only up to its cap, counting the rest', () => {
    const counter = new DiffCounter([], 2);
    for (const line of ['diff --git a/a b/a', '--- /dev/null', '+++ b/a', '@@ -0,0 +1,3 @@', '+1', '+2', '+3']) counter.feed(line);
    expect(counter.result).toMatchObject({ linesAdded: 3, unmatched: 1 });
    expect(counter.result.adds.get('a')).toEqual(['1', '2']);
  });

  it('undoes git’s quoting of a path', () => {
    expect(unquote('"b/caf\\303\\251 \\"x\\".ts"')).toBe('b/café "x".ts');
    expect(unquote('b/plain.ts')).toBe('b/plain.ts');
  });
});

describe('the model of an edit', () => {
  it('is the session’s latest model at or before the call; else the one remembered; else unknown', () => {
    const seen = [
      { agent: 'claude', sessionId: 's', ts: 100, model: 'a' },
      { agent: 'claude', sessionId: 's', ts: 200, model: 'b' },
      { agent: 'claude', sessionId: 't', ts: 50, model: 'other' },
    ];
    const touch = (ts: number, sessionId = 's') => ({ agent: 'claude', sessionId, ts });
    expect(modelAt(seen, {}, touch(150))).toBe('a');
    expect(modelAt(seen, {}, touch(200))).toBe('b');
    expect(modelAt(seen, {}, touch(99))).toBe('unknown');
    expect(modelAt(seen, { 'claude\0s': { ts: 10, model: 'earlier' } }, touch(99))).toBe('earlier');
  });
});
