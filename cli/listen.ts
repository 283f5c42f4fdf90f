// `serve` and `demo` take their port before anything else: a busy port then fails in one line, before a
// database file is created or sample data loaded. The port is held by a plain socket while the database
// opens (migrations, seconds on a large file) and let go just before the HTTP server listens on it: the
// only window left is that one step, and if another program takes the port in it, the command still
// ends in the same one line and removes the database file it created.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { type RunningServer, SERVER_DB_OPTIONS } from '../api/server.ts';
import { type Db, openDb } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';

export interface ReservedPort {
  /** The port held (the one chosen by the system when 0 was asked for). */
  port: number;
  release(): Promise<void>;
}

/**
 * Why a start failed, in words a person can act on; undefined for an error that is neither about the
 * address nor about a file. A file the server could not make or write (the database's folder is read-only,
 * say) names its path: its EACCES is not the one of a privileged port.
 */
export function startProblem(error: unknown, host: string, port: number): string | undefined {
  const failure = error as NodeJS.ErrnoException | undefined;
  if (typeof failure?.path === 'string' && failure.syscall !== 'listen') return fileProblem(failure, failure.path);
  return listenProblem(error, host, port);
}

/** An error of the file system at `path`, in one line. */
function fileProblem(error: NodeJS.ErrnoException, path: string): string {
  switch (error.code) {
    case 'EACCES':
    case 'EPERM':
      return `cannot write ${path}: permission denied (the database's folder must be writable by the user running the server)`;
    case 'EROFS':
      return `cannot write ${path}: the file system is read-only`;
    case 'ENOSPC':
      return `cannot write ${path}: no space left on the device`;
    default:
      return `cannot write ${path} (${error.code ?? error.message})`;
  }
}

/** Why a listen failed, in words a person can act on; undefined for an error that is not about the address. */
export function listenProblem(error: unknown, host: string, port: number): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use (another agentmeter server, or another program): stop it or choose another --port`;
    case 'EACCES':
      return `not allowed to listen on ${host}:${port} (ports below 1024 need privileges): choose another --port`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: choose another --host`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve --host ${host}`;
    default:
      return undefined;
  }
}

export async function reservePort(host: string, port: number): Promise<ReservedPort> {
  // A client that connects while the port is held (a collector retrying) is reset at once, as if nothing
  // listened: a connection kept open would stall that client, and close() waits for open connections, so
  // letting go of the port would wait for it too.
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', (error) =>
      reject(new UserError(listenProblem(error, host, port) ?? `cannot listen on ${host}:${port}: ${error.message}`)),
    );
    holder.listen({ host, port, exclusive: true }, resolve);
  });
  const address = holder.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    release: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}

/** Removes a DuckDB file this command created (and its WAL), after a start that failed. */
export function removeCreatedDb(path: string): void {
  for (const file of [path, `${path}.wal`]) rmSync(file, { force: true });
}

/**
 * The start of `serve` and `demo`, in the order that creates nothing on a busy port: hold the port, make
 * the database's folder and open it, build the server, let go of the port and listen on it.
 */
export async function serveOnFreePort(
  options: { dbPath: string; host: string; port: number },
  start: (db: Db, port: number, beforeListen: () => Promise<void>) => Promise<RunningServer>,
): Promise<{ db: Db; server: RunningServer }> {
  const reserved = await reservePort(options.host, options.port);
  const existed = existsSync(options.dbPath);
  let db: Db | undefined;
  try {
    mkdirSync(dirname(options.dbPath), { recursive: true });
    db = await openDb(options.dbPath, SERVER_DB_OPTIONS);
    const server = await start(db, reserved.port, reserved.release);
    return { db, server };
  } catch (error) {
    await reserved.release();
    await db?.close().catch(() => undefined);
    if (!existed && db) removeCreatedDb(options.dbPath);
    const problem = startProblem(error, options.host, reserved.port);
    throw problem ? new UserError(problem) : error;
  }
}
