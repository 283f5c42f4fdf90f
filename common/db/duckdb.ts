// A thin wrapper over @duckdb/node-api: open, run, all, transaction, close. Passed in as a dependency so
// tests use a real temporary file. Values are always bound as parameters, never spliced into SQL text.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { UserError } from '../errors.ts';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

export interface Db {
  readonly path: string;
  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /** Runs a query and returns its rows as JSON-friendly objects (integers as numbers, times as ISO strings). */
  all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]>;
  /** Runs fn inside BEGIN … COMMIT on the writer connection; rolls back if it throws. */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** The raw writer connection, for appenders. Use only inside `exclusive`. */
  exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T>;
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
        `(see README "Admin work while the server runs").\nDuckDB said: ${message.split('\n')[0]}`,
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
    transaction: (fn) =>
      guard(async () => {
        await conn.run('BEGIN TRANSACTION');
        try {
          const result = await fn(wrap(path, conn, mutex, true, onClose, state));
          await conn.run('COMMIT');
          return result;
        } catch (error) {
          await conn.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    exclusive: (fn) => guard(() => fn(conn)),
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

export async function openDb(path: string, options: OpenOptions = {}): Promise<Db> {
  let instance: DuckDBInstance;
  try {
    const config: Record<string, string> = {};
    if (options.threads) config['threads'] = String(options.threads);
    if (options.readOnly) config['access_mode'] = 'READ_ONLY';
    instance = await DuckDBInstance.create(path, config);
  } catch (error) {
    throw explainOpenError(path, error);
  }
  const conn = await instance.connect();
  // Every time we store or compare is UTC; never let the machine's zone leak into a cast.
  await conn.run("SET TimeZone = 'UTC'").catch(() => undefined);
  if (options.checkpointThreshold)
    await conn.run(`SET checkpoint_threshold = '${options.checkpointThreshold.replace(/[^0-9A-Za-z.]/g, '')}'`);
  const state = { closed: false };
  const mutex = new Mutex();
  // Closing waits its turn behind every statement already queued, then refuses the ones after it.
  const close = () =>
    mutex.lock(async () => {
      if (state.closed) return;
      state.closed = true;
      await conn.run('CHECKPOINT').catch(() => undefined);
      conn.closeSync();
      instance.closeSync();
    });
  const db = wrap(path, conn, mutex, false, close, state);
  if (options.migrate !== false && !options.readOnly) await migrate(db);
  return db;
}

/** Applies every migrations/NNN_name.sql not yet recorded in schema_migrations, in order. */
export async function migrate(db: Db): Promise<string[]> {
  await db.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
  );
  const done = new Set((await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version));
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    const version = Number(file.split('_')[0]);
    if (done.has(version)) continue;
    const sql = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
    await db.transaction(async (tx) => {
      await tx.run(sql);
      await tx.run('INSERT INTO schema_migrations (version, name) VALUES ($version, $name)', { version, name: file });
    });
    applied.push(file);
  }
  return applied;
}
