// The pull request figures of a range read only what the range needs (docs/metrics.md §10), and are the
// same as those of the same pull requests read from a wider range, cell by cell: a session whose lines
// reached a pull request outside the range keeps its split, one whose lines reached a pull request merged
// after the range is shipped, and a pull request's commits do not depend on which others are read with it.
//
// Hand-worked (org price: model-a $1 per million input tokens from 2026-06-01), one repository, GitHub
// merge commits; main: S0 → M1 → M2 → M3 → F1 → M6 → M4 → M5.
//   S0 07-01 seed on main, 5 lines by the person
//   PR #1 07-10 10:05 → 12:00: A1 (10 lines of sA, $1.00), M1                      cost $1.00
//   PR #2 09-15 10:05 → 12:00: B1 (20 lines of sB, $3.00), M2                      cost $3 × 20/30 = $2.00
//   PR #3 10-20 10:05 → 12:00: C1 (10 lines of sB), C2 (5 lines of sC, $0.50), M3  cost $3 × 10/30 + $0.50 = $1.50
//   F1 10-25 pushed to main: 4 lines of sF ($0.40): no pull request
//   PR #6 10-25 10:00 → 10-26 12:00: H1 (7 lines of sH, $0.70, committed 07-20 off M1), M6. H1 is older than
//     90 days before the opening: the link errs low, whatever range reads it: M6 alone, 0 lines, $0
//   PR #4 11-02 10:05 → 12:00: D1 (8 lines of sD, $2.00), M4                       cost $2.00
//   PR #5 10-28 10:05 → 11-03 12:00: G1 (6 lines of sG, $0.60, committed 10-28), M5 cost $0.60
//   sE ($0.25, 10-21) writes nothing that lands.
// October: #3 on 10-20 ($1.50, 15 lines, 1.92 h) and #6 on 10-26 ($0, 26 h); not shipped: 10-21 $0.25 (sE),
// 10-24 $0.40 (sF); sC is shipped (#3) and sG too (#5, merged in November).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsAt, GITHUB_SECRET, githubMergesAt, type PullRequestScene, pullRequestScene, sha } from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';
import { putOk } from '../helpers/server.ts';

const at = (when: string) => Date.parse(`2026-${when}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = {
  S0: sha('0'),
  A1: sha('1'),
  M1: sha('2'),
  B1: sha('3'),
  M2: sha('4'),
  C1: sha('5'),
  C2: sha('6'),
  M3: sha('7'),
  F1: sha('8'),
  H1: sha('9'),
  M6: sha('a'),
  D1: sha('b'),
  M4: sha('c'),
  G1: sha('d'),
  M5: sha('e'),
};
const dollars = (n: number) => ({ input_tokens: n * 1_000_000 });

let scene: PullRequestScene;

beforeAll(async () => {
  scene = await pullRequestScene({ github: GITHUB_SECRET, price: false });
  await putOk(scene.server, scene.ownerKey, '/api/v0/organization/pricing', {
    model: 'model-a',
    effectiveFrom: '2026-06-01',
    inputMtok: 1,
    outputMtok: 10,
  });
  await scene.ingest([
    usage('model-a', '2026-07-09T09:00:00Z', dollars(1), false, 'sA'),
    usage('model-a', '2026-07-19T09:00:00Z', dollars(0.7), false, 'sH'),
    usage('model-a', '2026-09-14T09:00:00Z', dollars(3), false, 'sB'),
    usage('model-a', '2026-10-20T09:00:00Z', dollars(0.5), false, 'sC'),
    usage('model-a', '2026-10-21T09:00:00Z', dollars(0.25), false, 'sE'),
    usage('model-a', '2026-10-24T09:00:00Z', dollars(0.4), false, 'sF'),
    usage('model-a', '2026-10-28T09:00:00Z', dollars(0.6), false, 'sG'),
    usage('model-a', '2026-11-02T09:00:00Z', dollars(2), false, 'sD'),
    commit(SHA.S0, '07-01T10:00', [], 5, null),
    commit(SHA.A1, '07-10T10:00', [SHA.S0], 10, 'sA'),
    commit(SHA.M1, '07-10T12:00', [SHA.S0, SHA.A1], 0, null),
    commit(SHA.H1, '07-20T10:00', [SHA.M1], 7, 'sH'),
    commit(SHA.B1, '09-15T10:00', [SHA.M1], 20, 'sB'),
    commit(SHA.M2, '09-15T12:00', [SHA.M1, SHA.B1], 0, null),
    commit(SHA.C1, '10-20T10:00', [SHA.M2], 10, 'sB'),
    commit(SHA.C2, '10-20T11:00', [SHA.C1], 5, 'sC'),
    commit(SHA.M3, '10-20T12:00', [SHA.M2, SHA.C2], 0, null),
    commit(SHA.F1, '10-25T09:00', [SHA.M3], 4, 'sF'),
    commit(SHA.M6, '10-26T12:00', [SHA.F1, SHA.H1], 0, null),
    commit(SHA.G1, '10-28T10:00', [SHA.F1], 6, 'sG'),
    commit(SHA.D1, '11-02T10:00', [SHA.F1], 8, 'sD'),
    commit(SHA.M4, '11-02T12:00', [SHA.M6, SHA.D1], 0, null),
    commit(SHA.M5, '11-03T12:00', [SHA.M4, SHA.G1], 0, null),
  ]);
  await scene.batch();
  const prs = [
    { number: 1, opened: '07-10T10:05', merged: '07-10T12:00', merge: SHA.M1, head: SHA.A1, commits: 1 },
    { number: 2, opened: '09-15T10:05', merged: '09-15T12:00', merge: SHA.M2, head: SHA.B1, commits: 1 },
    { number: 3, opened: '10-20T10:05', merged: '10-20T12:00', merge: SHA.M3, head: SHA.C2, commits: 2 },
    { number: 6, opened: '10-25T10:00', merged: '10-26T12:00', merge: SHA.M6, head: SHA.H1, commits: 1 },
    { number: 4, opened: '11-02T10:05', merged: '11-02T12:00', merge: SHA.M4, head: SHA.D1, commits: 1 },
    { number: 5, opened: '10-28T10:05', merged: '11-03T12:00', merge: SHA.M5, head: SHA.G1, commits: 1 },
  ];
  for (const pr of prs) await scene.deliverGithub(githubEvent(pr), `d${pr.number}`);
}, 60_000);
afterAll(async () => scene.server.close());

const OCTOBER = 'startDate=2026-10-01&endDate=2026-10-31';
const WIDE = 'startDate=2026-06-01&endDate=2026-11-04';
type Listed = { number: number; commits: string[]; cost_usd: number | null; [k: string]: unknown };
const list = async (range: string): Promise<Listed[]> => (await scene.get(`/api/v0/code/pull_requests?${range}&limit=100`)).data;
const days = async (range: string, extra = '') =>
  (await scene.get(`/api/v1/analytics/pull_requests?${range}${extra}`)).data as { date: string; [k: string]: unknown }[];

describe('a narrow range and a wide one', () => {
  it('list the same pull requests with the same figures, cell by cell', async () => {
    const narrow = await list(OCTOBER);
    const wide = await list(WIDE);
    expect(narrow.map((p) => p.number)).toEqual([6, 3]);
    expect(wide.map((p) => p.number)).toEqual([5, 4, 6, 3, 2, 1]);
    expect(narrow).toEqual(wide.filter((p) => p.number === 3 || p.number === 6));
    const byNumber = Object.fromEntries(wide.map((p) => [p.number, p]));
    // sB's $3 split by its 30 credited lines: 20 in #2 (outside October), 10 in #3.
    expect(byNumber[2]).toMatchObject({ commits: [SHA.B1, SHA.M2].sort(), lines_added: 20, cost_usd: 2 });
    expect(byNumber[3]).toMatchObject({ commits: [SHA.C1, SHA.C2, SHA.M3].sort(), lines_added: 15, agent_lines: 15, cost_usd: 1.5 });
    // H1 is older than 90 days before #6 opened: not linked, however early the range's first opening is.
    expect(byNumber[6]).toMatchObject({ commits: [SHA.M6], lines_added: 0, cost_usd: 0, hours_to_merge: 26 });
    expect(byNumber[5]).toMatchObject({ commits: [SHA.G1, SHA.M5].sort(), cost_usd: 0.6 });
    expect(byNumber[1]).toMatchObject({ cost_usd: 1 });
    expect(byNumber[4]).toMatchObject({ cost_usd: 2 });
  });

  it('give each day the same record, not-shipped cost included', async () => {
    const narrow = await days(OCTOBER);
    const wide = await days(WIDE);
    expect(narrow).toHaveLength(31);
    expect(narrow).toEqual(wide.filter((d) => d.date >= '2026-10-01' && d.date <= '2026-10-31'));
    const byDate = Object.fromEntries(narrow.map((d) => [d.date, d]));
    expect(byDate['2026-10-20']).toMatchObject({
      merged: 1,
      lines_added: 15,
      cost_usd: 1.5,
      median_hours_to_merge: 1.92,
      not_shipped_cost_usd: 0,
    });
    expect(byDate['2026-10-26']).toMatchObject({ merged: 1, lines_added: 0, cost_usd: 0, median_hours_to_merge: 26 });
    // sE and sF reached no pull request; sG's lines reached #5, merged after October.
    expect(byDate['2026-10-21']).toMatchObject({ merged: 0, not_shipped_cost_usd: 0.25 });
    expect(byDate['2026-10-24']).toMatchObject({ not_shipped_cost_usd: 0.4 });
    expect(byDate['2026-10-28']).toMatchObject({ not_shipped_cost_usd: 0 });
    expect(byDate['2026-09-15']).toBeUndefined();
    expect(Object.fromEntries(wide.map((d) => [d.date, d]))['2026-07-19']).toMatchObject({ not_shipped_cost_usd: 0.7 });
  });

  it('group by repository alike', async () => {
    const narrow = await days(OCTOBER, '&group_by=repo');
    const wide = await days(WIDE, '&group_by=repo');
    expect(narrow).toEqual(wide.filter((d) => d.date >= '2026-10-01' && d.date <= '2026-10-31'));
    expect(narrow.map((d) => [d.date, d['cost_usd']])).toEqual([
      ['2026-10-20', 1.5],
      ['2026-10-26', 0],
    ]);
  });
});
