// A plain install works: on a fresh clone of this repository, after `npm install` (it runs the package's
// `prepare` script, as `npm ci` does), `agentmeter orgs add`, `users add` and `serve` as the README says,
// and the server answers 200 for the dashboard (/) and /install.sh with the laptop bundle, and stores
// an ingest batch through its decode worker threads. It runs the built server (dist/server) as
// production does: a module trace of the server process and its workers shows no TypeScript and no tsx.
//
// Cheap on purpose: the clone gets this checkout's node_modules as hard links (cp -al, about a second;
// nothing is downloaded) and `npm install` finds the tree complete, so what it does is what matters
// here, the lifecycle script that builds (across file systems, `npm ci` from npm's cache). `.ci/run`
// runs the full `npm ci` on a fresh clone.
// The clone is of the committed HEAD: uncommitted changes are not in it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_PATH } from '../../common/wire.ts';
import { cliEnv, lastLine, ROOT } from '../helpers/processes.ts';
import { turn } from '../helpers/records.ts';
import { tempDir } from '../helpers/tmp.ts';

const TRACE = pathToFileURL(join(ROOT, 'test', 'helpers', 'module-trace.mjs')).href;

let clone: string;
let home: string;
let install: ReturnType<typeof spawnSync>;

/** The environment of a user's shell: no AGENTMETER_FROM_SOURCES (the suite sets it for its own CLI runs). */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cliEnv({ HOME: home, AGENTMETER_HOME: join(home, '.agentmeter'), ...extra });
  delete env['AGENTMETER_FROM_SOURCES'];
  return env;
}

function agentmeter(args: string[]): string {
  const run = spawnSync(process.execPath, ['bin/agentmeter.js', ...args], {
    cwd: clone,
    env: userEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.status, `agentmeter ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

beforeAll(() => {
  const dir = tempDir();
  home = join(dir, 'home');
  clone = join(dir, 'agentmeter');
  execFileSync('git', ['clone', '--quiet', ROOT, clone]);
  // Hard links need one file system; across two, the clone gets a real `npm ci` from npm's cache.
  const linked = spawnSync('cp', ['-al', join(ROOT, 'node_modules'), join(clone, 'node_modules')]).status === 0;
  const env = userEnv();
  // npm's own variables from a parent `npm test` would steer this install: a user's shell has none.
  for (const name of Object.keys(env)) if (name.startsWith('npm_')) delete env[name];
  const command = linked ? 'install' : 'ci';
  install = spawnSync('npm', [command, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: clone,
    env,
    encoding: 'utf8',
    timeout: 300_000,
  });
}, 360_000);

describe('a fresh clone after npm install', () => {
  let server: ReturnType<typeof spawn> | undefined;
  afterAll(() => {
    server?.kill('SIGTERM');
  });

  it('npm install builds the dashboard, the laptop bundle and the server (the prepare script)', () => {
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);
    for (const built of [
      'web/dist/index.html',
      'dist/laptop/agentmeter.mjs',
      'dist/laptop/agentmeter-hook.sh',
      'dist/server/agentmeter.mjs',
    ])
      expect(existsSync(join(clone, built)), built).toBe(true);
  });

  it('orgs add, users add, serve: / and /install.sh answer 200, and an ingest batch is stored', async () => {
    const db = join(clone, 'agentmeter.duckdb');
    const org = lastLine(agentmeter(['orgs', 'add', '--db', db, '--name', 'Acme']));
    const key = lastLine(agentmeter(['users', 'add', '--db', db, '--org', org, '--email', 'ops@acme.example.com', '--role', 'owner']));
    const trace = join(tempDir(), 'modules.txt');
    server = spawn(process.execPath, ['--import', TRACE, 'bin/agentmeter.js', 'serve', '--db', db, '--port', '0', '--no-batch'], {
      cwd: clone,
      env: userEnv({ AGENTMETER_MODULE_TRACE: trace }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      server!.stdout!.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /listening on (\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      server!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });

    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    const script = await fetch(`${url}/install.sh`);
    expect(script.status).toBe(200);
    const text = await script.text();
    expect(text.startsWith('#!/bin/sh')).toBe(true);
    // The script fetches the laptop bundle this server built: that answers too.
    const version = /^VERSION='([^']+)'$/m.exec(text)?.[1];
    expect(version, 'install.sh names the version').toBeTruthy();
    expect((await fetch(`${url}/install/${version}/agentmeter.mjs`)).status).toBe(200);

    // Over the 32 KiB a small batch is decoded in on the event loop (api/ingest/routes.ts): a worker decodes it.
    const day = new Date().toISOString().slice(0, 10);
    const records = Array.from({ length: 400 }, (_, i) => JSON.stringify(turn(day, { id: `fresh-1.a${i}`, session_id: 'f1' })));
    const body = `${records.join('\n')}\n`;
    expect(body.length).toBeGreaterThan(32 * 1024);
    const ingest = await fetch(`${url}${INGEST_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      body,
    });
    expect(ingest.status, await ingest.clone().text()).toBeLessThan(300);

    const modules = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(
      modules.some((m) => m.includes('/dist/server/decode-worker.mjs')),
      'a decode worker started from the build',
    ).toBe(true);
    expect(modules.filter((m) => m.endsWith('.ts') || m.includes('/node_modules/tsx/'))).toEqual([]);
  });

  it('hooks install copies hooks/agentmeter-hook.sh from the built server, the script beside it from the laptop bundle', () => {
    const hook = readFileSync(join(clone, 'hooks', 'agentmeter-hook.sh'));
    mkdirSync(join(home, '.claude'), { recursive: true });
    agentmeter(['hooks', 'install', '--agent', 'claude']);
    expect(readFileSync(join(home, '.agentmeter', 'bin', 'agentmeter-hook.sh')).equals(hook)).toBe(true);
    // The bundle as a machine has it (~/.agentmeter/bin): away from the repository, with its own script.
    const bin = tempDir();
    copyFileSync(join(clone, 'dist', 'laptop', 'agentmeter.mjs'), join(bin, 'agentmeter.mjs'));
    const downloaded = Buffer.concat([hook, Buffer.from('# as downloaded\n')]);
    writeFileSync(join(bin, 'agentmeter-hook.sh'), downloaded);
    const laptopHome = join(tempDir(), 'laptop');
    const env = userEnv({ HOME: laptopHome, AGENTMETER_HOME: join(laptopHome, '.agentmeter') });
    const run = spawnSync(process.execPath, [join(bin, 'agentmeter.mjs'), 'hooks', 'install', '--agent', 'claude'], {
      env,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(laptopHome, '.agentmeter', 'bin', 'agentmeter-hook.sh')).equals(downloaded)).toBe(true);
  });
});
