// GET /api/v1/analytics/code and GET /api/v0/code/commits (docs/metrics.md §5): edit events and landed commits
// posted to the ingest route as collectors ship them, the real batch, and the HTTP API. Every expected
// number is worked out by hand beside it. Also: idempotent ingest, a malformed commit or edit repository
// rejected with its reason, a late commit folded into its day at the next batch, the 400s, and who sees what.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodeResponse, CommitPage } from '../../api/code/schema.ts';
import { migrate, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { repoId } from '../../common/repo-id.ts';
import type { WireLandedCommit } from '../../common/wire.ts';
import { at, call, type WireRecord } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D1 = '2026-03-03';
const D2 = '2026-03-04';
const log = createLogger({ name: 'test', level: 'silent' });
const SHOP = 'https://github.com/acme/shop.git';
const API = 'git@github.com:acme/api.git';

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;

const hex = (c: string) => c.repeat(40);
function commit(
  url: string,
  sha: string,
  when: string,
  lines: number,
  deleted: number,
  by: WireLandedCommit['by_agent'],
  author = 'member@impact.example.com',
): WireLandedCommit {
  const repo = repoId(url);
  return {
    kind: 'commit',
    id: `${repo}:${sha}`,
    repo_id: repo,
    repo: url.includes('shop') ? 'github.com/acme/shop' : 'github.com/acme/api',
    commit: sha,
    ts: at(when),
    author,
    lines_added: lines,
    lines_deleted: deleted,
    agent_lines: by.reduce((n, a) => n + a.lines, 0),
    by_agent: by,
  };
}
/** An edit's repository, as the collector ships it for a file in a work tree of that remote. */
const IN_SHOP = { repo_id: repoId(SHOP), repo: 'github.com/acme/shop' };
const IN_API = { repo_id: repoId(API), repo: 'github.com/acme/api' };
const msg = (id: string, when: string, model: string, session = 's1'): WireRecord => ({
  kind: 'message',
  id,
  agent: 'claude',
  session_id: session,
  ts: at(when),
  model,
});

async function post(key: string, records: unknown[]) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { received: number; stored: number; duplicates: number; rejected: { index: number; reason: string }[] };
}

async function get(url: string, key: string, status = 200) {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}
const range = `startDate=${D1}&endDate=${D2}`;

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Impact');
  other = await server.seedOrg('Other');
  const member = org.users.member.key;
  // The member's Claude Code session s1: messages of two models, edits before, between and after them.
  const stored = await post(member, [
    call('Edit', `${D1}T08:00:00Z`, { edits: [{ ext: 'py', lines_added: 4, lines_deleted: 0 }] }), // no message yet: unknown
    msg('m1', `${D1}T09:00:00Z`, 'claude-sonnet-4-5'),
    call('Write', `${D1}T09:01:00Z`, {
      edits: [
        { ext: 'ts', lines_added: 10, lines_deleted: 0, ...IN_SHOP },
        { ext: 'md', lines_added: 2, lines_deleted: 1, ...IN_API },
      ],
    }),
    msg('m2', `${D1}T10:00:00Z`, 'claude-opus-4-1'),
    call('Edit', `${D1}T10:05:00Z`, { edits: [{ ext: 'ts', lines_added: 5, lines_deleted: 3, ...IN_SHOP }] }),
    // A failed call's edits never count.
    {
      ...call('Edit', `${D1}T10:06:00Z`, { edits: [{ ext: 'ts', lines_added: 99, lines_deleted: 0 }] }),
      tool_success: false,
      event: 'PostToolUseFailure',
    },
    // Codex, D2, its own session without messages.
    call('apply_patch', `${D2}T11:00:00Z`, {
      agent: 'codex',
      session_id: 's2',
      edits: [{ ext: 'go', lines_added: 7, lines_deleted: 2, ...IN_API }],
    }),
    commit(SHOP, hex('1'), `${D1}T15:00:00Z`, 20, 5, [
      { agent: 'claude', model: 'claude-sonnet-4-5', lines: 8 },
      { agent: 'claude', model: 'claude-opus-4-1', lines: 4 },
    ]),
    commit(SHOP, hex('2'), `${D1}T16:00:00Z`, 3, 0, []),
  ]);
  expect(stored.rejected).toEqual([]);
  await post(org.users.manager.key, [
    commit(API, hex('3'), `${D2}T10:00:00Z`, 10, 1, [{ agent: 'codex', model: 'unknown', lines: 6 }], 'manager@impact.example.com'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('GET /api/v1/analytics/code', () => {
  it('gives the organization one record per day with the hand-worked figures', async () => {
    const body = CodeResponse.parse(await get(`/api/v1/analytics/code?startDate=2026-03-02&endDate=${D2}`, org.users.manager.key));
    const [d0, d1, d2] = body.data as { date: string; edits: Record<string, unknown>; landed: Record<string, unknown> }[];
    // A day without activity: zeros and empty breakdowns.
    expect(d0).toEqual({
      date: '2026-03-02',
      edits: { lines_added: 0, lines_deleted: 0, by_agent: [], by_model: [], by_language: [] },
      landed: {
        commits: 0,
        commits_with_agent_lines: 0,
        lines_added: 0,
        lines_deleted: 0,
        agent_lines_added: 0,
        agent_share: 0,
        cost_usd: 0,
        by_agent: [],
        by_model: [],
      },
    });
    // D1 edits: 4 + 10 + 2 + 5 = 21 added, 0 + 0 + 1 + 3 = 4 removed (the failed call's 99 do not count).
    // Models: the py edit came before any message (unknown 4/0); the Write after m1 (sonnet 12/1); the Edit
    // after m2 (opus 5/3). Languages: TypeScript 15/3, Python 4/0, Markdown 2/1.
    expect(d1!.edits).toEqual({
      lines_added: 21,
      lines_deleted: 4,
      by_agent: [{ agent: 'claude', lines_added: 21, lines_deleted: 4 }],
      by_model: [
        { model_id: 'claude-sonnet-4-5', lines_added: 12, lines_deleted: 1 },
        { model_id: 'claude-opus-4-1', lines_added: 5, lines_deleted: 3 },
        { model_id: 'unknown', lines_added: 4, lines_deleted: 0 },
      ],
      by_language: [
        { language: 'TypeScript', lines_added: 15, lines_deleted: 3 },
        { language: 'Python', lines_added: 4, lines_deleted: 0 },
        { language: 'Markdown', lines_added: 2, lines_deleted: 1 },
      ],
    });
    // D1 landed: two commits of 20 and 3 lines, 12 agent lines in the first: 12 / 23 = 0.52173… → 0.5217.
    // Its commits name no agent session (by_session), so no session's cost: $0.
    expect(d1!.landed).toEqual({
      commits: 2,
      commits_with_agent_lines: 1,
      lines_added: 23,
      lines_deleted: 5,
      agent_lines_added: 12,
      agent_share: 0.5217,
      cost_usd: 0,
      by_agent: [{ agent: 'claude', lines: 12 }],
      by_model: [
        { model_id: 'claude-sonnet-4-5', lines: 8 },
        { model_id: 'claude-opus-4-1', lines: 4 },
      ],
    });
    // D2: the member's Codex edit (7/2, no message: unknown, Go) and the manager's commit (6 of 10 lines: 0.6).
    expect(d2!.edits).toMatchObject({
      lines_added: 7,
      lines_deleted: 2,
      by_language: [{ language: 'Go', lines_added: 7, lines_deleted: 2 }],
    });
    expect(d2!.landed).toMatchObject({
      commits: 1,
      lines_added: 10,
      agent_lines_added: 6,
      agent_share: 0.6,
      by_agent: [{ agent: 'codex', lines: 6 }],
    });
  });

  it('group_by=agent, model and repo flatten to rows of non-zero groups, by date then group_key', async () => {
    const agent = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}&group_by=agent`, org.users.owner.key));
    expect(agent.data).toEqual([
      { date: D1, group_key: 'claude', edit_lines_added: 21, landed_lines_added: 0, landed_agent_lines: 12 },
      { date: D2, group_key: 'codex', edit_lines_added: 7, landed_lines_added: 0, landed_agent_lines: 6 },
    ]);
    const model = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}&group_by=model`, org.users.owner.key));
    expect(model.data).toEqual([
      { date: D1, group_key: 'claude-opus-4-1', edit_lines_added: 5, landed_lines_added: 0, landed_agent_lines: 4 },
      { date: D1, group_key: 'claude-sonnet-4-5', edit_lines_added: 12, landed_lines_added: 0, landed_agent_lines: 8 },
      { date: D1, group_key: 'unknown', edit_lines_added: 4, landed_lines_added: 0, landed_agent_lines: 0 },
      { date: D2, group_key: 'unknown', edit_lines_added: 7, landed_lines_added: 0, landed_agent_lines: 6 },
    ]);
    const repo = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}&group_by=repo`, org.users.owner.key));
    expect(repo.data).toEqual([
      // Edits count under their repository (the py edit of D1 is in none: in no row); a day with edits
      // and no landed commit still has its row.
      { date: D1, group_key: 'github.com/acme/api', edit_lines_added: 2, landed_lines_added: 0, landed_agent_lines: 0 },
      { date: D1, group_key: 'github.com/acme/shop', edit_lines_added: 15, landed_lines_added: 23, landed_agent_lines: 12 },
      { date: D2, group_key: 'github.com/acme/api', edit_lines_added: 7, landed_lines_added: 10, landed_agent_lines: 6 },
    ]);
  });

  it('a member sees only their own figures; a guest nothing; another organization none of them', async () => {
    const mine = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}`, org.users.member.key));
    expect(mine.meta.user_id).toBe(org.users.member.id);
    const [m1, m2] = mine.data as { edits: { lines_added: number }; landed: { commits: number; agent_lines_added: number } }[];
    expect([m1!.edits.lines_added, m1!.landed.commits, m1!.landed.agent_lines_added]).toEqual([21, 2, 12]);
    // The D2 commit is the manager's: not the member's.
    expect([m2!.edits.lines_added, m2!.landed.commits]).toEqual([7, 0]);
    await get(`/api/v1/analytics/code?${range}`, org.users.guest.key, 403);
    const theirs = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}`, other.users.owner.key));
    expect(
      (theirs.data as { edits: { lines_added: number }; landed: { commits: number } }[]).every(
        (d) => d.edits.lines_added === 0 && d.landed.commits === 0,
      ),
    ).toBe(true);
    const grouped = CodeResponse.parse(await get(`/api/v1/analytics/code?${range}&group_by=repo`, other.users.owner.key));
    expect(grouped.data).toEqual([]);
  });

  it('answers the documented 400s with the error body', async () => {
    for (const query of [
      `${range}&team=Nope`,
      `${range}&team=Nope&group_by=team`,
      `${range}&group_by=tool_name`,
      'startDate=2026-03-05&endDate=2026-03-04',
      `startDate=${D1}&endDate=2026-03-20`,
      'startDate=2026-01-01&endDate=2026-01-20',
      'startDate=2026-02-30&endDate=2026-03-01',
      `${range}&limit=5`,
    ]) {
      const body = await get(`/api/v1/analytics/code?${query}`, org.users.manager.key, 400);
      expect(body).toMatchObject({ title: expect.any(String), detail: expect.any(String), status: 400, requestId: expect.any(String) });
    }
  });
});

describe('ingest of landed commits', () => {
  it('is idempotent per (organization, repository, commit) and rejects a malformed record with its reason', async () => {
    const again = commit(SHOP, hex('1'), `${D1}T15:00:00Z`, 999, 0, []);
    const bad = { ...commit(SHOP, hex('9'), `${D1}T15:00:00Z`, 5, 0, [{ agent: 'claude', model: 'x', lines: 3 }]), agent_lines: 4 };
    const tooMany = commit(SHOP, hex('8'), `${D1}T15:00:00Z`, 2, 0, [{ agent: 'claude', model: 'x', lines: 3 }]);
    const withLine = { ...commit(SHOP, hex('7'), `${D1}T15:00:00Z`, 1, 0, []), line: 'const secret = 1;' };
    const localPath = { ...commit(SHOP, hex('6'), `${D1}T15:00:00Z`, 1, 0, []), repo: '/home/dev/src/shop' };
    const res = await post(org.users.member.key, [again, bad, tooMany, withLine, localPath]);
    expect(res).toMatchObject({ received: 5, stored: 0, duplicates: 1 });
    expect(res.rejected.map((r) => r.index)).toEqual([1, 2, 3, 4]);
    expect(res.rejected[3]!.reason).toMatch(/never a local path/);
    expect(res.rejected[0]!.reason).toMatch(/agent_lines must be the sum of by_agent lines/);
    expect(res.rejected[1]!.reason).toMatch(/agent_lines cannot exceed lines_added/);
    expect(res.rejected[2]!.reason).toMatch(/line/);
  });

  it('a landed commit on a day without any event still gives its user that day, inactive', async () => {
    // The manager's only record of D2 is the commit hex('3'): 6 agent lines, no edits, no event.
    const users = await get(`/api/v1/analytics/users?startDate=${D2}&endDate=${D2}`, org.users.manager.key);
    const row = (users.data as { user_id: string; lines_added: number; landed_agent_lines: number; tool_calls: number }[]).find(
      (r) => r.user_id === org.users.manager.id,
    );
    expect(row).toMatchObject({ lines_added: 0, landed_agent_lines: 6, tool_calls: 0 });
    // The users' landed agent lines add up to the organization's: the member's 0 + the manager's 6.
    const sum = (users.data as { landed_agent_lines: number }[]).reduce((n, r) => n + r.landed_agent_lines, 0);
    const code = CodeResponse.parse(await get(`/api/v1/analytics/code?startDate=${D2}&endDate=${D2}`, org.users.manager.key));
    expect(sum).toBe((code.data[0] as { landed: { agent_lines_added: number } }).landed.agent_lines_added);
    const own = await get(`/api/v0/usage/users/me?startDate=${D2}&endDate=${D2}`, org.users.manager.key);
    expect(own.data[0]).toMatchObject({ landed_agent_lines: 6 });
    // A commit is no agent activity: D2's active users are the member only.
    const activity = await get(`/api/v1/analytics/activity?startDate=${D2}&endDate=${D2}`, org.users.manager.key);
    expect(activity.data[0]).toMatchObject({ daily_active_users: 1 });
  });

  it("rejects an edit whose repository is half there, or a local path's", async () => {
    const halves = [
      call('Edit', `${D1}T12:00:00Z`, { edits: [{ ext: 'ts', lines_added: 1, lines_deleted: 0, repo_id: repoId(SHOP) }] }),
      call('Edit', `${D1}T12:01:00Z`, { edits: [{ ext: 'ts', lines_added: 1, lines_deleted: 0, repo: 'github.com/acme/shop' }] }),
      call('Edit', `${D1}T12:02:00Z`, { edits: [{ ext: 'ts', lines_added: 1, lines_deleted: 0, repo_id: '/home/dev/shop', repo: 'x' }] }),
      call('Edit', `${D1}T12:03:00Z`, {
        edits: [{ ext: 'ts', lines_added: 1, lines_deleted: 0, repo_id: repoId(SHOP), repo: '/home/dev/shop' }],
      }),
      // A landed commit named by a local folder (what collectors before repoIdentity sent) is refused too.
      { ...commit(SHOP, hex('6'), `${D1}T15:00:00Z`, 1, 0, []), repo: '/tmp/work/origin' },
    ];
    const res = await post(org.users.member.key, halves);
    expect(res).toMatchObject({ received: 5, stored: 0 });
    expect(res.rejected.map((r) => r.reason)).toEqual([
      expect.stringMatching(/repo_id and repo come together/),
      expect.stringMatching(/repo_id and repo come together/),
      expect.stringMatching(/repo_id/),
      expect.stringMatching(/never a local path/),
      expect.stringMatching(/never a local path/),
    ]);
  });

  it('folds a late commit into its day at the next batch, and the per-user fields follow', async () => {
    await post(org.users.member.key, [
      commit(SHOP, hex('4'), `${D1}T17:00:00Z`, 5, 0, [{ agent: 'claude', model: 'claude-sonnet-4-5', lines: 5 }]),
    ]);
    await server.services.runBatch({ trigger: 'cli', log, now: NOW });
    const body = CodeResponse.parse(await get(`/api/v1/analytics/code?startDate=${D1}&endDate=${D1}`, org.users.manager.key));
    // 3 commits now: 23 + 5 = 28 lines, 12 + 5 = 17 agent lines: 17 / 28 = 0.60714… → 0.6071.
    expect((body.data[0] as { landed: unknown }).landed).toMatchObject({
      commits: 3,
      lines_added: 28,
      agent_lines_added: 17,
      agent_share: 0.6071,
    });
    const users = await get(`/api/v1/analytics/users?startDate=${D1}&endDate=${D1}`, org.users.manager.key);
    const row = (users.data as { user_id: string; lines_added: number; landed_agent_lines: number }[]).find(
      (r) => r.user_id === org.users.member.id,
    );
    expect(row).toMatchObject({ lines_added: 21, landed_agent_lines: 17 });
    const own = await get(`/api/v0/usage/users/me?startDate=${D1}&endDate=${D1}`, org.users.member.key);
    expect(own.data[0]).toMatchObject({ lines_added: 21, landed_agent_lines: 17 });
  });
});

describe('GET /api/v0/code/commits', () => {
  it('lists landed commits newest first, paged, with agent lines by agent and model', async () => {
    const first = CommitPage.parse(await get(`/api/v0/code/commits?${range}&limit=2`, org.users.manager.key));
    expect(first.data.map((c) => c.commit)).toEqual([hex('3'), hex('4')]);
    expect(first.meta.has_more).toBe(true);
    expect(first.data[0]).toEqual({
      repo_id: repoId(API),
      repo: 'github.com/acme/api',
      commit: hex('3'),
      user_id: org.users.manager.id,
      user_email: 'manager@impact.example.com',
      committed_at: `${D2}T10:00:00.000Z`,
      lines_added: 10,
      lines_deleted: 1,
      agent_lines: 6,
      by_agent: [{ agent: 'codex', model_id: 'unknown', lines: 6 }],
      author: 'manager@impact.example.com',
      by_session: [],
    });
    const second = CommitPage.parse(
      await get(`/api/v0/code/commits?${range}&limit=2&cursor=${encodeURIComponent(first.meta.next_cursor!)}`, org.users.manager.key),
    );
    expect(second.data.map((c) => c.commit)).toEqual([hex('2'), hex('1')]);
    expect(second.meta).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.data[1]!.by_agent).toEqual([
      { agent: 'claude', model_id: 'claude-sonnet-4-5', lines: 8 },
      { agent: 'claude', model_id: 'claude-opus-4-1', lines: 4 },
    ]);
  });

  it('a member lists only their own commits; a guest nothing; another organization none', async () => {
    const mine = CommitPage.parse(await get(`/api/v0/code/commits?${range}`, org.users.member.key));
    expect(mine.data.map((c) => c.commit)).toEqual([hex('4'), hex('2'), hex('1')]);
    expect(mine.meta.user_id).toBe(org.users.member.id);
    await get(`/api/v0/code/commits?${range}`, org.users.guest.key, 403);
    const theirs = CommitPage.parse(await get(`/api/v0/code/commits?${range}`, other.users.manager.key));
    expect(theirs.data).toEqual([]);
  });

  it('answers 400 for a bad limit, cursor, date or parameter', async () => {
    for (const query of [
      `${range}&limit=0`,
      `${range}&limit=101`,
      `${range}&cursor=abc`,
      `${range}&group_by=agent`,
      'startDate=2026-03-05&endDate=2026-03-04',
      `startDate=${D1}`,
    ]) {
      const body = await get(`/api/v0/code/commits?${query}`, org.users.manager.key, 400);
      expect(body).toMatchObject({ status: 400, requestId: expect.any(String) });
    }
    // A missing date is named, as on the analytics endpoints.
    expect(await get(`/api/v0/code/commits?startDate=${D1}`, org.users.manager.key, 400)).toMatchObject({
      detail: 'endDate is required (YYYY-MM-DD)',
    });
    expect(await get('/api/v0/code/commits?limit=3', org.users.manager.key, 400)).toMatchObject({
      detail: 'startDate is required (YYYY-MM-DD)',
    });
  });
});

describe('migration 042 on a database built before it', () => {
  it('keeps stored edits and built edit figures, under no repository', async () => {
    const db = await openDb(join(tempDir(), 'm042.duckdb'));
    try {
      // The state before 042: edits without their repository, agg_code_edit_day without it.
      await db.run('DELETE FROM schema_migrations WHERE version = 42');
      await db.run('ALTER TABLE events ALTER edits TYPE STRUCT(ext VARCHAR, name VARCHAR, lines_added BIGINT, lines_deleted BIGINT)[]');
      await db.run('DROP TABLE agg_code_edit_day');
      await db.run(`CREATE TABLE agg_code_edit_day (org_id VARCHAR NOT NULL, day DATE NOT NULL, user_id VARCHAR NOT NULL,
        agent VARCHAR NOT NULL, model VARCHAR NOT NULL, language VARCHAR NOT NULL, lines_added BIGINT NOT NULL,
        lines_deleted BIGINT NOT NULL, PRIMARY KEY (org_id, day, user_id, agent, model, language))`);
      await db.run(`INSERT INTO events (org_id, id, user_id, received_at, ts, agent, event, session_id, client, autonomy, edits)
        VALUES ('org_m', 'e1', 'usr_1', TIMESTAMP '2026-03-05 10:00:00', TIMESTAMP '2026-03-02 10:00:00', 'claude', 'PostToolUse',
        's1', 'terminal-ui', 'manual', [{'ext': 'ts', 'name': NULL, 'lines_added': 3, 'lines_deleted': 1}])`);
      await db.run(`INSERT INTO agg_code_edit_day VALUES ('org_m', DATE '2026-03-02', 'usr_1', 'claude', 'unknown', 'TypeScript', 3, 1)`);

      expect(await migrate(db)).toEqual(['042_edit_repos.sql']);
      expect(await db.all('SELECT edits FROM events')).toEqual([
        { edits: [{ ext: 'ts', name: null, lines_added: 3, lines_deleted: 1, repo_id: null, repo: null }] },
      ]);
      expect(await db.all('SELECT language, repo, lines_added FROM agg_code_edit_day')).toEqual([
        { language: 'TypeScript', repo: '', lines_added: 3 },
      ]);
    } finally {
      await db.close();
    }
  });
});
