// The organization's billable tokens of a day and model are its users' raw figures summed, then rounded to
// the nearest integer (docs/metrics.md §3): a total of exactly x.5 is rounded up whatever order the users'
// rows are summed in. As doubles, 0.3 + 1.9 + 0.3 is 2.4999999999999996, which would round down.
import { describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { runBatch } from '../../pipeline/batch.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DAY = '2026-03-02';

/** One organization whose users each read `cacheRead` tokens from cache on DAY, inserted in this order. */
async function orgOf(db: Awaited<ReturnType<typeof openDb>>, org: string, cacheReads: [string, number][]) {
  await db.run('INSERT INTO orgs (id, name) VALUES ($org, $org)', { org });
  for (const [user, cacheRead] of cacheReads)
    await db.run(
      `INSERT INTO usage (org_id, id, user_id, received_at, ts, agent, session_id, model, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, thinking_tokens, thinking)
       VALUES ($org, $id, $user, TIMESTAMP '2026-03-03 00:00:00', TIMESTAMP '${DAY} 10:00:00', 'claude', $id, 'mystery-1', 0, 0, $cr, 0, 0, false)`,
      { org, id: `${org}-${user}`, user, cr: cacheRead },
    );
}

describe('billable tokens of a day and model', () => {
  it('round a total of exactly x.5 up, in whatever order the users come', async () => {
    const db = await openDb(':memory:');
    try {
      // A model without a price counts at 1x: 0.3 + 1.9 + 0.3 = 2.5 → 3 for every order of the same users.
      await orgOf(db, 'org_a', [
        ['u1', 3],
        ['u2', 19],
        ['u3', 3],
      ]);
      await orgOf(db, 'org_b', [
        ['u2', 19],
        ['u1', 3],
        ['u3', 3],
      ]);
      await orgOf(db, 'org_c', [
        ['u3', 3],
        ['u1', 3],
        ['u2', 19],
      ]);
      await runBatch(db, { trigger: 'cli', log, from: DAY, to: DAY, now: new Date('2026-03-10T00:00:00Z') });
      const rows = await db.all<{ org_id: string; user_id: string; billable: number }>(
        'SELECT org_id, user_id, CAST(billable_tokens AS INTEGER) AS billable FROM agg_tokens_day ORDER BY org_id, user_id',
      );
      // Floors 0 + 1 + 0; the two units left go to the largest remainders: u2 (.9), then u1 (.3, before u3).
      for (const org of ['org_a', 'org_b', 'org_c'])
        expect(rows.filter((r) => r.org_id === org).map((r) => [r.user_id, r.billable])).toEqual([
          ['u1', 1],
          ['u2', 2],
          ['u3', 0],
        ]);
    } finally {
      await db.close();
    }
  });
});
