// A thin wrapper over @duckdb/node-api: open, run, all, transaction, close. Passed in as a dependency so
// tests use a real temporary file. Values are always bound as parameters, never spliced into SQL text.

import { chmodSync, closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { UserError } from '../errors.ts';
import type { CommitOrder } from './commit-order.ts';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

export interface Db {
  readonly path: string;
  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /** Runs a query and returns its rows as JSON-friendly objects (integers as numbers, times as ISO strings). */
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /**
   * Runs fn inside BEGIN … COMMIT on this connection; rolls back if it throws. With `order`, the
   * transaction begins after, and commits only after, every earlier one of that order (commit-order.ts).
   */
  transaction<T>(fn: (tx: Db) => Promise<T>, order?: CommitOrder): Promise<T>;
  /** The raw writer connection, for appenders. Use only inside `exclusive`. */
  exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
  /**
   * Another connection to the same database, with its own queue and its own temporary tables: for work
   * that must neither wait behind nor hold up the writer's queue (the live figures, api/today/). It sees
   * what the writer has committed; it is closed with the database.
   */
  connection(): Promise<Db>;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Turns DuckDB's lock error into a message an operator can act on. */
function explainOpenError(path: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/lock/i.test(message)) {
    return new UserError(
      `The database ${path} is in use by another process (DuckDB allows one writer).\n` +
        `Stop that process, or run the same command through the running server: --server URL --key OWNER_KEY ` +
        `(see docs/operations.md, "Admin work while the server runs").\nDuckDB said: ${message.split('\n')[0]}`,
    );
  }
  return new UserError(`Cannot open the database ${path}: ${message}`);
}

/** JS values for JSON: integers as numbers (counts fit comfortably), times as ISO strings, recursively. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** A serial queue so the single writer connection never runs two statements at once. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  lock<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

function wrap(
  path: string,
  conn: DuckDBConnection,
  mutex: Mutex,
  inTx: boolean,
  onClose: () => Promise<void>,
  state: { closed: boolean },
  connect: () => Promise<Db>,
): Db {
  // A statement queued behind close() (a fire-and-forget update, say) must fail cleanly: calling into a
  // disconnected native connection would crash the process.
  const live =
    <T>(fn: () => Promise<T>) =>
    () =>
      state.closed ? Promise.reject(new Error(`database ${path} is closed`)) : fn();
  const guard = <T>(fn: () => Promise<T>) => (inTx ? fn() : mutex.lock(live(fn)));
  const db: Db = {
    path,
    run: (sql, params) => guard(async () => Number((await conn.run(sql, params)).rowsChanged)),
    all: async <T extends Row>(sql: string, params?: Params) =>
      guard(async () => {
        const reader = await conn.runAndReadAll(sql, params);
        return reader.getRowObjectsJS().map((row) => plain(row)) as T[];
      }),
    transaction: (fn, order) =>
      guard(async () => {
        const begin = () => conn.run('BEGIN TRANSACTION');
        const turn = order ? await order.take(begin) : undefined;
        if (!order) await begin();
        try {
          const result = await fn(wrap(path, conn, mutex, true, onClose, state, connect));
          await turn?.earlierEnded;
          await conn.run('COMMIT');
          return result;
        } catch (error) {
          await conn.run('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          turn?.end();
        }
      }),
    exclusive: (fn) => guard(() => fn(conn)),
    connection: connect,
    close: onClose,
  };
  return db;
}

export interface OpenOptions {
  /** Run the numbered migrations (default true). */
  migrate?: boolean;
  threads?: number;
  /**
   * WAL size that triggers an automatic checkpoint (DuckDB's default is 16MB). A checkpoint rewrites the
   * primary-key indexes whole, so a server ingesting all day does better with fewer, larger ones; the WAL
   * is replayed at the next open if the process dies, and close() checkpoints anyway.
   */
  checkpointThreshold?: string;
  /** Open without writing (no migrations): refused while another process holds the file for writing. */
  readOnly?: boolean;
}

/** Where a DuckDB database file says what it is: the bytes "DUCK" at offset 8 of its first block. */
const DUCKDB_MAGIC = Buffer.from('DUCK');
const DUCKDB_MAGIC_OFFSET = 8;

/**
 * Why `path` cannot be opened as our database, or undefined when it is a DuckDB file or does not exist
 * yet (it is then created). DuckDB itself would open other formats it recognizes (a SQLite file, through
 * an extension) or fail later, so anything else is refused before DuckDB sees it. An empty file is
 * refused too: DuckDB does not take it, and it is not ours to delete.
 */
export function dbFileProblem(path: string): string | undefined {
  if (path === ':memory:') return undefined;
  // DuckDB 1.5 opens such a database but places its WAL at the path cut at the '?', and every commit fails.
  if (path.includes('?')) return `${path} holds a '?', which DuckDB reads as the start of connection options`;
  let fd: number;
  try {
    // Non-blocking, so a fifo given as --db is refused rather than waited on.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return `cannot read ${path} (${code ?? (error as Error).message})`;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return `${path} is a folder, not a DuckDB database file`;
    if (!stat.isFile()) return `${path} is not a regular file`;
    if (stat.size === 0) return `${path} is an empty file, not a DuckDB database`;
    const head = Buffer.alloc(DUCKDB_MAGIC_OFFSET + DUCKDB_MAGIC.length);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read < head.length || !head.subarray(DUCKDB_MAGIC_OFFSET).equals(DUCKDB_MAGIC)) return `${path} is not a DuckDB database`;
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Settings of every connection to the instance: no extension is installed or loaded at run time (no
 * network, no code from elsewhere). What the project uses (json for read_json, parquet, icu) is linked
 * into @duckdb/node-api. lock_configuration is not set: the server changes `threads` for a batch run.
 */
export const NO_EXTENSION_LOADING: Readonly<Record<string, string>> = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  allow_community_extensions: 'false',
};

/**
 * A process that holds a database creates only private files: DuckDB creates the database, its WAL
 * (removed at each checkpoint and created again at the next write) and its spill folder itself, with the
 * process umask, so only the umask covers all of them, now and later. A worker thread cannot set it.
 */
function privateUmask(): void {
  if (!isMainThread) return;
  const before = process.umask(0o077);
  process.umask(before | 0o077);
}

/**
 * Opens a database that must exist already: the commands that read or change an organization's data
 * (users, keys, teams, code hosts, the batch) refuse a path with no file, which is a typo more often than
 * not, instead of creating a database there (only `serve` and `orgs add` create one).
 */
export async function openExistingDb(path: string, options: OpenOptions = {}): Promise<Db> {
  if (path !== ':memory:' && !existsSync(path))
    throw new UserError(`no database at ${path}: check the path (agentmeter serve --db or orgs add --db creates one)`);
  return openDb(path, options);
}

/** A database file and WAL from before this rule (or another umask) are tightened to 0600 when ours. */
function tighten(path: string): void {
  for (const file of [path, `${path}.wal`]) {
    try {
      chmodSync(file, 0o600);
    } catch {
      // No WAL (checkpointed), or a file of another user that we may read but not change: left as is.
    }
  }
}

export async function openDb(path: string, options: OpenOptions = {}): Promise<Db> {
  const problem = dbFileProblem(path);
  if (problem) throw new UserError(`${problem}: --db names a DuckDB database file, or a path that does not exist yet`);
  privateUmask();
  // A WAL at open is what a process that died before its checkpoint left: DuckDB replays it but keeps it,
  // so each crash would add its replay to every later start.
  const replays = !options.readOnly && path !== ':memory:' && walSize(path) > 0;
  let instance: DuckDBInstance;
  try {
    const config: Record<string, string> = { ...NO_EXTENSION_LOADING };
    if (options.threads) config['threads'] = String(options.threads);
    if (options.readOnly) config['access_mode'] = 'READ_ONLY';
    instance = await DuckDBInstance.create(path, config);
  } catch (error) {
    throw explainOpenError(path, error);
  }
  if (path !== ':memory:') tighten(path);
  const conn = await instance.connect();
  // Every time we store or compare is UTC; never let the machine's zone leak into a cast.
  await conn.run("SET TimeZone = 'UTC'").catch(() => undefined);
  if (options.checkpointThreshold)
    await conn.run(`SET checkpoint_threshold = '${options.checkpointThreshold.replace(/[^0-9A-Za-z.]/g, '')}'`);
  const state = { closed: false };
  const mutex = new Mutex();
  const others: { conn: DuckDBConnection; mutex: Mutex; state: { closed: boolean } }[] = [];
  const connect = async (): Promise<Db> => {
    if (state.closed) throw new Error(`database ${path} is closed`);
    const other = { conn: await instance.connect(), mutex: new Mutex(), state: { closed: false } };
    await other.conn.run("SET TimeZone = 'UTC'").catch(() => undefined);
    others.push(other);
    // Closing this connection alone; the database's close closes it too.
    const closeOther = () =>
      other.mutex.lock(async () => {
        if (other.state.closed) return;
        other.state.closed = true;
        other.conn.closeSync();
      });
    return wrap(path, other.conn, other.mutex, false, closeOther, other.state, connect);
  };
  // Closing waits its turn behind every statement already queued, then refuses the ones after it.
  const close = () =>
    mutex.lock(async () => {
      if (state.closed) return;
      for (const other of others)
        await other.mutex.lock(async () => {
          if (other.state.closed) return;
          other.state.closed = true;
          other.conn.closeSync();
        });
      state.closed = true;
      await conn.run('CHECKPOINT').catch(() => undefined);
      conn.closeSync();
      instance.closeSync();
    });
  const db = wrap(path, conn, mutex, false, close, state, connect);
  if (options.migrate !== false && !options.readOnly) await migrate(db);
  if (replays) await db.run('CHECKPOINT');
  return db;
}

/** A file's size in bytes, 0 when there is none (a database not created yet, a WAL checkpointed away). */
function sizeOrZero(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The size of the database's WAL, 0 when there is none. */
export function walSize(path: string): number {
  return sizeOrZero(`${path}.wal`);
}

/** The sizes of the database's file and of its WAL, each 0 when there is none. */
export function databaseBytes(path: string): { file: number; wal: number } {
  return { file: sizeOrZero(path), wal: walSize(path) };
}

/**
 * A migration that SQL alone cannot express (it needs a function of ours, such as the command masking):
 * migrations/NNN_name.ts exporting `up`, run inside the migration's transaction like a .sql file.
 */
export interface CodeMigration {
  up(tx: Db): Promise<void>;
}

/** Applies every migrations/NNN_name.sql (or .ts) not yet recorded in schema_migrations, in order. */
export async function migrate(db: Db): Promise<string[]> {
  await db.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
  );
  const done = new Set((await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.(sql|ts)$/.test(f))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    const version = Number(file.split('_')[0]);
    if (done.has(version)) continue;
    const path = join(MIGRATIONS_DIR, file);
    // A literal folder in the import: the server's build (scripts/build-server.mjs) bundles every
    // migrations/*.ts from it, as the built server has no TypeScript loader.
    const code = file.endsWith('.ts') ? ((await import(`./migrations/${file.slice(0, -3)}.ts`)) as CodeMigration) : undefined;
    await db.transaction(async (tx) => {
      if (code) await code.up(tx);
      else await tx.run(readFileSync(path, 'utf8'));
      await tx.run('INSERT INTO schema_migrations (version, name) VALUES ($version, $name)', { version, name: file });
    });
    applied.push(file);
  }
  return applied;
}
