// Pull requests merged today (docs/metrics.md §10): the list shows them (today included), each with the
// cost of the sessions whose lines it holds. A session's dollars of today are no batch's yet: the live
// figures (the batch's own steps over what has arrived, api/today/) have them.
//
// Hand-worked (org price: model-a $1 per million input tokens), today 2026-11-05 (the clock: 12:00):
//   session s1 spent 300,000 tokens yesterday ($0.30) and 500,000 today 08:00 ($0.50), and wrote A (20
//     lines), merged as PR #1 by M at 10:00: $0.80.
//   session s2 spent 1,000,000 tokens today 09:00 ($1.00) and wrote B (10 lines), PR #2 by N at 11:00: $1.00.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsAt, GITHUB_SECRET, githubMergesAt, type PullRequestScene, pullRequestScene, sha } from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';

const at = (hhmm: string) => Date.parse(`2026-11-05T${hhmm}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = { A: sha('1'), M: sha('2'), B: sha('3'), N: sha('4') };

let scene: PullRequestScene;

beforeAll(async () => {
  scene = await pullRequestScene({ github: GITHUB_SECRET });
  await scene.ingest([usage('model-a', '2026-11-04T15:00:00Z', { input_tokens: 300_000 }, false, 's1')]);
  await scene.batch();
  await scene.ingest([
    usage('model-a', '2026-11-05T08:00:00Z', { input_tokens: 500_000 }, false, 's1'),
    usage('model-a', '2026-11-05T09:00:00Z', { input_tokens: 1_000_000 }, false, 's2'),
    commit(SHA.A, '09:30', [], 20, 's1'),
    commit(SHA.M, '10:00', [sha('9'), SHA.A], 0, null),
    commit(SHA.B, '10:30', [], 10, 's2'),
    commit(SHA.N, '11:00', [sha('8'), SHA.B], 0, null),
  ]);
  await scene.deliverGithub(githubEvent({ number: 1, opened: '09:35', merged: '10:00', merge: SHA.M, head: SHA.A, commits: 1 }), 'd1');
  await scene.deliverGithub(githubEvent({ number: 2, opened: '10:35', merged: '11:00', merge: SHA.N, head: SHA.B, commits: 1 }), 'd2');
}, 60_000);
afterAll(async () => scene.server.close());

describe('a pull request merged today', () => {
  it('costs what its sessions spent, today included', async () => {
    const list = await scene.get('/api/v0/code/pull_requests?startDate=2026-11-05&endDate=2026-11-05');
    expect(list.data.map((p: { number: number; cost_usd: number }) => [p.number, p.cost_usd])).toEqual([
      [2, 1],
      [1, 0.8],
    ]);
  });
});
