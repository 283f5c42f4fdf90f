// The pure parts of enrollment by device code (api/device/codes.ts): the user code's alphabet and how a
// typed code is read back, and the polling verdict with hand-worked intervals.
import { describe, expect, it } from 'vitest';
import { newUserCode, normalizeUserCode, pollVerdict, showUserCode, USER_CODE_ALPHABET } from '../../api/device/codes.ts';
import { WindowLimiter } from '../../api/device/limits.ts';

describe('user codes', () => {
  it('draws 8 letters of the alphabet and shows them as two groups of four', () => {
    let i = 0;
    const code = newUserCode(() => i++ % USER_CODE_ALPHABET.length);
    expect(code).toBe('BCDFGHJK');
    expect(showUserCode(code)).toBe('BCDF-GHJK');
  });

  it('reads a typed code back whatever its case, spaces and dash; refuses what cannot be a code', () => {
    expect(normalizeUserCode('bcdf-ghjk')).toBe('BCDFGHJK');
    expect(normalizeUserCode(' BCDF GHJK ')).toBe('BCDFGHJK');
    expect(normalizeUserCode('BCDF-GHJ')).toBeUndefined();
    expect(normalizeUserCode('BCDF-GHJA')).toBeUndefined(); // a vowel is never drawn
    expect(normalizeUserCode('BCDF-GHJ1')).toBeUndefined();
  });
});

describe('polling', () => {
  it('a poll sooner than the interval is a slow_down that adds the step; at the interval it is fine', () => {
    expect(pollVerdict(null, 5, 1_000, 5)).toEqual({ slowDown: false, intervalS: 5 });
    expect(pollVerdict(0, 5, 4_999, 5)).toEqual({ slowDown: true, intervalS: 10 });
    expect(pollVerdict(0, 5, 5_000, 5)).toEqual({ slowDown: false, intervalS: 5 });
    expect(pollVerdict(0, 10, 6_000, 5)).toEqual({ slowDown: true, intervalS: 15 });
  });

  it('the window limiter lets `limit` through per window and says how long to wait', () => {
    let now = 0;
    const limiter = new WindowLimiter(2, 60_000, () => now);
    expect(limiter.take('a')).toBeUndefined();
    expect(limiter.take('a')).toBeUndefined();
    now = 15_000;
    expect(limiter.take('a')).toBe(45);
    expect(limiter.take('b')).toBeUndefined();
    now = 60_000;
    expect(limiter.take('a')).toBeUndefined();
  });

  it('blocked says whether a key has reached its limit without counting', () => {
    let now = 0;
    const limiter = new WindowLimiter(2, 60_000, () => now);
    expect(limiter.blocked('a')).toBeUndefined();
    expect(limiter.blocked('a')).toBeUndefined();
    limiter.take('a');
    expect(limiter.blocked('a')).toBeUndefined();
    limiter.take('a');
    now = 20_000;
    expect(limiter.blocked('a')).toBe(40);
    expect(limiter.blocked('b')).toBeUndefined();
    now = 60_000;
    expect(limiter.blocked('a')).toBeUndefined();
  });
});
