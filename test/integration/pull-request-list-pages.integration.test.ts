// The pull request list in pages (docs/metrics.md §10): an owner's pages are cut before the pull requests
// are linked and priced, a member's after; each page holds the same pull requests with the same figures
// as one page of them all, and says whether any is left.
//
// Hand-worked (model-a $1 per million input tokens), one repository, GitHub merge commits:
//   S0 11-01 seed on main, 5 lines by the person
//   PR #1 11-01 10:05 → 12:00: A1 (10 lines of sA, $1.00), M1          cost $1.00
//   PR #2 11-02 10:05 → 12:00: B1 (20 lines of sB, $3.00), M2          cost $3 × 20/30 = $2.00
//   PR #3 11-03 10:05 → 12:00: C1 (10 lines of sB), M3                 cost $3 × 10/30 = $1.00
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsAt, DEV, GITHUB_SECRET, githubMergesAt, type PullRequestScene, pullRequestScene, sha } from '../helpers/pull-requests.ts';
import { usage } from '../helpers/records.ts';

const at = (when: string) => Date.parse(`2026-${when}:00Z`);
const commit = commitsAt(at);
const githubEvent = githubMergesAt(at);
const SHA = { S0: sha('0'), A1: sha('1'), M1: sha('2'), B1: sha('3'), M2: sha('4'), C1: sha('5'), M3: sha('6') };
const RANGE = 'startDate=2026-11-01&endDate=2026-11-04';

let scene: PullRequestScene;

beforeAll(async () => {
  scene = await pullRequestScene({ github: GITHUB_SECRET });
  await scene.ingest([
    usage('model-a', '2026-11-01T09:00:00Z', { input_tokens: 1_000_000 }, false, 'sA'),
    usage('model-a', '2026-11-02T09:00:00Z', { input_tokens: 3_000_000 }, false, 'sB'),
    commit(SHA.S0, '11-01T08:00', [], 5, null),
    commit(SHA.A1, '11-01T10:00', [SHA.S0], 10, 'sA'),
    commit(SHA.M1, '11-01T12:00', [SHA.S0, SHA.A1], 0, null),
    commit(SHA.B1, '11-02T10:00', [SHA.M1], 20, 'sB'),
    commit(SHA.M2, '11-02T12:00', [SHA.M1, SHA.B1], 0, null),
    commit(SHA.C1, '11-03T10:00', [SHA.M2], 10, 'sB'),
    commit(SHA.M3, '11-03T12:00', [SHA.M2, SHA.C1], 0, null),
  ]);
  await scene.batch();
  for (const [number, merge, head, day] of [
    [1, SHA.M1, SHA.A1, '01'],
    [2, SHA.M2, SHA.B1, '02'],
    [3, SHA.M3, SHA.C1, '03'],
  ] as const) {
    await scene.deliverGithub(
      githubEvent({ number, opened: `11-${day}T10:05`, merged: `11-${day}T12:00`, merge, head, commits: 1 }),
      `d${number}`,
    );
  }
}, 60_000);
afterAll(async () => scene.server.close());

interface Page {
  data: { number: number; commits: string[]; cost_usd: number | null; [k: string]: unknown }[];
  meta: { has_more: boolean; next_cursor: string | null };
}

/** The pages of `limit` pull requests, following next_cursor, with `key` (the owner's by default). */
async function pages(limit: number, key = scene.ownerKey): Promise<Page[]> {
  const out: Page[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams(`${RANGE}&limit=${limit}`);
    if (cursor) query.set('cursor', cursor);
    const res = await scene.server.app.inject({
      method: 'GET',
      url: `/api/v0/code/pull_requests?${query}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    out.push(res.json() as Page);
    cursor = out.at(-1)!.meta.next_cursor;
  } while (cursor && out.length < 10);
  return out;
}

describe('the pull request list in pages', () => {
  it('holds them all in one page of as many, with nothing left', async () => {
    const [all, ...rest] = await pages(3);
    expect(rest).toEqual([]);
    expect(all!.meta).toMatchObject({ has_more: false, next_cursor: null });
    expect(all!.data.map((p) => [p.number, p.commits, p.cost_usd])).toEqual([
      [3, [SHA.C1, SHA.M3].sort(), 1],
      [2, [SHA.B1, SHA.M2].sort(), 2],
      [1, [SHA.A1, SHA.M1].sort(), 1],
    ]);
  });

  it('pages them one by one with the same figures, saying on each but the last that more are left', async () => {
    const [all] = await pages(3);
    const single = await pages(1);
    expect(single.map((p) => p.meta.has_more)).toEqual([true, true, false]);
    expect(single.at(-1)!.meta.next_cursor).toBeNull();
    expect(single.flatMap((p) => p.data)).toEqual(all!.data);
    const pairs = await pages(2);
    expect(pairs.map((p) => [p.data.length, p.meta.has_more])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(pairs.flatMap((p) => p.data)).toEqual(all!.data);
  });

  it("gives the developer, paged after linking, their pull requests with the owner's figures", async () => {
    const [owner] = await pages(3);
    const mine = await pages(2, scene.keys[DEV]);
    expect(mine.map((p) => p.meta.has_more)).toEqual([true, false]);
    expect(mine.flatMap((p) => p.data)).toEqual(owner!.data);
  });
});
