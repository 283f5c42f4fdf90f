// The team store on a real database file: names unique case-insensitively, no cycles, dated memberships
// (added, ended, continued, replaced), the roster import's all-or-nothing transaction, and one organization
// never touching another's teams.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ancestry, dayBefore, descendants, SINCE_ALWAYS, TeamError, TeamStore } from '../../api/teams/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { tempDir } from '../helpers/tmp.ts';

let db: Db;
let store: TeamStore;
beforeAll(async () => {
  db = await openDb(join(tempDir(), 'teams.duckdb'));
  store = new TeamStore(db);
});
afterAll(() => db.close());

const refused = async (work: Promise<unknown>, kind: TeamError['kind']) => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TeamError);
  expect((error as TeamError).kind).toBe(kind);
};

describe('pure helpers', () => {
  it('ancestry walks up and spots a cycle; descendants walks down', () => {
    const parents = new Map<string, string | null>([
      ['a', null],
      ['b', 'a'],
      ['c', 'b'],
    ]);
    expect(ancestry(parents, 'c')).toEqual({ chain: ['c', 'b', 'a'], cycle: false });
    parents.set('a', 'c');
    expect(ancestry(parents, 'c').cycle).toBe(true);
    const teams = [
      { id: 'a', parentId: null },
      { id: 'b', parentId: 'a' },
      { id: 'c', parentId: 'b' },
      { id: 'd', parentId: 'a' },
      { id: 'e', parentId: null },
    ];
    expect(descendants(teams, 'a')).toEqual(['a', 'b', 'd', 'c']);
    expect(descendants(teams, 'e')).toEqual(['e']);
    expect(dayBefore('2026-03-01')).toBe('2026-02-28');
  });
});

describe('TeamStore', () => {
  it('keeps names unique per organization, compared case-insensitively', async () => {
    const platform = await store.createTeam('org_a', '  Platform ');
    expect(platform.name).toBe('Platform');
    await refused(store.createTeam('org_a', 'PLATFORM'), 'name-taken');
    // Another organization may use the same name, and sees none of org_a's teams.
    const other = await store.createTeam('org_b', 'platform');
    expect((await store.teamByName('org_a', 'platform'))?.id).toBe(platform.id);
    expect((await store.teamByName('org_b', 'PLATFORM'))?.id).toBe(other.id);
    expect(await store.team('org_b', platform.id)).toBeUndefined();
    await refused(store.createTeam('org_a', ' '), 'invalid');
    const renamed = await store.renameTeam('org_a', platform.id, 'platform');
    expect(renamed.name).toBe('platform');
  });

  it('refuses a parent cycle and a parent of another organization', async () => {
    const eng = await store.createTeam('org_a', 'Engineering');
    const web = await store.createTeam('org_a', 'Web', eng.id);
    const ui = await store.createTeam('org_a', 'UI', web.id);
    await refused(store.setParent('org_a', eng.id, ui.id), 'cycle');
    await refused(store.setParent('org_a', eng.id, eng.id), 'cycle');
    const foreign = await store.createTeam('org_b', 'Foreign');
    await refused(store.setParent('org_a', ui.id, foreign.id), 'unknown-team');
    await refused(store.createTeam('org_a', 'X', foreign.id), 'unknown-team');
    expect(descendants(await store.listTeams('org_a'), eng.id)).toEqual([eng.id, web.id, ui.id]);
    // Deleting the middle team moves its child up to its parent.
    await store.deleteTeam('org_a', web.id);
    expect((await store.team('org_a', ui.id))?.parentId).toBe(eng.id);
  });

  it('adds, ends, continues and replaces memberships by day', async () => {
    const team = await store.createTeam('org_m', 'Data');
    await store.addMember('org_m', team.id, 'u1', '2026-02-01');
    await store.addMember('org_m', team.id, 'u1', '2026-02-05'); // already a member: no change
    await store.endMembership('org_m', team.id, 'u1', '2026-02-10');
    await store.addMember('org_m', team.id, 'u1', '2026-02-11'); // the day after: the same period goes on
    await store.addMember('org_m', team.id, 'u2', '2026-02-03');
    await store.endMembership('org_m', team.id, 'u2', '2026-02-04');
    await store.addMember('org_m', team.id, 'u2', '2026-02-20'); // a gap: a second period
    expect(await store.memberships('org_m', team.id)).toEqual([
      { teamId: team.id, userId: 'u1', firstDay: '2026-02-01', lastDay: null },
      { teamId: team.id, userId: 'u2', firstDay: '2026-02-03', lastDay: '2026-02-04' },
      { teamId: team.id, userId: 'u2', firstDay: '2026-02-20', lastDay: null },
    ]);
    expect(await store.membersOn('org_m', '2026-02-04')).toEqual([
      { teamId: team.id, userId: 'u1' },
      { teamId: team.id, userId: 'u2' },
    ]);
    expect(await store.membersOn('org_m', '2026-02-05')).toEqual([{ teamId: team.id, userId: 'u1' }]);
    expect(await store.membersOn('org_m', '2026-01-31')).toEqual([]);

    // The directory says the members from 2026-03-01 are u2 and u3: u1 ends on 2026-02-28.
    await store.setMembersFrom('org_m', team.id, ['u2', 'u3'], '2026-03-01');
    expect(await store.membersOn('org_m', '2026-02-28')).toEqual([
      { teamId: team.id, userId: 'u1' },
      { teamId: team.id, userId: 'u2' },
    ]);
    expect(await store.membersOn('org_m', '2026-03-01')).toEqual([
      { teamId: team.id, userId: 'u2' },
      { teamId: team.id, userId: 'u3' },
    ]);
    // Ending a membership before it began removes it: it never took effect.
    await store.endMembership('org_m', team.id, 'u3', '2026-02-28');
    expect((await store.memberships('org_m', team.id)).some((m) => m.userId === 'u3')).toBe(false);
    await store.endAllMemberships('org_m', 'u2', '2026-03-05');
    expect(await store.membersOn('org_m', '2026-03-06')).toEqual([]);
    await store.forgetUser('org_m', 'u1');
    expect((await store.memberships('org_m')).map((m) => m.userId)).toEqual(['u2', 'u2']);
  });

  it('imports a roster: creates the teams it names, replaces their memberships, leaves the others', async () => {
    const kept = await store.createTeam('org_r', 'Kept');
    await store.addMember('org_r', kept.id, 'u9', '2026-01-01');
    const ops = await store.createTeam('org_r', 'ops');
    await store.addMember('org_r', ops.id, 'u8', '2026-01-01');
    const result = await store.importRoster('org_r', {
      parentsOnly: ['Company'],
      teams: [
        { name: 'Ops', parent: 'Company', members: [{ userId: 'u1', firstDay: SINCE_ALWAYS, lastDay: '2026-02-14' }] },
        { name: 'Web', parent: 'Ops', members: [{ userId: 'u1', firstDay: '2026-02-15', lastDay: null }] },
      ],
    });
    expect(result).toEqual({ created: ['Company', 'Web'], teams: 2, memberships: 2 });
    const teams = await store.listTeams('org_r');
    const byName = new Map(teams.map((t) => [t.name, t]));
    expect(byName.get('ops')?.parentId).toBe(byName.get('Company')?.id);
    expect(byName.get('Web')?.parentId).toBe(ops.id);
    expect((await store.memberships('org_r', ops.id)).map((m) => [m.userId, m.firstDay, m.lastDay])).toEqual([
      ['u1', SINCE_ALWAYS, '2026-02-14'],
    ]);
    expect(await store.memberships('org_r', kept.id)).toHaveLength(1);

    // A roster whose parents would close a cycle with a team it does not name changes nothing.
    await store.setParent('org_r', kept.id, byName.get('Web')?.id ?? null);
    const before = await store.memberships('org_r');
    await refused(store.importRoster('org_r', { parentsOnly: [], teams: [{ name: 'Company', parent: 'Kept', members: [] }] }), 'cycle');
    await refused(
      store.importRoster('org_r', {
        parentsOnly: [],
        teams: [
          { name: 'New', parent: null, members: [] },
          {
            name: 'Web',
            parent: null,
            members: [
              { userId: 'u1', firstDay: '2026-02-01', lastDay: null },
              { userId: 'u1', firstDay: '2026-03-01', lastDay: null },
            ],
          },
        ],
      }),
      'invalid',
    );
    expect(await store.memberships('org_r')).toEqual(before);
    expect(await store.teamByName('org_r', 'New')).toBeUndefined();
    // Importing the same roster again (same keys deleted and inserted in one transaction) works.
    await store.importRoster('org_r', {
      parentsOnly: [],
      teams: [{ name: 'Web', parent: 'Ops', members: [{ userId: 'u1', firstDay: '2026-02-15', lastDay: null }] }],
    });
    await store.importRoster('org_r', {
      parentsOnly: [],
      teams: [{ name: 'Web', parent: 'Ops', members: [{ userId: 'u1', firstDay: '2026-02-15', lastDay: null }] }],
    });
    expect((await store.memberships('org_r', byName.get('Web')?.id)).length).toBe(1);
  });

  it('keeps a minimum team size per organization, 1 by default', async () => {
    expect(await store.minTeamSize('org_s')).toBe(1);
    await store.setMinTeamSize('org_s', 5);
    await store.setMinTeamSize('org_s', 3);
    expect(await store.minTeamSize('org_s')).toBe(3);
    expect(await store.minTeamSize('org_t')).toBe(1);
    await refused(store.setMinTeamSize('org_s', 0), 'invalid');
    // Every change bumps the organization's revision (team answers are cached under it); a refused one does not.
    const before = await store.revision('org_s');
    const team = await store.createTeam('org_s', 'Rev');
    await store.addMember('org_s', team.id, 'u1', '2026-03-01');
    expect(await store.revision('org_s')).toBe(before + 2);
    await refused(store.createTeam('org_s', 'rev'), 'name-taken');
    expect(await store.revision('org_s')).toBe(before + 2);
    expect(await store.revision('org_none')).toBe(0);
  });
});
