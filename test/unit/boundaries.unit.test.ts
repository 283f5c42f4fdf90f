// The layout is the architecture: hooks/ imports nothing of ours, api/ never imports the collector, the
// collector never imports the api, the computer agent only common/, and common/ imports none of the stages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function ourImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].map((m) => m[1]!);
  return found.map((spec) => relative(ROOT, resolve(dirname(file), spec)).split('/')[0]!);
}

const RULES: Record<string, string[]> = {
  hooks: ['hooks'],
  // package.json: the version (common/version.ts), which the laptop bundle must carry inside itself.
  common: ['common', 'package.json'],
  collector: ['collector', 'common', 'hooks'],
  pipeline: ['pipeline', 'common'],
  api: ['api', 'common', 'pipeline'],
  readiness: ['readiness', 'common'],
  computer: ['computer', 'common'],
};

describe('module boundaries', () => {
  for (const [folder, allowed] of Object.entries(RULES)) {
    it(`${folder}/ imports only ${allowed.join(', ')}`, () => {
      const offenders: string[] = [];
      let files: string[] = [];
      try {
        files = sources(join(ROOT, folder));
      } catch {
        return;
      }
      for (const file of files) {
        for (const target of ourImports(file)) if (!allowed.includes(target)) offenders.push(`${relative(ROOT, file)} → ${target}/`);
      }
      expect(offenders).toEqual([]);
    });
  }
});
