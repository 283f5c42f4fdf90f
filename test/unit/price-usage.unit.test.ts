// pipeline/cost.ts priceUsage: the usual records are priced in SQL by the library's arithmetic on the prices
// of their day, the others by the library one by one (PricePlan). Every record's dollars must be what
// recordCost (the library, record by record) gives, bit for bit: list prices with tiers and one-hour
// cache writes, an organization's own prices, a time-of-day price, a model without a price.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { type OrgPrice, pricePlan, priceUsage, recordCost, sqlPrices } from '../../pipeline/cost.ts';

const MODELS = [
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-1-20250805',
  'claude-haiku-4-5-20251001',
  'gpt-5-codex',
  'gpt-5.5',
  'gemini-2.5-pro',
  'deepseek-chat',
  'no-such-model',
];
const OWN: OrgPrice[] = [
  {
    model: 'claude-*',
    effectiveFrom: '2026-03-10',
    inputMtok: 2.5,
    outputMtok: 12,
    cacheReadMtok: null,
    cacheWriteMtok: null,
    cacheWrite1hMtok: 5,
  },
  {
    model: 'gpt-5*',
    effectiveFrom: '2026-03-15',
    inputMtok: 1.1,
    outputMtok: 9,
    cacheReadMtok: 0.11,
    cacheWriteMtok: 1.3,
    cacheWrite1hMtok: null,
  },
];

interface Row {
  org_id: string;
  id: string;
  model: string;
  ts: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cache_write_1h_tokens: number;
  cost_usd: number | null;
}

let db: Db;
beforeAll(async () => {
  db = await openDb(':memory:');
  await db.run("INSERT INTO orgs (id, name) VALUES ('org_a', 'A'), ('org_b', 'B')");
  for (const p of OWN)
    await db.run(
      `INSERT INTO org_prices (org_id, model, effective_from, input_mtok, output_mtok, cache_read_mtok, cache_write_mtok, cache_write_1h_mtok, updated_at, updated_by)
       VALUES ('org_b', $model, CAST($from AS DATE), $in, $out, $cr, $cw, $h, now()::TIMESTAMP, 'usr_1')`,
      {
        model: p.model,
        from: p.effectiveFrom,
        in: p.inputMtok,
        out: p.outputMtok,
        cr: p.cacheReadMtok,
        cw: p.cacheWriteMtok,
        h: p.cacheWrite1hMtok,
      },
    );
  let seed = 11;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const rows: string[] = [];
  for (let i = 0; i < 6000; i++) {
    const cacheWrite = next(4) === 0 ? 0 : next(50_000);
    const ts = Date.UTC(2026, 2, 1) + next(30) * 86_400_000 + next(86_400_000);
    rows.push(
      JSON.stringify({
        o: i % 2 ? 'org_a' : 'org_b',
        i: `u${i}`,
        m: MODELS[next(MODELS.length)],
        ts,
        in: next(3) === 0 ? 150_000 + next(200_000) : next(5000),
        out: next(9000),
        cr: next(4) === 0 ? 0 : next(300_000),
        cw: cacheWrite,
        h: next(3) === 0 ? next(cacheWrite + 5) : next(5) === 0 ? null : 0,
      }),
    );
  }
  await db.run(
    `INSERT INTO usage (org_id, id, user_id, received_at, ts, agent, session_id, model, input_tokens, output_tokens, cache_read_tokens,
                        cache_write_tokens, thinking_tokens, thinking, cache_write_1h_tokens)
     SELECT o, i, 'usr_1', now()::TIMESTAMP, epoch_ms(ts), 'claude', 's', m, "in", out, cr, cw, 0, false, h
     FROM (SELECT unnest(from_json($rows, '[{"o":"VARCHAR","i":"VARCHAR","m":"VARCHAR","ts":"BIGINT","in":"BIGINT","out":"BIGINT","cr":"BIGINT","cw":"BIGINT","h":"BIGINT"}]'), recursive := true))`,
    { rows: `[${rows.join(',')}]` },
  );
  await db.run(
    `CREATE OR REPLACE TEMP TABLE rebuild AS SELECT o.id AS org_id, CAST(d AS DATE) AS day
     FROM orgs o, generate_series(DATE '2026-03-01', DATE '2026-03-30', INTERVAL 1 DAY) t(d)`,
  );
});
afterAll(() => db.close());

describe('priceUsage', () => {
  it('gives every record the library’s dollars, bit for bit', async () => {
    await priceUsage(db, '2026-03-01', '2026-03-30', createLogger({ name: 'test', level: 'silent' }));
    const rows = await db.all<Row & Record<string, unknown>>(
      `SELECT u.org_id, u.id, u.model, epoch_ms(u.ts) AS ts, u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens,
              coalesce(u.cache_write_1h_tokens, 0) AS cache_write_1h_tokens, c.cost_usd
       FROM usage u LEFT JOIN usage_cost c USING (org_id, id) ORDER BY u.id`,
    );
    expect(rows).toHaveLength(6000);
    let priced = 0;
    for (const r of rows) {
      const want = recordCost(
        r.model,
        r.ts,
        {
          input: r.input_tokens,
          output: r.output_tokens,
          cacheRead: r.cache_read_tokens,
          cacheWrite: r.cache_write_tokens,
          cacheWrite1h: r.cache_write_1h_tokens,
        },
        r.org_id === 'org_b' ? OWN : [],
      );
      expect(r.cost_usd, `${r.id} ${r.model} ${new Date(r.ts).toISOString()} ${r.org_id}`).toBe(want?.usd ?? null);
      if (want) priced++;
    }
    expect(priced).toBeGreaterThan(5000);
  });

  it('prices in SQL what it can, and leaves time-of-day prices and unknown units to the library', () => {
    expect(pricePlan('claude-sonnet-4-5-20250929', '2026-03-02', []).how).toBe('sql');
    expect(pricePlan('gpt-5-codex', '2026-03-20', OWN).how).toBe('sql');
    expect(pricePlan('deepseek-chat', '2026-03-02', []).how).toBe('js');
    expect(pricePlan('no-such-model', '2026-03-02', []).how).toBe('none');
    expect(sqlPrices({ input_mtok: 1, requests_kcount: 1 })).toBeUndefined();
    expect(sqlPrices({ input_mtok: { base: 1, tiers: [] } })).toBeUndefined();
  });
});
