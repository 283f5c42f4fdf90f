// The forecast's pure parts (docs/metrics.md §9): the calendar of a day, and the arithmetic.
import { describe, expect, it } from 'vitest';
import { calendar, forecast } from '../../api/forecast/store.ts';

describe('forecast', () => {
  it('the last 7 complete days may reach into the month before; days left are after today', () => {
    expect(calendar(Date.parse('2026-03-03T23:59:00Z'))).toEqual({
      today: '2026-03-03',
      month: '2026-03',
      daysLeft: 28,
      window: ['2026-02-24', '2026-02-25', '2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02'],
    });
    expect(calendar(Date.parse('2026-02-28T00:00:00Z')).daysLeft).toBe(0);
  });

  it('month to date + mean × days left, with low and high from the lowest and highest day', () => {
    // 10 so far; days 1, 2, 3, 0, 0, 0, 8: mean 2, lowest 0, highest 8; 5 days left.
    expect(forecast(10, [1, 2, 3, 0, 0, 0, 8], 5, (n) => n)).toEqual({ month_to_date: 10, forecast: 20, low: 10, high: 50 });
    expect(forecast(0, [], 5, (n) => n)).toEqual({ month_to_date: 0, forecast: 0, low: 0, high: 0 });
  });
});
