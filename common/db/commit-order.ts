// Transactions on several connections of one database that become visible in the order they began.
// A stored record's received_at is its transaction's start (DuckDB's now() is fixed at BEGIN), and the
// batch and the live figures take every record up to the latest received_at they can see as covered
// (pipeline/batch.ts, the watermark). A transaction that began before another but committed after it
// would land below a watermark already taken, and its days would never be built again. Transactions
// that take turns here begin one after another, and each commits only once every earlier one has ended.

/** A transaction's place in a CommitOrder. */
export interface Turn {
  /** Settles once every transaction that began before this one has committed or rolled back. */
  readonly earlierEnded: Promise<void>;
  /** This transaction committed or rolled back (idempotent). */
  end(): void;
}

export class CommitOrder {
  private lastBegin: Promise<unknown> = Promise.resolve();
  private lastEnd: Promise<void> = Promise.resolve();

  /**
   * Runs `begin` (the BEGIN statement) after every earlier turn's, and returns the new transaction's turn.
   * A turn ends only after the turns before it, even when it rolls back early, so that a later turn never
   * waits for this one alone.
   */
  async take(begin: () => Promise<unknown>): Promise<Turn> {
    const earlierEnded = this.lastEnd;
    let ended!: () => void;
    const own = new Promise<void>((resolve) => {
      ended = resolve;
    });
    this.lastEnd = Promise.all([earlierEnded, own]).then(() => undefined);
    const began = this.lastBegin.then(begin);
    this.lastBegin = began.catch(() => undefined);
    const turn: Turn = { earlierEnded, end: ended };
    try {
      await began;
    } catch (error) {
      turn.end();
      throw error;
    }
    return turn;
  }
}
