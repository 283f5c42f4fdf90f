// The pull request reads that answer their rows as one JSON text (api/pull-requests/store.ts) give what
// the same rows read one value at a time give: strings with quotes, backslashes, control characters and
// characters past the Basic Multilingual Plane kept, and integers past 2^53 rounded as Number() rounds
// them (a repository name or an address is whatever the host sent; lines are what a machine reported).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, LINK_WINDOW_DAYS, type MergedRow, PullRequestReads } from '../../api/pull-requests/store.ts';
import { type Db, migrate, openDb } from '../../common/db/duckdb.ts';

const REPO = 'a"b\\c/é😀\u0001\u0000\t';
const AUTHOR = '"quoted" \\ \u2028 ünï';
const SESSION = 's"\\\u0002';
const NUMBER = 2n ** 53n + 1n; // not a double: read as Number() reads it, 2^53
const LINES = 2n ** 60n + 3n;
const OPENED = Date.parse('2026-10-02T10:00:00Z');
const MERGED = Date.parse('2026-10-03T12:00:00Z');

let db: Db;
let reads: PullRequestReads;

beforeAll(async () => {
  db = await openDb(':memory:');
  await migrate(db);
  const commit = `INSERT INTO landed_commits (org_id, repo_id, commit_id, user_id, received_at, ts, repo, lines_added, lines_deleted,
      agent_lines, by_agent, by_session, parents)
    VALUES ('o', 'r1', $id, $user, now()::TIMESTAMP, make_timestamp($ts * 1000), $repo, $lines, 0, $lines,
      [{agent: 'claude', model: $model, lines: $lines}], [{agent: 'claude', session_id: $session, lines: $lines}], CASE WHEN $parents = '' THEN [] ELSE string_split($parents, ' ') END)`;
  // The spent session's one commit is at the window's first millisecond (LINK_WINDOW_DAYS before the
  // opening): the pull request is reached through it alone.
  await db.run(commit, {
    id: 'b1',
    user: AUTHOR,
    ts: OPENED - LINK_WINDOW_DAYS * DAY_MS,
    repo: REPO,
    lines: LINES,
    model: 'm"\\',
    session: SESSION,
    parents: '',
  });
  await db.run(commit, {
    id: 'm1',
    user: AUTHOR,
    ts: MERGED,
    repo: REPO,
    lines: 3n,
    model: 'm',
    session: 'not spent',
    parents: 'b1 x"\\',
  });
  await db.run(
    `INSERT INTO pull_requests (org_id, repo, number, host, host_id, author, state, opened_at, merged_at, updated_at,
       merge_commit_id, squash_commit_id, head_commit_id, commit_count)
     VALUES ('o', $repo, $number, 'github', 'h', $author, 'merged', make_timestamp($opened * 1000), make_timestamp($merged * 1000),
       now()::TIMESTAMP, 'm1', NULL, 'b1', 2147483647)`,
    { repo: REPO, number: NUMBER, author: AUTHOR, opened: OPENED, merged: MERGED },
  );
  await db.run(
    `INSERT INTO agg_session_cost_day (org_id, day, user_id, agent, session_id, cost_usd) VALUES ('o', DATE '2026-10-03', $user, 'claude', $session, 1.5)`,
    { user: AUTHOR, session: SESSION },
  );
  reads = new PullRequestReads(db);
}, 60_000);
afterAll(async () => db.close());

const row: MergedRow = {
  repo: REPO,
  number: Number(NUMBER),
  host: 'github',
  author: AUTHOR,
  opened_ms: OPENED,
  merged_ms: MERGED,
  merge_commit_id: 'm1',
  squash_commit_id: null,
  head_commit_id: 'b1',
  commit_count: 2147483647,
};

describe('the pull request reads answered as JSON', () => {
  it('read the merged pull requests, and those a spent session reaches, as the rows hold them', async () => {
    expect(await reads.merged('o', '2026-10-01', '2026-10-31')).toEqual([row]);
    expect(await reads.reaching('o', '2026-10-01', '2026-10-31', null)).toEqual([row]);
    expect(await reads.reaching('o', '2026-10-01', '2026-10-31', AUTHOR)).toEqual([row]);
    expect(await reads.merged('p', '2026-10-01', '2026-10-31')).toEqual([]);
  });

  it('read the commits of the window, with the ones pull requests are named by, and those linked whole', async () => {
    const { graph, named } = await reads.graphFor('o', [row]);
    expect(graph.sort((a, b) => a.commit_id.localeCompare(b.commit_id))).toEqual([
      { repo: REPO, commit_id: 'b1', ts_ms: OPENED - LINK_WINDOW_DAYS * DAY_MS, parents: [] },
      { repo: REPO, commit_id: 'm1', ts_ms: MERGED, parents: ['b1', 'x"\\'] },
    ]);
    expect([...named].sort()).toEqual(['b1', 'm1']);
    const held = await reads.held('o', [row], ['b1']);
    expect(held).toEqual([
      {
        repo: REPO,
        commit_id: 'b1',
        user_id: AUTHOR,
        lines_added: Number(LINES),
        agent_lines: Number(LINES),
        by_agent: [{ agent: 'claude', model: 'm"\\', lines: Number(LINES) }],
        by_session: [{ agent: 'claude', session_id: SESSION, lines: Number(LINES) }],
      },
    ]);
    const { credited, costs } = await reads.sessionFigures('o', [SESSION]);
    expect([...credited]).toEqual([[SESSION, Number(LINES)]]);
    expect([...costs]).toEqual([[SESSION, 1.5]]);
  });
});
