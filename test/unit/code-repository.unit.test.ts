// Pure parts of the code figures' repositories, records and names (docs/metrics.md §5), on hand-worked fixtures: a
// commit record's split by agent, model and session; repository names the wire refuses; the path an
// edit outside a work tree is excluded by; a path's real path and a work tree's common git folder.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outsideTreePath } from '../../collector/code/event-edits.ts';
import { commonDirOf, realPathOf } from '../../collector/code/repository.ts';
import { creditRecords } from '../../collector/code/tracker.ts';
import { repoNameProblem } from '../../common/repo-id.ts';
import { MAX_COMMIT_SESSIONS } from '../../common/wire.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('creditRecords', () => {
  it('splits agent lines by agent and model, and by agent and session, largest first', () => {
    const out = creditRecords(
      new Map([
        ['claude\0opus\0s1', 3],
        ['claude\0sonnet\0s1', 2],
        ['claude\0opus\0s2', 4],
        ['codex\0\0c1', 1],
      ]),
    );
    expect(out.by_agent).toEqual([
      { agent: 'claude', model: 'opus', lines: 7 },
      { agent: 'claude', model: 'sonnet', lines: 2 },
      { agent: 'codex', model: 'unknown', lines: 1 },
    ]);
    expect(out.by_session).toEqual([
      { agent: 'claude', session_id: 's1', lines: 5 },
      { agent: 'claude', session_id: 's2', lines: 4 },
      { agent: 'codex', session_id: 'c1', lines: 1 },
    ]);
  });

  it('past the bound, merges the smallest sessions per agent: the sum stays exact', () => {
    const sources = new Map<string, number>();
    for (let i = 0; i < 300; i++) sources.set(`claude\0m\0s${i}`, i + 1);
    const out = creditRecords(sources);
    expect(out.by_session!.length).toBeLessThanOrEqual(MAX_COMMIT_SESSIONS);
    expect(out.by_session!.reduce((n, s) => n + s.lines, 0)).toBe((300 * 301) / 2);
    expect(out.by_session!.at(-1)!.session_id).toBe('');
  });
});

describe('repoNameProblem', () => {
  it('takes host/path and local:<id>, refuses what a readiness report may not carry', () => {
    expect(repoNameProblem('github.com/acme/shop')).toBeUndefined();
    expect(repoNameProblem('local:71b7de4e526d01dd')).toBeUndefined();
    for (const bad of [
      'file:///home/dev/shop',
      'https://github.com/acme/shop',
      '/home/dev/shop',
      '~/shop',
      './shop',
      'C:\\\\src\\\\shop',
      'tok:secret@github.com/acme/shop',
      'user@github.com/acme/shop',
      'github.com/acme/shop?x=1',
      'github.com/acme/sh\u0007op',
      'github.com/acme/shop\n',
      'shop',
      'local:../x',
    ])
      expect(repoNameProblem(bad), bad).toBeDefined();
  });
});

describe('outsideTreePath', () => {
  it('matches an edit outside any work tree by its path under the session folder, else its base name', () => {
    expect(outsideTreePath('/home/u/build/notes/a.ts', '/home/u/build/notes')).toBe('a.ts');
    expect(outsideTreePath('/home/u/build/notes/dist/a.js', '/home/u/build/notes')).toBe('dist/a.js');
    expect(outsideTreePath('/elsewhere/build/a.ts', '/home/u')).toBe('a.ts');
    expect(outsideTreePath('lib/a.ts', undefined)).toBe('lib/a.ts');
  });
});

describe('realPathOf and commonDirOf', () => {
  it('resolves links on the way to a path that need not exist, and a linked worktree to its common folder', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real', '.git', 'worktrees', 'wt'), { recursive: true });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    expect(realPathOf(join(dir, 'link', 'src', 'new.ts'))).toBe(join(realPathOf(dir), 'real', 'src', 'new.ts'));
    expect(commonDirOf(join(dir, 'real'))).toBe(join(realPathOf(dir), 'real', '.git'));
    // A linked worktree: `.git` is a file naming its folder, whose `commondir` names the common one.
    mkdirSync(join(dir, 'wt'));
    writeFileSync(join(dir, 'wt', '.git'), `gitdir: ${join(dir, 'real', '.git', 'worktrees', 'wt')}\n`);
    writeFileSync(join(dir, 'real', '.git', 'worktrees', 'wt', 'commondir'), '../..\n');
    expect(commonDirOf(join(dir, 'wt'))).toBe(join(realPathOf(dir), 'real', '.git'));
    expect(commonDirOf(join(dir, 'nothing'))).toBeUndefined();
  });
});
