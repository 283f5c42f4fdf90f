// One name per feature across folders, files, routes and the page: the code the agents wrote is "code"
// (ARCHITECTURE.md, Decisions). Its former name, "impact", must not come back in a file or folder name
// (the collector moves its former state folder once: collector/code/state-dir.ts).
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_ROUTES } from '../../api/dashboard/routes.ts';
import { ROOT } from '../helpers/processes.ts';

/** Folders that are not the project's own files: dependencies, build output, git, local data. */
const SKIPPED = new Set(['node_modules', 'dist', '.git', 'data', 'out']);

function paths(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return [relative(ROOT, path), ...(entry.isDirectory() ? paths(path) : [])];
  });
}

/** The names among `all` that carry the former name. */
const formerNames = (all: string[]) => all.filter((path) => /impact/i.test(path.split('/').at(-1)!));

describe('the code feature has one name', () => {
  const all = paths(ROOT);

  it('no file or folder is named after "impact"', () => {
    expect(all).toContain('collector/code/tracker.ts');
    expect(all).toContain('api/code/routes.ts');
    expect(all).toContain('web/src/pages/Code.tsx');
    expect(formerNames(all)).toEqual([]);
  });

  it('the check finds the former name in a file or a folder', () => {
    expect(formerNames(['collector/impact', 'web/src/pages/Impact.tsx', 'docs/code.md', 'test/unit/impact-x.unit.test.ts'])).toEqual([
      'collector/impact',
      'web/src/pages/Impact.tsx',
      'test/unit/impact-x.unit.test.ts',
    ]);
  });

  it('the dashboard serves the page at /code', () => {
    expect(CLIENT_ROUTES).toContain('/code');
  });
});
