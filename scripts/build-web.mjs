#!/usr/bin/env node
// Builds the dashboard (web/ → web/dist) with Vite when the build is missing or older than any of its
// sources; `--force` always builds. Used by `npm run build:web`, by `npm start` (`demo --build` runs it
// beside the sample load) and by the test suite's global setup, so nothing is built twice and nothing is
// fetched at run time.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../web/', import.meta.url));

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether web/dist is missing or older than a source of it. */
export function webBuildIsStale() {
  const built = join(web, 'dist', 'index.html');
  if (!existsSync(built)) return true;
  // common/csv-cells.ts: the one file of ours outside web/ the dashboard bundles (the CSV formula rule).
  const sources = ['src', 'public', 'index.html', 'vite.config.ts', '../common/csv-cells.ts'].map((p) => join(web, p)).filter(existsSync);
  return Math.max(...sources.map(newest)) > statSync(built).mtimeMs;
}

export async function buildWeb({ force = false } = {}) {
  if (!force && !webBuildIsStale()) return false;
  const { build } = await import('vite');
  await build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn' });
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildWeb({ force: process.argv.includes('--force') });
  process.stdout.write(built ? 'dashboard built into web/dist\n' : 'dashboard build is up to date (web/dist)\n');
}
