#!/usr/bin/env node
// Builds the laptop bundle: cli/laptop.ts and what it imports, in one minified ESM file without native
// dependencies (dist/laptop/agentmeter.mjs), with the hook script beside it (dist/laptop/agentmeter-hook.sh)
// and esbuild's metafile (dist/laptop/meta.json: which sources went in). The server serves the first two
// under /install/<version>/ (api/install/). Built when missing or older than a source; `--force` always
// builds. Used by `npm start` (`demo --build` runs it beside the sample load), by the test suite's global
// setup, and by `npm run build:laptop`.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const LAPTOP_DIR = join(root, 'dist', 'laptop');
export const LAPTOP_BUNDLE = join(LAPTOP_DIR, 'agentmeter.mjs');
export const LAPTOP_HOOK = join(LAPTOP_DIR, 'agentmeter-hook.sh');
export const LAPTOP_META = join(LAPTOP_DIR, 'meta.json');
// Everything the bundle can be built from (a superset is fine: a stale check that is sometimes too eager
// costs one build; one that misses a source serves an old bundle).
const SOURCES = ['cli', 'collector', 'common', 'computer', 'hooks', 'readiness', 'package.json', 'scripts/build-laptop.mjs'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether the bundle, its hook script or its metafile is missing or older than a source. */
export function laptopBuildIsStale() {
  if (![LAPTOP_BUNDLE, LAPTOP_HOOK, LAPTOP_META].every(existsSync)) return true;
  const built = Math.min(...[LAPTOP_BUNDLE, LAPTOP_HOOK, LAPTOP_META].map((p) => statSync(p).mtimeMs));
  return (
    Math.max(
      ...SOURCES.map((p) => join(root, p))
        .filter(existsSync)
        .map(newest),
    ) > built
  );
}

export async function buildLaptop({ force = false } = {}) {
  if (!force && !laptopBuildIsStale()) return false;
  const { build } = await import('esbuild');
  mkdirSync(LAPTOP_DIR, { recursive: true });
  // Each file is written beside its final name and renamed into place: a server answering meanwhile
  // (`npm start` builds beside the load) serves the old file or the new one, never half of one. The hook
  // script goes first and the bundle last, as the staleness check takes the oldest of the three.
  const temporary = (path) => `${path}.${process.pid}.tmp`;
  const result = await build({
    entryPoints: [join(root, 'cli', 'laptop.ts')],
    outfile: temporary(LAPTOP_BUNDLE),
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Syntax old Node.js versions can parse, so that cli/laptop-guard.ts (the first statement) runs there
    // and says which version is needed, instead of a SyntaxError. The guard then refuses below MIN_NODE.
    target: 'node16',
    minify: true,
    // The licenses of the bundled packages (MIT, ISC) travel with the code, at the end of the file.
    legalComments: 'eof',
    metafile: true,
    logLevel: 'warning',
    // The installer reads the hook script beside the bundle (common/built.ts).
    define: { __AGENTMETER_LAPTOP__: 'true' },
    // Bundled CommonJS packages (pino) call require() for Node's own modules.
    banner: { js: "import{createRequire as __amRequire}from'node:module';const require=__amRequire(import.meta.url);" },
  });
  copyFileSync(join(root, 'hooks', 'agentmeter-hook.sh'), temporary(LAPTOP_HOOK));
  chmodSync(temporary(LAPTOP_HOOK), 0o755);
  renameSync(temporary(LAPTOP_HOOK), LAPTOP_HOOK);
  writeFileSync(temporary(LAPTOP_META), `${JSON.stringify(result.metafile)}\n`);
  renameSync(temporary(LAPTOP_META), LAPTOP_META);
  renameSync(temporary(LAPTOP_BUNDLE), LAPTOP_BUNDLE);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildLaptop({ force: process.argv.includes('--force') });
  const size = statSync(LAPTOP_BUNDLE).size;
  process.stdout.write(
    `${built ? 'laptop bundle built' : 'laptop bundle is up to date'}: ${LAPTOP_BUNDLE} (${(size / 1024).toFixed(0)} KiB)\n`,
  );
}
