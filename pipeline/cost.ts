// Dollars per usage record (docs/metrics.md §8): the record's tokens times the model's list price at the
// record's time, from @pydantic/genai-prices (dated prices and provider model matching, bundled: nothing is
// fetched at run time), overlaid by the organization's own dated prices. Pure but for the price table the
// library carries; `priceUsage` is the build step that writes every rebuilt record's cost to a temp table.
import { calcPrice, type ModelPrice, type Usage } from '@pydantic/genai-prices';
import type { Db } from '../common/db/duckdb.ts';
import type { Logger } from '../common/logger.ts';

/** One usage record's tokens as the wire normalizes them: input_tokens excludes cache reads and writes. */
export interface RecordTokens {
  input: number;
  output: number;
  cacheRead: number;
  /** Every cache write, one-hour ones included. */
  cacheWrite: number;
  /** The part of cacheWrite written for one hour (0 when the agent does not say). */
  cacheWrite1h: number;
}

/** An organization's own price: US dollars per million tokens, from its date on. */
export interface OrgPrice {
  /** A model id or a pattern with * (any run of characters). */
  model: string;
  /** YYYY-MM-DD (UTC). */
  effectiveFrom: string;
  inputMtok: number;
  outputMtok: number;
  /** null: cache reads cost the input price. */
  cacheReadMtok: number | null;
  /** null: cache writes cost the input price. */
  cacheWriteMtok: number | null;
  /** null: one-hour writes cost the cache-write price. */
  cacheWrite1hMtok: number | null;
}

/** Where a record's price came from: the organization's entry, or the list price of a provider's model. */
export type PriceSource = { kind: 'org'; model: string; effectiveFrom: string } | { kind: 'list'; provider: string; model: string };

export interface RecordCost {
  usd: number;
  source: PriceSource;
}

/**
 * The provider whose list prices a model id is looked up in: the vendor the agents call by that name.
 * Without one the library guesses from the name across every provider (a resold copy could win), so the
 * families our agents use are named; anything else is matched by the library alone.
 */
export function providerOf(model: string): string | undefined {
  const m = model.toLowerCase();
  if (m.startsWith('claude-')) return 'anthropic';
  if (m.startsWith('gpt-') || /^o\d/.test(m) || m.startsWith('codex-')) return 'openai';
  if (m.startsWith('gemini-')) return 'google';
  return undefined;
}

const patternMatches = (pattern: string, model: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(model);

const wildcards = (pattern: string) => pattern.split('*').length - 1;

/** Pure: does entry `a` win over entry `b` (both matching the model, both started)? See orgPriceFor. */
function wins(a: OrgPrice, b: OrgPrice): boolean {
  if (a.effectiveFrom !== b.effectiveFrom) return a.effectiveFrom > b.effectiveFrom;
  if (a.model.length !== b.model.length) return a.model.length > b.model.length;
  if (wildcards(a.model) !== wildcards(b.model)) return wildcards(a.model) < wildcards(b.model);
  return a.model < b.model;
}

/**
 * The organization's entry for a model on a day: the latest start on or before it, then the longest
 * pattern, then the one with fewer *, then the one that sorts first: the same entries pick the same one
 * whatever order they were set (and are read) in.
 */
export function orgPriceFor(prices: readonly OrgPrice[], model: string, day: string): OrgPrice | undefined {
  let best: OrgPrice | undefined;
  for (const p of prices) {
    if (p.effectiveFrom > day || !patternMatches(p.model, model)) continue;
    if (!best || wins(p, best)) best = p;
  }
  return best;
}

/** The library's usage: input_tokens is the total input, cache reads and writes parts of it. */
function libraryUsage(t: RecordTokens): Usage {
  const usage: Usage = {
    input_tokens: t.input + t.cacheRead + t.cacheWrite,
    output_tokens: t.output,
    cache_read_tokens: t.cacheRead,
    cache_write_tokens: t.cacheWrite,
  };
  if (t.cacheWrite1h > 0) usage['cache_write_1h_tokens'] = Math.min(t.cacheWrite1h, t.cacheWrite);
  return usage;
}

function orgModelPrice(p: OrgPrice): ModelPrice {
  const price: ModelPrice = { input_mtok: p.inputMtok, output_mtok: p.outputMtok };
  if (p.cacheReadMtok !== null) price['cache_read_mtok'] = p.cacheReadMtok;
  const write = p.cacheWriteMtok ?? (p.cacheWrite1hMtok !== null ? p.inputMtok : null);
  if (write !== null) price['cache_write_mtok'] = write;
  if (p.cacheWrite1hMtok !== null) price['cache_write_1h_mtok'] = p.cacheWrite1hMtok;
  return price;
}

/** The library's provider of a model's list prices, narrowed to that model; null when it has none. */
type ListProvider = NonNullable<Parameters<typeof calcPrice>[2]>['provider'] | null;

/**
 * Per model id, where its list prices are: found once. Finding the provider and the model (matching the
 * id against every model of the provider, and of every provider when the family is not ours) does not
 * depend on the time, and was a quarter of the library's time a record; the price of the time and the
 * arithmetic stay the library's, on a provider of that one model. Capped, since model ids are senders'.
 */
const listProviders = new Map<string, ListProvider>();
const MAX_LIST_PROVIDERS = 10_000;

/** The library's provider of a model's list prices narrowed to it (cached), or null when it has none. */
function listProvider(model: string): ListProvider {
  let provider = listProviders.get(model);
  if (provider === undefined) {
    const providerId = providerOf(model);
    // Finding them needs no usage nor time; the call prices nothing that is kept.
    const found = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, {
      ...(providerId ? { providerId } : {}),
      timestamp: new Date(0),
    });
    provider = found ? { ...found.provider, models: [found.model] } : null;
    if (listProviders.size >= MAX_LIST_PROVIDERS) listProviders.clear();
    listProviders.set(model, provider);
  }
  return provider;
}

/**
 * One record's cost in US dollars at its time (ms since the epoch), or null when neither the organization
 * nor the list prices know the model. An organization entry wins over the list price.
 */
export function recordCost(model: string, ts: number, tokens: RecordTokens, orgPrices: readonly OrgPrice[]): RecordCost | null {
  const usage = libraryUsage(tokens);
  const own = orgPrices.length ? orgPriceFor(orgPrices, model, new Date(ts).toISOString().slice(0, 10)) : undefined;
  if (own) {
    const provider = {
      id: 'organization',
      name: 'organization',
      api_pattern: '',
      models: [{ id: model, match: { equals: model }, prices: orgModelPrice(own) }],
    };
    const result = calcPrice(usage, model, { provider, timestamp: new Date(ts) });
    if (result) return { usd: result.total_price, source: { kind: 'org', model: own.model, effectiveFrom: own.effectiveFrom } };
  }
  const provider = listProvider(model);
  if (!provider) return null;
  const result = calcPrice(usage, model, { provider, timestamp: new Date(ts) });
  if (!result) return null;
  return { usd: result.total_price, source: { kind: 'list', provider: result.provider.id, model: result.model.id } };
}

/**
 * How the records of one organization, model and day are priced, as the rows of the temp table
 * usage_price: 'sql', by the library's arithmetic on the prices of that day, in SQL (COST_SQL.priced);
 * 'js', record by record by the library (recordCost); 'none', no price (cost NULL).
 *
 * A record's dollars in the library (@pydantic/genai-prices, calcPrice): each priced unit's "leaf" (its
 * tokens less those of the more specific priced units it contains: cache reads and writes are input, one-hour
 * writes are cache writes), times its price (a tiered price picks its tier by the record's whole input),
 * divided by a million; the input terms added in the order the price lists them, then the output term.
 * Its prices are constant through a UTC day (their start dates are days) except for time-of-day prices,
 * which stay with the library ('js'), as does a price with any unit other than these five and the search
 * counts (a search count's usage is never reported, so its term is 0). test/unit/price-usage.unit.test.ts
 * checks this against the library record by record, bit for bit.
 */
export interface PricePlan {
  o: string;
  m: string;
  /** YYYY-MM-DD. */
  d: string;
  how: 'sql' | 'js' | 'none';
  /** Per unit (in, cr, cw, h, out): the price (null: not priced), a tier's start and price, and for the input units their place in the sum. */
  prices: Record<PricedUnit, { base: number; tierStart: number | null; tierPrice: number | null; rank: number } | null>;
}

type PricedUnit = 'in' | 'cr' | 'cw' | 'h' | 'out';

/** The library's price keys of the units above. */
const UNIT_OF_KEY: Record<string, PricedUnit> = {
  input_mtok: 'in',
  cache_read_mtok: 'cr',
  cache_write_mtok: 'cw',
  cache_write_1h_mtok: 'h',
  output_mtok: 'out',
};
/** Price keys whose usage a record never reports: their term is 0. */
const UNREPORTED_KEYS = new Set(['web_searches_kcount', 'storage_searches_kcount']);

/** The plan of one model price, or undefined when the library must price it record by record. */
export function sqlPrices(price: Record<string, unknown>): PricePlan['prices'] | undefined {
  const prices: PricePlan['prices'] = { in: null, cr: null, cw: null, h: null, out: null };
  let rank = 0;
  for (const [key, value] of Object.entries(price)) {
    if (value === undefined) continue;
    const unit = UNIT_OF_KEY[key];
    if (!unit) {
      if (UNREPORTED_KEYS.has(key)) continue;
      return undefined;
    }
    const place = unit === 'out' ? 0 : ++rank;
    if (typeof value === 'number') prices[unit] = { base: value, tierStart: null, tierPrice: null, rank: place };
    else {
      const tiered = value as { base?: unknown; tiers?: { start: unknown; price: unknown }[] };
      const tier = tiered.tiers?.[0];
      if (
        typeof tiered.base !== 'number' ||
        tiered.tiers?.length !== 1 ||
        typeof tier?.start !== 'number' ||
        typeof tier.price !== 'number'
      )
        return undefined;
      prices[unit] = { base: tiered.base, tierStart: tier.start, tierPrice: tier.price, rank: place };
    }
  }
  return prices;
}

/** One input term of COST_SQL.priced: the unit's leaf times its price (its tier's, past it) over a million. */
const term = (unit: string, leaf: string) => `CASE WHEN p_${unit} IS NULL THEN 0
       WHEN t_${unit} IS NULL THEN p_${unit} * CAST(${leaf} AS DOUBLE) / 1e6
       WHEN ${leaf} <= 0 THEN 0
       ELSE (CASE WHEN total_in > t_${unit} THEN q_${unit} ELSE p_${unit} END) * CAST(${leaf} AS DOUBLE) / 1e6 * 1e6 / 1e6 END`;
/** The input term in place k of the sum (0 where the price has fewer). */
const place = (k: number) => `CASE ${['in', 'cr', 'cw', 'h'].map((u) => `WHEN r_${u} = ${k} THEN term_${u}`).join(' ')} ELSE 0 END`;

/**
 * What usage_cost keeps of each record besides its dollars: what the tokens, repository and session-cost
 * steps read, so that they read the chunk's records from it instead of joining the usage table to it.
 */
const RECORD_COLUMNS = `org_id, id, day, user_id, agent, model, session_id, source, thinking, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens`;
const RECORD_FIELDS = `u.org_id, u.id, CAST(u.ts AS DATE) AS day, u.user_id, u.agent, u.model, u.session_id, u.source, u.thinking,
       u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens`;

/**
 * The records of the rebuilt days are those of usage_price's (organization, model, day) groups, which
 * COST_SQL.groups read from the rebuild set: joined to it, a record needs no other test of its day.
 */
export const COST_SQL = {
  /** The records of the 'js' groups, with what the build steps read of them (see priced). */
  jsRecords: `CREATE OR REPLACE TEMP TABLE usage_js AS
            SELECT ${RECORD_FIELDS}, epoch_ms(u.ts) AS ts, coalesce(u.cache_write_1h_tokens, 0) AS cache_write_1h_tokens
            FROM usage u JOIN usage_price p ON p.org_id = u.org_id AND p.model = u.model AND p.day = CAST(u.ts AS DATE) AND p.how = 'js'
            WHERE u.ts >= CAST($chunk_first AS TIMESTAMP) AND u.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY`,
  records: `SELECT org_id, id, model, ts, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens
            FROM usage_js`,
  groups: `SELECT DISTINCT u.org_id, u.model, CAST(CAST(u.ts AS DATE) AS VARCHAR) AS day
           FROM usage u JOIN rebuild r ON r.org_id = u.org_id AND r.day = CAST(u.ts AS DATE)
           WHERE u.ts >= CAST($chunk_first AS TIMESTAMP) AND u.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY`,
  orgPrices: `SELECT org_id, model, CAST(effective_from AS VARCHAR) AS effective_from, input_mtok, output_mtok, cache_read_mtok,
                     cache_write_mtok, cache_write_1h_mtok
              FROM org_prices WHERE org_id IN (SELECT DISTINCT org_id FROM rebuild)`,
  planTable: `CREATE OR REPLACE TEMP TABLE usage_price (org_id VARCHAR, model VARCHAR, day DATE, how VARCHAR,
                p_in DOUBLE, t_in BIGINT, q_in DOUBLE, r_in INTEGER, p_cr DOUBLE, t_cr BIGINT, q_cr DOUBLE, r_cr INTEGER,
                p_cw DOUBLE, t_cw BIGINT, q_cw DOUBLE, r_cw INTEGER, p_h DOUBLE, t_h BIGINT, q_h DOUBLE, r_h INTEGER,
                p_out DOUBLE, t_out BIGINT, q_out DOUBLE)`,
  planInsert: `INSERT INTO usage_price SELECT unnest(from_json($rows, '[{"org_id":"VARCHAR","model":"VARCHAR","day":"DATE","how":"VARCHAR",
                "p_in":"DOUBLE","t_in":"BIGINT","q_in":"DOUBLE","r_in":"INTEGER","p_cr":"DOUBLE","t_cr":"BIGINT","q_cr":"DOUBLE","r_cr":"INTEGER",
                "p_cw":"DOUBLE","t_cw":"BIGINT","q_cw":"DOUBLE","r_cw":"INTEGER","p_h":"DOUBLE","t_h":"BIGINT","q_h":"DOUBLE","r_h":"INTEGER",
                "p_out":"DOUBLE","t_out":"BIGINT","q_out":"DOUBLE"}]'), recursive := true)`,
  /** Every record of a 'sql' or 'none' group, priced (see PricePlan). */
  priced: `CREATE OR REPLACE TEMP TABLE usage_cost AS
WITH rec AS (
  SELECT ${RECORD_FIELDS}, p.how, p.p_in, p.t_in, p.q_in, p.r_in, p.p_cr, p.t_cr, p.q_cr, p.r_cr, p.p_cw, p.t_cw, p.q_cw, p.r_cw,
         p.p_h, p.t_h, p.q_h, p.r_h, p.p_out, p.t_out, p.q_out,
         u.input_tokens + u.cache_read_tokens + u.cache_write_tokens AS total_in,
         CASE WHEN coalesce(u.cache_write_1h_tokens, 0) > 0 THEN least(u.cache_write_1h_tokens, u.cache_write_tokens) ELSE 0 END AS h,
         u.cache_read_tokens AS cr, u.cache_write_tokens AS cw, u.output_tokens AS out
  FROM usage u JOIN usage_price p ON p.org_id = u.org_id AND p.model = u.model AND p.day = CAST(u.ts AS DATE) AND p.how <> 'js'
  WHERE u.ts >= CAST($chunk_first AS TIMESTAMP) AND u.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY
),
leaves AS (
  SELECT *,
         total_in - CASE WHEN p_cr IS NOT NULL THEN cr ELSE 0 END
                  - CASE WHEN p_cw IS NOT NULL THEN cw WHEN p_h IS NOT NULL THEN h ELSE 0 END AS l_in,
         cw - CASE WHEN p_h IS NOT NULL THEN h ELSE 0 END AS l_cw
  FROM rec
),
terms AS (
  SELECT ${RECORD_COLUMNS}, how, r_in, r_cr, r_cw, r_h,
         ${term('in', 'l_in')} AS term_in,
         ${term('cr', 'cr')} AS term_cr,
         ${term('cw', 'l_cw')} AS term_cw,
         ${term('h', 'h')} AS term_h,
         ${term('out', 'out')} AS term_out
  FROM leaves
)
SELECT ${RECORD_COLUMNS},
       CASE WHEN how = 'none' THEN NULL ELSE ${place(1)} + ${place(2)} + ${place(3)} + ${place(4)} + term_out END AS cost_usd
FROM terms`,
  jsCostTable: 'CREATE OR REPLACE TEMP TABLE usage_js_cost (org_id VARCHAR, id VARCHAR, cost_usd DOUBLE)',
  insert: `INSERT INTO usage_js_cost SELECT unnest(from_json($rows, '[{"o":"VARCHAR","i":"VARCHAR","c":"DOUBLE"}]'), recursive := true)`,
  jsPriced: `INSERT INTO usage_cost SELECT ${RECORD_COLUMNS}, c.cost_usd FROM usage_js JOIN usage_js_cost c USING (org_id, id)`,
} as const;

/** Rows per insert statement (one JSON parameter each). */
const INSERT_ROWS = 20_000;

export interface OrgPriceRow {
  org_id: string;
  model: string;
  effective_from: string;
  input_mtok: number;
  output_mtok: number;
  cache_read_mtok: number | null;
  cache_write_mtok: number | null;
  cache_write_1h_mtok: number | null;
}

export const orgPriceOf = (r: OrgPriceRow): OrgPrice => ({
  model: r.model,
  effectiveFrom: r.effective_from,
  inputMtok: r.input_mtok,
  outputMtok: r.output_mtok,
  cacheReadMtok: r.cache_read_mtok,
  cacheWriteMtok: r.cache_write_mtok,
  cacheWrite1hMtok: r.cache_write_1h_mtok,
});

const NO_PRICES: PricePlan['prices'] = { in: null, cr: null, cw: null, h: null, out: null };

/** A list price whose time constraints are all start days (UTC midnights): one price through each day. */
const DAY_START = /^\d{4}-\d{2}-\d{2}$/;
function pricedByDay(prices: unknown): boolean {
  if (!Array.isArray(prices)) return true;
  return prices.every((p: { constraint?: { type?: string; start_date?: unknown } }) => {
    const c = p.constraint;
    return c === undefined || (c.type === 'start_date' && typeof c.start_date === 'string' && DAY_START.test(c.start_date));
  });
}

/** How the records of a model on a day (YYYY-MM-DD, UTC) are priced, given the organization's own prices. */
export function pricePlan(model: string, day: string, orgPrices: readonly OrgPrice[]): Pick<PricePlan, 'how' | 'prices'> {
  const own = orgPrices.length ? orgPriceFor(orgPrices, model, day) : undefined;
  let price: Record<string, unknown> | undefined;
  if (own) price = orgModelPrice(own);
  else {
    const provider = listProvider(model);
    if (!provider) return { how: 'none', prices: NO_PRICES };
    if (!pricedByDay(provider.models[0]?.prices)) return { how: 'js', prices: NO_PRICES };
    price = calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { provider, timestamp: new Date(`${day}T00:00:00Z`) })?.model_price;
  }
  const prices = price && sqlPrices(price);
  return prices ? { how: 'sql', prices } : { how: 'js', prices: NO_PRICES };
}

/** A plan as a row of usage_price. */
function planRow(plan: PricePlan): Record<string, string | number | null> {
  const row: Record<string, string | number | null> = { org_id: plan.o, model: plan.m, day: plan.d, how: plan.how };
  for (const unit of ['in', 'cr', 'cw', 'h', 'out'] as const) {
    const p = plan.prices[unit];
    row[`p_${unit}`] = p?.base ?? null;
    row[`t_${unit}`] = p?.tierStart ?? null;
    row[`q_${unit}`] = p?.tierPrice ?? null;
    if (unit !== 'out') row[`r_${unit}`] = p?.rank ?? null;
  }
  return row;
}

/**
 * The build step before the tokens step: the temp table usage_cost, every usage record of the rebuilt days
 * from `first` to `last` with what the build steps read of it (RECORD_COLUMNS) and its cost_usd (NULL for a
 * model without a price).
 * The library gives each (organization, model, day)'s prices; the records of the usual ones are priced in
 * SQL by its arithmetic, the others by the library record by record (PricePlan).
 */
export async function priceUsage(db: Db, first: string, last: string, log: Logger): Promise<void> {
  const started = performance.now();
  const own = new Map<string, OrgPrice[]>();
  for (const r of await db.all<OrgPriceRow & Record<string, unknown>>(COST_SQL.orgPrices)) {
    const list = own.get(r.org_id) ?? [];
    list.push(orgPriceOf(r));
    own.set(r.org_id, list);
  }
  const range = { chunk_first: first, chunk_last: last };
  const groups = await db.all<{ org_id: string; model: string; day: string }>(COST_SQL.groups, range);
  const plans: PricePlan[] = groups.map((g) => ({
    o: g.org_id,
    m: g.model,
    d: g.day,
    ...pricePlan(g.model, g.day, own.get(g.org_id) ?? []),
  }));
  await db.run(COST_SQL.planTable);
  for (let i = 0; i < plans.length; i += INSERT_ROWS)
    await db.run(COST_SQL.planInsert, { rows: JSON.stringify(plans.slice(i, i + INSERT_ROWS).map(planRow)) });
  await db.run(COST_SQL.priced, range);
  let byLibrary = 0;
  if (plans.some((p) => p.how === 'js')) {
    await db.run(COST_SQL.jsRecords, range);
    await db.run(COST_SQL.jsCostTable);
    const records = await db.all<{
      org_id: string;
      id: string;
      model: string;
      ts: number;
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
      cache_write_1h_tokens: number;
    }>(COST_SQL.records);
    byLibrary = records.length;
    let rows: { o: string; i: string; c: number | null }[] = [];
    const flush = async () => {
      if (rows.length) await db.run(COST_SQL.insert, { rows: JSON.stringify(rows) });
      rows = [];
    };
    for (const r of records) {
      const cost = recordCost(
        r.model,
        Number(r.ts),
        {
          input: Number(r.input_tokens),
          output: Number(r.output_tokens),
          cacheRead: Number(r.cache_read_tokens),
          cacheWrite: Number(r.cache_write_tokens),
          cacheWrite1h: Number(r.cache_write_1h_tokens),
        },
        own.get(r.org_id) ?? [],
      );
      rows.push({ o: r.org_id, i: r.id, c: cost ? cost.usd : null });
      if (rows.length >= INSERT_ROWS) await flush();
    }
    await flush();
    await db.run(COST_SQL.jsPriced);
  }
  log.debug({ query: 'usage_cost', groups: plans.length, byLibrary, ms: Math.round(performance.now() - started) }, 'pipeline step');
}
