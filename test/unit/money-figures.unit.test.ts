// The dashboard's dollars (docs/metrics.md §8): the format, and the Budgets form's request.
import { describe, expect, it } from 'vitest';
import { type BudgetFields, budgetRequest, formatAmount, formatUsd } from '../../web/src/figures.ts';

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
