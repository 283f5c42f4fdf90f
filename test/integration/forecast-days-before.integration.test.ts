// The days before the month that the forecast and the anomaly check read (api/forecast/store.ts,
// daysBefore): the batch's rows, and the days the live build rebuilt in their place, a day the batch
// built out of date replaced and a day it has not built yet added.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daysBefore } from '../../api/forecast/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

let db: Db;
beforeAll(async () => {
  db = await openDb(join(tempDir(), 'days.duckdb'));
  await db.run(`INSERT INTO agg_tokens_day (org_id, day, user_id, agent, model, thinking, input_tokens, output_tokens, cache_read_tokens,
                  cache_write_tokens, billable_tokens, cost_usd)
                VALUES ('org_a', DATE '2026-03-29', 'u1', 'claude', 'm', false, 1, 0, 0, 0, 100, 1.0),
                       ('org_a', DATE '2026-03-30', 'u1', 'claude', 'm', false, 1, 0, 0, 0, 200, 2.0)`);
});
afterAll(() => db.close());

describe('daysBefore', () => {
  it("reads the batch's days, and the live build's in place of the ones it rebuilt", async () => {
    expect(await daysBefore(db, 'org_a', '2026-03-29', '2026-03-31')).toEqual([
      { user_id: 'u1', day: '2026-03-29', credits: 100, usd: 1 },
      { user_id: 'u1', day: '2026-03-30', credits: 200, usd: 2 },
    ]);
    const rebuilt = {
      days: ['2026-03-30', '2026-03-31'],
      byUserDay: [
        { user_id: 'u1', day: '2026-03-30', credits: 250, usd: 2.5 },
        { user_id: 'u2', day: '2026-03-31', credits: 600, usd: 6 },
      ],
    };
    const rows = await daysBefore(db, 'org_a', '2026-03-29', '2026-03-31', rebuilt);
    expect(rows.sort((a, b) => (a.day + a.user_id < b.day + b.user_id ? -1 : 1))).toEqual([
      { user_id: 'u1', day: '2026-03-29', credits: 100, usd: 1 },
      { user_id: 'u1', day: '2026-03-30', credits: 250, usd: 2.5 },
      { user_id: 'u2', day: '2026-03-31', credits: 600, usd: 6 },
    ]);
  });
});
