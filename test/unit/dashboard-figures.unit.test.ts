// The dashboard's derivations (web/src/figures.ts) on fixtures worked by hand.
import { describe, expect, it } from 'vitest';
import type { UserDay } from '../../web/src/api-types.ts';
import {
  creditsByModel,
  daysOf,
  decisionsByAgent,
  defaultRange,
  landedShareByDay,
  meanOfActiveDays,
  peopleTotals,
  rangeOf,
  seriesByGroup,
  sortPeople,
  toCsv,
  topOf,
} from '../../web/src/figures.ts';

const day = (user: string, date: string, credits: number, model: string | null, extra: Partial<UserDay> = {}): UserDay => ({
  user_id: user,
  user_email: `${user}@x.com`,
  date,
  tool_calls: 1,
  billable_tokens: credits,
  primary_model: model,
  primary_model_tier: model === null ? null : 'standard',
  files_created: 0,
  files_edited: 0,
  git_commits: 0,
  git_prs_created: 0,
  mcp_calls: 0,
  skill_calls: 0,
  slash_commands: 0,
  hooks: 0,
  sessions: 1,
  messages: 2,
  user_messages: 1,
  assistant_messages: 1,
  autonomy_ratio: null,
  delegation_level: null,
  languages: [],
  lines_added: 0,
  landed_agent_lines: 0,
  cost_usd: null,
  ...extra,
});

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

  it('top lists sum a breakdown over the days; the mean skips quiet days', () => {
    const days = [
      { t: [{ name: 'Read', count: 2 }] },
      {
        t: [
          { name: 'Bash', count: 3 },
          { name: 'Read', count: 1 },
        ],
      },
      { t: [] },
    ];
    expect(topOf(days, (d) => d.t)).toEqual([
      { name: 'Bash', count: 3 },
      { name: 'Read', count: 3 },
    ]);
    expect(
      meanOfActiveDays(
        [
          { v: 2, n: 1 },
          { v: 0, n: 0 },
          { v: 4, n: 3 },
        ],
        (r) => r.v,
        (r) => r.n > 0,
      ),
    ).toBe(3);
  });

  it('people totals: one row per person; the primary model is the one of the days with most credits', () => {
    const people = peopleTotals([
      day('u1', '2026-03-01', 10, 'opus'),
      day('u1', '2026-03-02', 30, 'sonnet', { git_commits: 2 }),
      day('u1', '2026-03-03', 25, 'opus'),
      day('u2', '2026-03-01', 5, null),
    ]);
    expect(people.find((p) => p.userId === 'u1')).toMatchObject({
      activeDays: 3,
      credits: 65,
      toolCalls: 3,
      messages: 6,
      commits: 2,
      primaryModel: 'opus',
    });
    expect(people.find((p) => p.userId === 'u2')).toMatchObject({ activeDays: 1, credits: 5, primaryModel: '' });
    expect(sortPeople(people, 'credits', 'asc').map((p) => p.userId)).toEqual(['u2', 'u1']);
    expect(sortPeople(people, 'email', 'desc').map((p) => p.userId)).toEqual(['u2', 'u1']);
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

describe('decisionsByAgent', () => {
  it('sums each agent over the days, and an agent that reports no decision reads null (not reported)', () => {
    const active = [{ group_key: 'droid' }, { group_key: 'claude' }, { group_key: 'claude' }];
    const decisions = [
      { group_key: 'claude', edits_accepted: 3, edits_rejected: 1 },
      { group_key: 'claude', edits_accepted: 5, edits_rejected: 1 },
      // Decisions of an agent with no hook event in the range (OpenTelemetry only): still listed.
      { group_key: 'codex', edits_accepted: 0, edits_rejected: 2 },
    ];
    expect(decisionsByAgent(active, decisions)).toEqual([
      { agent: 'claude', accepted: 8, rejected: 2, rate: 0.8 },
      { agent: 'codex', accepted: 0, rejected: 2, rate: 0 },
      { agent: 'droid', accepted: 0, rejected: 0, rate: null },
    ]);
  });
});
