// CommitOrder (common/db/commit-order.ts) without a database: BEGINs run one after another, and a turn's
// earlierEnded waits for every earlier turn, even past one that ended before its own earlier ones.
import { describe, expect, it } from 'vitest';
import { CommitOrder } from '../../common/db/commit-order.ts';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a commit order', () => {
  it('a turn that ends early (a rollback) does not let the next one go before the turns before it', async () => {
    const order = new CommitOrder();
    const first = await order.take(async () => undefined);
    const second = await order.take(async () => undefined);
    const third = await order.take(async () => undefined);
    let thirdMayCommit = false;
    void third.earlierEnded.then(() => {
      thirdMayCommit = true;
    });
    second.end();
    await settle();
    expect(thirdMayCommit).toBe(false);
    first.end();
    await settle();
    expect(thirdMayCommit).toBe(true);
  });

  it('runs each BEGIN after the one before it has finished', async () => {
    const order = new CommitOrder();
    const log: string[] = [];
    let finishFirst!: () => void;
    const first = order.take(async () => {
      log.push('first begins');
      await new Promise<void>((resolve) => {
        finishFirst = resolve;
      });
      log.push('first began');
    });
    const second = order.take(async () => {
      log.push('second begins');
    });
    await settle();
    expect(log).toEqual(['first begins']);
    finishFirst();
    await Promise.all([first, second]);
    expect(log).toEqual(['first begins', 'first began', 'second begins']);
  });
});
