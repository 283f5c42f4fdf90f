// Linking a merged pull request to the landed commits it brought (api/pull-requests/link.ts), on small
// commit graphs drawn by hand: main m1-m2, a branch b1-b2, and what each way of merging leaves on main.
import { describe, expect, it } from 'vitest';
import { type CommitNode, type LinkablePullRequest, linkedCommits } from '../../api/pull-requests/link.ts';

const T = (minute: number) => Date.parse('2026-11-02T10:00:00Z') + minute * 60_000;
const graphOf = (nodes: Record<string, [string[], number]>) =>
  new Map<string, CommitNode>(Object.entries(nodes).map(([id, [parents, ts]]) => [id, { parents, ts }]));
const pr = (over: Partial<LinkablePullRequest>): LinkablePullRequest => ({
  host: 'github',
  mergeCommitId: null,
  squashCommitId: null,
  headCommitId: null,
  commitCount: null,
  openedAt: T(5),
  ...over,
});

describe('linkedCommits', () => {
  it('a merge commit brings its first-parent change: the branch commits, not main before it', () => {
    // m1 - m2 ------ M
    //   \           /
    //    b1 - b2 --
    const graph = graphOf({ m1: [[], T(0)], m2: [['m1'], T(3)], b1: [['m1'], T(4)], b2: [['b1'], T(6)], M: [['m2', 'b2'], T(9)] });
    expect(linkedCommits(pr({ mergeCommitId: 'M', headCommitId: 'b2', commitCount: 2 }), graph).sort()).toEqual(['M', 'b1', 'b2']);
  });

  it("a merge whose first parent is unknown (a colleague's commit on main): the branch's own commits, up to the count, not main before it", () => {
    // s - a - M1 - - - - - - M2, with x (unknown) between M1 and M2 on main
    //  \ /     \            /
    //            b --------
    const graph = graphOf({ s: [[], T(0)], a: [['s'], T(1)], M1: [['s', 'a'], T(2)], b: [['M1'], T(4)], M2: [['x', 'b'], T(9)] });
    expect(linkedCommits(pr({ mergeCommitId: 'M2', headCommitId: 'b', commitCount: 1 }), graph).sort()).toEqual(['M2', 'b']);
  });

  it("GitHub's merge commit unknown (made by the host for a person agentmeter does not know): the head's chain, as many as the pull request had", () => {
    const graph = graphOf({ m1: [[], T(0)], b1: [['m1'], T(4)], b2: [['b1'], T(6)] });
    expect(linkedCommits(pr({ mergeCommitId: 'M', headCommitId: 'b2', commitCount: 2 }), graph).sort()).toEqual(['b1', 'b2']);
  });

  it('a squash commit is the one commit, not the main commit before it', () => {
    // m1 - m2 - S, where m2 was made after the pull request opened
    const graph = graphOf({ m1: [[], T(0)], m2: [['m1'], T(7)], S: [['m2'], T(9)] });
    expect(linkedCommits(pr({ mergeCommitId: 'S', headCommitId: 'b3', commitCount: 3 }), graph)).toEqual(['S']);
  });

  it('rebased commits share the moment the host rebased them: the chain at that committer time, up to the count', () => {
    // m1 - m2 - r1 - r2 - r3 (r1..r3 rebased at T(9); m2 at T(9) too would be a coincidence the count bounds)
    const graph = graphOf({ m1: [[], T(0)], m2: [['m1'], T(8)], r1: [['m2'], T(9)], r2: [['r1'], T(9)], r3: [['r2'], T(9)] });
    expect(linkedCommits(pr({ mergeCommitId: 'r3', headCommitId: 'b3', commitCount: 3 }), graph)).toEqual(['r3', 'r2', 'r1']);
    expect(linkedCommits(pr({ mergeCommitId: 'r3', headCommitId: 'b3', commitCount: 2 }), graph)).toEqual(['r3', 'r2']);
  });

  it('a merge queue squashes two pull requests at one moment: the chain stops at the commit the one before is named by', () => {
    // m1 - s1 - s2, s1 and s2 at T(9): s1 is the first pull request's squash commit
    const graph = graphOf({ m1: [[], T(0)], s1: [['m1'], T(9)], s2: [['s1'], T(9)] });
    expect(linkedCommits(pr({ mergeCommitId: 's2', headCommitId: 'b3', commitCount: 3 }), graph, new Set(['s1', 's2']))).toEqual(['s2']);
    expect(linkedCommits(pr({ mergeCommitId: 's1', headCommitId: 'a2', commitCount: 2 }), graph, new Set(['s1', 's2']))).toEqual(['s1']);
  });

  it("GitLab's squash commit, and the merge commit that brought it", () => {
    const graph = graphOf({ m1: [[], T(0)], S: [['m1'], T(9)], M: [['m1', 'S'], T(9)] });
    expect(linkedCommits(pr({ host: 'gitlab', mergeCommitId: 'M', squashCommitId: 'S', headCommitId: 'b2' }), graph).sort()).toEqual([
      'M',
      'S',
    ]);
  });

  it("GitLab's fast-forward: the head's chain back to the opening of the merge request", () => {
    const graph = graphOf({ m1: [[], T(0)], b1: [['m1'], T(6)], b2: [['b1'], T(7)] });
    expect(linkedCommits(pr({ host: 'gitlab', headCommitId: 'b2', openedAt: T(5) }), graph)).toEqual(['b2', 'b1']);
  });

  it('nothing known: no link (it is made when the commits arrive)', () => {
    expect(linkedCommits(pr({ mergeCommitId: 'M', headCommitId: 'b2', commitCount: 2 }), new Map())).toEqual([]);
  });
});
