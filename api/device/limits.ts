// A fixed-window counter per key (an address, a person), in memory: how many device codes one address may
// ask for, and how many unknown user codes one person may try, in a window. A server restart forgets it,
// which only resets the windows; the codes themselves live in the database.

export class WindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** Counts one for `key`; undefined when allowed, else the seconds until the window ends. */
  take(key: string): number | undefined {
    const now = this.now();
    if (this.windows.size > 10_000) this.prune(now);
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      this.windows.set(key, { start: now, count: 1 });
      return undefined;
    }
    if (window.count >= this.limit) return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    window.count++;
    return undefined;
  }

  /** Without counting: the seconds until `key`'s window ends when it has reached the limit, else undefined. */
  blocked(key: string): number | undefined {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs || window.count < this.limit) return undefined;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}
