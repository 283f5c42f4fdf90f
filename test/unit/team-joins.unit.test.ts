// The pure parts of the team joins, on small fixtures with hand-worked numbers: the code figures by team
// (direct members on each day) and a team budget's usage (members of the team and the teams below it on
// each day).
import { describe, expect, it } from 'vitest';
import { budgetUsage } from '../../api/budgets/alerts.ts';
import type { StoredBudget } from '../../api/budgets/store.ts';
import type { EditRow, LandedRow, PerUser } from '../../api/code/store.ts';
import { codeByTeam } from '../../api/code/teams.ts';

const edit = (day: string, user_id: string, lines_added: number): PerUser<EditRow> => ({
  day,
  user_id,
  agent: 'claude',
  model: 'm',
  language: '',
  repo: '',
  lines_added,
  lines_deleted: 0,
});
const landed = (day: string, user_id: string, lines_added: number, agent_lines: number): PerUser<LandedRow> => ({
  day,
  user_id,
  repo: 'github.com/a/b',
  commits: 1,
  commits_with_agent_lines: agent_lines > 0 ? 1 : 0,
  lines_added,
  lines_deleted: 0,
  agent_lines,
});

describe('codeByTeam', () => {
  it("sums each team's direct members of the day, a person in two teams under each, zero rows left out", () => {
    const teamDays = [
      { day: 'd1', team: { name: 'Web' }, members: new Set(['ana', 'bo']) },
      { day: 'd1', team: { name: 'Data' }, members: new Set(['bo']) },
      { day: 'd2', team: { name: 'Web' }, members: new Set(['bo']) },
      { day: 'd2', team: { name: 'Data' }, members: new Set(['ana', 'bo']) },
      { day: 'd2', team: { name: 'Idle' }, members: new Set(['cy']) },
    ];
    const edits = [edit('d1', 'ana', 10), edit('d1', 'bo', 3), edit('d2', 'ana', 5), edit('d1', 'zed', 99)];
    const commits = [landed('d2', 'ana', 6, 6), landed('d2', 'bo', 4, 1)];
    expect(codeByTeam(teamDays, edits, commits)).toEqual([
      // d1: Data = Bo's 3; Web = Ana's 10 + Bo's 3 (Zed is in no team).
      { date: 'd1', group_key: 'Data', edit_lines_added: 3, landed_lines_added: 0, landed_agent_lines: 0 },
      { date: 'd1', group_key: 'Web', edit_lines_added: 13, landed_lines_added: 0, landed_agent_lines: 0 },
      // d2: Data = Ana's 5 edited, 6 + 4 landed, 6 + 1 agent; Web = Bo's 4 and 1. Idle: nothing, no row.
      { date: 'd2', group_key: 'Data', edit_lines_added: 5, landed_lines_added: 10, landed_agent_lines: 7 },
      { date: 'd2', group_key: 'Web', edit_lines_added: 0, landed_lines_added: 4, landed_agent_lines: 1 },
    ]);
  });
});

describe('budgetUsage of a team', () => {
  const budget = (scope: StoredBudget['scope'], target: string): StoredBudget => ({
    scope,
    target,
    team: scope === 'team' ? target : null,
    userId: scope === 'user' ? target : null,
    email: null,
    monthlyCredits: 100,
    monthlyUsd: null,
    thresholds: [100],
    destinations: [],
  });
  // Ana is a member all month; Bo joins on 03-10.
  const members = (day: string) => new Set(day >= '2026-03-10' ? ['ana', 'bo'] : ['ana']);
  const teams = (key: string) => (key === 'platform' ? members : undefined);
  const month = {
    credits: 1000,
    byUser: new Map([
      ['ana', 300],
      ['bo', 500],
      ['cy', 200],
    ]),
    byUserDay: [
      { user_id: 'ana', day: '2026-03-02', credits: 100, usd: 1 },
      { user_id: 'ana', day: '2026-03-20', credits: 200, usd: 2 },
      { user_id: 'bo', day: '2026-03-05', credits: 120, usd: 1.2 },
      { user_id: 'bo', day: '2026-03-15', credits: 380, usd: 3.8 },
      { user_id: 'cy', day: '2026-03-15', credits: 200, usd: 2 },
    ],
    usd: 10,
    usdByUser: new Map([
      ['ana', 3],
      ['bo', 5],
      ['cy', 2],
    ]),
  };

  it("counts each member's credits of the days they were members", () => {
    // Ana 100 + 200, Bo's 380 from 03-15 (not 03-05's 120), not Cy: 680.
    expect(budgetUsage(budget('team', 'platform'), month, teams)).toBe(680);
    expect(budgetUsage(budget('team', 'gone'), month, teams)).toBeUndefined();
    expect(budgetUsage(budget('org', 'org'), month, teams)).toBe(1000);
    expect(budgetUsage(budget('user', 'bo'), month, teams)).toBe(500);
  });

  it('a dollar budget counts the same days in dollars', () => {
    const dollars = (scope: StoredBudget['scope'], target: string): StoredBudget => ({
      ...budget(scope, target),
      monthlyCredits: null,
      monthlyUsd: 10,
    });
    // Ana $1 + $2, Bo's $3.80 from 03-15: $6.80.
    expect(budgetUsage(dollars('team', 'platform'), month, teams)).toBe(6.8);
    expect(budgetUsage(dollars('org', 'org'), month, teams)).toBe(10);
    expect(budgetUsage(dollars('user', 'bo'), month, teams)).toBe(5);
  });
});
