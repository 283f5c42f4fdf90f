// Linking a range's pull requests at once (report.ts linkedIds: each repository's commits resolved to
// handles once, each pull request walking its own window, asking about a branch's commits from them down)
// gives each pull request what linkedCommits gives it alone, over a Map of its repository's commits in its
// window: on generated histories of merges, squashes and rebases, and on hand-drawn graphs where the two
// ways of asking could part: the window's edges, main broken by a commit outside the window, and a main
// longer than a walk looks at.
import { describe, expect, it } from 'vitest';
import { type CommitNode, linkedCommits } from '../../api/pull-requests/link.ts';
import { linkedIds, linkTarget } from '../../api/pull-requests/report.ts';
import { DAY_MS, type GraphRow, LINK_WINDOW_DAYS, type MergedRow } from '../../api/pull-requests/store.ts';

const T0 = Date.parse('2026-06-01T00:00:00Z');
const merged = (over: Partial<MergedRow>): MergedRow => ({
  repo: 'r',
  number: 1,
  host: 'github',
  author: null,
  opened_ms: T0,
  merged_ms: T0 + DAY_MS,
  merge_commit_id: null,
  squash_commit_id: null,
  head_commit_id: null,
  commit_count: null,
  ...over,
});

/** What linkedCommits gives each pull request alone, over its repository's commits in its window. */
function alone(prs: readonly MergedRow[], graph: readonly GraphRow[], named: ReadonlySet<string>): string[][] {
  return prs.map((p) => {
    const from = p.opened_ms - LINK_WINDOW_DAYS * DAY_MS;
    const to = p.merged_ms + DAY_MS;
    const map = new Map<string, CommitNode>();
    for (const c of graph)
      if (c.repo === p.repo && c.ts_ms >= from && c.ts_ms <= to) map.set(c.commit_id, { parents: c.parents, ts: c.ts_ms });
    return linkedCommits(linkTarget(p), map, named).sort();
  });
}

/** A small deterministic generator (a linear congruential one), so a failure names its seed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/**
 * Main as a chain of merges in each repository, each merging a branch of 1 to 4 commits forked from main
 * a few merges back; now and then a squash or a rebase (one commit on main, or several at one committer
 * time), a commit no machine reported (a gap), a merge of main into a branch, a branch forked further back
 * whose count errs high (its chain runs on into main), or a commit whose clock was off by up to 200 days. Times fall on half days,
 * so commits fall on the edges of windows too.
 */
function history(seed: number, repos: number, perRepo: number, longLivedShare = 0.1) {
  const next = random(seed);
  const HALF_DAY = DAY_MS / 2;
  const graph: GraphRow[] = [];
  const prs: MergedRow[] = [];
  for (let r = 0; r < repos; r++) {
    const repo = `host/org/r${r}`;
    const main: string[] = [];
    let t = T0;
    const commit = (id: string, parents: string[], ts: number) => {
      const skew = next() < 0.03 ? Math.floor(next() * 800 - 400) * HALF_DAY : 0;
      if (next() >= 0.03) graph.push({ repo, commit_id: id, ts_ms: ts + skew, parents });
    };
    commit(`${repo}:root`, [], t);
    main.push(`${repo}:root`);
    for (let i = 0; i < perRepo; i++) {
      const opened = t + Math.floor(next() * 4) * HALF_DAY;
      const count = 1 + Math.floor(next() * 4);
      t = opened + (count + Math.floor(next() * 10)) * HALF_DAY;
      const longLived = next() < longLivedShare;
      const fork = main[Math.max(0, main.length - 1 - Math.floor(next() * (longLived ? 20 : 4)))]!;
      const branch: string[] = [];
      for (let k = 0; k < count; k++) {
        const id = `${repo}:b${i}.${k}`;
        const parents = k === 0 ? [fork] : next() < 0.1 ? [branch[k - 1]!, main.at(-1)!] : [branch[k - 1]!];
        commit(id, parents, opened + (k + 1) * HALF_DAY);
        branch.push(id);
      }
      const counted = longLived ? count + 1 + Math.floor(next() * 4) : count;
      const kind = next();
      const pr = merged({ repo, number: i + 1, opened_ms: opened, merged_ms: t, head_commit_id: branch.at(-1)! });
      if (kind < 0.6) {
        const id = `${repo}:m${i}`;
        commit(id, [main.at(-1)!, branch.at(-1)!], t);
        main.push(id);
        prs.push({ ...pr, merge_commit_id: id, commit_count: next() < 0.2 ? null : counted });
      } else if (kind < 0.8) {
        const id = `${repo}:s${i}`;
        commit(id, [main.at(-1)!], t);
        main.push(id);
        prs.push({ ...pr, merge_commit_id: id, commit_count: counted, host: next() < 0.5 ? 'github' : 'gitlab' });
      } else {
        for (let k = 0; k < count; k++) {
          const id = `${repo}:r${i}.${k}`;
          commit(id, [main.at(-1)!], t);
          main.push(id);
        }
        prs.push({ ...pr, merge_commit_id: main.at(-1)!, commit_count: counted });
      }
    }
  }
  const named = new Set(prs.flatMap((p) => [p.merge_commit_id, p.squash_commit_id, p.head_commit_id]).filter((id) => id !== null));
  return { graph, prs, named };
}

describe('linkedIds', () => {
  it('a merge brings its branch and not main before it, when main before it is outside the window too', () => {
    // old - m1 ------- M       (old committed long before the window)
    //         \       /
    //          b1 - b2
    const graph: GraphRow[] = [
      { repo: 'r', commit_id: 'old', ts_ms: T0 - 200 * DAY_MS, parents: [] },
      { repo: 'r', commit_id: 'm1', ts_ms: T0 - DAY_MS, parents: ['old'] },
      { repo: 'r', commit_id: 'b1', ts_ms: T0 + 60_000, parents: ['m1'] },
      { repo: 'r', commit_id: 'b2', ts_ms: T0 + 120_000, parents: ['b1'] },
      { repo: 'r', commit_id: 'M', ts_ms: T0 + DAY_MS, parents: ['m1', 'b2'] },
    ];
    const prs = [
      merged({ merge_commit_id: 'M', head_commit_id: 'b2', commit_count: 5 }),
      merged({ number: 2, merge_commit_id: 'M', head_commit_id: 'b2', commit_count: null }),
    ];
    expect(linkedIds(prs, graph, new Set(['M', 'b2']))).toEqual([
      ['M', 'b1', 'b2'],
      ['M', 'b1', 'b2'],
    ]);
  });

  it.each([1, 2, 3, 4, 5, 6])('links each pull request of a generated history as it links alone (seed %i)', (seed) => {
    const { graph, prs, named } = history(seed, 3, 120);
    expect(linkedIds(prs, graph, named)).toEqual(alone(prs, graph, named));
  });

  it('a commit at either edge of the window is in it: from LINK_WINDOW_DAYS before the opening to a day after the merge', () => {
    const pr = merged({ merge_commit_id: 'host-made', head_commit_id: 'h', commit_count: 3 });
    const graph: GraphRow[] = [
      { repo: 'r', commit_id: 'f', ts_ms: pr.opened_ms - LINK_WINDOW_DAYS * DAY_MS - 1, parents: [] },
      { repo: 'r', commit_id: 'g', ts_ms: pr.opened_ms - LINK_WINDOW_DAYS * DAY_MS, parents: ['f'] },
      { repo: 'r', commit_id: 'h', ts_ms: pr.merged_ms + DAY_MS, parents: ['g'] },
    ];
    expect(linkedIds([pr], graph, new Set())).toEqual([['g', 'h']]);
  });

  it('a count that errs high runs on past the fork where main is broken by a commit outside the window', () => {
    // c0 - ... - c10 - ... - c15 (its clock a year off) - ... - c20 - M
    //              \                                           /
    //               b1 ---------------------------------------
    const graph: GraphRow[] = [];
    for (let i = 0; i <= 20; i++) {
      const ts = i === 15 ? T0 - 365 * DAY_MS : T0 + i * 60_000;
      graph.push({ repo: 'r', commit_id: `c${i}`, ts_ms: ts, parents: i === 0 ? [] : [`c${i - 1}`] });
    }
    graph.push({ repo: 'r', commit_id: 'b1', ts_ms: T0 + 30 * 60_000, parents: ['c10'] });
    graph.push({ repo: 'r', commit_id: 'M', ts_ms: T0 + DAY_MS, parents: ['c20', 'b1'] });
    const pr = merged({ merge_commit_id: 'M', head_commit_id: 'b1', commit_count: 3 });
    expect(linkedIds([pr], graph, new Set(['M', 'b1']))).toEqual([['M', 'b1', 'c10', 'c9']]);
    expect(linkedIds([pr], graph, new Set(['M', 'b1']))).toEqual(alone([pr], graph, new Set(['M', 'b1'])));
  });

  it('where main holds more commits than a walk looks at, the walk stops part way, as it does alone', () => {
    // P's second parent brings 5,100 commits of another line, met first: the walk from P stops among
    // them, so c5990, where b1 forked, is not known to be main's and a count that errs high takes it.
    //   c0 - ... - c5990 - ... - c5999 - P - M
    //                 \               /   /
    //   s0 - ... - s5099 ------------    /
    //                   b1 -------------
    const graph: GraphRow[] = [];
    for (let i = 0; i < 6000; i++)
      graph.push({ repo: 'r', commit_id: `c${i}`, ts_ms: T0 + i * 1000, parents: i === 0 ? [] : [`c${i - 1}`] });
    for (let i = 0; i < 5100; i++)
      graph.push({ repo: 'r', commit_id: `s${i}`, ts_ms: T0 + i * 1000, parents: i === 0 ? [] : [`s${i - 1}`] });
    graph.push({ repo: 'r', commit_id: 'P', ts_ms: T0 + 7000 * 1000, parents: ['c5999', 's5099'] });
    graph.push({ repo: 'r', commit_id: 'b1', ts_ms: T0 + 6500 * 1000, parents: ['c5990'] });
    graph.push({ repo: 'r', commit_id: 'M', ts_ms: T0 + 7001 * 1000, parents: ['P', 'b1'] });
    const pr = merged({ merge_commit_id: 'M', head_commit_id: 'b1', commit_count: 3 });
    expect(linkedIds([pr], graph, new Set(['M', 'b1']))).toEqual([['M', 'b1', 'c5989', 'c5990']]);
    expect(linkedIds([pr], graph, new Set(['M', 'b1']))).toEqual(alone([pr], graph, new Set(['M', 'b1'])));
  });
});
