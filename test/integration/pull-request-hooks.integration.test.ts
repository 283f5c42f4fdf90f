// The code hosts' webhooks (docs/metrics.md §10): GitHub's and GitLab's documented payloads
// (test/fixtures/codehost/SOURCE.md), signed as each host signs them, are taken once; a forged, unsigned,
// replayed or other organization's delivery changes nothing; only the owner sets a secret; and no title,
// body or branch name reaches the database.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'codehost');
const GITHUB_SECRET = 'gh-webhook-secret-0123456789';
const GITLAB_TOKEN = 'gl-webhook-token-0123456789';
const MERGE_SHA = 'a'.repeat(40);

/** GitHub's closed event, as the pull request it describes was merged (the fields a merge sets). */
function githubMerged(): Record<string, unknown> {
  const event = JSON.parse(readFileSync(join(FIXTURES, 'github-pull_request-closed.json'), 'utf8')) as {
    pull_request: Record<string, unknown>;
  };
  Object.assign(event.pull_request, { merged: true, merged_at: '2019-05-15T15:21:18Z', merge_commit_sha: MERGE_SHA });
  return event;
}

function gitlabMerged(): Record<string, unknown> {
  const event = JSON.parse(readFileSync(join(FIXTURES, 'gitlab-merge_request.json'), 'utf8')) as {
    object_attributes: Record<string, unknown>;
  };
  Object.assign(event.object_attributes, {
    state: 'merged',
    action: 'merge',
    updated_at: '2013-12-04T09:00:00Z',
    merge_commit_sha: MERGE_SHA,
    last_commit: { ...(event.object_attributes['last_commit'] as object), author: { name: 'Dev', email: 'Dev@Example.com' } },
  });
  return event;
}

let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const setSecret = (key: string, host: string, secret: string) =>
  server.app.inject({ method: 'PUT', url: `/api/v0/organization/codehosts/${host}`, headers: bearer(key), payload: { secret } });

function deliverGithub(orgId: string, body: string, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/github/${orgId}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-hub-signature-256': githubSignature(GITHUB_SECRET, body),
      ...headers,
    },
    payload: body,
  });
}

function deliverGitlab(orgId: string, body: string, headers: Record<string, string> = {}) {
  return server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/gitlab/${orgId}`,
    headers: {
      'content-type': 'application/json',
      'x-gitlab-event': 'Merge Request Hook',
      'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e',
      'x-gitlab-token': GITLAB_TOKEN,
      ...headers,
    },
    payload: body,
  });
}

const pullRequests = () => server.db.all('SELECT * FROM pull_requests ORDER BY org_id, repo, number');

beforeAll(async () => {
  server = await testServer();
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(async () => server.close());

describe('code host secrets', () => {
  it('only an owner sets or removes one; owners and managers list them, never the secret', async () => {
    for (const role of ['manager', 'member', 'guest'] as const)
      expect((await setSecret(acme.users[role].key, 'github', GITHUB_SECRET)).statusCode).toBe(403);
    const set = await setSecret(acme.users.owner.key, 'github', GITHUB_SECRET);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({
      host: 'github',
      setBy: 'owner@acme.example.com',
      webhookPath: `/api/v1/hooks/github/${acme.orgId}`,
    });
    expect((await setSecret(acme.users.owner.key, 'gitlab', GITLAB_TOKEN)).statusCode).toBe(200);
    const list = await server.app.inject({ method: 'GET', url: '/api/v0/organization/codehosts', headers: bearer(acme.users.manager.key) });
    expect(list.json().codehosts.map((h: { host: string }) => h.host)).toEqual(['github', 'gitlab']);
    expect(list.body).not.toContain(GITHUB_SECRET);
    expect(list.body).not.toContain(GITLAB_TOKEN);
    const member = await server.app.inject({
      method: 'GET',
      url: '/api/v0/organization/codehosts',
      headers: bearer(acme.users.member.key),
    });
    expect(member.statusCode).toBe(403);
    // Neither secret is stored as given.
    const stored = JSON.stringify(await server.db.all('SELECT * FROM codehost_secrets'));
    expect(stored).not.toContain(GITHUB_SECRET);
    expect(stored).not.toContain(GITLAB_TOKEN);
  });

  it('refuses a short secret and an unknown host with 400', async () => {
    expect((await setSecret(acme.users.owner.key, 'github', 'short')).statusCode).toBe(400);
    expect((await setSecret(acme.users.owner.key, 'bitbucket', GITHUB_SECRET)).statusCode).toBe(400);
  });
});

describe("GitHub's webhook", () => {
  const body = JSON.stringify(githubMerged());

  it('refuses an unsigned, forged or wrongly keyed delivery with 401 and stores nothing', async () => {
    const unsigned = await deliverGithub(acme.orgId, body, { 'x-hub-signature-256': '' });
    expect(unsigned.statusCode).toBe(401);
    const forged = await deliverGithub(acme.orgId, body, { 'x-hub-signature-256': githubSignature('another-secret-0123456789', body) });
    expect(forged.statusCode).toBe(401);
    // The body changed after signing: the signature no longer holds.
    const tampered = await deliverGithub(acme.orgId, body.replace('"number":2', '"number":3'), {
      'x-hub-signature-256': githubSignature(GITHUB_SECRET, body),
    });
    expect(tampered.statusCode).toBe(401);
    // Another organization set no GitHub secret: its URL refuses the same signed delivery, as an unknown one does.
    expect((await deliverGithub(other.orgId, body)).statusCode).toBe(401);
    expect((await deliverGithub('org_0000000000000000', body)).statusCode).toBe(401);
    expect(await pullRequests()).toEqual([]);
  });

  it('takes a signed pull_request delivery once, keeping only ids, numbers, times, the address and commit ids', async () => {
    const first = await deliverGithub(acme.orgId, body);
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toEqual({ status: 'accepted', detail: 'github.com/codertocat/hello-world #2 (merged)' });
    const replay = await deliverGithub(acme.orgId, body);
    expect(replay.statusCode).toBe(200);
    expect(replay.json().status).toBe('duplicate');
    const rows = await pullRequests();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      org_id: acme.orgId,
      repo: 'github.com/codertocat/hello-world',
      number: 2,
      host: 'github',
      host_id: '279147437',
      author: '21031067+codertocat@users.noreply.github.com',
      state: 'merged',
      merge_commit_id: MERGE_SHA,
      head_commit_id: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      commit_count: 1,
    });
    expect(String(rows[0]!['opened_at'])).toMatch(/^2019-05-15T15:20:33/);
    expect(String(rows[0]!['merged_at'])).toMatch(/^2019-05-15T15:21:18/);
  });

  it('answers a ping and other events 202 without storing them; a delivery older than the stored one changes nothing', async () => {
    const ping = await deliverGithub(acme.orgId, '{"zen":"Keep it logically awesome."}', {
      'x-github-event': 'ping',
      'x-github-delivery': 'ping-1',
      'x-hub-signature-256': githubSignature(GITHUB_SECRET, '{"zen":"Keep it logically awesome."}'),
    });
    expect(ping.statusCode).toBe(202);
    expect(ping.json().status).toBe('ignored');
    const stale = githubMerged();
    Object.assign(stale['pull_request'] as object, { state: 'open', merged: false, merged_at: null, updated_at: '2019-05-15T15:20:40Z' });
    const staleBody = JSON.stringify(stale);
    const late = await deliverGithub(acme.orgId, staleBody, {
      'x-github-delivery': 'late-1',
      'x-hub-signature-256': githubSignature(GITHUB_SECRET, staleBody),
    });
    expect(late.statusCode).toBe(202);
    expect((await pullRequests())[0]).toMatchObject({ state: 'merged' });
  });

  it('refuses a delivery that is not JSON with 415, or has no delivery id with 400', async () => {
    const text = await server.app.inject({
      method: 'POST',
      url: `/api/v1/hooks/github/${acme.orgId}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-hub-signature-256': githubSignature(GITHUB_SECRET, 'payload=x') },
      payload: 'payload=x',
    });
    expect(text.statusCode).toBe(415);
    expect((await deliverGithub(acme.orgId, body, { 'x-github-delivery': '' })).statusCode).toBe(400);
  });

  it('drops a signed delivery whose count or times cannot be kept (202 with the reason), never a 500', async () => {
    const before = await pullRequests();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['too-many-commits', { number: 2, commits: 3_000_000_000 }, /pull_request\.commits/],
      ['year-275760', { number: 3, created_at: '+275760-09-13T00:00:00Z' }, /pull_request\.created_at/],
    ];
    for (const [id, change, reason] of cases) {
      const event = githubMerged();
      Object.assign(event['pull_request'] as object, change);
      const odd = JSON.stringify(event);
      const res = await deliverGithub(acme.orgId, odd, {
        'x-github-delivery': id,
        'x-hub-signature-256': githubSignature(GITHUB_SECRET, odd),
      });
      expect(res.statusCode, `${id}: ${res.body}`).toBe(202);
      expect(res.json()).toMatchObject({ status: 'ignored', detail: expect.stringMatching(reason) });
    }
    expect(await pullRequests()).toEqual(before);
  });
});

describe("GitLab's webhook", () => {
  const body = JSON.stringify(gitlabMerged());

  it('refuses a wrong or missing token with 401', async () => {
    expect((await deliverGitlab(acme.orgId, body, { 'x-gitlab-token': 'not-the-token-0123456789' })).statusCode).toBe(401);
    expect((await deliverGitlab(acme.orgId, body, { 'x-gitlab-token': '' })).statusCode).toBe(401);
    expect((await deliverGitlab(other.orgId, body)).statusCode).toBe(401);
  });

  it('takes a merge request event once, dated by its merge event', async () => {
    const first = await deliverGitlab(acme.orgId, body);
    expect(first.statusCode, first.body).toBe(202);
    expect((await deliverGitlab(acme.orgId, body)).json().status).toBe('duplicate');
    const row = (await pullRequests()).find((r) => r['host'] === 'gitlab');
    expect(row).toMatchObject({
      repo: 'example.com/gitlabhq/gitlab-test',
      number: 1,
      host_id: '99',
      author: 'dev@example.com',
      state: 'merged',
      merge_commit_id: MERGE_SHA,
      head_commit_id: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      commit_count: null,
    });
    expect(String(row!['merged_at'])).toMatch(/^2013-12-04T09:00:00/);
  });
});

describe('a pull request merged into another branch than the default (stacked)', () => {
  it('is closed, not merged: its commits reach the default branch with the pull request they merged into', async () => {
    const org = await server.seedOrg('Stacked');
    expect((await setSecret(org.users.owner.key, 'github', GITHUB_SECRET)).statusCode).toBe(200);
    expect((await setSecret(org.users.owner.key, 'gitlab', GITLAB_TOKEN)).statusCode).toBe(200);
    const stacked = githubMerged() as { pull_request: { base: { ref: string } } };
    stacked.pull_request.base.ref = 'feature-a';
    const githubBody = JSON.stringify(stacked);
    const github = await deliverGithub(org.orgId, githubBody, {
      'x-github-delivery': 'stacked-1',
      'x-hub-signature-256': githubSignature(GITHUB_SECRET, githubBody),
    });
    expect(github.json()).toEqual({ status: 'accepted', detail: 'github.com/codertocat/hello-world #2 (closed)' });
    const gitlabEvent = gitlabMerged() as { object_attributes: Record<string, unknown> };
    gitlabEvent.object_attributes['target_branch'] = 'feature-a';
    const gitlab = await deliverGitlab(org.orgId, JSON.stringify(gitlabEvent), { 'x-gitlab-event-uuid': 'stacked-2' });
    expect(gitlab.statusCode, gitlab.body).toBe(202);
    const rows = (await pullRequests()).filter((r) => r['org_id'] === org.orgId);
    expect(rows.map((r) => [r['host'], r['state'], r['merged_at'], r['merge_commit_id']])).toEqual([
      ['gitlab', 'closed', null, null],
      ['github', 'closed', null, null],
    ]);
  });
});

describe('privacy', () => {
  it('no title, body, branch name or secret is anywhere in the database', async () => {
    const tables = await server.db.all<{ table_name: string }>("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'");
    const secrets = [
      'Update the README with new information.',
      'This is a pretty simple change',
      'Codertocat:changes',
      'MS-Viewport',
      'ms-viewport',
      'fixed readme',
      'Update file README.md',
      GITHUB_SECRET,
      GITLAB_TOKEN,
    ];
    for (const { table_name } of tables) {
      const text = JSON.stringify(await server.db.all(`SELECT * FROM "${table_name}"`));
      for (const s of secrets) expect(text, `${s} in ${table_name}`).not.toContain(s);
    }
  });
});
