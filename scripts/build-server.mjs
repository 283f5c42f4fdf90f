#!/usr/bin/env node
// Builds the server's JavaScript: the full CLI (cli/main.ts, with the server, the pipeline and every
// command it imports) bundled by esbuild into dist/server/, so that production runs plain JavaScript
// instead of compiling TypeScript through tsx at every start (and in every decode worker thread).
//
// What goes in is discovered, not listed: esbuild follows the imports from the CLI's entry, so a module
// someone adds later is in as soon as something imports it; lazy imports (`await import(...)`, which keep
// `--help` from loading DuckDB) become chunks of their own, loaded as lazily as before. Worker threads
// start from a file, not an import: every `*-worker.ts` under the source folders is an entry of its own
// (dist/server/<name>.mjs), which its pool finds beside itself (api/ingest/decode-pool.ts).
//
// Files read at run time beside the code (SQL, pricing.json, migrations, install.sh, web/dist) stay where
// they are: in each of our modules `import.meta.url` and `import.meta.dirname` are rewritten to the
// module's own source location, so `new URL('./sql/', import.meta.url)` means the same built or not.
// Packages stay in node_modules (DuckDB is native; nothing gains from copying the rest).
//
// bin/agentmeter.js calls ensureServerBuild() at each start: built when missing or when a file it was
// built from (esbuild's metafile lists them) is newer; `npm ci`/`npm install` build it first (the
// `prepare` script, scripts/build.mjs). `--force` always builds.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_DIR = join(root, 'dist', 'server');
export const SERVER_ENTRY = join(SERVER_DIR, 'agentmeter.mjs');
export const SERVER_META = join(SERVER_DIR, 'meta.json');
/** The folders whose `*-worker.ts` files are worker-thread entries (every folder of server code). */
const SOURCE_DIRS = ['api', 'cli', 'collector', 'common', 'computer', 'pipeline', 'readiness', 'sample-data'];
/** Besides the metafile's inputs, what a build depends on. */
const ALSO = ['package.json', 'scripts/build-server.mjs'];

function workerEntries(dir = '') {
  const found = [];
  for (const top of dir ? [dir] : SOURCE_DIRS) {
    const path = join(root, top);
    if (!existsSync(path)) continue;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const rel = join(top, entry.name);
      if (entry.isDirectory()) found.push(...workerEntries(rel));
      else if (entry.name.endsWith('-worker.ts')) found.push(rel);
    }
  }
  return found;
}

/** Whether dist/server is missing, or older than a file it was built from or a worker entry. */
export function serverBuildIsStale() {
  let meta;
  try {
    meta = JSON.parse(readFileSync(SERVER_META, 'utf8'));
    if (!existsSync(SERVER_ENTRY)) return true;
  } catch {
    return true;
  }
  const built = statSync(SERVER_META).mtimeMs;
  const sources = Object.keys(meta.inputs);
  // Their folders too: a file added to one (a migration the glob import in common/db/duckdb.ts takes)
  // changes the folder's time, not any source's.
  const workers = workerEntries();
  const inputs = [...sources, ...new Set(sources.map((p) => dirname(p))), ...ALSO, ...workers];
  for (const input of inputs) {
    try {
      if (statSync(join(root, input)).mtimeMs > built) return true;
    } catch {
      return true; // a source it was built from is gone
    }
  }
  // A new worker entry is not among the inputs yet.
  return workers.some((w) => !(w.split(sep).join('/') in meta.inputs));
}

/** esbuild plugin: in our own modules, import.meta.url/dirname/filename name the source file, not the bundle. */
function sourceLocations(outdir) {
  return {
    name: 'agentmeter-source-locations',
    setup(build) {
      build.onLoad({ filter: /\.tsx?$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!/import\.meta\.(url|dirname|filename)\b/.test(text)) return undefined;
        const fromBundle = relative(outdir, args.path).split(sep).join('/');
        const prefix =
          `import { fileURLToPath as __amToPath } from 'node:url';` +
          `const __amUrl = new URL(${JSON.stringify(fromBundle)}, import.meta.url).href;` +
          'const __amFile = __amToPath(__amUrl);' +
          `const __amDir = __amToPath(new URL('.', __amUrl));`;
        const contents = text
          .replace(/import\.meta\.url\b/g, '__amUrl')
          .replace(/import\.meta\.dirname\b/g, '__amDir')
          .replace(/import\.meta\.filename\b/g, '__amFile');
        // The prefix goes on the first line so that line numbers in stack traces stay the source's.
        return { contents: `${prefix}${contents}`, loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}

export async function buildServer({ force = false } = {}) {
  if (!force && !serverBuildIsStale()) return false;
  const { build } = await import('esbuild');
  // Built beside the final folder and swapped in, so that a process starting meanwhile loads the old
  // build or the new one, never half of each.
  const temporary = `${SERVER_DIR}.${process.pid}.tmp`;
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary, { recursive: true });
  const entryPoints = [
    { in: join(root, 'cli', 'main.ts'), out: 'agentmeter' },
    ...workerEntries().map((w) => ({ in: join(root, w), out: w.split(sep).pop().replace(/\.ts$/, '') })),
  ];
  const result = await build({
    entryPoints,
    outdir: temporary,
    outExtension: { '.js': '.mjs' },
    // Every chunk in the one folder: the source locations above are relative to it.
    chunkNames: 'chunk-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    define: { __AGENTMETER_BUILT__: 'true' },
    plugins: [sourceLocations(temporary)],
  });
  // The metafile's paths are relative to the working folder; kept relative to the repository instead.
  const inputs = Object.fromEntries(
    Object.entries(result.metafile.inputs).map(([path, value]) => [relative(root, join(process.cwd(), path)).split(sep).join('/'), value]),
  );
  writeFileSync(join(temporary, 'meta.json'), `${JSON.stringify({ inputs })}\n`);
  const old = `${SERVER_DIR}.${process.pid}.old`;
  if (existsSync(SERVER_DIR)) renameSync(SERVER_DIR, old);
  renameSync(temporary, SERVER_DIR);
  rmSync(old, { recursive: true, force: true });
  return true;
}

/** Builds dist/server when missing or stale (what bin/agentmeter.js runs before loading it). */
export async function ensureServerBuild() {
  if (!serverBuildIsStale()) return false;
  return buildServer({ force: true });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildServer({ force: process.argv.includes('--force') });
  process.stdout.write(`${built ? 'server built' : 'server build is up to date'}: ${SERVER_DIR}\n`);
}
