#!/usr/bin/env node
// Builds everything the server serves and runs, each part only when missing or older than its sources:
// the dashboard (web/dist, Vite), the laptop bundle /install.sh hands out (dist/laptop, esbuild) and the
// server's own JavaScript (dist/server, esbuild). It is the package's `prepare` script, so `npm ci` and
// `npm install` end with a server ready to `serve` (docs/design/built-at-install.md says why then);
// `npm run build` runs it again (`-- --force` rebuilds all three).
import { fileURLToPath } from 'node:url';
import { buildLaptop } from './build-laptop.mjs';
import { buildServer } from './build-server.mjs';
import { buildWeb } from './build-web.mjs';

export async function buildAll({ force = false } = {}) {
  const parts = [
    ['dashboard (web/dist)', buildWeb],
    ['laptop bundle (dist/laptop)', buildLaptop],
    ['server (dist/server)', buildServer],
  ];
  // At once: Vite's build is mostly one core, esbuild's builds take the other.
  const results = await Promise.allSettled(parts.map(([, build]) => build({ force })));
  const lines = [];
  let failed = false;
  results.forEach((result, i) => {
    const what = parts[i][0];
    if (result.status === 'fulfilled') lines.push(`${what}: ${result.value ? 'built' : 'up to date'}`);
    else {
      failed = true;
      const missing = /Cannot find (package|module) '(vite|esbuild)'/.exec(String(result.reason));
      lines.push(
        missing
          ? `${what}: FAILED, ${missing[2]} is not installed: building needs the development dependencies (npm ci, not npm ci --omit=dev)`
          : `${what}: FAILED: ${result.reason?.stack ?? result.reason}`,
      );
    }
  });
  return { failed, lines };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { failed, lines } = await buildAll({ force: process.argv.includes('--force') });
  process.stdout.write(`agentmeter build:\n${lines.map((l) => `  ${l}\n`).join('')}`);
  if (failed) process.exit(1);
}
