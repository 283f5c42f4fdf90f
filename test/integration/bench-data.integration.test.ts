// The bench's data set (bench/sql/generate.sql) generates against the current schema: a migration that adds
// a column to a raw table must give the generator its value too, or `npm run bench -- batch` fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { runBatch, splitStatements } from '../../pipeline/batch.ts';

describe('bench data', () => {
  it('generates events, usage, messages and landed commits that the batch then aggregates', async () => {
    const db = await openDb(':memory:');
    try {
      const params: Record<string, string | number> = { events: 2000, users: 5, first_day: '2026-09-21' };
      for (const sql of splitStatements(readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'sql', 'generate.sql'), 'utf8'))) {
        const used = Object.fromEntries([...sql.matchAll(/\$([a-z_]+)/g)].map((m) => [m[1]!, params[m[1]!]!]));
        await db.run(sql, used);
      }
      const [counts] = await db.all<{ events: number; usage: number; messages: number; commits: number; repos: number }>(
        `SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM usage) AS usage,
                (SELECT count(*) FROM assistant_messages) AS messages, (SELECT count(*) FROM landed_commits) AS commits,
                (SELECT count(DISTINCT repo) FROM events) AS repos`,
      );
      expect(counts).toEqual({ events: 2000, usage: 200, messages: 200, commits: 20, repos: expect.any(Number) });
      expect(counts!.repos).toBeGreaterThan(0);
      // The bench's batch case: every aggregate of the 60 days in one chunk.
      const log = createLogger({ name: 'test', level: 'silent' });
      await runBatch(db, {
        trigger: 'cli',
        log,
        from: '2026-09-21',
        to: '2026-11-19',
        now: new Date('2026-11-21T00:00:00Z'),
        chunkDays: 60,
      });
      const [built] = await db.all<{ days: number; priced: number }>(
        'SELECT (SELECT count(*) FROM agg_org_day) AS days, (SELECT count(cost_usd) FROM agg_tokens_day) AS priced',
      );
      expect(built!.days).toBeGreaterThan(0);
      expect(built!.priced).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
