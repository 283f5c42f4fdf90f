// pipeline/cost.ts recordCost: a model's list provider is found once, and the dollars stay the library's to
// the last bit (docs/metrics.md §8). The reference is @pydantic/genai-prices asked afresh for every record.
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { providerOf, type RecordTokens, recordCost } from '../../pipeline/cost.ts';

const MODELS = [
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-1-20250805',
  'claude-haiku-4-5-20251001',
  'claude-3-5-sonnet-20241022',
  'gpt-5-codex',
  'gpt-5.5',
  'o3',
  'gemini-2.5-pro',
  // No family of ours: the library finds the provider itself; DeepSeek's price depends on the time of day.
  'deepseek-chat',
  'no-such-model',
];

/** The cost as the library gives it when asked with the provider id alone, every time. */
function reference(model: string, ts: number, t: RecordTokens): number | null {
  const usage: Record<string, number> = {
    input_tokens: t.input + t.cacheRead + t.cacheWrite,
    output_tokens: t.output,
    cache_read_tokens: t.cacheRead,
    cache_write_tokens: t.cacheWrite,
  };
  if (t.cacheWrite1h > 0) usage['cache_write_1h_tokens'] = Math.min(t.cacheWrite1h, t.cacheWrite);
  const providerId = providerOf(model);
  const result = calcPrice(usage, model, { ...(providerId ? { providerId } : {}), timestamp: new Date(ts) });
  return result ? result.total_price : null;
}

describe('recordCost', () => {
  it('gives the library’s dollars bit for bit, over models, times of day, dates and token counts', () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    let priced = 0;
    for (let i = 0; i < 4000; i++) {
      const model = MODELS[i % MODELS.length]!;
      // 2024-01-01 to 2026-12-31, any minute of the day.
      const ts = Date.UTC(2024, 0, 1) + next(1096) * 86_400_000 + next(1440) * 60_000;
      const cacheWrite = next(5) === 0 ? 0 : next(40_000);
      const tokens: RecordTokens = {
        // Past 200k input tokens some models price by a higher tier.
        input: next(3) === 0 ? 150_000 + next(200_000) : next(5000),
        output: next(8000),
        cacheRead: next(4) === 0 ? 0 : next(300_000),
        cacheWrite,
        cacheWrite1h: next(3) === 0 ? next(cacheWrite + 1) : 0,
      };
      const want = reference(model, ts, tokens);
      const got = recordCost(model, ts, tokens, []);
      expect(got?.usd ?? null, `${model} at ${new Date(ts).toISOString()} ${JSON.stringify(tokens)}`).toBe(want);
      if (want !== null) priced++;
    }
    expect(priced).toBeGreaterThan(3000);
  });

  it('prices by the organization’s entry before the list price', () => {
    const tokens = { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };
    const own = {
      model: 'claude-*',
      effectiveFrom: '2026-01-01',
      inputMtok: 1,
      outputMtok: 2,
      cacheReadMtok: null,
      cacheWriteMtok: null,
      cacheWrite1hMtok: null,
    };
    const listed = recordCost('claude-sonnet-4-5-20250929', Date.UTC(2026, 5, 1), tokens, []);
    expect(recordCost('claude-sonnet-4-5-20250929', Date.UTC(2026, 5, 1), tokens, [own])).toEqual({
      usd: 1,
      source: { kind: 'org', model: 'claude-*', effectiveFrom: '2026-01-01' },
    });
    // Before the entry's date, the list price.
    expect(recordCost('claude-sonnet-4-5-20250929', Date.UTC(2025, 11, 31), tokens, [own])?.source.kind).toBe('list');
    expect(listed?.source).toEqual({ kind: 'list', provider: 'anthropic', model: expect.any(String) });
  });
});
