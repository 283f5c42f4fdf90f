// Retry waits: the collector's and the computer agent's backoff while the server is unreachable or busy,
// and a blocking wait for the retries that cannot await (a synchronous command, an exit handler).

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** Full jitter: a random wait between 0 and min(max, base·2^attempt). */
export function backoffDelay(attempt: number, options = DEFAULT_BACKOFF, random = Math.random): number {
  return Math.round(random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt));
}

/** Blocks the thread for `ms` milliseconds. Only where nothing can await: it stops the event loop. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
