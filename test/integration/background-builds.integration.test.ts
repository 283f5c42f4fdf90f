// What `npm start` (`demo --build`) builds beside loading the sample: the dashboard and the laptop bundle.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildAssetsInBackground } from '../../cli/background-builds.ts';
import { LAPTOP_BUNDLE, LAPTOP_HOOK, laptopBuildIsStale } from '../../scripts/build-laptop.mjs';
import { webBuildIsStale } from '../../scripts/build-web.mjs';

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
});
