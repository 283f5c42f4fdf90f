// The code hosts' webhooks (docs/metrics.md §10): GitHub's and GitLab's documented payloads
// (test/fixtures/codehost/SOURCE.md), signed as each host signs them, are taken once; a forged, unsigned,
// replayed or other organization's delivery changes nothing; only the owner sets a secret; and no title,
// body or branch name reaches the database.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import { migrate } from '../../common/db/duckdb.ts';
import { repoNameProblem } from '../../common/repo-id.ts';
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

describe("a delivery's repository", () => {
  /** A signed GitHub delivery of pull request #1 of `url`, merged 2026-11-20, and GitLab's of #1 of `url`. */
  const deliver = (orgId: string, host: 'github' | 'gitlab', url: string, id: string) => {
    if (host === 'gitlab') {
      const event = gitlabMerged() as { project: Record<string, unknown>; object_attributes: Record<string, unknown> };
      Object.assign(event.project, { web_url: url });
      Object.assign(event.object_attributes, { created_at: '2026-11-20T08:00:00Z', updated_at: '2026-11-20T09:00:00Z' });
      return deliverGitlab(orgId, JSON.stringify(event), { 'x-gitlab-event-uuid': id });
    }
    const event = githubMerged() as { repository: Record<string, unknown>; pull_request: Record<string, unknown> };
    Object.assign(event.repository, { html_url: url });
    Object.assign(event.pull_request, {
      number: 1,
      created_at: '2026-11-20T08:00:00Z',
      updated_at: '2026-11-20T09:00:00Z',
      merged_at: '2026-11-20T09:00:00Z',
    });
    const text = JSON.stringify(event);
    return deliverGithub(orgId, text, { 'x-github-delivery': id, 'x-hub-signature-256': githubSignature(GITHUB_SECRET, text) });
  };

  const seedHosts = async (name: string) => {
    const org = await server.seedOrg(name);
    expect((await setSecret(org.users.owner.key, 'github', GITHUB_SECRET)).statusCode).toBe(200);
    expect((await setSecret(org.users.owner.key, 'gitlab', GITLAB_TOKEN)).statusCode).toBe(200);
    return org;
  };

  it('is refused as landed commits refuse it: a local path, a credential, a query or too long a name is ignored', async () => {
    const org = await seedHosts('Repo names');
    const refused = [
      'file:///etc/passwd',
      'file://localhost/etc/passwd',
      'https://tok:secret@github.com/acme/shop',
      'ssh://git@github.com/acme/shop',
      'https://github.com/acme/shop?tab=readme',
      `https://github.com/acme/${'r'.repeat(500)}`,
    ];
    for (const [i, url] of refused.entries())
      for (const host of ['github', 'gitlab'] as const) {
        const res = await deliver(org.orgId, host, url, `refused-${host}-${i}`);
        expect(res.statusCode, `${host} ${JSON.stringify(url)}: ${res.body}`).toBe(202);
        expect(res.json(), `${host} ${JSON.stringify(url)}`).toMatchObject({
          status: 'ignored',
          detail: expect.stringMatching(/repository/),
        });
      }
    expect((await pullRequests()).filter((r) => r['org_id'] === org.orgId)).toEqual([]);
    // The delivery was taken (as any unreadable one): its replay is a duplicate.
    expect((await deliver(org.orgId, 'github', refused[0]!, 'refused-github-0')).json().status).toBe('duplicate');
  });

  it('pages through the pull request list for every name a delivery is accepted with', async () => {
    const org = await seedHosts('Repo paging');
    // Every ASCII character (the URL's parser drops or escapes control characters), some beyond ASCII,
    // and the longest name kept (512 characters).
    const urls = [
      ...Array.from({ length: 0x80 }, (_, i) => `https://github.com/acme/r${String.fromCharCode(i)}x`),
      'https://github.com/acme/caf\u00e9',
      'https://github.com/acme/\u4e2d\u6587',
      'https://github.com/acme/\u{1f680}',
      'https://gitlab.example.com/group/sub/a%20b',
      `https://github.com/acme/${'r'.repeat(512 - 'github.com/acme/'.length)}`,
    ];
    // Names that differ only in case, or in a query or fragment, are one repository.
    const accepted = new Set<string>();
    for (const [i, url] of urls.entries()) {
      const res = await deliver(org.orgId, i % 2 ? 'gitlab' : 'github', url, `paging-${i}`);
      expect(res.statusCode, `${JSON.stringify(url)}: ${res.body}`).toBe(202);
      if (res.json().status === 'accepted') accepted.add(res.json().detail.replace(/ #1 \(merged\)$/, ''));
      else expect(res.json().detail, JSON.stringify(url)).toMatch(/repository/);
    }
    const stored = (await pullRequests()).filter((r) => r['org_id'] === org.orgId).map((r) => String(r['repo']));
    expect([...stored].sort()).toEqual([...accepted].sort());
    expect(stored).toEqual(
      expect.arrayContaining(['github.com/acme/r+x', 'github.com/acme/caf\u00e9', 'gitlab.example.com/group/sub/a%20b']),
    );
    expect(stored.some((name) => name.length === 512)).toBe(true);
    expect(stored.filter((name) => repoNameProblem(name) !== undefined)).toEqual([]);
    // All merged at one time as #1: the pages follow one another by the repository alone.
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page <= stored.length; page++) {
      const query = new URLSearchParams({ startDate: '2026-11-20', endDate: '2026-11-20', limit: '2', ...(cursor ? { cursor } : {}) });
      const res = await server.app.inject({
        method: 'GET',
        url: `/api/v0/code/pull_requests?${query}`,
        headers: bearer(org.users.owner.key),
      });
      expect(res.statusCode, `page ${page} after ${cursor}: ${res.body}`).toBe(200);
      const answer = res.json() as { data: { repo: string }[]; meta: { next_cursor: string | null } };
      seen.push(...answer.data.map((p) => p.repo));
      cursor = answer.meta.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual([...stored].sort().reverse());
  });

  it('migration 113 deletes the pull requests stored before with a name the rules refuse, and only those', async () => {
    const org = await seedHosts('Repo migration');
    expect((await deliver(org.orgId, 'github', 'https://github.com/acme/kept', 'migration-1')).json().status).toBe('accepted');
    const kept = await pullRequests();
    // As the webhooks stored them before: the path of a file: URL, and a name too long for the cursor.
    for (const repo of ['/etc/passwd', `github.com/acme/${'r'.repeat(600)}`])
      await server.db.run(
        `INSERT INTO pull_requests (org_id, repo, number, host, host_id, state, opened_at, merged_at, updated_at)
         VALUES ($org, $repo, 1, 'github', '1', 'merged', TIMESTAMP '2026-11-20 08:00', TIMESTAMP '2026-11-20 09:00', TIMESTAMP '2026-11-20 09:00')`,
        { org: org.orgId, repo },
      );
    await server.db.run('DELETE FROM schema_migrations WHERE version = 113');
    expect(await migrate(server.db)).toEqual(['113_drop_unkept_pull_request_repos.ts']);
    expect(await pullRequests()).toEqual(kept);
  });
});
