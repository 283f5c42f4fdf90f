// The ingest store's hold (common/shared-exclusive.ts): shared holders run together, an exclusive one
// alone, and requests are granted in the order asked.
import { describe, expect, it } from 'vitest';
import { SharedExclusive } from '../../common/shared-exclusive.ts';

/** A job that records when it starts and ends, and ends when told. */
function job(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    run: async () => {
      log.push(`${name} starts`);
      await done;
      log.push(`${name} ends`);
    },
    finish,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a shared or exclusive hold', () => {
  it('shared holders run together; an exclusive one waits for them, and a shared one asked after it waits for it', async () => {
    const hold = new SharedExclusive();
    const log: string[] = [];
    const a = job(log, 'a');
    const b = job(log, 'b');
    const x = job(log, 'x');
    const c = job(log, 'c');
    const runs = [hold.run('shared', a.run), hold.run('shared', b.run), hold.run('exclusive', x.run), hold.run('shared', c.run)];
    await settle();
    expect(log).toEqual(['a starts', 'b starts']);
    a.finish();
    await settle();
    expect(log).toEqual(['a starts', 'b starts', 'a ends']);
    b.finish();
    await settle();
    expect(log).toEqual(['a starts', 'b starts', 'a ends', 'b ends', 'x starts']);
    x.finish();
    await settle();
    expect(log.slice(4)).toEqual(['x starts', 'x ends', 'c starts']);
    c.finish();
    await Promise.all(runs);
  });

  it('a holder that throws releases the hold', async () => {
    const hold = new SharedExclusive();
    await expect(hold.run('exclusive', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    await expect(hold.run('exclusive', async () => 'next')).resolves.toBe('next');
  });
});
