// Wakes a computer's long-poll when work arrives for it, so a message starts at once instead of at the
// next poll. In-process only: the server is one process (DuckDB has one writer).
export class WorkSignal {
  private readonly waiters = new Map<string, Set<() => void>>();
  private isClosed = false;

  /** The server is shutting down: long-polls answer at once. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Resolves when work may have arrived for the computer, after `ms`, or when the server closes. */
  wait(computer: string, ms: number): Promise<void> {
    if (this.isClosed || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(computer) ?? new Set();
      this.waiters.set(computer, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(computer);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Long-polls of the computer waiting now (tests wait for one to be parked before sending work). */
  waiting(computer: string): number {
    return this.waiters.get(computer)?.size ?? 0;
  }

  notify(computer: string): void {
    for (const wake of [...(this.waiters.get(computer) ?? [])]) wake();
  }

  /** Ends every wait (the server is shutting down: long-polls must not hold it open). */
  close(): void {
    this.isClosed = true;
    for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake();
  }
}
