// Retry waits for the collector and the computer agent while the server is unreachable or busy.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** Full jitter: a random wait between 0 and min(max, base·2^attempt). */
export function backoffDelay(attempt: number, options = DEFAULT_BACKOFF, random = Math.random): number {
  return Math.round(random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt));
}
