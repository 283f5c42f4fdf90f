// Which landed commits a merged pull request brought to the default branch (docs/metrics.md §10): its
// merge commit's first-parent change, its squash commit, or its rebased commits, by commit id. The server
// knows the landed commits its users' machines reported (docs/metrics.md §5), each with its parents; a
// commit no machine reported (another person's, a merge commit made by the host) is a gap the walk cannot
// cross, so a link errs low, never high.

/** A landed commit as linking sees it: its parents (first parent first) and committer time. */
export interface CommitNode {
  parents: readonly string[];
  /** Committer time, epoch milliseconds. */
  ts: number;
}

/** The landed commits linking may follow, by id (a Map; or a view keeping a pull request's window). */
export type CommitGraph = Pick<ReadonlyMap<string, CommitNode>, 'get' | 'has'>;

export interface LinkablePullRequest {
  host: 'github' | 'gitlab';
  mergeCommitId: string | null;
  squashCommitId: string | null;
  headCommitId: string | null;
  commitCount: number | null;
  openedAt: number;
}

/** The most commits one pull request is linked to, and the most commits a walk looks at. */
export const MAX_LINKED_COMMITS = 250;
const MAX_WALK = 5000;

/** The first-parent chain from `start`, while `keep` holds and the commits are known. */
function firstParentChain(start: string, graph: CommitGraph, limit: number, keep: (id: string, node: CommitNode) => boolean) {
  const chain: string[] = [];
  let id: string | undefined = start;
  while (id !== undefined && chain.length < limit) {
    const node = graph.get(id);
    if (!node || !keep(id, node)) break;
    chain.push(id);
    id = node.parents[0];
  }
  return chain;
}

/** The known ancestors of `start` (itself included), at most MAX_WALK of them. */
function ancestors(start: string | undefined, graph: CommitGraph, stop: ReadonlySet<string> = new Set()): string[] {
  const seen = new Set<string>();
  const queue = start === undefined ? [] : [start];
  while (queue.length > 0 && seen.size < MAX_WALK) {
    const id = queue.pop()!;
    if (seen.has(id) || stop.has(id)) continue;
    const node = graph.get(id);
    if (!node) continue;
    seen.add(id);
    queue.push(...node.parents);
  }
  return [...seen];
}

/**
 * A merge commit's first-parent change: what its other parents bring that its first parent has not. The
 * first parent's known ancestors are only part of main when a commit no machine reported sits on it (a
 * colleague's): past that gap, main's earlier commits would look like the branch's. When the pull request
 * says how many commits it had, each other parent's first-parent chain of at most that many is taken, so a
 * gap errs low; without a count (GitLab), every known ancestor main is not known to have.
 */
function mergedBranch(mergeId: string, node: CommitNode, graph: CommitGraph, count: number | null): string[] {
  const base = new Set(ancestors(node.parents[0], graph));
  const branch = (p: string) => (count === null ? ancestors(p, graph, base) : firstParentChain(p, graph, count, (id) => !base.has(id)));
  return [mergeId, ...node.parents.slice(1).flatMap(branch)];
}

/**
 * Pure: the landed commits (ids known to `graph`) a merged pull request brought, in no particular order.
 * - A squash commit (GitLab names it): that commit, and the merge commit that brought it when there is one.
 * - A merge commit with two or more parents: it and its first-parent change (mergedBranch).
 * - GitHub's head commit landed as it is (a merge or a fast-forward): the head's first-parent chain, as
 *   many commits as the pull request had.
 * - Otherwise GitHub's merge commit id names a squash commit or the last rebased commit: it, and the
 *   commits before it that the host rebased at the same moment (the same committer time), up to the
 *   pull request's count.
 * - GitLab without a merge commit (fast-forward): the head's first-parent chain back to the opening of
 *   the merge request.
 * The last two walks stop at a commit that `named` holds and this pull request does not name: another
 * merged pull request's own commit (a merge queue squashes or rebases several at the same moment).
 */
export function linkedCommits(pr: LinkablePullRequest, graph: CommitGraph, named: ReadonlySet<string> = new Set()): string[] {
  const own = new Set([pr.mergeCommitId, pr.squashCommitId, pr.headCommitId]);
  const anothers = (id: string) => named.has(id) && !own.has(id);
  const linked = new Set<string>();
  const limit = Math.min(pr.commitCount ?? MAX_LINKED_COMMITS, MAX_LINKED_COMMITS);
  const merge = pr.mergeCommitId ? graph.get(pr.mergeCommitId) : undefined;
  if (pr.squashCommitId && graph.has(pr.squashCommitId)) {
    linked.add(pr.squashCommitId);
    if (merge && merge.parents.length > 1) linked.add(pr.mergeCommitId!);
  } else if (merge && merge.parents.length > 1) {
    for (const id of mergedBranch(pr.mergeCommitId!, merge, graph, pr.commitCount === null ? null : limit)) linked.add(id);
  } else if (pr.host === 'github' && pr.headCommitId && graph.has(pr.headCommitId)) {
    for (const id of firstParentChain(pr.headCommitId, graph, limit, () => true)) linked.add(id);
    if (merge) linked.add(pr.mergeCommitId!);
  } else if (merge) {
    for (const id of firstParentChain(pr.mergeCommitId!, graph, limit, (id, node) => node.ts === merge.ts && !anothers(id))) linked.add(id);
  } else if (pr.host === 'gitlab' && pr.headCommitId) {
    for (const id of firstParentChain(pr.headCommitId, graph, limit, (id, node) => node.ts >= pr.openedAt && !anothers(id))) linked.add(id);
  }
  return [...linked].slice(0, MAX_LINKED_COMMITS);
}
