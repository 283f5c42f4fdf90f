// The anomaly rule's pure parts (docs/metrics.md §9) on hand-worked numbers: the median over days with usage
// only, the 28 days before a day, the 3 × median and floor rule, the minimum history, and a team's days.
import { describe, expect, it } from 'vitest';
import { anomalies, byUser, history, median, teamDays, verdict } from '../../api/anomalies/figures.ts';
import { anomalySlack } from '../../api/anomalies/messages.ts';
import { alertSettingsRequest } from '../../web/src/figures.ts';

describe('anomalies', () => {
  it('median: the middle value, or the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    // sorted 2, 4, 8, 10: (4 + 8) / 2 = 6
    expect(median([10, 2, 8, 4])).toBe(6);
    expect(median([])).toBeNull();
  });

  it('history: the days with usage of the 28 before the day, not the day itself nor the 29th before', () => {
    const days = new Map([
      ['2026-02-19', 100], // 29 days before 03-20 (February has 28): out
      ['2026-02-20', 1], // 28 days before: in
      ['2026-03-01', 2],
      ['2026-03-19', 3],
      ['2026-03-20', 50], // the day itself: out
    ]);
    expect(history(days, '2026-03-20')).toEqual([1, 2, 3]);
    // Days without usage are not zeros in the median: 3 values, not 28.
    expect(median(history(days, '2026-03-20'))).toBe(2);
  });

  it('fires above both 3 × the median and the floor, never on equality', () => {
    // 7 days with usage: sorted 2, 4, 4, 5, 6, 6, 10 → median 5, 3 × 5 = $15.
    const before = [6, 2, 10, 4, 5, 4, 6];
    expect(verdict(21, before, 20)).toEqual({ fires: true, median: 5, daysWithUsage: 7 });
    // Above 3 × the median but not above the $20 floor.
    expect(verdict(19, before, 20)).toMatchObject({ fires: false, reason: 'not above the floor' });
    expect(verdict(20, before, 20)).toMatchObject({ fires: false, reason: 'not above the floor' });
    // Floor $10: exactly 3 × the median is not above it; a hundredth of a cent more is.
    expect(verdict(15, before, 10)).toMatchObject({ fires: false, reason: 'not above 3 × the median' });
    expect(verdict(15.0001, before, 10)).toMatchObject({ fires: true, median: 5 });
    // Even count: 1 … 8 → median 4.5, 3 × 4.5 = 13.5.
    const eight = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(verdict(13.5, eight, 0)).toMatchObject({ fires: false, median: 4.5 });
    expect(verdict(13.5001, eight, 0)).toMatchObject({ fires: true, median: 4.5, daysWithUsage: 8 });
    // Dollars as floats: 0.1 + 0.2 days compared in hundredths of a cent (3 × 0.3 = 0.9 is not above 0.9).
    expect(verdict(0.9, [0.1 + 0.2, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3], 0)).toMatchObject({ fires: false });
  });

  it('needs 7 days with usage in the 28 before: a first day of use never fires', () => {
    expect(verdict(1000, [], 20)).toEqual({ fires: false, reason: 'too little history', median: null, daysWithUsage: 0 });
    expect(verdict(1000, [1, 1, 1, 1, 1, 1], 20)).toMatchObject({ fires: false, reason: 'too little history', daysWithUsage: 6 });
    expect(verdict(1000, [1, 1, 1, 1, 1, 1, 1], 20)).toMatchObject({ fires: true, median: 1, daysWithUsage: 7 });
  });

  it('looks at the given days of a person: $2 on 7 days, then $25 today', () => {
    const rows = [
      ...['2026-03-10', '2026-03-11', '2026-03-12', '2026-03-13', '2026-03-16', '2026-03-17', '2026-03-18'].map((day) => ({
        user_id: 'u1',
        day,
        usd: 2,
      })),
      { user_id: 'u1', day: '2026-03-22', usd: 20 },
      { user_id: 'u1', day: '2026-03-22', usd: 5 }, // two models the same day: $25
      { user_id: 'u2', day: '2026-03-22', usd: 30 }, // a first day of use
    ];
    const users = byUser(rows);
    expect(anomalies(users.get('u1')!, ['2026-03-21', '2026-03-22'], 20)).toEqual([
      { day: '2026-03-22', cost: 25, median: 2, daysWithUsage: 7 },
    ]);
    expect(anomalies(users.get('u2')!, ['2026-03-21', '2026-03-22'], 20)).toEqual([]);
  });

  it("a team's day is its members' of that day, left out below the minimum team size", () => {
    const rows = [
      { user_id: 'a', day: '2026-03-01', usd: 1 },
      { user_id: 'b', day: '2026-03-01', usd: 2 },
      { user_id: 'c', day: '2026-03-01', usd: 40 }, // not a member
      { user_id: 'a', day: '2026-03-02', usd: 4 },
    ];
    const members = (day: string) => new Set(day === '2026-03-01' ? ['a', 'b'] : ['a']);
    expect(teamDays(rows, members, 1)).toEqual(
      new Map([
        ['2026-03-01', 3],
        ['2026-03-02', 4],
      ]),
    );
    // Minimum team size 2: 03-02 had one member.
    expect(teamDays(rows, members, 2)).toEqual(new Map([['2026-03-01', 3]]));
  });

  it('says who, how much, against what, in Slack', () => {
    const slack = anomalySlack({
      id: 'anm_1',
      type: 'cost.anomaly',
      org_id: 'o',
      scope: 'user',
      email: 'dev@example.com',
      day: '2026-03-22',
      cost_usd: 1234.5,
      median_usd: 2,
      multiple: 3,
      floor_usd: 20,
      days_with_usage: 7,
      fired_at: '2026-03-22T12:00:00.000Z',
    });
    expect(slack.text).toBe(
      'agentmeter: dev@example.com spent $1,234.50 on 2026-03-22 (UTC), above 3× their median day of $2.00 (7 days with usage in the 28 before) and the $20.00 floor.',
    );
  });
});

describe('the Budgets page’s anomaly and digest settings form', () => {
  const fields = {
    floor: '$1,250.5',
    anomalySlack: 'https://hooks.slack.com/services/T/B/X',
    anomalyWebhook: '',
    anomalySecret: '',
    digestSlack: '',
    digestWebhook: 'https://example.com/digest',
    digestSecret: 'whsec-0123456789abcdef',
  };
  it('makes the PATCH body: the floor in dollars, an empty URL no destination', () => {
    expect(alertSettingsRequest(fields)).toEqual({
      body: {
        anomalies: { floorUsd: 1250.5, destinations: [{ type: 'slack', url: 'https://hooks.slack.com/services/T/B/X' }] },
        digest: { destinations: [{ type: 'webhook', url: 'https://example.com/digest', secret: 'whsec-0123456789abcdef' }] },
      },
    });
  });
  it('says what is wrong with the floor', () => {
    expect(alertSettingsRequest({ ...fields, floor: '-3' })).toEqual({
      problem: 'The floor must be a number of dollars, 0 or more; got "-3"',
    });
    expect(alertSettingsRequest({ ...fields, floor: '' })).toHaveProperty('problem');
  });
});
