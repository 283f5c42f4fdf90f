// The daily batch's next start (api/batch/runner.ts, msUntil): the wait from a given instant to the next
// HH:MM UTC, worked out by hand for each case.
import { describe, expect, it } from 'vitest';
import { msUntil } from '../../api/batch/runner.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('msUntil', () => {
  it('waits until HH:MM UTC later the same day', () => {
    // 00:10 to 00:15: 5 minutes.
    expect(msUntil('00:15', new Date('2026-03-02T00:10:00Z'))).toBe(5 * MIN);
    // 09:30:30.500 to 17:45: 8 h 14 min 29.5 s.
    expect(msUntil('17:45', new Date('2026-03-02T09:30:30.500Z'))).toBe(8 * HOUR + 14 * MIN + 29_500);
  });

  it('waits until the next day once HH:MM has passed, across a month end and a leap day', () => {
    // 23:00 to 00:15 the next day (2026-03-01 → 03-02): 1 h 15 min.
    expect(msUntil('00:15', new Date('2026-03-01T23:00:00Z'))).toBe(75 * MIN);
    // 2026-01-31 23:59 to 2026-02-01 00:00: one minute.
    expect(msUntil('00:00', new Date('2026-01-31T23:59:00Z'))).toBe(MIN);
    // 2028-02-28 12:00 to 2028-02-29 06:00 (a leap year): 18 h.
    expect(msUntil('06:00', new Date('2028-02-28T12:00:00Z'))).toBe(18 * HOUR);
  });

  it('waits a whole day when it is HH:MM now, so a run that ends within its minute does not start again', () => {
    expect(msUntil('00:15', new Date('2026-03-02T00:15:00Z'))).toBe(24 * HOUR);
    // 1 ms past: 24 h less 1 ms.
    expect(msUntil('00:15', new Date('2026-03-02T00:15:00.001Z'))).toBe(24 * HOUR - 1);
  });
});
