// Crediting a landed commit's lines to the agents (docs/metrics.md §5 "Landed"), with hand-worked numbers.
import { describe, expect, it } from 'vitest';
import { type CommitAdds, CREDIT_WINDOW_MS, creditCommit, type LedgerLine } from '../../collector/code/credit.ts';

const DAY = 24 * 60 * 60 * 1000;
const T = Date.UTC(2026, 10, 20, 12);
let seq = 0;
const line = (key: string, ts: number, agent = 'claude', model = 'm1'): LedgerLine => ({ seq: ++seq, key, ts, agent, model, session: '' });
const index = (lines: LedgerLine[]) => {
  const map = new Map<string, LedgerLine[]>();
  for (const l of [...lines].sort((a, b) => a.ts - b.ts)) map.set(l.key, [...(map.get(l.key) ?? []), l]);
  return map;
};
const flat = (byAgentModel: Map<string, Map<string, number>>) =>
  Object.fromEntries([...byAgentModel].map(([agent, models]) => [agent, Object.fromEntries(models)]));

describe('creditCommit', () => {
  it('credits the smaller of the commit adds and the ledger lines, per key (multiplicity)', () => {
    // Commit adds "k1" 3 times and "k2" once; the ledger wrote "k1" twice and "k2" twice: 2 + 1 = 3.
    const ledger = index([line('k1', T - 3000), line('k1', T - 2000), line('k2', T - 1000), line('k2', T - 500)]);
    const adds: CommitAdds = new Map([
      ['k1', 3],
      ['k2', 1],
      ['k3', 4],
    ]);
    const credit = creditCommit(adds, ledger, T, () => false);
    expect(credit.lines).toBe(3);
    expect(credit.credited).toHaveLength(3);
  });

  it('only lines written before the committer time and at most 30 days before it count', () => {
    const inside = line('k', T - CREDIT_WINDOW_MS);
    const tooOld = line('k', T - CREDIT_WINDOW_MS - 1);
    const atCommit = line('k', T);
    const after = line('k', T + DAY);
    const credit = creditCommit(new Map([['k', 5]]), index([inside, tooOld, atCommit, after]), T, () => false);
    expect(credit.lines).toBe(1);
    expect(credit.credited).toEqual([inside.seq]);
  });

  it('credits the oldest lines first, each to the agent and model that wrote it', () => {
    const oldest = line('k', T - 3 * DAY, 'codex', 'gpt-5.5');
    const middle = line('k', T - 2 * DAY, 'claude', 'opus');
    const newest = line('k', T - DAY, 'claude', 'sonnet');
    const credit = creditCommit(new Map([['k', 2]]), index([newest, oldest, middle]), T, () => false);
    expect(credit.credited).toEqual([oldest.seq, middle.seq]);
    expect(flat(credit.byAgentModel)).toEqual({ codex: { 'gpt-5.5': 1 }, claude: { opus: 1 } });
  });

  it('credits each ledger line once: a second commit adding the same line gets only what is left', () => {
    const a = line('k', T - 2 * DAY);
    const b = line('k', T - DAY);
    const ledger = index([a, b]);
    const done = new Set<number>();
    const first = creditCommit(new Map([['k', 1]]), ledger, T, (s) => done.has(s));
    for (const s of first.credited) done.add(s);
    const second = creditCommit(new Map([['k', 5]]), ledger, T + 1000, (s) => done.has(s));
    for (const s of second.credited) done.add(s);
    const third = creditCommit(new Map([['k', 5]]), ledger, T + 2000, (s) => done.has(s));
    expect([first.lines, second.lines, third.lines]).toEqual([1, 1, 0]);
    expect(first.credited).toEqual([a.seq]);
    expect(second.credited).toEqual([b.seq]);
  });
});
