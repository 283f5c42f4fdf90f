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
import { commitsAt, GITHUB_SECRET, githubMergesAt, type PullRequestScene, pullRequestScene, sha } from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';

const at = (hhmm: string) => Date.parse(`2026-11-02T${hhmm}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = { M0: sha('1'), S1: sha('2'), S2: sha('3') };

let scene: PullRequestScene;

beforeAll(async () => {
  scene = await pullRequestScene({ github: GITHUB_SECRET });
  await scene.ingest([
    usage('model-a', '2026-11-02T08:00:00Z', { input_tokens: 1_000_000 }, false, 's1'),
    usage('model-a', '2026-11-02T08:30:00Z', { input_tokens: 2_000_000 }, false, 's2'),
    commit(SHA.M0, '09:00', [], 0, null),
    commit(SHA.S1, '10:00', [SHA.M0], 20, 's1'),
    commit(SHA.S2, '10:00', [SHA.S1], 10, 's2'),
  ]);
  await scene.batch();
  await scene.deliverGithub(githubEvent({ number: 1, opened: '09:10', merged: '10:00', merge: SHA.S1, head: sha('a'), commits: 2 }), 'd1');
  await scene.deliverGithub(githubEvent({ number: 2, opened: '09:20', merged: '10:00', merge: SHA.S2, head: sha('b'), commits: 3 }), 'd2');
}, 60_000);
afterAll(async () => scene.server.close());

describe('pull requests merged by one merge queue run', () => {
  it('each holds its own squash commit: no commit, line or dollar counted twice', async () => {
    const list = await scene.get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    expect(list.data.map((p: { number: number; commits: string[]; cost_usd: number }) => [p.number, p.commits, p.cost_usd])).toEqual([
      [2, [SHA.S2], 2],
      [1, [SHA.S1], 1],
    ]);
    const day = await scene.get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    expect(day.data[0]).toMatchObject({ merged: 2, lines_added: 30, cost_usd: 3 });
  });
});
