// The set-up the pull request tests share: one organization on a test server, its developers' keys, a
// model price, a code host's webhook secret, signed webhook deliveries and landed-commit records.
import { expect } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit, WireRecord } from '../../common/wire.ts';
import { getOk, postRecords, putOk, type TestServer, testServer } from './server.ts';

export const DEV = 'dev@example.com';
export const REPO = 'github.com/acme/shop';
export const GITHUB_SECRET = 'github-webhook-secret-0123';
/** The server's clock in every pull request scenario. */
export const NOW = '2026-11-05T12:00:00Z';

const log = createLogger({ name: 'test', level: 'silent' });
const iso = (ms: number) => new Date(ms).toISOString();
/** A commit id made of one character. */
export const sha = (c: string) => c.repeat(40);

/**
 * A landed-commit record maker for REPO whose `when` is read by `at`: all of a commit's lines by the agent
 * (model-a) in `session`, or none when the session is null.
 */
export const commitsAt =
  (at: (when: string) => number) =>
  (id: string, when: string, parents: string[], lines: number, session: string | null, author = DEV): WireLandedCommit => ({
    kind: 'commit',
    id: `${repoId(REPO)}:${id}`,
    repo_id: repoId(REPO),
    repo: REPO,
    commit: id,
    ts: at(when),
    author,
    lines_added: lines,
    lines_deleted: 0,
    agent_lines: session ? lines : 0,
    by_agent: session ? [{ agent: 'claude', model: 'model-a', lines }] : [],
    by_session: session ? [{ agent: 'claude', session_id: session, lines }] : [],
    parents,
  });

/** A GitHub `pull_request` "closed" (merged) event body for REPO whose times are read by `at`. */
export const githubMergesAt =
  (at: (when: string) => number) =>
  (pr: { number: number; opened: string; merged: string; merge: string; head: string; commits: number }) =>
    JSON.stringify({
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

export interface PullRequestScene {
  server: TestServer;
  orgId: OrgId;
  ownerKey: string;
  memberKey: string;
  /** The key of each developer named in `developers`, by email. */
  keys: Record<string, string>;
  /** Ingests `records` with `key` (DEV's by default); every record accepted. */
  ingest(records: WireRecord[], key?: string): Promise<void>;
  /** Delivers a GitHub `pull_request` event signed with the organization's secret; accepted. */
  deliverGithub(body: string, id: string): Promise<void>;
  /** Delivers a GitLab merge request event with the organization's token; accepted. */
  deliverGitlab(body: string, id: string): Promise<void>;
  /** The owner's GET of `url`: a 200's body. */
  get(url: string): Promise<any>;
  /** Runs the batch at NOW. */
  batch(): Promise<void>;
}

/**
 * A server at NOW with org "Acme", a member user with a key for each of `developers`, the code hosts'
 * secrets set and, unless `price` is false, model-a at $1 (input) and $10 (output) per million tokens
 * from 2026-11-01.
 */
export async function pullRequestScene(
  options: { developers?: string[]; github?: string; gitlab?: string; price?: boolean } = {},
): Promise<PullRequestScene> {
  const server = await testServer({ now: () => new Date(NOW) });
  const org = await server.seedOrg('Acme');
  const orgId = org.orgId as OrgId;
  const ownerKey = org.users.owner.key;
  const keys: Record<string, string> = {};
  for (const email of options.developers ?? [DEV]) {
    const user = await server.services.accounts.createUser({ orgId, email, role: 'member' });
    keys[email] = (await server.services.accounts.createKey(user)).key;
  }
  const put = (url: string, payload: object) => putOk(server, ownerKey, url, payload);
  if (options.price !== false) {
    await put('/api/v0/organization/pricing', { model: 'model-a', effectiveFrom: '2026-11-01', inputMtok: 1, outputMtok: 10 });
  }
  if (options.github) await put('/api/v0/organization/codehosts/github', { secret: options.github });
  if (options.gitlab) await put('/api/v0/organization/codehosts/gitlab', { secret: options.gitlab });
  const deliver = async (host: 'github' | 'gitlab', headers: Record<string, string>, body: string) => {
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/v1/hooks/${host}/${orgId}`,
      headers: { 'content-type': 'application/json', ...headers },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(202);
  };
  return {
    server,
    orgId,
    ownerKey,
    memberKey: org.users.member.key,
    keys,
    async ingest(records, key = keys[DEV]!) {
      const res = await postRecords(server, key, records);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().rejected, res.body).toEqual([]);
    },
    deliverGithub: (body, id) =>
      deliver(
        'github',
        {
          'x-github-event': 'pull_request',
          'x-github-delivery': id,
          'x-hub-signature-256': githubSignature(options.github ?? '', body),
        },
        body,
      ),
    deliverGitlab: (body, id) =>
      deliver(
        'gitlab',
        { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': id, 'x-gitlab-token': options.gitlab ?? '' },
        body,
      ),
    get: (url) => getOk(server, ownerKey, url),
    async batch() {
      await server.services.runBatch({ trigger: 'cli', log, now: new Date(NOW) });
    },
  };
}
