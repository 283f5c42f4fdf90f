// GET /api/v0/organization/adoption on a pinned clock (issue #32 item 6), with events sent through the
// real ingest route. The figures are worked by hand below; owners and managers only; another
// organization's people and events are never counted.
//
// Now: 2026-11-27T12:00:00Z (7 days back: 11-20T12:00, exclusive; 14: 11-13T12:00; 28: 10-30T12:00).
//   owner    no event                                          never
//   manager  claude 11-25                                      active, in 7 and 28
//   member   codex 11-10, claude usage 11-01                   quiet (17 days), in 28
//   guest    gemini 10-01                                      quiet, in neither
//   dev1     claude 11-20T12:00 exactly (7 days: not in 7)     active (7 days < 14), in 28
//   dev2     claude 11-26, deactivated by the directory        not on the roster
// Teams on 11-27: Platform = manager, member; Mobile = guest; owner and dev1 in none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGEST_PATH } from '../../common/wire.ts';
import { turn, usage } from '../helpers/records.ts';
import { bearer, ndjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
let dev1: string;

async function ship(key: string, records: unknown[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson' },
    payload: ndjson(records),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  expect(res.json()).toMatchObject({ rejected: [] });
}

async function person(email: string) {
  const user = await server.services.accounts.createUser({ orgId: acme.orgId as never, email, role: 'member' });
  return { id: user.id, key: (await server.services.accounts.createKey(user)).key };
}

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
  const d1 = await person('dev1@acme.example.com');
  const d2 = await person('dev2@acme.example.com');
  dev1 = d1.id;
  await ship(acme.users.manager.key, [turn('2026-11-25T09:00:00Z')]);
  await ship(acme.users.member.key, [
    turn('2026-11-10', { agent: 'codex' }),
    usage('claude-sonnet-4-5', '2026-11-01', { input_tokens: 10 }),
  ]);
  await ship(acme.users.guest.key, [turn('2026-10-01', { agent: 'gemini' })]);
  await ship(d1.key, [turn('2026-11-20T12:00:00Z')]);
  await ship(d2.key, [turn('2026-11-26')]);
  await server.db.run('INSERT INTO scim_users (org_id, user_id, active) VALUES ($org, $user, false)', { org: acme.orgId, user: d2.id });
  // Another organization's member is active with two agents: never counted in Acme's figures.
  await ship(other.users.member.key, [turn('2026-11-26'), turn('2026-11-26', { agent: 'codex' })]);
  const roster = [
    'email,team,parent,from,to',
    'manager@acme.example.com,Platform,,,',
    'member@acme.example.com,Platform,,,',
    'guest@acme.example.com,Mobile,,,',
  ];
  const teams = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(acme.users.owner.key), 'content-type': 'text/csv' },
    payload: `${roster.join('\n')}\n`,
  });
  expect(teams.statusCode, teams.body).toBeLessThan(300);
});
afterAll(() => server.close());

const adoption = (key: string) => server.app.inject({ method: 'GET', url: '/api/v0/organization/adoption', headers: bearer(key) });

describe('GET /api/v0/organization/adoption', () => {
  it('counts the roster by hand-worked figures: totals, by agent, by team', async () => {
    const res = await adoption(acme.users.manager.key);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.asOf).toBe('2026-11-27T12:00:00.000Z');
    expect(body.totals).toEqual({ people: 5, activated: 4, active7: 1, active28: 3, neverActivated: 1, quiet: 2 });
    expect(body.byAgent).toEqual([
      { agent: 'claude', activated: 3, active7: 1, active28: 3 },
      { agent: 'codex', activated: 1, active7: 0, active28: 1 },
      { agent: 'gemini', activated: 1, active7: 0, active28: 0 },
    ]);
    expect(body.byTeam.map((t: { team: string }) => t.team)).toEqual(['Mobile', 'Platform', '(no team)']);
    expect(body.byTeam.map(({ teamId: _, ...t }: { teamId: string }) => t)).toEqual([
      { team: 'Mobile', people: 1, activated: 1, active7: 0, active28: 0 },
      { team: 'Platform', people: 2, activated: 2, active7: 1, active28: 2 },
      { team: '(no team)', people: 2, activated: 1, active7: 0, active28: 1 },
    ]);
    expect(body.byTeam[2].teamId).toBeNull();
  });

  it('names who never activated and who went quiet, with their last event', async () => {
    const body = (await adoption(acme.users.owner.key)).json();
    const byEmail = new Map(body.people.map((p: { email: string }) => [p.email, p]));
    expect([...byEmail.keys()]).toEqual([
      'dev1@acme.example.com',
      'guest@acme.example.com',
      'manager@acme.example.com',
      'member@acme.example.com',
      'owner@acme.example.com',
    ]);
    expect(byEmail.get('owner@acme.example.com')).toMatchObject({
      state: 'never',
      firstEventAt: null,
      lastEventAt: null,
      agents: [],
      teams: [],
    });
    expect(byEmail.get('member@acme.example.com')).toEqual({
      userId: acme.users.member.id,
      email: 'member@acme.example.com',
      role: 'member',
      teams: ['Platform'],
      agents: ['claude', 'codex'],
      firstEventAt: '2026-11-01T12:00:00.000Z',
      lastEventAt: '2026-11-10T12:00:00.000Z',
      active7: false,
      active28: true,
      state: 'quiet',
    });
    expect(byEmail.get('guest@acme.example.com')).toMatchObject({ state: 'quiet', active28: false, teams: ['Mobile'] });
    expect(byEmail.get('dev1@acme.example.com')).toMatchObject({ userId: dev1, state: 'active', active7: false, active28: true });
    expect(byEmail.get('manager@acme.example.com')).toMatchObject({
      state: 'active',
      active7: true,
      lastEventAt: '2026-11-25T09:00:00.000Z',
    });
  });

  it('owners and managers only; another organization sees only its own people', async () => {
    for (const role of ['member', 'guest'] as const) {
      const res = await adoption(acme.users[role].key);
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toContain('Reading adoption requires the owner or manager role');
    }
    const theirs = (await adoption(other.users.owner.key)).json();
    expect(theirs.totals).toEqual({ people: 4, activated: 1, active7: 1, active28: 1, neverActivated: 3, quiet: 0 });
    expect(theirs.byAgent.map((a: { agent: string }) => a.agent)).toEqual(['claude', 'codex']);
    expect(JSON.stringify(theirs)).not.toContain('acme');
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/organization/adoption' })).statusCode).toBe(401);
  });
});
