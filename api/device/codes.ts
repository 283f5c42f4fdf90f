// The codes of enrollment by device code, pure: the device code the machine keeps (a bearer secret, 256
// bits), the short user code a person types or follows (8 letters from an alphabet without vowels, so it
// spells no word, nor look-alike digits: 20^8 ≈ 2.6e10 codes, shown as BCDF-GHJK), and how a typed user
// code is read back (case, spaces and dashes ignored).
import { randomBytes, randomInt } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;
/** The device code's prefix: tells it from an API key in a log or a paste. */
export const DEVICE_CODE_PREFIX = 'amd_';

export const newDeviceCode = () => `${DEVICE_CODE_PREFIX}${randomBytes(32).toString('base64url')}`;

/** A new user code, as stored and compared (8 letters, no dash). */
export function newUserCode(pick: (n: number) => number = randomInt): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[pick(USER_CODE_ALPHABET.length)];
  return code;
}

/** The user code as shown: two groups of four. */
export const showUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * A typed or linked user code read back: letters only, upper case; undefined when it cannot be a code
 * (wrong length, a letter not in the alphabet), so a typo is refused without a lookup.
 */
export function normalizeUserCode(typed: string): string | undefined {
  const letters = typed.toUpperCase().replace(/[\s-]/g, '');
  if (letters.length !== USER_CODE_LENGTH) return undefined;
  for (const c of letters) if (!USER_CODE_ALPHABET.includes(c)) return undefined;
  return letters;
}

/**
 * The machine's poll against its interval (RFC 8628 §3.5): sooner than `intervalS` after the last poll
 * is a slow_down, and the interval grows by `stepS` for every later poll.
 */
export function pollVerdict(
  lastPollMs: number | null,
  intervalS: number,
  nowMs: number,
  stepS: number,
): { slowDown: boolean; intervalS: number } {
  if (lastPollMs !== null && nowMs - lastPollMs < intervalS * 1000) return { slowDown: true, intervalS: intervalS + stepS };
  return { slowDown: false, intervalS };
}
