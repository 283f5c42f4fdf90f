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

/** The organization's entry for a model on a day: the latest start on or before it, then the longest pattern. */
export function orgPriceFor(prices: readonly OrgPrice[], model: string, day: string): OrgPrice | undefined {
  let best: OrgPrice | undefined;
  for (const p of prices) {
    if (p.effectiveFrom > day || !patternMatches(p.model, model)) continue;
    if (!best || p.effectiveFrom > best.effectiveFrom || (p.effectiveFrom === best.effectiveFrom && p.model.length > best.model.length))
      best = p;
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
  const known = listProviders.get(model);
  if (known === null) return null;
  let result: ReturnType<typeof calcPrice>;
  if (known) result = calcPrice(usage, model, { provider: known, timestamp: new Date(ts) });
  else {
    const providerId = providerOf(model);
    result = calcPrice(usage, model, { ...(providerId ? { providerId } : {}), timestamp: new Date(ts) });
    if (listProviders.size >= MAX_LIST_PROVIDERS) listProviders.clear();
    listProviders.set(model, result ? { ...result.provider, models: [result.model] } : null);
  }
  if (!result) return null;
  return { usd: result.total_price, source: { kind: 'list', provider: result.provider.id, model: result.model.id } };
}

export const COST_SQL = {
  records: `SELECT u.org_id, u.id, u.model, epoch_ms(u.ts) AS ts, u.input_tokens, u.output_tokens, u.cache_read_tokens,
                   u.cache_write_tokens, coalesce(u.cache_write_1h_tokens, 0) AS cache_write_1h_tokens
            FROM usage u JOIN rebuild r ON r.org_id = u.org_id AND r.day = CAST(u.ts AS DATE)
            WHERE u.ts >= CAST($chunk_first AS TIMESTAMP) AND u.ts < CAST($chunk_last AS TIMESTAMP) + INTERVAL 1 DAY`,
  orgPrices: `SELECT org_id, model, CAST(effective_from AS VARCHAR) AS effective_from, input_mtok, output_mtok, cache_read_mtok,
                     cache_write_mtok, cache_write_1h_mtok
              FROM org_prices WHERE org_id IN (SELECT DISTINCT org_id FROM rebuild)`,
  table: 'CREATE OR REPLACE TEMP TABLE usage_cost (org_id VARCHAR, id VARCHAR, cost_usd DOUBLE)',
  insert: `INSERT INTO usage_cost SELECT unnest(from_json($rows, '[{"o":"VARCHAR","i":"VARCHAR","c":"DOUBLE"}]'), recursive := true)`,
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

/**
 * The build step before the tokens step: the temp table usage_cost (org_id, id, cost_usd) with the cost of
 * every usage record of the rebuilt days from `first` to `last` (cost_usd NULL for a model without a price).
 */
export async function priceUsage(db: Db, first: string, last: string, log: Logger): Promise<void> {
  const started = performance.now();
  const own = new Map<string, OrgPrice[]>();
  for (const r of await db.all<OrgPriceRow & Record<string, unknown>>(COST_SQL.orgPrices)) {
    const list = own.get(r.org_id) ?? [];
    list.push(orgPriceOf(r));
    own.set(r.org_id, list);
  }
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
  }>(COST_SQL.records, { chunk_first: first, chunk_last: last });
  await db.run(COST_SQL.table);
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
  log.debug({ query: 'usage_cost', records: records.length, ms: Math.round(performance.now() - started) }, 'pipeline step');
}
