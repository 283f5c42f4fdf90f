// The layout is the architecture: hooks/ holds the hook script only, api/ never imports the collector, the
// collector never imports the api, the computer agent only common/, common/ imports none of the stages,
// the dashboard (web/) only itself and common/ (pure modules both sides share, such as the CSV cell
// guard; Vite bundles them, so one that needs Node fails the dashboard's build), and nothing of the product imports bench/ or test/. A folder listed
// here that is missing or holds no sources fails: a moved folder must move its rule too, or the rule
// would pass on nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

/** Folders inside a checked folder that hold no sources of it (build output, dependencies). */
const SKIPPED = new Set(['node_modules', 'dist', 'out']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function ourImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1]!);
  return found.map((spec) => relative(ROOT, resolve(dirname(file), spec)).split('/')[0]!);
}

const RULES: Record<string, string[]> = {
  // package.json: the version (common/version.ts), which the laptop bundle must carry inside itself.
  common: ['common', 'package.json'],
  collector: ['collector', 'common'],
  pipeline: ['pipeline', 'common'],
  api: ['api', 'common', 'pipeline'],
  readiness: ['readiness', 'common'],
  computer: ['computer', 'common'],
  // The dashboard runs in the browser: it talks to the server over HTTP only.
  web: ['web', 'common'],
  // The CLI wires every stage to its commands; it never reaches into the tests or the benchmarks.
  cli: ['cli', 'api', 'collector', 'common', 'computer', 'package.json', 'pipeline', 'readiness', 'sample-data'],
  // The sample goes through the real hook, collector, store and batch.
  'sample-data': ['sample-data', 'api', 'collector', 'common', 'pipeline'],
  // The benchmarks may use everything, the test helpers and the build scripts included.
  bench: ['bench', 'api', 'collector', 'common', 'pipeline', 'scripts', 'test', 'cli', 'sample-data', 'web'],
};

describe('module boundaries', () => {
  for (const [folder, allowed] of Object.entries(RULES)) {
    it(`${folder}/ imports only ${allowed.join(', ')}`, () => {
      expect(existsSync(join(ROOT, folder)), `${folder}/ is missing: move its rule with it`).toBe(true);
      const files = sources(join(ROOT, folder));
      expect(files.length, `${folder}/ holds no TypeScript sources`).toBeGreaterThan(0);
      const offenders: string[] = [];
      for (const file of files) {
        for (const target of ourImports(file)) if (!allowed.includes(target)) offenders.push(`${relative(ROOT, file)} → ${target}/`);
      }
      expect(offenders).toEqual([]);
    });
  }

  it('hooks/ holds the hook script only (the installer that copies it is collector/install/)', () => {
    expect(readdirSync(join(ROOT, 'hooks'))).toEqual(['agentmeter-hook.sh']);
  });

  it('every folder of sources has a rule', () => {
    const withSources = readdirSync(ROOT).filter(
      (name) =>
        !name.startsWith('.') &&
        !['node_modules', 'dist', 'test', 'scripts', 'docs', 'data'].includes(name) &&
        statSync(join(ROOT, name)).isDirectory() &&
        sources(join(ROOT, name)).length > 0,
    );
    expect(withSources.filter((name) => !(name in RULES))).toEqual([]);
  });
});
