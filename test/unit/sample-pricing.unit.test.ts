// Every model the demo's own sample uses has a price on every day the sample can cover, so the first
// `npm start` does not warn about its own data ("models without a price counted at 1x"). The models are
// read from a generated sample (the demo's seed and size), the prices from pipeline/pricing.json.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICING_FILE } from '../../pipeline/batch.ts';
import { generate } from '../../sample-data/generator.ts';
import { SAMPLE_DAYS, SAMPLE_SEED, SAMPLE_USERS } from '../../sample-data/load.ts';

interface Price {
  match: string;
  effective_from: string;
}

/** A pricing pattern (`*` matches any run of characters) as a regular expression for the whole id. */
const patternOf = (match: string) =>
  new RegExp(
    `^${match
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** The first day from which some entry prices the model, or undefined when none ever does. */
function pricedFrom(model: string, prices: readonly Price[]): string | undefined {
  const days = prices.filter((p) => patternOf(p.match).test(model)).map((p) => p.effective_from);
  return days.sort()[0];
}

describe("the demo sample's models are priced", () => {
  it('the pattern reading matches the file\'s rule (a "*" is any run of characters)', () => {
    expect(patternOf('gemini-*-pro*').test('gemini-3.1-pro-preview')).toBe(true);
    expect(patternOf('gpt-5.4*').test('gpt-5x4')).toBe(false);
    expect(
      pricedFrom('x-1', [
        { match: 'x-*', effective_from: '2026-03-01' },
        { match: 'x-1', effective_from: '2026-01-01' },
      ]),
    ).toBe('2026-01-01');
  });

  it("every model of the demo's sample (its seed and size, up to yesterday) is priced on its first day", () => {
    const { prices } = JSON.parse(readFileSync(DEFAULT_PRICING_FILE, 'utf8')) as { prices: Price[] };
    const lastDay = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const firstDay = new Date(Date.parse(lastDay) - (SAMPLE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const plan = generate({ seed: SAMPLE_SEED, lastDay, days: SAMPLE_DAYS, users: SAMPLE_USERS });
    // Models appear in hook payloads and in the session files written beside them (JSON inside JSON).
    const models = new Set([...JSON.stringify(plan).matchAll(/\\*"model\\*":\\*"([^"\\]+)/g)].map((m) => m[1]!));
    expect(models.size).toBeGreaterThanOrEqual(10);
    const unpriced = [...models].filter((m) => (pricedFrom(m, prices) ?? '9999') > firstDay).sort();
    expect(unpriced).toEqual([]);
  });
});
