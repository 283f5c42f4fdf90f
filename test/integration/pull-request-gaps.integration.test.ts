// Pull requests whose history has gaps (docs/metrics.md §10): commits agentmeter never hears of (a
// colleague's without a collector) sit on the default branch between the ones it knows. The link must err
// low, never high: a merge commit whose first parent is such a commit must not take the commits of main
// before the branch (an earlier pull request's among them), or their lines and cost count twice.
//
// Hand-worked (org price: model-a $1 per million input tokens), all on 2026-11-02, one repository:
//   S  10:00 seed, pushed to main       10 lines, 10 agent (session s0, 500,000 in = $0.50)
//   A  10:30 branch a (PR #1)           20 lines, 20 agent (session s1, 1,000,000 in = $1.00)
//   M1 11:00 merge of a into main (S, A)
//   B  12:00 branch b from M1 (PR #2)   30 lines, 30 agent (session s2, 2,000,000 in = $2.00)
//   X  12:30 a colleague's commit on main (no collector: unknown)
//   M2 13:00 merge of b into main (X, B)
// PR #1 holds M1 and A: 20 lines, $1.00. PR #2 holds M2 and B: 30 lines, $2.00 (not M1, A nor S, which
// main had before b was merged). The day: 2 merged, 50 lines, $3.00; s0 reached no pull request: $0.50.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsAt, GITHUB_SECRET, githubMergesAt, type PullRequestScene, pullRequestScene, sha } from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';

const at = (hhmm: string) => Date.parse(`2026-11-02T${hhmm}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = { S: sha('1'), A: sha('2'), M1: sha('3'), B: sha('4'), X: sha('5'), M2: sha('6') };

let scene: PullRequestScene;

beforeAll(async () => {
  scene = await pullRequestScene({ github: GITHUB_SECRET });
  await scene.ingest([
    usage('model-a', '2026-11-02T09:50:00Z', { input_tokens: 500_000 }, false, 's0'),
    usage('model-a', '2026-11-02T10:20:00Z', { input_tokens: 1_000_000 }, false, 's1'),
    usage('model-a', '2026-11-02T11:50:00Z', { input_tokens: 2_000_000 }, false, 's2'),
    commit(SHA.S, '10:00', [], 10, 's0'),
    commit(SHA.A, '10:30', [SHA.S], 20, 's1'),
    commit(SHA.M1, '11:00', [SHA.S, SHA.A], 0, null),
    commit(SHA.B, '12:00', [SHA.M1], 30, 's2'),
    commit(SHA.M2, '13:00', [SHA.X, SHA.B], 0, null),
  ]);
  await scene.batch();
  await scene.deliverGithub(githubEvent({ number: 1, opened: '10:35', merged: '11:00', merge: SHA.M1, head: SHA.A, commits: 1 }), 'd1');
  await scene.deliverGithub(githubEvent({ number: 2, opened: '12:05', merged: '13:00', merge: SHA.M2, head: SHA.B, commits: 1 }), 'd2');
}, 60_000);
afterAll(async () => scene.server.close());

describe('a merge whose first parent agentmeter does not know', () => {
  it('links only the branch it merged, not main before it: each session’s cost counts once', async () => {
    const list = await scene.get('/api/v0/code/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    const byNumber = Object.fromEntries(
      (list.data as { number: number; commits: string[]; lines_added: number; cost_usd: number }[]).map((p) => [p.number, p]),
    );
    expect(byNumber[1]).toMatchObject({ commits: [SHA.A, SHA.M1].sort(), lines_added: 20, cost_usd: 1 });
    expect(byNumber[2]).toMatchObject({ commits: [SHA.B, SHA.M2].sort(), lines_added: 30, cost_usd: 2 });
    const day = await scene.get('/api/v1/analytics/pull_requests?startDate=2026-11-02&endDate=2026-11-02');
    expect(day.data[0]).toMatchObject({ merged: 2, lines_added: 50, agent_lines: 50, cost_usd: 3, not_shipped_cost_usd: 0.5 });
  });
});
