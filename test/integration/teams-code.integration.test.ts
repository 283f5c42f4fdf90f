// The code figures by team (docs/metrics.md §5 and §6) end to end: edits and landed commits stored as collectors
// ship them, a roster with a person moving between teams mid-range and a person in two teams, the real
// batch, and GET /api/v1/analytics/code with group_by=team (direct members) and team= (a team and its
// descendants, members on each day). Every expected number is worked out by hand beside it; also the
// minimum team size, the 400s, roles and another organization.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeResponse } from '../../api/code/schema.ts';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit } from '../../common/wire.ts';
import { at, call, type WireRecord } from '../helpers/records.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D1 = '2026-03-02';
const D2 = '2026-03-03';
const D3 = '2026-03-04';
const RANGE = `startDate=${D1}&endDate=${D3}`;
const log = createLogger({ name: 'test', level: 'silent' });

let server: TestServer;
type Org = Awaited<ReturnType<TestServer['seedOrg']>> & { u: Record<string, UserId>; name: string };
let acme: Org;
let other: Org;

async function org(name: string, people: string[]): Promise<Org> {
  const o = await server.seedOrg(name);
  const u: Record<string, UserId> = {};
  for (const p of people)
    u[p] = (await server.services.accounts.createUser({ orgId: o.orgId as OrgId, email: `${p}@${name}.example.com`, role: 'member' })).id;
  return { ...o, u, name };
}
/** Stores records as `user`'s collector sends them: a landed commit names its author, that user. */
const ingest = async (o: Org, user: string, records: WireRecord[]) => {
  const email = `${user}@${o.name}.example.com`;
  return server.services.ingest.storeRecords(
    o.orgId as OrgId,
    o.u[user] as UserId,
    records.map((r) => (r.kind === 'commit' ? { ...r, author: email } : r)),
  );
};

let sha = 0;
/** A commit landed on `when` with `lines` added, `agent` of them by Claude Code. */
function landed(when: string, lines: number, agent: number): WireLandedCommit {
  const repo = repoId('https://github.com/acme/shop.git');
  const commit = (++sha).toString(16).padStart(40, '0');
  return {
    kind: 'commit',
    id: `${repo}:${commit}`,
    repo_id: repo,
    repo: 'github.com/acme/shop',
    commit,
    ts: at(`${when}T15:00:00Z`),
    author: 'set@by.ingest',
    lines_added: lines,
    lines_deleted: 0,
    agent_lines: agent,
    by_agent: agent ? [{ agent: 'claude', model: 'claude-sonnet-4-5', lines: agent }] : [],
  };
}
const edit = (when: string, lines: number, session: string) =>
  call('Edit', `${when}T10:00:00Z`, { session_id: session, edits: [{ ext: 'py', lines_added: lines, lines_deleted: 0 }] });

async function get(key: string, query: string, status = 200) {
  const res = await server.app.inject({ method: 'GET', url: `/api/v1/analytics/code?${query}`, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(status);
  if (status !== 200) {
    ErrorBodySchema.parse(res.json());
    return res.json();
  }
  return CodeResponse.parse(res.json());
}
const putRoster = async (key: string, csv: string) => {
  const res = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(key), 'content-type': 'text/csv' },
    payload: csv,
  });
  expect(res.statusCode, res.body).toBe(200);
};
const putMinSize = async (o: Org, minTeamSize: number) => {
  const res = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams/settings',
    headers: bearer(o.users.owner.key),
    payload: { minTeamSize },
  });
  expect(res.statusCode, res.body).toBe(200);
};

// Engineering is the parent of Web and Data. Ana is in Web through D2, then in Data from D3 (she moves);
// Bo is in Web and in Data (two teams); Cy is a direct member of Engineering; Dee is in no team.
const ROSTER = [
  'email,team,parent,from,to',
  ',Engineering,,,',
  `ana@acme.example.com,Web,Engineering,,${D2}`,
  `ana@acme.example.com,Data,Engineering,${D3},`,
  'bo@acme.example.com,Web,Engineering,,',
  'bo@acme.example.com,Data,Engineering,,',
  'cy@acme.example.com,Engineering,,,',
].join('\n');

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  acme = await org('acme', ['ana', 'bo', 'cy', 'dee']);
  other = await org('other', ['zed']);
  // Ana: D1 edits 10 lines; D2 lands 20 lines, 8 by the agent; D3 edits 5 and lands 6, all 6 by the agent.
  await ingest(acme, 'ana', [edit(D1, 10, 'a1'), landed(D2, 20, 8), edit(D3, 5, 'a3'), landed(D3, 6, 6)]);
  // Bo: D1 edits 3; D3 lands 4, 1 by the agent.
  await ingest(acme, 'bo', [edit(D1, 3, 'b1'), landed(D3, 4, 1)]);
  // Cy: D2 edits 7 and lands 2, none by the agent.
  await ingest(acme, 'cy', [edit(D2, 7, 'c2'), landed(D2, 2, 0)]);
  // Dee (no team): D1 edits 100 and lands 50, all by the agent: in no team figure.
  await ingest(acme, 'dee', [edit(D1, 100, 'd1'), landed(D1, 50, 50)]);
  // Another organization with a team of the same name: never in acme's figures.
  await ingest(other, 'zed', [edit(D1, 1000, 'z1'), landed(D1, 500, 500)]);
  await putRoster(acme.users.owner.key, ROSTER);
  await putRoster(other.users.owner.key, 'email,team,parent,from,to\nzed@other.example.com,Web,,,');
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('group_by=team on /code', () => {
  it('one row per day and team with a non-zero figure, over its direct members that day', async () => {
    const body = await get(acme.users.manager.key, `${RANGE}&group_by=team`);
    expect(body.data).toEqual([
      // D1: Data = {Bo}: his 3 edit lines. Web = {Ana, Bo}: 10 + 3. Engineering = {Cy}: nothing that day.
      { date: D1, group_key: 'Data', edit_lines_added: 3, landed_lines_added: 0, landed_agent_lines: 0 },
      { date: D1, group_key: 'Web', edit_lines_added: 13, landed_lines_added: 0, landed_agent_lines: 0 },
      // D2: Engineering = {Cy}: 7 edited, 2 landed. Web = {Ana, Bo}: Ana's 20 landed, 8 by the agent.
      // Data = {Bo}: nothing that day.
      { date: D2, group_key: 'Engineering', edit_lines_added: 7, landed_lines_added: 2, landed_agent_lines: 0 },
      { date: D2, group_key: 'Web', edit_lines_added: 0, landed_lines_added: 20, landed_agent_lines: 8 },
      // D3: Data = {Ana, Bo}: Ana's 5 edited, 6 + 4 landed, 6 + 1 by the agent. Web = {Bo}: his 4 and 1.
      { date: D3, group_key: 'Data', edit_lines_added: 5, landed_lines_added: 10, landed_agent_lines: 7 },
      { date: D3, group_key: 'Web', edit_lines_added: 0, landed_lines_added: 4, landed_agent_lines: 1 },
    ]);
    expect(body.meta).toEqual({
      org_id: acme.orgId,
      start_date: D1,
      end_date: D3,
      // Each team over the range, the rows above summed: Web 13 + 0 + 0 edited, 0 + 20 + 4 landed, 8 + 1 by the agent.
      group_totals: [
        { group_key: 'Web', edit_lines_added: 13, landed_lines_added: 24, landed_agent_lines: 9 },
        { group_key: 'Data', edit_lines_added: 8, landed_lines_added: 10, landed_agent_lines: 7 },
        { group_key: 'Engineering', edit_lines_added: 7, landed_lines_added: 2, landed_agent_lines: 0 },
      ],
    });
  });

  it('teams below the minimum size on a day are left out that day', async () => {
    await putMinSize(acme, 2);
    try {
      // Web has 2 members on D1 and D2, 1 on D3; Data 1 on D1 and D2, 2 on D3; Engineering 1 every day.
      expect((await get(acme.users.owner.key, `${RANGE}&group_by=team`)).data).toEqual([
        { date: D1, group_key: 'Web', edit_lines_added: 13, landed_lines_added: 0, landed_agent_lines: 0 },
        { date: D2, group_key: 'Web', edit_lines_added: 0, landed_lines_added: 20, landed_agent_lines: 8 },
        { date: D3, group_key: 'Data', edit_lines_added: 5, landed_lines_added: 10, landed_agent_lines: 7 },
      ]);
      // team=Data covers 1 person on D1: refused.
      const refused = await get(acme.users.owner.key, `${RANGE}&team=Data`, 403);
      expect(refused.detail).toMatch(/minimum team size \(2\)/);
    } finally {
      await putMinSize(acme, 1);
    }
  });
});

describe('team= on /code', () => {
  it('a parent team counts its own and its descendants’ members on each day', async () => {
    const body = await get(acme.users.manager.key, `${RANGE}&team=engineering`);
    const days = (body.data as { date: string; edits: { lines_added: number }; landed: Record<string, unknown> }[]).map((r) => ({
      date: r.date,
      edits: r.edits.lines_added,
      commits: r.landed['commits'],
      landed: r.landed['lines_added'],
      agent: r.landed['agent_lines_added'],
      share: r.landed['agent_share'],
    }));
    // Ana, Bo and Cy are under Engineering every day; Dee never.
    expect(days).toEqual([
      { date: D1, edits: 13, commits: 0, landed: 0, agent: 0, share: 0 },
      // Ana's 20 (8) and Cy's 2 (0): 8 / 22 = 0.3636.
      { date: D2, edits: 7, commits: 2, landed: 22, agent: 8, share: 0.3636 },
      // Ana's 6 (6) and Bo's 4 (1): 7 / 10.
      { date: D3, edits: 5, commits: 2, landed: 10, agent: 7, share: 0.7 },
    ]);
  });

  it('a person counts under a team only on the days they were its member', async () => {
    const body = await get(acme.users.owner.key, `${RANGE}&team=Web`);
    const rows = body.data as { date: string; edits: { lines_added: number }; landed: { lines_added: number; by_agent: unknown[] } }[];
    // D1: Ana and Bo edit 13. D2: Ana's 20. D3: Ana has moved to Data: Bo's 4 only (not Ana's 5 and 6).
    expect(rows.map((r) => [r.date, r.edits.lines_added, r.landed.lines_added])).toEqual([
      [D1, 13, 0],
      [D2, 0, 20],
      [D3, 0, 4],
    ]);
    expect(rows[2]?.landed.by_agent).toEqual([{ agent: 'claude', lines: 1 }]);
    // And grouped within the team: by agent.
    expect((await get(acme.users.owner.key, `${RANGE}&team=Web&group_by=agent`)).data).toEqual([
      { date: D1, group_key: 'claude', edit_lines_added: 13, landed_lines_added: 0, landed_agent_lines: 0 },
      { date: D2, group_key: 'claude', edit_lines_added: 0, landed_lines_added: 0, landed_agent_lines: 8 },
      { date: D3, group_key: 'claude', edit_lines_added: 0, landed_lines_added: 0, landed_agent_lines: 1 },
    ]);
  });

  it('an unknown team and team= with group_by=team are 400', async () => {
    expect((await get(acme.users.owner.key, `${RANGE}&team=Nope`, 400)).detail).toMatch(/not a team of this organization/);
    expect((await get(acme.users.owner.key, `${RANGE}&team=Web&group_by=team`, 400)).detail).toMatch(/cannot be combined/);
  });
});

describe('team= on /code/commits', () => {
  const commits = async (key: string, query: string, status = 200) => {
    const res = await server.app.inject({ method: 'GET', url: `/api/v0/code/commits?${query}`, headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(status);
    return res.json() as { data: { lines_added: number; committed_at: string }[]; detail?: string };
  };

  it("lists the commits of the team's members on each commit's day, newest first", async () => {
    // Web: Bo's D3 commit (4), Ana's D2 commit (20); not Ana's D3 commit (6): she was in Data by then.
    expect((await commits(acme.users.manager.key, `${RANGE}&team=Web`)).data.map((c) => c.lines_added)).toEqual([4, 20]);
    // Engineering: Ana's, Bo's and Cy's (2, 4, 6, 20); not Dee's 50.
    const all = (await commits(acme.users.owner.key, `${RANGE}&team=Engineering`)).data.map((c) => c.lines_added);
    expect(all.sort((a, b) => a - b)).toEqual([2, 4, 6, 20]);
    // Paged: one at a time, the same two.
    const first = await commits(acme.users.owner.key, `${RANGE}&team=Web&limit=1`);
    expect(first.data.map((c) => c.lines_added)).toEqual([4]);
  });

  it('a member gets 403, an unknown team 400', async () => {
    await commits(acme.users.member.key, `${RANGE}&team=Web`, 403);
    expect((await commits(acme.users.owner.key, `${RANGE}&team=Nope`, 400)).detail).toMatch(/not a team/);
    expect((await commits(other.users.owner.key, `${RANGE}&team=Web`)).data.map((c) => c.lines_added)).toEqual([500]);
  });
});

describe('who sees team figures', () => {
  it('owners and managers; a member and a guest get 403; no key 401', async () => {
    for (const q of [`${RANGE}&team=Web`, `${RANGE}&group_by=team`]) {
      await get(acme.users.owner.key, q);
      await get(acme.users.manager.key, q);
      await get(acme.users.member.key, q, 403);
      await get(acme.users.guest.key, q, 403);
      expect((await server.app.inject({ method: 'GET', url: `/api/v1/analytics/code?${q}` })).statusCode).toBe(401);
    }
    // A member's team= is refused before the query is checked: a bad date does not make it a 400.
    expect((await get(acme.users.member.key, 'team=Web&startDate=bad', 403)).detail).toMatch(/^Team figures are for owners and managers/);
  });

  it('another organization sees only its own teams and figures', async () => {
    // Its Web is Zed alone: his 1000 and 500, nothing of acme's.
    expect((await get(other.users.owner.key, `${RANGE}&group_by=team`)).data).toEqual([
      { date: D1, group_key: 'Web', edit_lines_added: 1000, landed_lines_added: 500, landed_agent_lines: 500 },
    ]);
    const web = (await get(other.users.owner.key, `${RANGE}&team=Web`)).data as { edits: { lines_added: number } }[];
    expect(web.map((r) => r.edits.lines_added)).toEqual([1000, 0, 0]);
    expect((await get(other.users.owner.key, `${RANGE}&team=Engineering`, 400)).detail).toMatch(/not a team/);
  });
});
