// Pull requests merged today (docs/metrics.md §10): the list shows them (today included), each with the
// cost of the sessions whose lines it holds. A session's dollars of today are no batch's yet: the live
// figures (the batch's own steps over what has arrived, api/today/) have them.
//
// Hand-worked (org price: model-a $1 per million input tokens), today 2026-11-05 (the clock: 12:00):
//   session s1 spent 300,000 tokens yesterday ($0.30) and 500,000 today 08:00 ($0.50), and wrote A (20
//     lines), merged as PR #1 by M at 10:00: $0.80.
//   session s2 spent 1,000,000 tokens today 09:00 ($1.00) and wrote B (10 lines), PR #2 by N at 11:00: $1.00.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import { INGEST_PATH, type WireLandedCommit, type WireRecord } from '../../common/wire.ts';
import { usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DEV = 'dev@example.com';
const REPO = 'github.com/acme/shop';
const SECRET = 'github-webhook-secret-0123';
const at = (hhmm: string) => Date.parse(`2026-11-05T${hhmm}:00Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const sha = (c: string) => c.repeat(40);
const SHA = { A: sha('1'), M: sha('2'), B: sha('3'), N: sha('4') };

let server: TestServer;
let orgId: OrgId;
let ownerKey: string;
let devKey: string;

function commit(id: string, when: string, parents: string[], lines: number, session: string | null): WireLandedCommit {
  return {
    kind: 'commit',
    id: `${repoId(REPO)}:${id}`,
    repo_id: repoId(REPO),
    repo: REPO,
    commit: id,
    ts: at(when),
    author: DEV,
    lines_added: lines,
    lines_deleted: 0,
    agent_lines: session ? lines : 0,
    by_agent: session ? [{ agent: 'claude', model: 'model-a', lines }] : [],
    by_session: session ? [{ agent: 'claude', session_id: session, lines }] : [],
    parents,
  };
}

function githubEvent(pr: { number: number; opened: string; merged: string; merge: string; head: string; commits: number }) {
  return JSON.stringify({
    action: 'closed',
    number: pr.number,
    pull_request: {
      id: 1000 + pr.number,
      number: pr.number,
      user: { login: 'dev', id: 42 },
      created_at: iso(at(pr.opened)),
      updated_at: iso(at(pr.merged)),
      merged: true,
      merged_at: iso(at(pr.merged)),
      state: 'closed',
      merge_commit_sha: pr.merge,
      head: { sha: pr.head },
      base: { ref: 'main' },
      commits: pr.commits,
    },
    repository: { html_url: `https://${REPO}`, default_branch: 'main' },
  });
}

async function deliver(body: string, id: string) {
  const res = await server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/github/${orgId}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': id,
      'x-hub-signature-256': githubSignature(SECRET, body),
    },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(202);
}

async function ingest(records: WireRecord[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(devKey), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().rejected, res.body).toEqual([]);
}

const get = async (url: string) => {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(ownerKey) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  server = await testServer({ now: () => new Date('2026-11-05T12:00:00Z') });
  const org = await server.seedOrg('Acme');
  orgId = org.orgId as OrgId;
  ownerKey = org.users.owner.key;
  const dev = await server.services.accounts.createUser({ orgId, email: DEV, role: 'member' });
  devKey = (await server.services.accounts.createKey(dev)).key;
  const price = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/pricing',
    headers: bearer(ownerKey),
    payload: { model: 'model-a', effectiveFrom: '2026-11-01', inputMtok: 1, outputMtok: 10 },
  });
  expect(price.statusCode, price.body).toBe(200);
  const set = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/codehosts/github',
    headers: bearer(ownerKey),
    payload: { secret: SECRET },
  });
  expect(set.statusCode, set.body).toBe(200);
  await ingest([usage('model-a', '2026-11-04T15:00:00Z', { input_tokens: 300_000 }, false, 's1')]);
  await server.services.runBatch({ trigger: 'cli', log, now: new Date('2026-11-05T12:00:00Z') });
  await ingest([
    usage('model-a', '2026-11-05T08:00:00Z', { input_tokens: 500_000 }, false, 's1'),
    usage('model-a', '2026-11-05T09:00:00Z', { input_tokens: 1_000_000 }, false, 's2'),
    commit(SHA.A, '09:30', [], 20, 's1'),
    commit(SHA.M, '10:00', [sha('9'), SHA.A], 0, null),
    commit(SHA.B, '10:30', [], 10, 's2'),
    commit(SHA.N, '11:00', [sha('8'), SHA.B], 0, null),
  ]);
  await deliver(githubEvent({ number: 1, opened: '09:35', merged: '10:00', merge: SHA.M, head: SHA.A, commits: 1 }), 'd1');
  await deliver(githubEvent({ number: 2, opened: '10:35', merged: '11:00', merge: SHA.N, head: SHA.B, commits: 1 }), 'd2');
}, 60_000);
afterAll(async () => server.close());

describe('a pull request merged today', () => {
  it('costs what its sessions spent, today included', async () => {
    const list = await get('/api/v0/code/pull_requests?startDate=2026-11-05&endDate=2026-11-05');
    expect(list.data.map((p: { number: number; cost_usd: number }) => [p.number, p.cost_usd])).toEqual([
      [2, 1],
      [1, 0.8],
    ]);
  });
});
