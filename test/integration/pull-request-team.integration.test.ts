// team= on the pull request figures (docs/metrics.md §6 and §10): like every analytics endpoint's, it
// restricts the answer to the members of the team and of the teams below it on each day. A pull request
// counts when it holds commits of such a member on its day of merge, whole, as group_by=team counts it;
// the not-shipped cost is that of the members' sessions.
//
// Hand-worked (org price: model-a $1 per million input tokens). Roster from 2026-11-01: dev@ in Platform,
// web@ in Web (a team below Platform).
//   2026-11-02  dev's PR #1 (commit A, 20 lines, session d1 $1.00), merged by M1; dev's session d2 ($0.50)
//               lands nothing.
//   2026-11-03  web's PR #2 (commit B, 15 lines, session w1 $0.25), merged by M2; web's session w2 ($0.75)
//               lands nothing.
// team=Web:      11-02 nothing; 11-03 merged 1, 15 lines, $0.25, not shipped $0.75.
// team=Platform: 11-02 merged 1, 20 lines, $1.00, not shipped $0.50; 11-03 as Web's (Web is below it).
// Unknown team: 400; with group_by=team: 400; a member asking: 403. The list of pull requests: team=Web
// lists #2, team=Platform both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitsAt,
  DEV,
  GITHUB_SECRET,
  githubMergesAt,
  type PullRequestScene,
  pullRequestScene,
  REPO,
  sha,
} from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';
import { bearer } from '../helpers/server.ts';

const WEB = 'web@example.com';
const at = (when: string) => Date.parse(`2026-11-0${when}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = { A: sha('1'), M1: sha('2'), B: sha('3'), M2: sha('4') };

let scene: PullRequestScene;

const analytics = (query: string, key = scene.ownerKey) =>
  scene.server.app.inject({
    method: 'GET',
    url: `/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-03${query}`,
    headers: bearer(key),
  });

beforeAll(async () => {
  scene = await pullRequestScene({ developers: [DEV, WEB], github: GITHUB_SECRET });
  const teams = await scene.server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/teams',
    headers: { ...bearer(scene.ownerKey), 'content-type': 'text/csv' },
    payload: `email,team,parent,from,to\n${DEV},Platform,,2026-11-01,\n${WEB},Web,Platform,2026-11-01,\n`,
  });
  expect(teams.statusCode, teams.body).toBe(200);
  await scene.ingest([
    usage('model-a', '2026-11-02T09:50:00Z', { input_tokens: 1_000_000 }, false, 'd1'),
    usage('model-a', '2026-11-02T15:00:00Z', { input_tokens: 500_000 }, false, 'd2'),
    commit(SHA.A, '2T10:30', [], 20, 'd1'),
    commit(SHA.M1, '2T11:00', [sha('9'), SHA.A], 0, null),
  ]);
  await scene.ingest(
    [
      usage('model-a', '2026-11-03T09:50:00Z', { input_tokens: 250_000 }, false, 'w1'),
      usage('model-a', '2026-11-03T15:00:00Z', { input_tokens: 750_000 }, false, 'w2'),
      commit(SHA.B, '3T10:30', [], 15, 'w1', WEB),
      commit(SHA.M2, '3T11:00', [sha('8'), SHA.B], 0, null, WEB),
    ],
    scene.keys[WEB],
  );
  await scene.batch();
  await scene.deliverGithub(githubEvent({ number: 1, opened: '2T10:35', merged: '2T11:00', merge: SHA.M1, head: SHA.A, commits: 1 }), 'd1');
  await scene.deliverGithub(githubEvent({ number: 2, opened: '3T10:35', merged: '3T11:00', merge: SHA.M2, head: SHA.B, commits: 1 }), 'd2');
}, 60_000);
afterAll(async () => scene.server.close());

const days = (body: { data: Record<string, unknown>[] }) =>
  body.data.map((d) => [d['date'], d['merged'], d['lines_added'], d['cost_usd'], d['not_shipped_cost_usd']]);

describe('team= on the pull request figures', () => {
  it('the organization: both pull requests and both sessions that shipped nothing', async () => {
    const res = await analytics('');
    expect(res.statusCode, res.body).toBe(200);
    expect(days(res.json())).toEqual([
      ['2026-11-02', 1, 20, 1, 0.5],
      ['2026-11-03', 1, 15, 0.25, 0.75],
    ]);
  });

  it("a team: the pull requests holding its members' commits, and their sessions that shipped nothing", async () => {
    const web = await analytics('&team=web');
    expect(web.statusCode, web.body).toBe(200);
    expect(days(web.json())).toEqual([
      ['2026-11-02', 0, 0, 0, 0],
      ['2026-11-03', 1, 15, 0.25, 0.75],
    ]);
    expect(web.json().meta.totals).toMatchObject({ merged: 1, cost_usd: 0.25, not_shipped_cost_usd: 0.75 });
    const platform = await analytics('&team=Platform&group_by=repo');
    expect(platform.statusCode, platform.body).toBe(200);
    expect(platform.json().data.map((r: Record<string, unknown>) => [r['date'], r['group_key'], r['cost_usd']])).toEqual([
      ['2026-11-02', REPO, 1],
      ['2026-11-03', REPO, 0.25],
    ]);
  });

  it('an unknown team or team= with group_by=team is a 400; a member asking is a 403', async () => {
    expect((await analytics('&team=Nope')).statusCode).toBe(400);
    expect((await analytics('&team=Web&group_by=team')).statusCode).toBe(400);
    expect((await analytics('&team=Web', scene.memberKey)).statusCode).toBe(403);
  });

  it("the list of pull requests takes team= too: the ones holding its members' commits", async () => {
    const list = (query: string, key = scene.ownerKey) =>
      scene.server.app.inject({
        method: 'GET',
        url: `/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-03${query}`,
        headers: bearer(key),
      });
    const numbers = async (query: string) => {
      const res = await list(query);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data.map((p: { number: number }) => p.number);
    };
    expect(await numbers('')).toEqual([2, 1]);
    expect(await numbers('&team=Web')).toEqual([2]);
    expect(await numbers('&team=platform')).toEqual([2, 1]);
    expect(await numbers('&team=Web&limit=1')).toEqual([2]);
    expect((await list('&team=Nope')).statusCode).toBe(400);
    expect((await list('&team=Web', scene.memberKey)).statusCode).toBe(403);
  });
});
