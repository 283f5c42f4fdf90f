// Pull requests end to end (docs/metrics.md §10): agent sessions write code in a real clone of a bare
// remote (named by its GitHub URL), the collector's code side credits the landed commits, the server
// takes them and the sessions' usage, and GitHub's own pull_request payload (test/fixtures/codehost),
// signed as GitHub signs it, names the merge, squash and rebase commits the test made. Each pull request
// then shows its commits, agent lines, cost and time to merge, equal to the hand-worked figures below; a
// forged or replayed delivery changes nothing; a commit that arrives after its webhook is linked then.
//
// Hand-worked (org prices: model-a $1 / $10 per million input / output tokens; model-b $1 / $0):
// - session s1 (claude, model-a, 1,000,000 in + 100,000 out = $2.00) writes cart.ts (6 lines) on branch
//   a, merged by a merge commit (PR #1, opened 10:30, merged 13:00: 2.5 h), and pay.ts (4 lines) on
//   branch b with notes.md (2 lines of the person's), squash-merged (PR #2, opened 14:30, merged 17:00: 2.5 h).
//   s1's credited lines: 6 + 4 = 10: PR #1 costs 2.00 × 6/10 = $1.20, PR #2 2.00 × 4/10 = $0.80.
// - session s2 (codex, model-b, 2,000,000 in = $2.00) writes ship.ts (5 lines), rebase-merged (PR #3,
//   opened 18:30, merged 20:00: 1.5 h): $2.00.
// - session s3 (claude, model-a, 500,000 in = $0.50) writes nothing that lands: spent, not shipped.
// Day 2026-11-02: merged 3, all with agent lines; lines 6 + 6 + 5 = 17, agent lines 15 (share 0.8824);
// median hours 2.5; cost $4.00, per merged pull request $1.3333; not shipped $0.50.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import { EditRepos } from '../../collector/code/edit-repo.ts';
import { type CodeTouch, CodeTracker } from '../../collector/code/tracker.ts';
import type { OrgId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { INGEST_PATH, type WireLandedCommit, type WireRecord } from '../../common/wire.ts';
import { usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { callEditsOf } from '../helpers/writes.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const DEV = 'dev@example.com';
const URL_ = 'https://github.com/acme/shop.git';
const SECRET = 'github-webhook-secret-0123';
const at = (hhmm: string) => Date.parse(`2026-11-02T${hhmm}:00Z`);
const iso = (ms: number) => new Date(ms).toISOString();

let server: TestServer;
let orgId: OrgId;
let devKey: string;
let ownerKey: string;
let commits: WireLandedCommit[] = [];
const shas: Record<string, string> = {};

const git = (home: string, cwd: string, args: string[], when: number, email = DEV) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH']!,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: email,
      GIT_AUTHOR_DATE: iso(when),
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: email,
      GIT_COMMITTER_DATE: iso(when),
    },
  }).trim();

const code = (tag: string, n: number) => `${Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i} * 3;`).join('\n')}\n`;

function write(repos: EditRepos, path: string, content: string, when: number, cwd: string, session: string): CodeTouch {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  const edits = callEditsOf('claude', 'Write', { file_path: path, content }, { type: 'create' }, repos, cwd);
  return { agent: session === 's2' ? 'codex' : 'claude', sessionId: session, ts: when, cwd, edits: edits.files };
}

/** The laptop's day: three branches merged three ways, pushed to the bare remote; the landed records. */
async function laptopDay(): Promise<WireLandedCommit[]> {
  const dir = tempDir();
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const origin = join(dir, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const clone = join(home, 'src', 'shop');
  git(home, dir, ['clone', '--quiet', origin, clone], at('08:00'));
  // The remote as GitHub names it; pushes reach the bare folder.
  git(home, clone, ['config', 'remote.origin.url', URL_], at('08:00'));
  git(home, clone, ['config', `url.${origin}.insteadOf`, URL_], at('08:00'));
  git(home, clone, ['config', 'user.email', DEV], at('08:00'));
  git(home, clone, ['config', 'user.name', 'Dev'], at('08:00'));
  writeFileSync(join(clone, 'README.md'), '# Shop\n');
  git(home, clone, ['add', '.'], at('08:00'));
  git(home, clone, ['commit', '--quiet', '-m', 'seed'], at('08:00'));
  git(home, clone, ['push', '--quiet', 'origin', 'HEAD:main'], at('08:00'));
  git(home, clone, ['fetch', '--quiet', 'origin'], at('08:00'));
  git(home, clone, ['remote', 'set-head', 'origin', 'main'], at('08:00'));

  const repos = new EditRepos();
  const tracker = new CodeTracker(join(home, '.agentmeter'), log);
  tracker.record([{ agent: 'claude', sessionId: 's1', ts: at('09:00'), cwd: clone }], []);

  // PR #1: branch a, one commit by the agent's lines, merged with a merge commit.
  git(home, clone, ['checkout', '--quiet', '-b', 'a'], at('10:00'));
  tracker.record([write(repos, join(clone, 'cart.ts'), code('cart', 6), at('10:00'), clone, 's1')], []);
  git(home, clone, ['add', '-A'], at('10:15'));
  git(home, clone, ['commit', '--quiet', '-m', 'cart'], at('10:15'));
  shas['a1'] = git(home, clone, ['rev-parse', 'HEAD'], at('10:15'));
  git(home, clone, ['checkout', '--quiet', 'main'], at('13:00'));
  git(home, clone, ['merge', '--quiet', '--no-ff', '-m', 'Merge pull request #1', 'a'], at('13:00'));
  shas['m1'] = git(home, clone, ['rev-parse', 'HEAD'], at('13:00'));
  git(home, clone, ['push', '--quiet', 'origin', 'main'], at('13:00'));

  // PR #2: branch b, the agent's pay.ts and the person's notes, squash-merged into one commit.
  git(home, clone, ['checkout', '--quiet', '-b', 'b'], at('14:00'));
  tracker.record([write(repos, join(clone, 'pay.ts'), code('pay', 4), at('14:00'), clone, 's1')], []);
  git(home, clone, ['add', '-A'], at('14:10'));
  git(home, clone, ['commit', '--quiet', '-m', 'pay'], at('14:10'));
  writeFileSync(join(clone, 'notes.md'), 'Pay with care.\nReviewed by Dev.\n');
  git(home, clone, ['add', '-A'], at('14:20'));
  git(home, clone, ['commit', '--quiet', '-m', 'notes'], at('14:20'));
  shas['bHead'] = git(home, clone, ['rev-parse', 'HEAD'], at('14:20'));
  git(home, clone, ['checkout', '--quiet', 'main'], at('17:00'));
  git(home, clone, ['merge', '--quiet', '--squash', 'b'], at('17:00'));
  git(home, clone, ['commit', '--quiet', '-m', 'Pay (#2)'], at('17:00'));
  shas['s2'] = git(home, clone, ['rev-parse', 'HEAD'], at('17:00'));
  git(home, clone, ['push', '--quiet', 'origin', 'main'], at('17:00'));

  // PR #3: branch c by the Codex session, rebased onto main at the merge (the host's committer time).
  git(home, clone, ['checkout', '--quiet', '-b', 'c', shas['m1']], at('18:00'));
  tracker.record([write(repos, join(clone, 'ship.ts'), code('ship', 5), at('18:00'), clone, 's2')], []);
  git(home, clone, ['add', '-A'], at('18:10'));
  git(home, clone, ['commit', '--quiet', '-m', 'ship'], at('18:10'));
  shas['cHead'] = git(home, clone, ['rev-parse', 'HEAD'], at('18:10'));
  git(home, clone, ['rebase', '--quiet', 'main'], at('20:00'));
  shas['r1'] = git(home, clone, ['rev-parse', 'HEAD'], at('20:00'));
  git(home, clone, ['checkout', '--quiet', 'main'], at('20:00'));
  git(home, clone, ['merge', '--quiet', '--ff-only', 'c'], at('20:00'));
  git(home, clone, ['push', '--quiet', 'origin', 'main'], at('20:00'));

  // Session s3 writes a file that never lands.
  tracker.record([write(repos, join(home, 'scratch', 'junk.ts'), code('junk', 3), at('21:00'), join(home, 'scratch'), 's3')], []);
  git(home, clone, ['fetch', '--quiet', 'origin'], at('21:00'));
  await tracker.scan(at('21:30'));
  return tracker.pending();
}

const GITLAB_URL = 'https://gitlab.com/acme/api.git';
const GITLAB_TOKEN = 'gitlab-webhook-token-0123';
const at3 = (hhmm: string) => Date.parse(`2026-11-03T${hhmm}:00Z`);

/**
 * The next day on GitLab: session s4 (claude, model-a, 1,000,000 in = $1.00) writes api.ts (4 lines) on a
 * branch, the merge request (!7, opened 09:30) is rebased onto main at 11:00 and fast-forwarded at 11:30
 * (opened 09:30, merged 11:30: 2.0 h). Hand-worked: !7 holds 4 agent lines of 4, costs $1.00.
 */
async function gitlabDay(): Promise<{ records: WireLandedCommit[]; head: string }> {
  const dir = tempDir();
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const origin = join(dir, 'api.git');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  const clone = join(home, 'src', 'api');
  git(home, dir, ['clone', '--quiet', origin, clone], at3('08:00'));
  git(home, clone, ['config', 'remote.origin.url', GITLAB_URL], at3('08:00'));
  git(home, clone, ['config', `url.${origin}.insteadOf`, GITLAB_URL], at3('08:00'));
  git(home, clone, ['config', 'user.email', DEV], at3('08:00'));
  git(home, clone, ['config', 'user.name', 'Dev'], at3('08:00'));
  writeFileSync(join(clone, 'README.md'), '# API\n');
  git(home, clone, ['add', '.'], at3('08:00'));
  git(home, clone, ['commit', '--quiet', '-m', 'seed'], at3('08:00'));
  git(home, clone, ['push', '--quiet', 'origin', 'HEAD:main'], at3('08:00'));
  git(home, clone, ['fetch', '--quiet', 'origin'], at3('08:00'));
  git(home, clone, ['remote', 'set-head', 'origin', 'main'], at3('08:00'));
  const repos = new EditRepos();
  const tracker = new CodeTracker(join(home, '.agentmeter'), log);
  tracker.record([{ agent: 'claude', sessionId: 's4', ts: at3('09:00'), cwd: clone }], []);
  git(home, clone, ['checkout', '--quiet', '-b', 'd'], at3('09:00'));
  tracker.record([write(repos, join(clone, 'api.ts'), code('api', 4), at3('09:00'), clone, 's4')], []);
  git(home, clone, ['add', '-A'], at3('09:10'));
  git(home, clone, ['commit', '--quiet', '-m', 'api'], at3('09:10'));
  // Someone else's change (not this user's: no record of it) lands on main first; the merge request is
  // rebased onto it, then fast-forwarded.
  git(home, clone, ['checkout', '--quiet', 'main'], at3('10:00'));
  writeFileSync(join(clone, 'CHANGES.md'), 'main moved\n');
  git(home, clone, ['add', '-A'], at3('10:00'));
  git(home, clone, ['commit', '--quiet', '-m', 'main moved'], at3('10:00'), 'other@example.com');
  git(home, clone, ['push', '--quiet', 'origin', 'main'], at3('10:00'));
  git(home, clone, ['checkout', '--quiet', 'd'], at3('11:00'));
  git(home, clone, ['rebase', '--quiet', 'main'], at3('11:00'));
  const head = git(home, clone, ['rev-parse', 'HEAD'], at3('11:00'));
  git(home, clone, ['checkout', '--quiet', 'main'], at3('11:30'));
  git(home, clone, ['merge', '--quiet', '--ff-only', 'd'], at3('11:30'));
  git(home, clone, ['push', '--quiet', 'origin', 'main'], at3('11:30'));
  await tracker.scan(at3('12:00'));
  return { records: tracker.pending(), head };
}

/** GitLab's merge request event (the documented example) as !7 was merged by fast-forward. */
function gitlabEvent(head: string) {
  const event = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'codehost', 'gitlab-merge_request.json'), 'utf8'));
  event.project.web_url = 'https://gitlab.com/acme/api';
  Object.assign(event.object_attributes, {
    iid: 7,
    id: 7007,
    state: 'merged',
    action: 'merge',
    created_at: iso(at3('09:30')),
    updated_at: iso(at3('11:30')),
    merge_commit_sha: null,
    squash_commit_sha: null,
    last_commit: { ...event.object_attributes.last_commit, id: head, author: { name: 'Dev', email: DEV } },
  });
  return JSON.stringify(event);
}

/** GitHub's pull_request event (the recorded example) as this pull request was merged. */
function githubEvent(pr: { number: number; opened: string; merged: string; merge: string; head: string; commits: number }) {
  const event = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'codehost', 'github-pull_request-closed.json'), 'utf8'),
  );
  event.number = pr.number;
  Object.assign(event.pull_request, {
    id: 1000 + pr.number,
    number: pr.number,
    created_at: iso(at(pr.opened)),
    updated_at: iso(at(pr.merged)),
    closed_at: iso(at(pr.merged)),
    merged_at: iso(at(pr.merged)),
    merged: true,
    merge_commit_sha: pr.merge,
    commits: pr.commits,
  });
  event.pull_request.head.sha = pr.head;
  event.repository.html_url = 'https://github.com/acme/shop';
  return JSON.stringify(event);
}

const deliver = (body: string, id: string, signature = githubSignature(SECRET, body)) =>
  server.app.inject({
    method: 'POST',
    url: `/api/v1/hooks/github/${orgId}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': id,
      'x-hub-signature-256': signature,
    },
    payload: body,
  });

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

const get = async (url: string, key = ownerKey) => {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const list = () => get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02');

beforeAll(async () => {
  server = await testServer({ now: () => new Date('2026-11-05T12:00:00Z') });
  const org = await server.seedOrg('Acme');
  orgId = org.orgId as OrgId;
  ownerKey = org.users.owner.key;
  const dev = await server.services.accounts.createUser({ orgId, email: DEV, role: 'member' });
  devKey = (await server.services.accounts.createKey(dev)).key;
  for (const [model, outputMtok] of [
    ['model-a', 10],
    ['model-b', 0],
  ] as const) {
    const res = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/pricing',
      headers: bearer(ownerKey),
      payload: { model, effectiveFrom: '2026-11-01', inputMtok: 1, outputMtok },
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  const set = await server.app.inject({
    method: 'PUT',
    url: '/api/v0/organization/codehosts/github',
    headers: bearer(ownerKey),
    payload: { secret: SECRET },
  });
  expect(set.statusCode, set.body).toBe(200);
  commits = await laptopDay();
  const s1 = usage('model-a', '2026-11-02T10:00:00Z', { input_tokens: 1_000_000, output_tokens: 100_000 }, false, 's1');
  const s2 = { ...usage('model-b', '2026-11-02T18:00:00Z', { input_tokens: 2_000_000 }, false, 's2'), agent: 'codex' as const };
  const s3 = usage('model-a', '2026-11-02T21:00:00Z', { input_tokens: 500_000 }, false, 's3');
  // The merge and squash commits first; the rebased commit of PR #3 arrives after its webhook.
  await ingest([s1, s2, s3, ...commits.filter((c) => c.commit !== shas['r1'])]);
  await server.services.runBatch({ trigger: 'cli', log, now: new Date('2026-11-05T12:00:00Z') });
}, 120_000);
afterAll(async () => server.close());

describe('pull requests from the laptop to the merged change', () => {
  it('the laptop credited the branch, squash and rebased commits with the agent lines and their sessions', () => {
    const byId = new Map(commits.map((c) => [c.commit, c]));
    expect(byId.get(shas['a1']!)).toMatchObject({ lines_added: 6, agent_lines: 6, by_session: [{ session_id: 's1', lines: 6 }] });
    expect(byId.get(shas['s2']!)).toMatchObject({ lines_added: 6, agent_lines: 4, by_session: [{ session_id: 's1', lines: 4 }] });
    expect(byId.get(shas['r1']!)).toMatchObject({ lines_added: 5, agent_lines: 5, by_session: [{ session_id: 's2', lines: 5 }] });
    expect(byId.get(shas['m1']!)?.parents).toHaveLength(2);
  });

  it('signed webhooks link each pull request to its commits; a rebased commit that arrives later is linked then', async () => {
    const events = [
      githubEvent({ number: 1, opened: '10:30', merged: '13:00', merge: shas['m1']!, head: shas['a1']!, commits: 1 }),
      githubEvent({ number: 2, opened: '14:30', merged: '17:00', merge: shas['s2']!, head: shas['bHead']!, commits: 2 }),
      githubEvent({ number: 3, opened: '18:30', merged: '20:00', merge: shas['r1']!, head: shas['cHead']!, commits: 1 }),
    ];
    for (const [i, body] of events.entries()) expect((await deliver(body, `d-${i}`)).statusCode).toBe(202);
    let prs = (await list()).data;
    expect(prs.map((p: { number: number; commits: string[] }) => [p.number, p.commits.length])).toEqual([
      [3, 0],
      [2, 1],
      [1, 2],
    ]);
    await ingest(commits.filter((c) => c.commit === shas['r1']));
    prs = (await list()).data;
    expect(prs.map((p: { number: number; commits: string[] }) => [p.number, p.commits])).toEqual([
      [3, [shas['r1']]],
      [2, [shas['s2']]],
      [1, [shas['a1'], shas['m1']].sort()],
    ]);
  });

  it('each pull request shows its agent lines, cost and time to merge as worked by hand', async () => {
    const prs = (await list()).data as {
      number: number;
      lines_added: number;
      agent_lines: number;
      cost_usd: number;
      hours_to_merge: number;
    }[];
    expect(prs.map((p) => [p.number, p.lines_added, p.agent_lines, p.cost_usd, p.hours_to_merge])).toEqual([
      [3, 5, 5, 2, 1.5],
      [2, 6, 4, 0.8, 2.5],
      [1, 6, 6, 1.2, 2.5],
    ]);
    const day = await get('/api/v1/analytics/pull_requests?startDate=2026-11-01&endDate=2026-11-02');
    expect(day.data).toEqual([
      {
        date: '2026-11-01',
        merged: 0,
        merged_with_agent_lines: 0,
        lines_added: 0,
        agent_lines: 0,
        agent_share: 0,
        median_hours_to_merge: null,
        cost_usd: 0,
        cost_per_merged_usd: null,
        not_shipped_cost_usd: 0,
      },
      {
        date: '2026-11-02',
        merged: 3,
        merged_with_agent_lines: 3,
        lines_added: 17,
        agent_lines: 15,
        agent_share: 0.8824,
        median_hours_to_merge: 2.5,
        cost_usd: 4,
        cost_per_merged_usd: 1.3333,
        not_shipped_cost_usd: 0.5,
      },
    ]);
    // The range in one (meta.totals): $4 over 3 merged pull requests, 15 of 17 lines the agents'.
    expect(day.meta.totals).toEqual({
      merged: 3,
      merged_with_agent_lines: 3,
      lines_added: 17,
      agent_lines: 15,
      agent_share: 0.8824,
      cost_usd: 4,
      cost_per_merged_usd: 1.3333,
      not_shipped_cost_usd: 0.5,
    });
    const byAgent = await get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02&group_by=agent');
    expect(
      byAgent.data.map((r: { group_key: string; merged: number; agent_lines: number }) => [r.group_key, r.merged, r.agent_lines]),
    ).toEqual([
      ['claude', 2, 10],
      ['codex', 1, 5],
    ]);
    const byRepo = await get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02&group_by=repo');
    expect(byRepo.data).toMatchObject([{ group_key: 'github.com/acme/shop', merged: 3, cost_per_merged_usd: 1.3333 }]);
  });

  it('GitLab: a merge request rebased and fast-forwarded is linked by its head, with its token checked', async () => {
    const set = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/codehosts/gitlab',
      headers: bearer(ownerKey),
      payload: { secret: GITLAB_TOKEN },
    });
    expect(set.statusCode, set.body).toBe(200);
    const day = await gitlabDay();
    const s4 = usage('model-a', '2026-11-03T09:00:00Z', { input_tokens: 1_000_000 }, false, 's4');
    await ingest([s4, ...day.records]);
    await server.services.runBatch({ trigger: 'cli', log, now: new Date('2026-11-05T12:00:00Z') });
    const body = gitlabEvent(day.head);
    const deliverGitlab = (token: string, id: string) =>
      server.app.inject({
        method: 'POST',
        url: `/api/v1/hooks/gitlab/${orgId}`,
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Merge Request Hook',
          'x-gitlab-event-uuid': id,
          'x-gitlab-token': token,
        },
        payload: body,
      });
    expect((await deliverGitlab('not-the-token-0123456789', 'g-0')).statusCode).toBe(401);
    expect((await deliverGitlab(GITLAB_TOKEN, 'g-1')).statusCode).toBe(202);
    const mr = (await get('/api/v0/code/pull_requests?startDate=2026-11-03&endDate=2026-11-03')).data;
    expect(mr).toMatchObject([
      {
        repo: 'gitlab.com/acme/api',
        number: 7,
        host: 'gitlab',
        commits: [day.head],
        lines_added: 4,
        agent_lines: 4,
        cost_usd: 1,
        hours_to_merge: 2,
      },
    ]);
  });

  it('group_by=team counts a pull request under the teams of the people whose commits it holds', async () => {
    const roster = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/teams',
      headers: { ...bearer(ownerKey), 'content-type': 'text/csv' },
      payload: `email,team,parent,from,to\n${DEV},Platform,,2026-11-01,\n`,
    });
    expect(roster.statusCode, roster.body).toBe(200);
    const byTeam = await get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02&group_by=team');
    expect(byTeam.data).toMatchObject([
      { date: '2026-11-02', group_key: 'Platform', merged: 3, agent_lines: 15, cost_per_merged_usd: 1.3333 },
    ]);
  });

  it('a member sees the pull requests holding their commits; another member sees none; a guest is refused', async () => {
    expect((await get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02', devKey)).data).toHaveLength(3);
    const other = await server.services.accounts.createUser({ orgId, email: 'other@example.com', role: 'member' });
    const otherKey = (await server.services.accounts.createKey(other)).key;
    expect((await get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02', otherKey)).data).toEqual([]);
    const team = await server.app.inject({
      method: 'GET',
      url: '/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02&group_by=team',
      headers: bearer(otherKey),
    });
    expect(team.statusCode).toBe(403);
  });

  it('a forged or replayed delivery changes nothing', async () => {
    const before = await list();
    const changed = githubEvent({ number: 1, opened: '00:30', merged: '23:00', merge: shas['m1']!, head: shas['a1']!, commits: 1 });
    expect((await deliver(changed, 'd-0')).json().status).toBe('duplicate');
    expect((await deliver(changed, 'd-forged', githubSignature('not-the-secret-0123456', changed))).statusCode).toBe(401);
    expect(await list()).toEqual(before);
  });

  it('the 400s of the analytics rules, and unknown parameters', async () => {
    for (const q of [
      'startDate=2026-11-02&endDate=2026-11-05',
      'startDate=2026-11-02',
      'startDate=2026-11-02&endDate=2026-11-02&group_by=model',
      'startDate=2026-11-02&endDate=2026-11-02&x=1',
    ])
      expect(
        (await server.app.inject({ method: 'GET', url: `/api/v1/analytics/pull_requests?${q}`, headers: bearer(ownerKey) })).statusCode,
        q,
      ).toBe(400);
  });
});
