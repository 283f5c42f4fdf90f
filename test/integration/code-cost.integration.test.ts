// /code's landed dollars (docs/metrics.md §8: `cost_usd` on `landed`, the cost of the sessions whose lines
// a day's landed commits hold, split as §10 splits a pull request's): for every agent session whose lines
// the day's commits hold, the session's cost times the share of its credited lines they hold.
//
// Hand-worked (org price: model-a $1 per million input tokens; qwen3-coder-plus has no price):
//   session s1 (dev, 1,000,000 in = $1.00) wrote A on 11-01 (20 lines) and B on 11-02 (30 lines): its 50
//     credited lines give 11-01 $0.40 and 11-02 $0.60.
//   session s2 (web, 250,000 in = $0.25) wrote E on 11-01 (5 lines): $0.25.
//   session s3 (dev, qwen3-coder-plus) wrote D on 11-03: no price, so 11-03 is null.
//   session s4 (dev, 100,000 in on 11-04 = $0.10) wrote G, committed today 11-05; session s5 (dev, 300,000 in
//     today = $0.30, which no batch has counted yet) wrote H, committed today: /today's landed $0.40.
// Organization: 11-01 $0.65, 11-02 $0.60, 11-03 null, 11-04 $0 (nothing landed).
// dev (a member, their own): 11-01 $0.40. team=Web (web): 11-01 $0.25, 11-02 $0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit, WireRecord } from '../../common/wire.ts';
import { usage } from '../helpers/records.ts';
import { bearer, postRecords, type TestServer, testServer } from '../helpers/server.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const NOW = new Date('2026-11-05T12:00:00Z');
const DEV = 'dev@example.com';
const WEB = 'web@example.com';
const REPO = 'github.com/acme/shop';

let server: TestServer;
let orgId: OrgId;
let ownerKey: string;
let devKey: string;
let webKey: string;

function commit(c: string, ts: string, lines: number, session: string, author: string): WireLandedCommit {
  const id = c.repeat(40);
  return {
    kind: 'commit',
    id: `${repoId(REPO)}:${id}`,
    repo_id: repoId(REPO),
    repo: REPO,
    commit: id,
    ts: Date.parse(ts),
    author,
    lines_added: lines,
    lines_deleted: 0,
    agent_lines: lines,
    by_agent: [{ agent: 'claude', model: 'model-a', lines }],
    by_session: [{ agent: 'claude', session_id: session, lines }],
  };
}

async function ingest(key: string, records: WireRecord[]) {
  const res = await postRecords(server, key, records);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().rejected, res.body).toEqual([]);
}

async function landedCost(url: string, key = ownerKey) {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const days = (body: { data: { date: string; landed: { cost_usd: number | null } }[] }) =>
  Object.fromEntries(body.data.map((d) => [d.date, d.landed.cost_usd]));

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  const org = await server.seedOrg('Acme');
  orgId = org.orgId as OrgId;
  ownerKey = org.users.owner.key;
  const dev = await server.services.accounts.createUser({ orgId, email: DEV, role: 'member' });
  devKey = (await server.services.accounts.createKey(dev)).key;
  const web = await server.services.accounts.createUser({ orgId, email: WEB, role: 'member' });
  webKey = (await server.services.accounts.createKey(web)).key;
  for (const [url, payload, type] of [
    [
      '/api/v0/organization/pricing',
      JSON.stringify({ model: 'model-a', effectiveFrom: '2026-10-01', inputMtok: 1, outputMtok: 10 }),
      'application/json',
    ],
    ['/api/v0/organization/teams', `email,team,parent,from,to\n${WEB},Web,,2026-10-01,\n`, 'text/csv'],
  ] as const) {
    const res = await server.app.inject({ method: 'PUT', url, headers: { ...bearer(ownerKey), 'content-type': type }, payload });
    expect(res.statusCode, res.body).toBe(200);
  }
  await ingest(devKey, [
    usage('model-a', '2026-11-01T09:00:00Z', { input_tokens: 1_000_000 }, false, 's1'),
    usage('qwen3-coder-plus', '2026-11-03T09:00:00Z', { input_tokens: 1000 }, false, 's3'),
    usage('model-a', '2026-11-04T09:00:00Z', { input_tokens: 100_000 }, false, 's4'),
    commit('1', '2026-11-01T10:00:00Z', 20, 's1', DEV),
    commit('2', '2026-11-02T10:00:00Z', 30, 's1', DEV),
    commit('3', '2026-11-03T10:00:00Z', 7, 's3', DEV),
    commit('4', '2026-11-05T10:00:00Z', 10, 's4', DEV),
    usage('model-a', '2026-11-05T08:00:00Z', { input_tokens: 300_000 }, false, 's5'),
    usage('model-a', '2026-11-02T09:00:00Z', { input_tokens: 50_000 }, false, 's6'),
    commit('6', '2026-11-05T10:30:00Z', 12, 's5', DEV),
  ]);
  await ingest(webKey, [
    usage('model-a', '2026-11-01T09:00:00Z', { input_tokens: 250_000 }, false, 's2'),
    commit('5', '2026-11-01T11:00:00Z', 5, 's2', WEB),
  ]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
}, 60_000);
afterAll(async () => server.close());

describe("/code's landed dollars", () => {
  it('each day: the sessions its commits hold, by their share of each session’s credited lines', async () => {
    const body = await landedCost('/api/v1/analytics/code?startDate=2026-11-01&endDate=2026-11-04');
    expect(days(body)).toEqual({ '2026-11-01': 0.65, '2026-11-02': 0.6, '2026-11-03': null, '2026-11-04': 0 });
  });

  it('a member’s own commits, and a team’s members’', async () => {
    expect(days(await landedCost('/api/v1/analytics/code?startDate=2026-11-01&endDate=2026-11-02', devKey))).toEqual({
      '2026-11-01': 0.4,
      '2026-11-02': 0.6,
    });
    expect(days(await landedCost('/api/v1/analytics/code?startDate=2026-11-01&endDate=2026-11-02&team=Web'))).toEqual({
      '2026-11-01': 0.25,
      '2026-11-02': 0,
    });
  });

  it('/today: the commits that landed today, with the dollars their sessions spent today', async () => {
    const today = await landedCost('/api/v1/analytics/today');
    expect(today.data.code.landed.cost_usd).toBe(0.4);
  });

  // Session s6 (dev, 50,000 in on 11-02 = $0.05, counted by the batch) wrote I, dated 11-04 but received
  // after the batch: until a
  // batch counts the commit, 11-04 has no commit and costs $0, as its lines are 0; then 1 commit and $0.05.
  it('counts the dollars of the commits the batch has counted, as the lines: a late commit waits for it', async () => {
    await ingest(devKey, [commit('7', '2026-11-04T10:00:00Z', 8, 's6', DEV)]);
    const day = async () => {
      const body = await landedCost('/api/v1/analytics/code?startDate=2026-11-04&endDate=2026-11-04');
      const { commits, agent_lines_added, cost_usd } = body.data[0].landed;
      return { commits, agent_lines_added, cost_usd };
    };
    expect(await day()).toEqual({ commits: 0, agent_lines_added: 0, cost_usd: 0 });
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    expect(await day()).toEqual({ commits: 1, agent_lines_added: 8, cost_usd: 0.05 });
  });
});
