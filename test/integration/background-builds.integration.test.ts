// What `npm start` (`demo --build`) builds beside loading the sample: the dashboard and the laptop bundle.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_NICENESS, buildAssetsInBackground, buildNiceness, startBuild } from '../../cli/background-builds.ts';
import { LAPTOP_BUNDLE, LAPTOP_HOOK, laptopBuildIsStale } from '../../scripts/build-laptop.mjs';
import { webBuildIsStale } from '../../scripts/build-web.mjs';
import { tempDir } from '../helpers/tmp.ts';

describe('buildAssetsInBackground', () => {
  it('leaves the dashboard and the laptop bundle built and up to date (the suite built them: nothing is rebuilt)', async () => {
    const index = join(import.meta.dirname, '..', '..', 'web', 'dist', 'index.html');
    const before = [index, LAPTOP_BUNDLE].map((p) => statSync(p).mtimeMs);
    await buildAssetsInBackground();
    expect([index, LAPTOP_BUNDLE, LAPTOP_HOOK].every(existsSync)).toBe(true);
    expect(webBuildIsStale()).toBe(false);
    expect(laptopBuildIsStale()).toBe(false);
    expect([index, LAPTOP_BUNDLE].map((p) => statSync(p).mtimeMs)).toEqual(before);
  });

  it('runs each build at a lower priority (the sample load comes first), and reports a failed one with what it said', async () => {
    const dir = tempDir();
    const slow = join(dir, 'slow-build.mjs');
    writeFileSync(slow, 'setTimeout(() => {}, 500);\n');
    const build = startBuild('a slow thing', slow);
    expect(getPriority(build.child.pid)).toBe(buildNiceness());
    expect(buildNiceness()).toBeGreaterThanOrEqual(BUILD_NICENESS);
    await build.done;
    const failing = join(dir, 'failing-build.mjs');
    writeFileSync(failing, "process.stderr.write('vite: something broke'); process.exit(3);\n");
    await expect(startBuild('the dashboard', failing).done).rejects.toThrow(
      /building the dashboard \(node scripts\/failing-build\.mjs\) failed \(3\):\nvite: something broke/,
    );
  });
});
