// adoptionFigures (api/adoption/figures.ts) on hand-made rows: the quiet boundary, a person counted once
// across agents, people off the roster ignored, and no "(no team)" row for an organization without teams.
import { describe, expect, it } from 'vitest';
import { adoptionFigures } from '../../api/adoption/figures.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const roster = [
  { userId: 'a', email: 'a@x', role: 'member' },
  { userId: 'b', email: 'b@x', role: 'member' },
];
const act = (userId: string, agent: string, lastAt: string, active7: boolean, active28: boolean) => ({
  userId,
  agent,
  firstAt: lastAt,
  lastAt,
  active7,
  active28,
});

describe('adoption figures', () => {
  it('quiet is a last event 14 days ago or earlier; one millisecond later is active', () => {
    const figures = adoptionFigures(
      roster,
      [],
      [act('a', 'claude', '2026-11-13T12:00:00.000Z', false, true), act('b', 'claude', '2026-11-13T12:00:00.001Z', false, true)],
      NOW,
    );
    expect(figures.people.map((p) => p.state)).toEqual(['quiet', 'active']);
    expect(figures.totals).toMatchObject({ quiet: 1, activated: 2 });
  });

  it('a person with two agents counts once in the totals and once per agent; off-roster rows are ignored', () => {
    const figures = adoptionFigures(
      roster,
      [],
      [
        act('a', 'claude', '2026-11-26T00:00:00.000Z', true, true),
        act('a', 'codex', '2026-11-25T00:00:00.000Z', true, true),
        act('gone', 'qwen', '2026-11-26T00:00:00.000Z', true, true),
      ],
      NOW,
    );
    expect(figures.totals).toEqual({ people: 2, activated: 1, active7: 1, active28: 1, neverActivated: 1, quiet: 0 });
    expect(figures.byAgent).toEqual([
      { agent: 'claude', activated: 1, active7: 1, active28: 1 },
      { agent: 'codex', activated: 1, active7: 1, active28: 1 },
    ]);
    expect(figures.byTeam).toEqual([]);
    expect(figures.people[1]).toMatchObject({ userId: 'b', state: 'never', agents: [] });
  });

  it('a person in two teams counts in both; the teamless get their own row', () => {
    const teams = [
      { userId: 'a', teamId: 't1', name: 'Web' },
      { userId: 'a', teamId: 't2', name: 'API' },
    ];
    const figures = adoptionFigures(roster, teams, [act('a', 'claude', '2026-11-26T00:00:00.000Z', true, true)], NOW);
    expect(figures.byTeam).toEqual([
      { teamId: 't2', team: 'API', people: 1, activated: 1, active7: 1, active28: 1 },
      { teamId: 't1', team: 'Web', people: 1, activated: 1, active7: 1, active28: 1 },
      { teamId: null, team: '(no team)', people: 1, activated: 0, active7: 0, active28: 0 },
    ]);
    expect(figures.people[0]!.teams).toEqual(['API', 'Web']);
  });
});
