// The analytics figures' one reader (api/analytics/reader.ts) on hand-made rows: the live day stands in for
// the stored rows on its day, and a team filter counts each day's members alone, through the same readers.
import { describe, expect, it } from 'vitest';
import { AnalyticsReader } from '../../api/analytics/reader.ts';
import type { BreakdownRow, RowSet, RowSource, RowTypes, UserBreakdownRow } from '../../api/analytics/store.ts';

/** A source of fixed rows per set, filtered as the statements filter them (days, then users). */
function source(sets: Partial<{ [K in RowSet]: RowTypes[K][] }>): RowSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async rows<K extends RowSet>(set: K, _org: string, from: string, to: string, users?: readonly string[]) {
      asked.push(`${set} ${from}..${to}${users ? ` ${users.join(',')}` : ''}`);
      const rows = (sets[set] ?? []) as RowTypes[K][];
      return rows.filter((r) => r.day >= from && r.day <= to && (!users || users.includes((r as { user_id: string }).user_id)));
    },
  };
}

const b = (day: string, key: string, count: number): BreakdownRow => ({ day, kind: 'tool', key, count });
const ub = (day: string, user_id: string, key: string, count: number): UserBreakdownRow => ({ day, user_id, kind: 'tool', key, count });

describe('AnalyticsReader', () => {
  it('reads the stored days, and the live day from the live rows instead of the stored ones', async () => {
    const stored = source({ breakdown: [b('2026-03-01', 'Bash', 2), b('2026-03-02', 'Read', 5), b('2026-03-03', 'Stale', 9)] });
    const live = source({ breakdown: [b('2026-03-03', 'Edit', 1)] });
    const reader = new AnalyticsReader(stored);
    const rows = await reader.breakdown({ org: 'o', from: '2026-03-01', to: '2026-03-03', live: { date: '2026-03-03', rows: live } }, [
      'tool',
    ]);
    expect(rows).toEqual([b('2026-03-01', 'Bash', 2), b('2026-03-02', 'Read', 5), b('2026-03-03', 'Edit', 1)]);
    expect(stored.asked).toEqual(['breakdown 2026-03-01..2026-03-02']);
    // Only the live day: the stored rows are not read.
    const today = await reader.breakdown({ org: 'o', from: '2026-03-03', to: '2026-03-03', live: { date: '2026-03-03', rows: live } }, [
      'tool',
    ]);
    expect(today).toEqual([b('2026-03-03', 'Edit', 1)]);
    expect(stored.asked).toHaveLength(1);
  });

  it('over a team, sums the members of each day from the per-user rows', async () => {
    const stored = source({
      userBreakdowns: [ub('2026-03-01', 'ann', 'Bash', 2), ub('2026-03-01', 'bob', 'Bash', 3), ub('2026-03-02', 'bob', 'Bash', 4)],
    });
    // Ann is a member on the 1st and the 2nd, Bob on the 2nd only.
    const members = (day: string) => new Set(day === '2026-03-01' ? ['ann'] : ['ann', 'bob']);
    const reader = new AnalyticsReader(stored);
    const rows = await reader.breakdown({ org: 'o', from: '2026-03-01', to: '2026-03-02', team: { members, users: ['ann', 'bob'] } }, [
      'tool',
    ]);
    expect(rows).toEqual([b('2026-03-01', 'Bash', 2), b('2026-03-02', 'Bash', 4)]);
    expect(stored.asked).toEqual(['userBreakdowns 2026-03-01..2026-03-02 ann,bob']);
  });
});
