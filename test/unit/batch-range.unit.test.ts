// The range an organization's API-triggered batch rebuilds (pipeline/batch.ts, clampRange), worked by hand.
import { describe, expect, it } from 'vitest';
import { clampRange } from '../../pipeline/batch.ts';

const YESTERDAY = '2026-03-19';

describe('clampRange', () => {
  it('starts at the later of the asked day, the first record and 2026-01-14; ends at the earlier of the asked day and yesterday', () => {
    expect(clampRange('2026-01-01', '2026-12-31', '2026-03-10', YESTERDAY)).toEqual({ from: '2026-03-10', to: YESTERDAY });
    expect(clampRange('2026-01-01', '2026-01-20', '2025-12-01', YESTERDAY)).toEqual({ from: '2026-01-14', to: '2026-01-20' });
    expect(clampRange('2026-03-12', '2026-03-15', '2026-03-10', YESTERDAY)).toEqual({ from: '2026-03-12', to: '2026-03-15' });
  });

  it('takes a missing end as yesterday, and a missing start as the end', () => {
    expect(clampRange('2026-03-01', undefined, '2026-02-01', YESTERDAY)).toEqual({ from: '2026-03-01', to: YESTERDAY });
    expect(clampRange(undefined, '2026-03-05', '2026-02-01', YESTERDAY)).toEqual({ from: '2026-03-05', to: '2026-03-05' });
  });

  it('leaves nothing for an organization without records, or a range wholly before its data or after yesterday', () => {
    expect(clampRange('2026-03-01', '2026-03-05', null, YESTERDAY)).toBeUndefined();
    expect(clampRange('2026-02-01', '2026-02-28', '2026-03-10', YESTERDAY)).toBeUndefined();
    expect(clampRange('2026-03-20', '2026-04-30', '2026-03-10', YESTERDAY)).toBeUndefined();
  });
});
