// Transactions of a CommitOrder on two connections of one database become visible in the order they
// began (common/db/commit-order.ts): what a watermark on received_at (DuckDB's now(), fixed at BEGIN)
// relies on once two ingest batches are written at once. And DuckDB's errors when two such transactions
// write one key, which the ingest store must take for a conflict (its careful path then writes the batch).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKeyConflict } from '../../api/ingest/store.ts';
import { CommitOrder } from '../../common/db/commit-order.ts';
import { openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A promise and the function that settles it. */
function latch(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('a commit order over two connections', () => {
  it('a later transaction that finishes first commits only once the earlier one has, and their times keep the order', async () => {
    const db = await openDb(join(tempDir(), 'order.duckdb'));
    try {
      await db.run('CREATE TABLE t (name VARCHAR, began TIMESTAMP)');
      const second = await db.connection();
      const reader = await db.connection();
      const order = new CommitOrder();
      const first = latch();
      const firstBegan = latch();
      const early = db.transaction(async (tx) => {
        await tx.run("INSERT INTO t VALUES ('early', now()::TIMESTAMP)");
        firstBegan.open();
        await first.opened;
      }, order);
      await firstBegan.opened;
      let lateCommitted = false;
      const late = second
        .transaction((tx) => tx.run("INSERT INTO t VALUES ('late', now()::TIMESTAMP)"), order)
        .then(() => {
          lateCommitted = true;
        });
      // The late one's statements are done; it waits for the early one before its COMMIT.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lateCommitted).toBe(false);
      expect(await reader.all('SELECT name FROM t')).toEqual([]);
      first.open();
      await Promise.all([early, late]);
      const rows = await reader.all<{ name: string; began: string }>(
        'SELECT name, CAST(began AS VARCHAR) AS began FROM t ORDER BY began, name',
      );
      expect(rows.map((r) => r.name)).toEqual(['early', 'late']);
      expect(rows[0]!.began < rows[1]!.began).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('an earlier transaction that rolls back lets the later one commit, and a failed BEGIN holds nobody up', async () => {
    const db = await openDb(join(tempDir(), 'order-rollback.duckdb'));
    try {
      await db.run('CREATE TABLE t (name VARCHAR)');
      const second = await db.connection();
      const order = new CommitOrder();
      const refused = order.take(() => Promise.reject(new Error('no BEGIN')));
      await expect(refused).rejects.toThrow('no BEGIN');
      const failing = db.transaction(async (tx) => {
        await tx.run("INSERT INTO t VALUES ('rolled back')");
        throw new Error('the batch failed');
      }, order);
      const kept = second.transaction((tx) => tx.run("INSERT INTO t VALUES ('kept')"), order);
      await expect(failing).rejects.toThrow('the batch failed');
      await kept;
      expect(await db.all('SELECT name FROM t')).toEqual([{ name: 'kept' }]);
    } finally {
      await db.close();
    }
  });
});

describe('what the ingest store takes for a key conflict', () => {
  it('includes DuckDB’s errors when two connections’ transactions write one key or one row', async () => {
    const db = await openDb(join(tempDir(), 'conflicts.duckdb'));
    try {
      await db.run('CREATE TABLE t (k VARCHAR PRIMARY KEY, v INTEGER)');
      await db.run("INSERT INTO t VALUES ('stored', 1)");
      const second = await db.connection();
      /** The error of the transaction on the second connection, the writer's having begun first and written too. */
      const secondsError = async (sql: string): Promise<unknown> => {
        const order = new CommitOrder();
        const writerWrote = latch();
        const secondWrote = latch();
        const writer = db.transaction(async (tx) => {
          await tx.run(sql, { v: 1 });
          writerWrote.open();
          await secondWrote.opened;
        }, order);
        await writerWrote.opened;
        const failed = second
          .transaction(async (tx) => {
            const written = tx.run(sql, { v: 2 });
            await written.finally(() => secondWrote.open());
          }, order)
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        await writer;
        return failed;
      };
      // Both insert a new key: the commit after the other's finds it.
      const newKey = await secondsError("INSERT INTO t VALUES ('new', $v)");
      expect(String(newKey)).toMatch(/Failed to commit: PRIMARY KEY or UNIQUE constraint violation/);
      expect(isKeyConflict(newKey)).toBe(true);
      // Both change the stored row (the usage upsert): the second statement fails.
      const sameRow = await secondsError("INSERT INTO t VALUES ('stored', $v) ON CONFLICT (k) DO UPDATE SET v = excluded.v + t.v");
      expect(String(sameRow)).toMatch(/Conflict on update/);
      expect(isKeyConflict(sameRow)).toBe(true);
      // Both delete the stored row (two batches releasing a removed user's commit): the second fails.
      await db.run("INSERT INTO t VALUES ('released', 1)");
      const sameDelete = await secondsError("DELETE FROM t WHERE k = 'released' AND v < $v + 10");
      expect(String(sameDelete)).toMatch(/Conflict on tuple deletion/);
      expect(isKeyConflict(sameDelete)).toBe(true);
      expect(isKeyConflict(new Error('Constraint Error: Duplicate key "k: stored" violates primary key constraint'))).toBe(true);
      expect(isKeyConflict(new Error('Conversion Error: Could not convert string "x" to INT64'))).toBe(false);
    } finally {
      await db.close();
    }
  });
});
