// The Code page's pull request figures over a range (web/src/figures.ts), from the server's daily records.
import { describe, expect, it } from 'vitest';
import { pullRequestTotals } from '../../web/src/figures.ts';

describe('pullRequestTotals', () => {
  it('sums merged and agent pull requests and divides the cost by the merged: ($4 + $2) / 4 = $1.50', () => {
    expect(
      pullRequestTotals([
        { merged: 3, merged_with_agent_lines: 3, cost_usd: 4 },
        { merged: 0, merged_with_agent_lines: 0, cost_usd: 0 },
        { merged: 1, merged_with_agent_lines: 0, cost_usd: 2 },
      ]),
    ).toEqual({ merged: 4, withAgent: 3, costPerMerged: 1.5 });
  });

  it('has no cost per merged pull request when a day has no price or nothing merged', () => {
    expect(pullRequestTotals([{ merged: 2, merged_with_agent_lines: 1, cost_usd: null }]).costPerMerged).toBeNull();
    expect(pullRequestTotals([]).costPerMerged).toBeNull();
  });
});
