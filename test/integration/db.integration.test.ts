// The DuckDB wrapper on a real file: migrations, a second process refused with a clear message, and
// close() ordering (statements queued before it finish; statements after it are refused, never sent to a
// disconnected native connection, which would crash the process).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withAllThreads } from '../../api/batch/runner.ts';
import { SERVER_DB_OPTIONS } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('DuckDB wrapper', () => {
  it('applies every migration once', async () => {
    const path = join(tempDir(), 'm.duckdb');
    const first = await openDb(path);
    const versions = (await first.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version);
    // Every NNN_name.sql or .ts in the folder, in order (numbers are assigned per change, so some may be unused).
    const files = readdirSync(join(import.meta.dirname, '../../common/db/migrations'))
      .filter((f) => /^\d+_.+\.(sql|ts)$/.test(f))
      .map((f) => Number(f.split('_')[0]))
      .sort((a, b) => a - b);
    expect(files.slice(0, 14)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    expect(versions).toEqual(files);
    await first.close();
    const again = await openDb(path);
    expect((await again.all<{ n: number }>('SELECT count(*) AS n FROM schema_migrations'))[0]!.n).toBe(files.length);
    await again.close();
  });

  it('migration 013 masks hook commands stored in clear, in the events and the daily hook counts', async () => {
    const db = await openDb(join(tempDir(), 'h.duckdb'));
    const clear = 'notify --token abc123secretvalue';
    const otherClear = 'notify --token zzz999othervalue';
    const hooks = (...commands: string[]) => `[${commands.map((c) => `{'event': 'Stop', 'matcher': '', 'command': '${c}'}`).join(', ')}]`;
    for (const [id, list] of [
      ['e1', hooks(clear, '~/.agentmeter/bin/agentmeter-hook.sh claude')],
      ['e2', hooks(otherClear)],
      ['e3', 'NULL'],
    ] as const) {
      await db.run(
        `INSERT INTO events (org_id, id, user_id, received_at, ts, agent, event, session_id, client, autonomy, hooks)
         VALUES ('o', '${id}', 'u', now()::TIMESTAMP, now()::TIMESTAMP, 'claude', 'Stop', 's', 'terminal-ui', 'manual', ${list})`,
      );
    }
    await db.run(`INSERT INTO agg_hooks_day VALUES ('o', DATE '2026-11-01', 'Stop', '', '${clear}', 2), ('o', DATE '2026-11-01', 'Stop', '', '${otherClear}', 3),
      ('o', DATE '2026-11-01', 'Stop', '', 'notify --token ***', 1)`);
    await db.run('DELETE FROM schema_migrations WHERE version = 13');
    const { migrate } = await import('../../common/db/duckdb.ts');
    expect(await migrate(db)).toEqual(['013_mask_stored_hook_commands.ts']);
    const events = await db.all<{ id: string; commands: string[] | null }>(
      'SELECT id, list_transform(hooks, h -> h.command) AS commands FROM events ORDER BY id',
    );
    expect(events).toEqual([
      { id: 'e1', commands: ['notify --token ***', '~/.agentmeter/bin/agentmeter-hook.sh claude'] },
      { id: 'e2', commands: ['notify --token ***'] },
      { id: 'e3', commands: null },
    ]);
    expect(await db.all('SELECT command, count FROM agg_hooks_day')).toEqual([{ command: 'notify --token ***', count: 6 }]);
    await db.close();
  });

  it('the server opens its database on one thread and a batch run uses every core, then goes back', async () => {
    const db = await openDb(join(tempDir(), 't.duckdb'), SERVER_DB_OPTIONS);
    const threads = async () => Number((await db.all<{ t: string }>("SELECT current_setting('threads')::VARCHAR AS t"))[0]!.t);
    expect(await threads()).toBe(1);
    expect(await withAllThreads(db, threads)).toBe(availableParallelism());
    expect(await threads()).toBe(1);
    await expect(withAllThreads(db, () => Promise.reject(new Error('batch failed')))).rejects.toThrow('batch failed');
    expect(await threads()).toBe(1);
    await db.close();
  });

  it('close waits for queued statements and refuses later ones', async () => {
    const db = await openDb(join(tempDir(), 'c.duckdb'));
    const queued = db.all<{ n: number }>('SELECT count(*) AS n FROM range(1000000)');
    const closing = db.close();
    const late = db.all('SELECT 1');
    expect((await queued)[0]!.n).toBe(1_000_000);
    await closing;
    await expect(late).rejects.toThrow(/closed/);
    await expect(db.run('SELECT 1')).rejects.toThrow(/closed/);
    await db.close();
  });

  it('a transaction rolls back when its function throws', async () => {
    const db = await openDb(join(tempDir(), 't.duckdb'));
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO orgs (id, name) VALUES ('org_x', 'X')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await db.all("SELECT * FROM orgs WHERE id = 'org_x'")).toEqual([]);
    await db.close();
  });
});

describe('after a crash', () => {
  it('the WAL a killed process left is replayed and checkpointed at open (issue 28, item 18)', async () => {
    const path = join(tempDir(), 'crash.duckdb');
    await (await openDb(path)).close();
    // A process that writes and is killed before any checkpoint: its writes are only in the WAL.
    const child = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { DuckDBInstance } from '@duckdb/node-api';
         const instance = await DuckDBInstance.create(${JSON.stringify(path)}, { checkpoint_threshold: '1GB' });
         const conn = await instance.connect();
         await conn.run("INSERT INTO schema_migrations (version, name) VALUES (9999, 'crash')");
         process.kill(process.pid, 'SIGKILL');`,
      ],
      { cwd: join(import.meta.dirname, '../..'), encoding: 'utf8' },
    );
    expect(child.signal, child.stderr).toBe('SIGKILL');
    expect(statSync(`${path}.wal`).size).toBeGreaterThan(0);
    const db = await openDb(path);
    try {
      expect(await db.all('SELECT name FROM schema_migrations WHERE version = 9999')).toEqual([{ name: 'crash' }]);
      // Replayed and written into the database: the next open has nothing to replay.
      expect(existsSync(`${path}.wal`) ? statSync(`${path}.wal`).size : 0).toBe(0);
    } finally {
      await db.close();
    }
  });
});
