// The dashboard's layout helpers (web/src/figures.ts) on fixtures worked by hand; the figures themselves are
// the server's (api/analytics/totals.ts, test/unit/range-totals.unit.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as figures from '../../web/src/figures.ts';
import {
  creditsByModel,
  daysOf,
  defaultRange,
  landedShareByDay,
  personRow,
  rangeOf,
  seriesByGroup,
  sortPeople,
  toCsv,
} from '../../web/src/figures.ts';

describe('dashboard figures', () => {
  it('the default range is the 30 days up to yesterday (UTC), and a URL range wins when well formed', () => {
    expect(defaultRange(new Date('2026-11-23T00:30:00Z'))).toEqual({ from: '2026-10-24', to: '2026-11-22' });
    // Never before the API's earliest date.
    expect(defaultRange(new Date('2026-01-20T12:00:00Z'))).toEqual({ from: '2026-01-14', to: '2026-01-19' });
    const now = new Date('2026-11-23T12:00:00Z');
    expect(rangeOf(new URLSearchParams('from=2026-11-01&to=2026-11-02'), now)).toEqual({ from: '2026-11-01', to: '2026-11-02' });
    expect(rangeOf(new URLSearchParams('from=2026-11-03&to=2026-11-02'), now)).toEqual(defaultRange(now));
    expect(rangeOf(new URLSearchParams('from=yesterday&to=2026-11-02'), now)).toEqual(defaultRange(now));
    expect(daysOf('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
  });

  it('credits by model: one series per model, largest total first, zeros on quiet days', () => {
    const rows = [
      { date: '2026-03-01', group_key: 'b', billable_tokens: 5, input_tokens: 0, output_tokens: 0, cost_usd: null },
      { date: '2026-03-01', group_key: 'a', billable_tokens: 2, input_tokens: 0, output_tokens: 0, cost_usd: null },
      { date: '2026-03-03', group_key: 'a', billable_tokens: 4, input_tokens: 0, output_tokens: 0, cost_usd: null },
    ];
    expect(creditsByModel(daysOf('2026-03-01', '2026-03-03'), rows)).toEqual({
      models: ['a', 'b'],
      values: [
        [2, 0, 4],
        [5, 0, 0],
      ],
    });
  });

  it('series by group (DAU by agent): one series per agent, largest total first, ties by name, zeros where no row', () => {
    const rows = [
      { date: '2026-03-01', group_key: 'codex', daily_active_users: 1 },
      { date: '2026-03-01', group_key: 'claude', daily_active_users: 2 },
      { date: '2026-03-02', group_key: 'qwen', daily_active_users: 3 },
      { date: '2026-03-09', group_key: 'gemini', daily_active_users: 5 }, // outside the days: no series
    ];
    expect(seriesByGroup(daysOf('2026-03-01', '2026-03-02'), rows, (r) => r.daily_active_users)).toEqual({
      groups: ['qwen', 'claude', 'codex'],
      values: [
        [0, 3],
        [2, 0],
        [1, 0],
      ],
    });
  });

  it("the people table's rows are the server's totals, renamed; sorted by a column, ties by e-mail", () => {
    const person = (user: string, credits: number, model: string | null) => ({
      user_id: user,
      user_email: user === 'u3' ? null : `${user}@x.com`,
      active_days: 1,
      billable_tokens: credits,
      cost_usd: null,
      tool_calls: 1,
      sessions: 1,
      messages: 2,
      files_created: 0,
      files_edited: 0,
      git_commits: 0,
      git_prs_created: 0,
      primary_model: model,
    });
    const people = [person('u1', 65, 'opus'), person('u2', 5, null), person('u3', 5, 'sonnet')].map(personRow);
    expect(people[0]).toMatchObject({ userId: 'u1', email: 'u1@x.com', credits: 65, primaryModel: 'opus' });
    // No e-mail (a removed person): the id; no primary model: blank.
    expect(people[1]).toMatchObject({ email: 'u2@x.com', primaryModel: '' });
    expect(people[2]).toMatchObject({ email: 'u3' });
    expect(sortPeople(people, 'credits', 'asc').map((p) => p.userId)).toEqual(['u2', 'u3', 'u1']);
    expect(sortPeople(people, 'email', 'desc').map((p) => p.userId)).toEqual(['u3', 'u2', 'u1']);
  });

  it('CSV quotes what needs quoting and keeps formulas as text', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['=SUM(A1)', 3],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n\'=SUM(A1),3\r\n');
  });
});

describe('the agent share chart of the Code page', () => {
  it('leaves a gap on a day without landed lines, never a 0% the team did not earn', () => {
    const landed = (lines_added: number, agent_share: number) => ({ lines_added, agent_share });
    const rows = [
      { date: '2026-03-01', landed: landed(10, 0.5) },
      { date: '2026-03-02', landed: landed(0, 0) },
      { date: '2026-03-04', landed: landed(4, 0) },
    ];
    // 03-02: a commit without lines; 03-03: no record; 03-04: lines, none by an agent (a real 0%).
    expect(landedShareByDay(daysOf('2026-03-01', '2026-03-04'), rows)).toEqual([0.5, null, null, 0]);
  });
});

describe('what the dashboard no longer computes', () => {
  it("has no sum, mean, ratio or total of its own: they are the server's meta.totals", () => {
    for (const name of ['sum', 'topOf', 'meanOfActiveDays', 'peopleTotals', 'pullRequestTotals', 'decisionsByAgent'])
      expect(Object.keys(figures), name).not.toContain(name);
  });

  it("no page or module of web/src sums with reduce: a range total is an answer's meta.totals", () => {
    const root = join(import.meta.dirname, '..', '..', 'web', 'src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) expect(readFileSync(join(root, file), 'utf8'), file).not.toMatch(/\.reduce(<[^>]*>)?\(/);
  });
});
