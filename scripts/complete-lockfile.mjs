#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binary packages (DuckDB bindings,
// Rollup) when the registry mirror this machine reaches lacks them: `npm install` then leaves them out
// of the lock, and `npm ci` refuses a lock that misses an optional dependency. An entry names the version
// and the platform (os, cpu, libc, read from the package name); npm skips it on other platforms without
// fetching, and fetches it by version on its own platform. Run after `npm install`:
//   node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const OS = new Set(['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'openharmony', 'win32']);
const CPU = new Set(['arm', 'arm64', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x']);

/** "@rollup/rollup-linux-arm-musleabihf" → { os: ["linux"], cpu: ["arm"], libc: ["musl"] } */
export function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const i = parts.findIndex((p) => OS.has(p));
  if (i < 0 || !CPU.has(parts[i + 1])) return undefined;
  const os = parts[i];
  const rest = parts.slice(i + 2).join('-');
  const libc = os === 'linux' ? (rest.includes('musl') ? ['musl'] : ['glibc']) : undefined;
  return { os: [os], cpu: [parts[i + 1]], ...(libc ? { libc } : {}) };
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `${path ? `${path}/` : ''}node_modules/${dep}`.replace(
      /^node_modules\/(.*)\/node_modules\//,
      'node_modules/$1/node_modules/',
    );
    const hoisted = `node_modules/${dep}`;
    if (lock.packages[key] || lock.packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[hoisted] = { version, ...platform, license: 'MIT', optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} optional platform entries`);
