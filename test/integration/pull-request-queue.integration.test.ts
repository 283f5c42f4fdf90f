// A merge queue (docs/metrics.md §10): GitHub's merge queue squashes (or rebases) several pull requests
// onto the default branch at once, so their commits share one committer second. A rebased pull request is
// linked to the commits the host rebased at the moment of its merge, up to its commit count; the commit a
// pull request before it in the queue is named by (its own squash commit) is not one of them.
//
// Hand-worked (org price: model-a $1 per million input tokens), 2026-11-02:
//   M0 09:00 main before the queue.
//   S1 10:00:00 PR #1 squashed (2 commits on its branch): 20 lines of session s1 ($1.00).
//   S2 10:00:00 PR #2 squashed on S1 (3 commits on its branch): 10 lines of session s2 ($2.00).
// PR #1 holds S1 ($1.00); PR #2 holds S2 only ($2.00), not S1 as well. The day: 30 lines, $3.00.
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
const at = (hhmm: string) => Date.parse(`2026-11-02T${hhmm}:00Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const sha = (c: string) => c.repeat(40);
const SHA = { M0: sha('1'), S1: sha('2'), S2: sha('3') };

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
  await ingest([
    usage('model-a', '2026-11-02T08:00:00Z', { input_tokens: 1_000_000 }, false, 's1'),
    usage('model-a', '2026-11-02T08:30:00Z', { input_tokens: 2_000_000 }, false, 's2'),
    commit(SHA.M0, '09:00', [], 0, null),
    commit(SHA.S1, '10:00', [SHA.M0], 20, 's1'),
    commit(SHA.S2, '10:00', [SHA.S1], 10, 's2'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log, now: new Date('2026-11-05T12:00:00Z') });
  await deliver(githubEvent({ number: 1, opened: '09:10', merged: '10:00', merge: SHA.S1, head: sha('a'), commits: 2 }), 'd1');
  await deliver(githubEvent({ number: 2, opened: '09:20', merged: '10:00', merge: SHA.S2, head: sha('b'), commits: 3 }), 'd2');
}, 60_000);
afterAll(async () => server.close());

describe('pull requests merged by one merge queue run', () => {
  it('each holds its own squash commit: no commit, line or dollar counted twice', async () => {
    const list = await get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    expect(list.data.map((p: { number: number; commits: string[]; cost_usd: number }) => [p.number, p.commits, p.cost_usd])).toEqual([
      [2, [SHA.S2], 2],
      [1, [SHA.S1], 1],
    ]);
    const day = await get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    expect(day.data[0]).toMatchObject({ merged: 2, lines_added: 30, cost_usd: 3 });
  });
});
