// A hold that many may have at once (shared) or one alone (exclusive), granted in the order asked: a
// shared request behind a waiting exclusive one waits, so the exclusive one is never starved.

type Mode = 'shared' | 'exclusive';

export class SharedExclusive {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private readonly queue: { mode: Mode; grant: () => void }[] = [];

  /** Runs fn while holding the hold in `mode`. */
  async run<T>(mode: Mode, fn: () => Promise<T>): Promise<T> {
    await this.acquire(mode);
    try {
      return await fn();
    } finally {
      this.release(mode);
    }
  }

  private canGrant(mode: Mode): boolean {
    return mode === 'exclusive' ? !this.exclusiveHeld && this.sharedHolders === 0 : !this.exclusiveHeld;
  }

  private take(mode: Mode): void {
    if (mode === 'exclusive') this.exclusiveHeld = true;
    else this.sharedHolders++;
  }

  private acquire(mode: Mode): Promise<void> {
    if (this.queue.length === 0 && this.canGrant(mode)) {
      this.take(mode);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.queue.push({
        mode,
        grant: () => {
          this.take(mode);
          resolve();
        },
      });
    });
  }

  private release(mode: Mode): void {
    if (mode === 'exclusive') this.exclusiveHeld = false;
    else this.sharedHolders--;
    while (this.queue.length > 0 && this.canGrant(this.queue[0]!.mode)) this.queue.shift()!.grant();
  }
}
