// Real processes: the agentmeter CLI as a subprocess (TZ=UTC, NO_COLOR), and a server on a random port.
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AccountStore } from '../../api/accounts/store.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId } from '../../common/ids.ts';
import type { Role } from '../../common/roles.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'bin', 'agentmeter.js');
export const HOOK_SCRIPT = join(ROOT, 'hooks', 'agentmeter-hook.sh');

export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TZ: 'UTC', NO_COLOR: '1', LOG_LEVEL: 'warn', ...extra };
  delete env['AGENTMETER_SERVER'];
  delete env['AGENTMETER_API_KEY'];
  return { ...env, ...extra };
}

export function runCli(args: string[], env: Record<string, string> = {}, input?: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(env), encoding: 'utf8', input: input ?? '', timeout: 120_000 });
}

/** The last non-empty line of stdout (where keys and ids are printed). */
export const lastLine = (out: string) => out.trim().split('\n').at(-1)!.trim();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM and wait for a graceful exit (the database is closed when this resolves). */
  stop(): Promise<number | null>;
}

/** `args`: more options of `agentmeter serve`. */
export async function startServerProcess(
  db: string,
  port?: number,
  env: Record<string, string> = {},
  args: string[] = [],
): Promise<ServerProcess> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, [CLI, 'serve', '--db', db, '--port', String(chosen), ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  // Started when it says so, or failed when it exits: no fixed deadline here (a loaded machine once took
  // more than the 30 s it had); the calling test's timeout bounds the wait.
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  return {
    url,
    port: chosen,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Creates an org (unless given) and a user with a key on a stopped database, as `orgs add` and `users add`
 * do, but in this process: through the CLI each was a Node start of about a second, some forty of them
 * in the suite. Those commands have tests of their own (cli.e2e). The file is closed again on return, so
 * a server or a CLI can open it next.
 */
export async function seedAccount(
  db: string,
  role: Role = 'member',
  email = 'dev@example.com',
  org?: string,
): Promise<{ org: string; key: string }> {
  const handle = await openDb(db);
  try {
    const accounts = new AccountStore(handle);
    const orgId = org ? (org as OrgId) : (await accounts.createOrg('Test org')).id;
    const user = await accounts.createUser({ orgId, email, role });
    return { org: orgId, key: (await accounts.createKey(user)).key };
  } finally {
    await handle.close();
  }
}

/** runCli without blocking this process's event loop (needed when the server runs in this process). */
export function runCliAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}
