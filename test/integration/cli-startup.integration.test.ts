// The CLI's light path: --version, --help and the commands a developer's machine runs (hooks, collect
// status, the help of every command) start without the server, DuckDB, the pipeline or the collector
// daemon. Each command imports those in its handler; a static import of one at the top of any command
// module would load it for every command (about 1,200 modules and two seconds instead of under 200).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, ROOT } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const TRACE = join(ROOT, 'test', 'helpers', 'module-trace.mjs');
const ROOT_URL = `${pathToFileURL(ROOT).href}/`;

/** The modules `agentmeter ...args` loaded (repository files as relative paths, packages as `pkg:name`) and its output. */
function traced(args: string[], extraEnv: Record<string, string> = {}): { modules: string[]; stdout: string } {
  const home = tempDir();
  const out = join(home, 'modules.txt');
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(TRACE).href, CLI, ...args], {
    env: cliEnv({ HOME: home, AGENTMETER_HOME: join(home, '.agentmeter'), AGENTMETER_MODULE_TRACE: out, ...extraEnv }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  expect(existsSync(out), 'the trace preload wrote nothing').toBe(true);
  const urls = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  const names = urls.map((url) => {
    const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (pkg) return `pkg:${pkg[1]}`;
    return url.startsWith(ROOT_URL) ? url.slice(ROOT_URL.length) : url;
  });
  return { modules: [...new Set(names)], stdout: run.stdout };
}

/** What only the server, the database commands, the collector daemon or the computer agent need. */
const HEAVY = [
  /^pkg:@duckdb\//,
  /^pkg:fastify$/,
  /^pkg:pino$/,
  /^pkg:chokidar$/,
  /^pkg:jose$/,
  /^pkg:prom-client$/,
  /^pkg:linguist-languages$/,
  /^api\//,
  /^pipeline\//,
  /^common\/db\//,
  /^sample-data\//,
  /^collector\/daemon\.ts$/,
  /^computer\//,
  /^readiness\//,
  /^cli\/listen\.ts$/,
  /^cli\/admin-backend\.ts$/,
];

const heavyIn = (modules: string[]) => modules.filter((m) => HEAVY.some((pattern) => pattern.test(m))).sort();

describe('the CLI starts without what its command does not run', { timeout: 120_000 }, () => {
  it('agentmeter --version answers from package.json without tsx or the CLI', () => {
    const { modules, stdout } = traced(['--version']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(stdout).toBe(`${pkg.version}\n`);
    expect(modules).toContain('bin/agentmeter.js');
    expect(modules.filter((m) => m === 'pkg:tsx' || m.endsWith('.ts'))).toEqual([]);
  });

  for (const args of [
    ['--help'],
    ['hooks', 'status', '--agent', 'claude'],
    ['collect', 'status'],
    ['doctor', '--help'],
    ['service', 'status', '--help'],
    ['serve', '--help'],
    ['users', 'add', '--help'],
    ['readiness', 'evaluate', '--help'],
    ['computer', 'run', '--help'],
  ]) {
    it(`agentmeter ${args.join(' ')}`, () => {
      const { modules, stdout } = traced(args);
      expect(modules).toContain('cli/main.ts');
      expect(heavyIn(modules)).toEqual([]);
      // A command's help, from the real binary, shows its examples (every command's: unit/cli-help).
      if (args.length > 1 && args.at(-1) === '--help') expect(stdout).toContain('Examples:');
    });
  }

  it('the trace sees DuckDB when a command opens a database (orgs list --db)', () => {
    const { modules } = traced(['orgs', 'list', '--db', join(tempDir(), 'a.duckdb')]);
    expect(modules).toContain('pkg:@duckdb/node-api');
    expect(modules).toContain('common/db/duckdb.ts');
    expect(modules).not.toContain('api/server.ts');
  });

  it('the built server (dist/server, as a plain install runs it) keeps --help light: no heavy package, no TypeScript', () => {
    // Not from the sources: the lazy imports are chunks of the bundle, loaded only by their command.
    const { modules, stdout } = traced(['--help'], { AGENTMETER_FROM_SOURCES: '' });
    expect(stdout).toContain('agentmeter serve');
    expect(modules).toContain('dist/server/agentmeter.mjs');
    expect(modules.filter((m) => m === 'pkg:tsx' || m.endsWith('.ts'))).toEqual([]);
    expect(modules.filter((m) => /^pkg:(@duckdb\/|fastify$|pino$|chokidar$|jose$|prom-client$|linguist-languages$)/.test(m))).toEqual([]);
  });
});
