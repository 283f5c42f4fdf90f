// Teams end to end through HTTP: the roster (PUT, all or nothing, every bad line named), the listing, the
// minimum team size, roles and another organization on every route, and the team figures of docs/metrics.md
// §6 (group_by=team over direct members, team= over a team and its descendants, members on each day) on a
// fixture whose every expected number is worked out by hand next to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { RosterRefused, TeamList } from '../../api/teams/schema.ts';
import { TeamStore } from '../../api/teams/store.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { call, turn, usage, type WireRecord } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const log = createLogger({ name: 'test', level: 'silent' });
let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>> & { u: Record<string, UserId> };
let acme: Org;
let other: Org;
/** Eve joins team Ops on D4, active only on D1 before it; Fay is in Ops throughout, active on D4. */
let joiners: Org;

async function org(name: string, people: string[]): Promise<Org> {
  const o = await server.seedOrg(name);
  const u: Record<string, UserId> = {};
  for (const p of people)
    u[p] = (await server.services.accounts.createUser({ orgId: o.orgId as OrgId, email: `${p}@${name}.example.com`, role: 'member' })).id;
  return { ...o, u };
}
const ingest = (o: Org, user: string, records: WireRecord[]) =>
  server.services.ingest.storeRecords(o.orgId as OrgId, o.u[user] as UserId, records);
const putRoster = (key: string, csv: string, type = 'text/csv') =>
  server.app.inject({ method: 'PUT', url: '/api/v0/organization/teams', headers: { ...bearer(key), 'content-type': type }, payload: csv });
const getTeams = (key: string) => server.app.inject({ method: 'GET', url: '/api/v0/organization/teams', headers: bearer(key) });
const putMinSize = (key: string, minTeamSize: number) =>
  server.app.inject({ method: 'PUT', url: '/api/v0/organization/teams/settings', headers: bearer(key), payload: { minTeamSize } });
async function get(key: string, path: string) {
  const res = await server.app.inject({ method: 'GET', url: path, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: Record<string, unknown>[]; meta: Record<string, unknown> };
}

const D1 = '2026-03-02';
const D2 = '2026-03-03';
const D3 = '2026-03-04';
const D4 = '2026-03-05';
const RANGE = `startDate=${D1}&endDate=${D4}`;

// Engineering is the parent of Web and Data. Ana is in Web through D2, then in Data from D3 (she moves
// mid-range); Bo is in Web and in Data (two teams); Cy is a direct member of Engineering; Dee is in no team.
const ROSTER = [
  'email,team,parent,from,to',
  ',Engineering,,,',
  `ana@acme.example.com,Web,Engineering,,${D2}`,
  `ana@acme.example.com,Data,Engineering,${D3},`,
  'bo@acme.example.com,Web,Engineering,,',
  'bo@acme.example.com,"Data",,,',
  'cy@acme.example.com,Engineering,,,',
].join('\r\n');

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await org('acme', ['ana', 'bo', 'cy', 'dee']);
  other = await org('other', ['zed']);
  // claude-sonnet-* costs 1.2 a token, claude-opus-* 2: input 2 of Sonnet is 2.4 billable before rounding.
  await ingest(acme, 'ana', [
    // D1: a turn, a Read and a git commit; 2 Sonnet input tokens (2.4).
    turn(D1, { session_id: 'a1' }),
    call('Read', D1, { session_id: 'a1' }),
    call('Bash', D1, { session_id: 'a1', is_shell: true, git_commit: true }),
    usage('claude-sonnet-4-5', D1, { input_tokens: 2 }, false, 'a1'),
    // D2: writes a new file.
    call('Write', D2, { session_id: 'a2', files: [{ ext: 'py', op: 'create' }] }),
    // D3 (now in Data): three Reads; 1 Opus input token (2.0).
    call('Read', D3, { session_id: 'a3' }),
    call('Read', D3, { session_id: 'a3' }),
    call('Read', D3, { session_id: 'a3' }),
    usage('claude-opus-4-1', D3, { input_tokens: 1 }, false, 'a3'),
  ]);
  await ingest(acme, 'bo', [
    // D1: a turn and an edit; 2.4 Sonnet. D3: one Read.
    turn(D1, { session_id: 'b1' }),
    call('Edit', D1, { session_id: 'b1', files: [{ ext: 'ts', op: 'edit' }] }),
    usage('claude-sonnet-4-5', D1, { input_tokens: 2 }, false, 'b1'),
    call('Read', D3, { session_id: 'b3' }),
  ]);
  // Cy, D1: one Read; 2.4 Sonnet. Dee (no team), D1: one Read and 12 Sonnet; D4: one Read.
  await ingest(acme, 'cy', [call('Read', D1, { session_id: 'c1' }), usage('claude-sonnet-4-5', D1, { input_tokens: 2 }, false, 'c1')]);
  await ingest(acme, 'dee', [
    call('Read', D1, { session_id: 'd1' }),
    usage('claude-sonnet-4-5', D1, { input_tokens: 10 }, false, 'd1'),
    call('Read', D4, { session_id: 'd4' }),
  ]);
  await ingest(other, 'zed', [call('Read', D1, { session_id: 'z1' })]);
  joiners = await org('joiners', ['eve', 'fay']);
  await ingest(joiners, 'eve', [call('Read', D1, { session_id: 'e1' })]);
  await ingest(joiners, 'fay', [call('Read', D4, { session_id: 'f4' })]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
});
afterAll(() => server.close());

describe('the roster', () => {
  it('owners only: managers, members and guests get 403; no key 401', async () => {
    for (const role of ['manager', 'member', 'guest'] as const)
      expect((await putRoster(acme.users[role].key, ROSTER)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'PUT', url: '/api/v0/organization/teams', payload: ROSTER })).statusCode).toBe(401);
    expect((await getTeams(acme.users.member.key)).statusCode).toBe(403);
    expect((await getTeams(acme.users.guest.key)).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/organization/teams' })).statusCode).toBe(401);
    const noKey = await server.app.inject({ method: 'PUT', url: '/api/v0/organization/teams/settings', payload: { minTeamSize: 2 } });
    expect(noKey.statusCode).toBe(401);
    expect(ErrorBodySchema.parse(noKey.json()).status).toBe(401);
  });

  it('a file of the wrong kind lists at most 1000 bad lines', async () => {
    const lines = ['email,team,parent,from,to', ...Array.from({ length: 1500 }, (_, i) => `x${i}@nowhere.example.com,T,,,`)];
    const res = await putRoster(acme.users.owner.key, lines.join('\n'));
    expect(res.statusCode).toBe(400);
    const body = RosterRefused.parse(res.json());
    expect(body.errors).toHaveLength(1000);
    expect(body.errors.at(-1)?.line).toBe(1001);
    expect(body.detail).toMatch(/^the roster was not imported \(nothing changed\); 1500 bad lines, the first 1000 listed: line 2: /);
  });

  it('a team or parent name with a control character or a line break is a 400 naming its line (issue 28, item 11)', async () => {
    const bad = [
      'email,team,parent,from,to',
      'ana@acme.example.com,Web,,,', // 2: fine
      'bo@acme.example.com,"Da\nta",,,', // 3: a line break inside a quoted team (the record starts on line 3)
      'cy@acme.example.com,Ops\u0007,,,', // 5: a bell
      'ana@acme.example.com,Infra,"Plat\u001bform",,', // 6: an escape in the parent
    ].join('\n');
    const res = await putRoster(acme.users.owner.key, bad);
    expect(res.statusCode).toBe(400);
    const body = RosterRefused.parse(res.json());
    expect(body.errors.map((e) => e.line)).toEqual([3, 5, 6]);
    expect(body.errors[0]?.reason).toContain('line break');
    expect(body.errors[2]?.reason).toMatch(/parent name holds no control character/);
    expect(body.detail).toMatch(/^the roster was not imported \(nothing changed\): line 3: /);
    expect(TeamList.parse((await getTeams(acme.users.owner.key)).json()).teams).toEqual([]);
  });

  it('refuses a whole file with every bad line named, changing nothing', async () => {
    const bad = [
      'email,team,parent,from,to',
      'nobody@acme.example.com,Web,,,', // 2: unknown e-mail
      'ana@acme.example.com,Web,,2026-02-30,', // 3: impossible date
      'bo@acme.example.com,Web,,2026-03-05,2026-03-01', // 4: from after to
      'cy@acme.example.com,Ops,Web,,', // 5: Ops under Web …
      'cy@acme.example.com,Web,Ops,2026-01-01,2026-01-02', // 6: … and Web under Ops: a cycle
      'ana@acme.example.com,Ops,Data,2026-02-01,2026-02-02', // 7: Ops's parent disagrees with line 5
    ].join('\n');
    const res = await putRoster(acme.users.owner.key, bad);
    expect(res.statusCode).toBe(400);
    const body = RosterRefused.parse(res.json());
    expect(body.errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(body.errors[0]?.reason).toContain('nobody@acme.example.com');
    expect(body.errors[1]?.reason).toContain('2026-02-30');
    expect(body.errors[2]?.reason).toContain('after');
    expect(body.errors[3]?.reason).toContain('cycle');
    expect(body.errors[5]?.reason).toContain('line 5');
    expect(body.detail).toMatch(/^the roster was not imported \(nothing changed\): line 2: /);
    expect(TeamList.parse((await getTeams(acme.users.owner.key)).json()).teams).toEqual([]);
    // Not CSV, or no header: refused too.
    expect((await putRoster(acme.users.owner.key, '{}', 'application/json')).statusCode).toBe(415);
    expect(RosterRefused.parse((await putRoster(acme.users.owner.key, 'a,b\n')).json()).errors[0]?.line).toBe(1);
  });

  it('imports the roster; GET lists teams, parents and dated members; another organization sees none', async () => {
    const res = await putRoster(acme.users.owner.key, ROSTER);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ created: ['Engineering', 'Web', 'Data'], teams: 3, memberships: 5 });
    const list = TeamList.parse((await getTeams(acme.users.manager.key)).json());
    expect(list).toEqual({
      minTeamSize: 1,
      teams: [
        {
          name: 'Data',
          parent: 'Engineering',
          members: [
            { email: 'ana@acme.example.com', from: D3, to: null },
            { email: 'bo@acme.example.com', from: null, to: null },
          ],
        },
        { name: 'Engineering', parent: null, members: [{ email: 'cy@acme.example.com', from: null, to: null }] },
        {
          name: 'Web',
          parent: 'Engineering',
          members: [
            { email: 'ana@acme.example.com', from: null, to: D2 },
            { email: 'bo@acme.example.com', from: null, to: null },
          ],
        },
      ],
    });
    expect(TeamList.parse((await getTeams(other.users.owner.key)).json()).teams).toEqual([]);
    // Another organization's roster naming acme's people is refused: they are not its users.
    const foreign = await putRoster(other.users.owner.key, 'email,team,parent,from,to\nana@acme.example.com,Web,,,\n');
    expect(foreign.statusCode).toBe(400);
    expect(TeamList.parse((await getTeams(acme.users.owner.key)).json()).teams).toHaveLength(3);
  });
});

describe('team figures (docs/metrics.md §6)', () => {
  beforeAll(async () => {
    // Idempotent: the same file again leaves the same teams (the previous describe imported it first).
    expect((await putRoster(acme.users.owner.key, ROSTER)).statusCode).toBe(200);
  });

  it('group_by=team counts each team over its direct members on each day', async () => {
    // Direct members: Engineering {cy}; Web {ana, bo} on D1-D2, {bo} from D3; Data {bo} on D1-D2, {ana, bo} from D3.
    // Tool calls: D1 Data = bo 1; Engineering = cy 1; Web = ana 2 + bo 1 = 3. D2 Web = ana 1 (Data: bo 0, left out).
    // D3 Data = ana 3 + bo 1 = 4; Web = bo 1. D4: only Dee, in no team.
    expect((await get(acme.users.manager.key, `/api/v1/analytics/tools?${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Data', tool_calls: 1 },
      { date: D1, group_key: 'Engineering', tool_calls: 1 },
      { date: D1, group_key: 'Web', tool_calls: 3 },
      { date: D2, group_key: 'Web', tool_calls: 1 },
      { date: D3, group_key: 'Data', tool_calls: 4 },
      { date: D3, group_key: 'Web', tool_calls: 1 },
    ]);
    // Active members: D1 Data {bo}, Engineering {cy}, Web {ana, bo}; D2 Web {ana}; D3 Data {ana, bo}, Web {bo}.
    expect((await get(acme.users.manager.key, `/api/v1/analytics/activity?${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Data', daily_active_users: 1 },
      { date: D1, group_key: 'Engineering', daily_active_users: 1 },
      { date: D1, group_key: 'Web', daily_active_users: 2 },
      { date: D2, group_key: 'Web', daily_active_users: 1 },
      { date: D3, group_key: 'Data', daily_active_users: 2 },
      { date: D3, group_key: 'Web', daily_active_users: 1 },
    ]);
    // Billable, rounded per day, team and model: D1 Sonnet Data = round(2.4) = 2; Engineering = round(2.4) = 2;
    // Web = round(2.4 + 2.4) = round(4.8) = 5 (the sum of Ana's and Bo's rounded shares would be 4 or 5);
    // D3 Opus Data = Ana's 2.0 = 2. Dollars: a few tokens cost under $0.00005 (0 to 4 decimals).
    expect((await get(acme.users.manager.key, `/api/v1/analytics/tokens?${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Data', billable_tokens: 2, input_tokens: 2, output_tokens: 0, cost_usd: 0 },
      { date: D1, group_key: 'Engineering', billable_tokens: 2, input_tokens: 2, output_tokens: 0, cost_usd: 0 },
      { date: D1, group_key: 'Web', billable_tokens: 5, input_tokens: 4, output_tokens: 0, cost_usd: 0 },
      { date: D3, group_key: 'Data', billable_tokens: 2, input_tokens: 1, output_tokens: 0, cost_usd: 0 },
    ]);
    // D1 Data: Bo's edit; Web: Ana's commit and Bo's edit; D2 Web: Ana's new file. Engineering (Cy's Read) is all 0.
    expect((await get(acme.users.manager.key, `/api/v1/analytics/productivity?${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Data', files_created: 0, files_edited: 1, git_commits: 0, git_prs_created: 0 },
      { date: D1, group_key: 'Web', files_created: 0, files_edited: 1, git_commits: 1, git_prs_created: 0 },
      { date: D2, group_key: 'Web', files_created: 1, files_edited: 0, git_commits: 0, git_prs_created: 0 },
    ]);
  });

  it('team= on the parent covers its descendants; on a team, the members of each day', async () => {
    const key = acme.users.manager.key;
    // Engineering with Web and Data: Ana, Bo and Cy on every day; Dee is out.
    // D1: Ana Read + Bash, Bo Edit, Cy Read = 4 calls (Read 2, Bash 1, Edit 1); D2: Ana's Write; D3: 4 Reads; D4: 0.
    const tools = (await get(key, `/api/v1/analytics/tools?${RANGE}&team=engineering`)).data;
    expect(tools.map((d) => d['tool_calls'])).toEqual([4, 1, 4, 0]);
    expect(tools[0]?.['by_tool']).toEqual([
      { tool: 'Read', invocations: 2 },
      { tool: 'Bash', invocations: 1 },
      { tool: 'Edit', invocations: 1 },
    ]);
    // The organization has Dee's calls too: 5, 1, 4, 1.
    expect((await get(key, `/api/v1/analytics/tools?${RANGE}`)).data.map((d) => d['tool_calls'])).toEqual([5, 1, 4, 1]);
    // DAU: D1 {ana, bo, cy} 3, D2 {ana} 1, D3 {ana, bo} 2, D4 0. WAU and MAU: all three active within the window.
    const activity = (await get(key, `/api/v1/analytics/activity?${RANGE}&team=Engineering`)).data;
    expect(activity.map((d) => [d['daily_active_users'], d['weekly_active_users'], d['monthly_active_users']])).toEqual([
      [3, 3, 3],
      [1, 3, 3],
      [2, 3, 3],
      [0, 3, 3],
    ]);
    // D1 Sonnet over Ana, Bo and Cy: round(7.2) = 7, input 6 (the organization's, with Dee's 12: round(19.2) = 19).
    // By user: 2 each, plus the one unit left to the first user id (equal remainders). D3 Opus: 2.
    const tokens = (await get(key, `/api/v1/analytics/tokens?${RANGE}&team=Engineering`)).data;
    expect(tokens.map((d) => [d['billable_tokens'], d['input_tokens']])).toEqual([
      [7, 6],
      [0, 0],
      [2, 1],
      [0, 0],
    ]);
    const byUser = tokens[0]?.['by_user'] as { user_id: string; billable_tokens: number }[];
    const first = [acme.u['ana'], acme.u['bo'], acme.u['cy']].sort()[0];
    expect(byUser.map((u) => [u.user_id, u.billable_tokens]).sort()).toEqual(
      [acme.u['ana'], acme.u['bo'], acme.u['cy']].map((id) => [id, id === first ? 3 : 2]).sort(),
    );
    expect((await get(key, `/api/v1/analytics/tokens?${RANGE}`)).data[0]?.['billable_tokens']).toBe(19);
    // Productivity: D1 Ana's commit and Bo's edit; D2 Ana's new .py file.
    const productivity = (await get(key, `/api/v1/analytics/productivity?${RANGE}&team=Engineering`)).data;
    expect(productivity.map((d) => [d['files_created'], d['files_edited'], d['git_commits']])).toEqual([
      [0, 1, 1],
      [1, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]);
    expect(productivity[1]?.['by_extension']).toEqual([{ extension: 'py', count: 1 }]);

    // Web: Ana on D1-D2 only, Bo throughout. Calls: D1 3, D2 1, D3 Bo's Read 1 (Ana's 3 Reads are Data's), D4 0.
    expect((await get(key, `/api/v1/analytics/tools?${RANGE}&team=Web`)).data.map((d) => d['tool_calls'])).toEqual([3, 1, 1, 0]);
    // Data: Bo on D1-D2, Ana and Bo from D3. WAU on D3 counts Ana's D1 and D2 activity: she is a member on D3.
    const data = (await get(key, `/api/v1/analytics/activity?${RANGE}&team=Data`)).data;
    expect(data.map((d) => [d['daily_active_users'], d['weekly_active_users']])).toEqual([
      [1, 1],
      [0, 1],
      [2, 2],
      [0, 2],
    ]);
    // /users with team=Web: Ana's rows of D1 and D2 (not D3, in Data), Bo's of D1 and D3.
    const users = (await get(key, `/api/v1/analytics/users?${RANGE}&team=Web`)).data;
    expect(users.map((r) => [r['user_email'], r['date']]).sort()).toEqual([
      ['ana@acme.example.com', D1],
      ['ana@acme.example.com', D2],
      ['bo@acme.example.com', D1],
      ['bo@acme.example.com', D3],
    ]);
  });

  it('team= counts in D’s weekly and monthly users a member who joined on D and was active before', async () => {
    const roster = ['email,team,parent,from,to', `eve@joiners.example.com,Ops,,${D4},`, 'fay@joiners.example.com,Ops,,,'].join('\n');
    expect((await putRoster(joiners.users.owner.key, roster)).statusCode).toBe(200);
    const data = (await get(joiners.users.manager.key, `/api/v1/analytics/activity?${RANGE}&team=Ops`)).data;
    const d4 = data.find((d) => d['date'] === D4);
    // D4's members are Eve and Fay: Fay active on D4, Eve on D1 (within D4-6 and D4-29), before she joined.
    expect(d4).toMatchObject({ daily_active_users: 1, weekly_active_users: 2, monthly_active_users: 2 });
    // On D1 Eve was no member: the team's D1 counts none of her activity.
    const d1 = data.find((d) => d['date'] === D1);
    expect(d1 === undefined || d1['daily_active_users'] === 0).toBe(true);
  });

  it('team= and group_by=team: bad values are 400, another organization does not know the team', async () => {
    const bad = await server.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/tools?${RANGE}&team=Nope`,
      headers: bearer(acme.users.manager.key),
    });
    expect(bad.statusCode).toBe(400);
    expect(ErrorBodySchema.parse(bad.json()).detail).toContain('Nope');
    const foreign = await server.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/tools?${RANGE}&team=Engineering`,
      headers: bearer(other.users.manager.key),
    });
    expect(foreign.statusCode).toBe(400);
    // Another organization's group_by=team has no team rows.
    expect((await get(other.users.manager.key, `/api/v1/analytics/tools?${RANGE}&group_by=team`)).data).toEqual([]);
    for (const url of [`/api/v1/analytics/users?${RANGE}&group_by=team`, `/api/v1/analytics/tools?${RANGE}&group_by=team&team=Web`])
      expect((await server.app.inject({ method: 'GET', url, headers: bearer(acme.users.manager.key) })).statusCode).toBe(400);
    // Members and guests: 403 as for every analytics answer.
    for (const role of ['member', 'guest'] as const)
      expect(
        (
          await server.app.inject({
            method: 'GET',
            url: `/api/v1/analytics/tools?${RANGE}&team=Web`,
            headers: bearer(acme.users[role].key),
          })
        ).statusCode,
      ).toBe(403);
  });

  it('the minimum team size leaves small teams out of grouped rows and refuses a filter on them', async () => {
    for (const role of ['manager', 'member', 'guest'] as const) expect((await putMinSize(acme.users[role].key, 2)).statusCode).toBe(403);
    expect((await putMinSize(acme.users.owner.key, 0)).statusCode).toBe(400);
    expect((await putMinSize(acme.users.owner.key, 2)).statusCode).toBe(200);
    expect(TeamList.parse((await getTeams(acme.users.owner.key)).json()).minTeamSize).toBe(2);
    expect(TeamList.parse((await getTeams(other.users.owner.key)).json()).minTeamSize).toBe(1);
    // Sizes: D1-D2 Web 2, Data 1, Engineering 1; D3 Data 2, Web 1. Only Web (D1, D2) and Data (D3) remain.
    expect((await get(acme.users.manager.key, `/api/v1/analytics/tools?${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Web', tool_calls: 3 },
      { date: D2, group_key: 'Web', tool_calls: 1 },
      { date: D3, group_key: 'Data', tool_calls: 4 },
    ]);
    // Web has one member from D3: refused over a range that includes D3, answered over D1-D2.
    const small = await server.app.inject({
      method: 'GET',
      url: `/api/v1/analytics/tools?${RANGE}&team=Web`,
      headers: bearer(acme.users.manager.key),
    });
    expect(small.statusCode).toBe(403);
    expect(ErrorBodySchema.parse(small.json()).detail).toContain(D3);
    expect((await get(acme.users.manager.key, `/api/v1/analytics/tools?startDate=${D1}&endDate=${D2}&team=Web`)).data).toHaveLength(2);
    // Engineering covers three people every day.
    expect((await get(acme.users.manager.key, `/api/v1/analytics/tools?${RANGE}&team=Engineering`)).data).toHaveLength(4);
    expect((await putMinSize(acme.users.owner.key, 1)).statusCode).toBe(200);
  });

  it('a membership changed outside the roster (as the directory does) shows at once: team answers are cached under the teams revision', async () => {
    const key = acme.users.manager.key;
    const url = `/api/v1/analytics/tools?${RANGE}&team=Web`;
    expect((await get(key, url)).data.map((d) => d['tool_calls'])).toEqual([3, 1, 1, 0]);
    const store = new TeamStore(server.db);
    const web = await store.teamByName(acme.orgId, 'web');
    // Dee joins Web on D4: her D4 Read counts there.
    await store.addMember(acme.orgId, web!.id, acme.u['dee'] as string, D4);
    expect((await get(key, url)).data.map((d) => d['tool_calls'])).toEqual([3, 1, 1, 1]);
    await store.endMembership(acme.orgId, web!.id, acme.u['dee'] as string, D3);
    expect((await get(key, url)).data.map((d) => d['tool_calls'])).toEqual([3, 1, 1, 0]);
  });

  it('the per-user aggregates the team figures sum add up to the organization aggregates', async () => {
    const sums = (sql: string) => server.db.all(sql, { org: acme.orgId });
    expect(
      await sums(`SELECT CAST(day AS VARCHAR) AS day, kind, key, sum(count)::BIGINT AS n FROM agg_user_breakdown_day WHERE org_id = $org
                  GROUP BY ALL ORDER BY ALL`),
    ).toEqual(
      await sums(`SELECT CAST(day AS VARCHAR) AS day, kind, key, count AS n FROM agg_breakdown_day WHERE org_id = $org ORDER BY ALL`),
    );
    // Rounded per day and model over everyone, the unrounded figures give the organization's billable tokens.
    expect(
      await sums(`SELECT CAST(day AS VARCHAR) AS day, model, CAST(round(sum(raw_billable)) AS BIGINT) AS n FROM agg_user_model_day
                  WHERE org_id = $org GROUP BY ALL ORDER BY ALL`),
    ).toEqual(
      await sums(`SELECT CAST(day AS VARCHAR) AS day, model, sum(billable_tokens)::BIGINT AS n FROM agg_tokens_day WHERE org_id = $org
                  GROUP BY ALL ORDER BY ALL`),
    );
  });

  it("a team of everyone has its organization's billable tokens where the members' unrounded figures sum to a half", async () => {
    // An unpriced model counts a token each: cache reads of 1, 23, 23 and 28 are 0.1, 2.3, 2.3 and 2.8,
    // which sum to 7.5 exactly (8 rounded, as the organization's figure), and to just under it as doubles
    // in whatever order the members come.
    const halves = await org('halves', ['hal', 'ida', 'jon', 'kai']);
    const reads = { hal: 1, ida: 23, jon: 23, kai: 28 };
    for (const [who, cache_read_tokens] of Object.entries(reads))
      await ingest(halves, who, [usage('mystery-model-x', D1, { cache_read_tokens }, false, `${who}1`)]);
    const roster = ['email,team,parent,from,to', ...Object.keys(reads).map((who) => `${who}@halves.example.com,All,,,`)].join('\n');
    const put = await putRoster(halves.users.owner.key, roster);
    expect(put.statusCode, put.body).toBe(200);
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    const billable = async (query: string) => {
      const answer = await get(halves.users.owner.key, `/api/v1/analytics/tokens?${RANGE}${query}`);
      return answer.data.reduce((sum, row) => sum + Number(row['billable_tokens']), 0);
    };
    expect(await billable('')).toBe(8);
    expect(await billable('&team=All')).toBe(8);
    expect(await billable('&group_by=team')).toBe(8);
  });

  it('a removed user leaves their teams', async () => {
    const removed = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/users/${acme.u['dee']}`,
      headers: bearer(acme.users.owner.key),
    });
    expect(removed.statusCode).toBe(200);
    const extra = await putRoster(acme.users.owner.key, 'email,team,parent,from,to\nzed@other.example.com,Solo,,,\n');
    expect(extra.statusCode).toBe(400);
    const cyRemoved = await server.app.inject({
      method: 'DELETE',
      url: `/api/v0/admin/users/${acme.u['cy']}`,
      headers: bearer(acme.users.owner.key),
    });
    expect(cyRemoved.statusCode).toBe(200);
    const list = TeamList.parse((await getTeams(acme.users.owner.key)).json());
    expect(list.teams.find((t) => t.name === 'Engineering')?.members).toEqual([]);
    expect(await server.db.all('SELECT * FROM team_members WHERE user_id = $u', { u: acme.u['cy'] as string })).toEqual([]);
  });
});
