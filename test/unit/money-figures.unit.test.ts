// The dashboard's dollars (docs/metrics.md §8): the format, the Budgets form's request and the digest
// preview's change from the week before and the sent digests' dollars.
import { describe, expect, it } from 'vitest';
import type { DigestPreview } from '../../web/src/api-types.ts';
import {
  type BudgetFields,
  budgetRequest,
  digestChangeText,
  digestCostText,
  dollarsByGroup,
  formatAmount,
  formatUsd,
  unpricedNote,
} from '../../web/src/figures.ts';

const form = (f: Partial<BudgetFields>): BudgetFields => ({
  scope: 'org',
  who: '',
  unit: 'usd',
  amount: '',
  thresholds: '50, 75, 90, 100',
  slack: '',
  webhook: '',
  secret: '',
  ...f,
});

describe('dollars on the dashboard', () => {
  it('shows cents, and a dash (never $0.00) for no price', () => {
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.0475)).toBe('$0.05');
    expect(formatUsd(null)).toBe('—');
    expect(formatAmount(5000, 'credits')).toBe('5,000 Standard Credits');
    expect(formatAmount(12.3, 'usd')).toBe('$12.30');
  });

  it('draws dollars per day with a gap where a day had no price, and leaves out a model never priced', () => {
    const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
    const rows = [
      { date: '2026-03-01', group_key: 'model-a', cost_usd: 2 },
      // Priced from the 3rd: the 2nd has usage, no dollars.
      { date: '2026-03-02', group_key: 'model-a', cost_usd: null },
      { date: '2026-03-01', group_key: 'local', cost_usd: null },
      { date: '2026-03-03', group_key: 'local', cost_usd: null },
      { date: '2026-03-02', group_key: 'model-c', cost_usd: 1.5 },
      // Outside the range: not drawn.
      { date: '2026-02-28', group_key: 'model-c', cost_usd: 9 },
    ];
    expect(dollarsByGroup(days, rows)).toEqual({
      groups: ['model-a', 'model-c'],
      values: [
        [2, null, 0],
        [0, 1.5, 0],
      ],
    });
  });

  it('names the models without a price beside a cost: the whole cost, or what it leaves out', () => {
    expect(unpricedNote(null, ['qwen3-coder-plus'])).toBe('no price (qwen3-coder-plus)');
    expect(unpricedNote(2.5, ['local-a', 'local-b'])).toBe('without local-a, local-b (no price)');
    expect(unpricedNote(2.5, [])).toBeUndefined();
    expect(unpricedNote(null, [])).toBeUndefined();
  });
});

describe("the Budgets page's list of sent digests", () => {
  it('says "no price" for a week whose usage had none, as `agentmeter alerts list` does; dollars otherwise', () => {
    expect(digestCostText(null)).toBe('no price');
    expect(digestCostText(0)).toBe('$0.00');
    expect(digestCostText(1234.5)).toBe('$1,234.50');
  });
});

describe('the Budgets form', () => {
  it('makes the PATCH body of one budget in dollars, with its thresholds and destinations', () => {
    expect(
      budgetRequest(
        form({ scope: 'team', who: ' Platform ', amount: '$1,500', thresholds: '80,100', slack: 'https://hooks.slack.com/services/T/B/X' }),
        false,
      ),
    ).toEqual({
      body: {
        budget: {
          scope: 'team',
          team: 'Platform',
          monthlyUsd: 1500,
          thresholds: [80, 100],
          destinations: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }],
        },
      },
    });
    expect(
      budgetRequest(form({ unit: 'credits', amount: '5000', webhook: 'https://x.example.com/h', secret: 's'.repeat(16) }), false),
    ).toEqual({
      body: {
        budget: {
          scope: 'org',
          monthlyCredits: 5000,
          thresholds: [50, 75, 90, 100],
          destinations: [{ type: 'webhook', url: 'https://x.example.com/h', secret: 's'.repeat(16) }],
        },
      },
    });
  });

  it('removes the budget it names', () => {
    expect(budgetRequest(form({ scope: 'user', who: 'ana@example.com' }), true)).toEqual({
      body: { remove: { scope: 'user', email: 'ana@example.com' } },
    });
  });

  it('says what is wrong in words', () => {
    expect(budgetRequest(form({ amount: 'lots' }), false)).toEqual({ problem: 'The monthly amount must be a number above 0; got "lots"' });
    expect(budgetRequest(form({ unit: 'credits', amount: '10.5' }), false)).toEqual({ problem: 'Standard Credits are whole numbers' });
    expect(budgetRequest(form({ amount: '10', thresholds: '50,x' }), false)).toMatchObject({
      problem: expect.stringContaining('whole percentages'),
    });
    expect(budgetRequest(form({ scope: 'team', amount: '10' }), false)).toEqual({ problem: 'Name the team' });
  });
});

describe("the digest preview's change from the week before", () => {
  const change = (d: Partial<DigestPreview['digest']>) =>
    digestChangeText({
      cost_usd: 10,
      previous_cost_usd: 8,
      previous_unpriced_models: [],
      change_usd: 2,
      change_pct: 25,
      ...d,
    } as DigestPreview['digest']);

  it('says the change, naming the week before’s models without a price', () => {
    expect(change({})).toBe('+$2.00 (+25%) vs the week before');
    expect(change({ previous_unpriced_models: ['local-model'] })).toBe('+$2.00 (+25%) vs the week before, without local-model (no price)');
    // Digests sent before the week before's models were named carry none.
    expect(change({ previous_unpriced_models: undefined, previous_cost_usd: 12.5, change_usd: -2.5, change_pct: -20 })).toBe(
      '-$2.50 (-20%) vs the week before',
    );
    expect(change({ previous_cost_usd: 0, change_usd: 10, change_pct: null })).toBe('+$10.00 ($0.00 the week before)');
  });

  it('shows no change, never one from a $0, when a week’s usage had no price at all', () => {
    expect(change({ previous_cost_usd: null, previous_unpriced_models: ['qwen3-coder-plus'], change_usd: null, change_pct: null })).toBe(
      "no change to show: the week before's usage (qwen3-coder-plus) had no price",
    );
    expect(change({ cost_usd: null, change_usd: null, change_pct: null })).toBe('no change to show (the week before: $8.00)');
  });
});
