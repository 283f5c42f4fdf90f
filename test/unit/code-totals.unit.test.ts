// The /code answer's range totals (meta.totals): sums of the day records and the two ratios, computed on
// the server once (the dashboard shows them as given), on hand-worked records.
import { describe, expect, it } from 'vitest';
import { codeRecords, codeTotals } from '../../api/code/assemble.ts';
import type { EditRow, LandedRow } from '../../api/code/store.ts';

describe('codeTotals', () => {
  it('sums the days and divides once: share 12 / 40 = 0.3, landed rate 12 / 36 = 0.3333', () => {
    const edits: EditRow[] = [
      { day: '2026-03-02', agent: 'claude', model: 'sonnet', language: 'TypeScript', repo: 'r', lines_added: 30, lines_deleted: 2 },
      { day: '2026-03-03', agent: 'codex', model: 'gpt-5', language: 'Python', repo: 'r', lines_added: 6, lines_deleted: 0 },
    ];
    const landed: LandedRow[] = [
      { day: '2026-03-02', repo: 'r', commits: 2, commits_with_agent_lines: 1, lines_added: 25, lines_deleted: 1, agent_lines: 10 },
      { day: '2026-03-03', repo: 'r', commits: 1, commits_with_agent_lines: 1, lines_added: 15, lines_deleted: 0, agent_lines: 2 },
    ];
    const records = codeRecords(['2026-03-01', '2026-03-02', '2026-03-03'], edits, landed, []);
    // Each day's own share: 10 / 25 = 0.4 and 2 / 15 = 0.1333; the range's is not their mean.
    expect(records.map((r) => r.landed.agent_share)).toEqual([0, 0.4, 0.1333]);
    expect(codeTotals(records)).toEqual({
      edit_lines_added: 36,
      landed_lines_added: 40,
      agent_lines_added: 12,
      commits: 3,
      commits_with_agent_lines: 2,
      agent_share: 0.3,
      landed_rate: 0.3333,
    });
    expect(codeTotals([])).toMatchObject({ agent_share: 0, landed_rate: 0 });
  });
});
