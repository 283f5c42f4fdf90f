// The cost split of docs/metrics.md §10 and the median time to merge, on hand-worked numbers.
import { describe, expect, it } from 'vitest';
import { hoursToMerge, median, pullRequestCosts } from '../../api/pull-requests/figures.ts';

describe('pullRequestCosts', () => {
  it("splits one session's cost over the two pull requests its lines reached, by the share each holds", () => {
    // Session s1 cost $12.00 and had 40 credited lines: 30 in PR #1, 10 in PR #2.
    // Session s2 cost $3.00 and had 20 credited lines: 5 in PR #2, 15 in a commit pushed without a PR.
    // PR #1 = 12 × 30/40 = 9.00; PR #2 = 12 × 10/40 + 3 × 5/20 = 3.00 + 0.75 = 3.75. s1 is split whole (9 + 3 = 12).
    const costs = pullRequestCosts(
      new Map([
        ['#1', [{ sessionId: 's1', lines: 30 }]],
        [
          '#2',
          [
            { sessionId: 's1', lines: 10 },
            { sessionId: 's2', lines: 5 },
          ],
        ],
      ]),
      new Map([
        ['s1', 40],
        ['s2', 20],
      ]),
      new Map([
        ['s1', 12],
        ['s2', 3],
      ]),
    );
    expect(costs).toEqual(
      new Map([
        ['#1', 9],
        ['#2', 3.75],
      ]),
    );
  });

  it('a pull request holding a session without a price has no cost (never a partial one); one without agent lines costs 0', () => {
    const costs = pullRequestCosts(
      new Map([
        ['#1', [{ sessionId: 'unpriced', lines: 3 }]],
        ['#2', []],
      ]),
      new Map([['unpriced', 3]]),
      new Map([['unpriced', null]]),
    );
    expect(costs).toEqual(
      new Map<string, number | null>([
        ['#1', null],
        ['#2', 0],
      ]),
    );
  });

  it('rounds to 4 decimals: $1 over 3 lines, 1 held', () => {
    expect(pullRequestCosts(new Map([['#1', [{ sessionId: 's', lines: 1 }]]]), new Map([['s', 3]]), new Map([['s', 1]])).get('#1')).toBe(
      0.3333,
    );
  });
});

describe('median and hours to merge', () => {
  it('is the middle value, or the mean of the middle two', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 10])).toBe(3.5);
    expect(median([])).toBeNull();
  });

  it('counts hours from opening to merge, to 2 decimals', () => {
    expect(hoursToMerge(Date.parse('2026-11-02T09:00:00Z'), Date.parse('2026-11-03T11:30:00Z'))).toBe(26.5);
    expect(hoursToMerge(0, 20 * 60_000)).toBe(0.33);
  });
});
