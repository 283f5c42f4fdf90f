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

/**
 * The commits a walk may follow, each by a handle (a small integer) so that a walk marks handles in a
 * typed array rather than hashing ids: a range's pull requests each walk their repository's history.
 */
export interface CommitView {
  /** The handle of `id` when the view holds it, else -1. */
  find(id: string): number;
  id(handle: number): string;
  /** Committer time, epoch milliseconds. */
  ts(handle: number): number;
  /** How many parents the commit has, held by the view or not. */
  parentCount(handle: number): number;
  /** The handle of its k-th parent (first parent first) when the view holds it, else -1. */
  parent(handle: number, k: number): number;
  /** How many commits the view holds (a view that can walk down to children says). */
  size?(): number;
  /**
   * Whether `target` is reached from `handle` walking down to children in the view (so `handle` is one of
   * its known ancestors, or it), looking at most at `budget.left` commits: undefined past them.
   */
  reachesDown?(handle: number, target: number, seen: Marks, budget: { left: number }): boolean | undefined;
}

/** A set of handles, emptied in constant time (a stamp per handle): walks reuse theirs. */
export class Marks {
  private stamps = new Int32Array(256);
  private stamp = 1;

  clear(): void {
    this.stamp++;
    if (this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  has(handle: number): boolean {
    return handle < this.stamps.length && this.stamps[handle] === this.stamp;
  }

  add(handle: number): void {
    if (handle >= this.stamps.length) {
      const grown = new Int32Array(Math.max(handle + 1, this.stamps.length * 2));
      grown.set(this.stamps);
      this.stamps = grown;
    }
    this.stamps[handle] = this.stamp;
  }
}

/** The marks one linking uses, kept from one pull request to the next. */
export class LinkScratch {
  readonly base = new Marks();
  readonly seen = new Marks();
  readonly linked = new Marks();
}

/** A view of a Map (or any CommitGraph), handing out handles as the walk meets the commits. */
class GraphView implements CommitView {
  private readonly ids: string[] = [];
  private readonly nodes: CommitNode[] = [];
  private readonly handles = new Map<string, number>();

  constructor(private readonly graph: CommitGraph) {}

  find(id: string): number {
    const known = this.handles.get(id);
    if (known !== undefined) return known;
    const node = this.graph.get(id);
    if (!node) return -1;
    this.handles.set(id, this.ids.length);
    this.ids.push(id);
    this.nodes.push(node);
    return this.ids.length - 1;
  }

  id(h: number): string {
    return this.ids[h]!;
  }

  ts(h: number): number {
    return this.nodes[h]!.ts;
  }

  parentCount(h: number): number {
    return this.nodes[h]!.parents.length;
  }

  parent(h: number, k: number): number {
    return this.find(this.nodes[h]!.parents[k]!);
  }
}

/** A repository's commits resolved to handles: times, parents (-1: not among the commits) and children. */
interface Resolved {
  handles: ReadonlyMap<string, number>;
  ids: readonly string[];
  ts: Float64Array;
  /** The times in order, to count a window's commits. */
  sorted: Float64Array;
  /** The parents of h are parents[start[h]] to parents[start[h + 1] - 1]; its children likewise. */
  start: Int32Array;
  parents: Int32Array;
  childStart: Int32Array;
  children: Int32Array;
}

/** How many of the ascending `sorted` are below `x` (or at most `x` with `orEqual`). */
function rank(sorted: Float64Array, x: number, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x || (orEqual && sorted[mid] === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The commits of a Resolved committed from `from` to `to` (epoch milliseconds, inclusive). */
class WindowView implements CommitView {
  constructor(
    private readonly commits: Resolved,
    private readonly from: number,
    private readonly to: number,
  ) {}

  private held(h: number): boolean {
    const ts = this.commits.ts[h]!;
    return ts >= this.from && ts <= this.to;
  }

  find(id: string): number {
    const h = this.commits.handles.get(id);
    return h !== undefined && this.held(h) ? h : -1;
  }

  id(h: number): string {
    return this.commits.ids[h]!;
  }

  ts(h: number): number {
    return this.commits.ts[h]!;
  }

  parentCount(h: number): number {
    return this.commits.start[h + 1]! - this.commits.start[h]!;
  }

  parent(h: number, k: number): number {
    const p = this.commits.parents[this.commits.start[h]! + k]!;
    return p !== -1 && this.held(p) ? p : -1;
  }

  size(): number {
    return rank(this.commits.sorted, this.to, true) - rank(this.commits.sorted, this.from, false);
  }

  reachesDown(h: number, target: number, seen: Marks, budget: { left: number }): boolean | undefined {
    const { childStart, children } = this.commits;
    seen.clear();
    seen.add(h);
    const stack = [h];
    while (stack.length > 0) {
      const x = stack.pop()!;
      if (x === target) return true;
      if (--budget.left < 0) return undefined;
      for (let i = childStart[x]!; i < childStart[x + 1]!; i++) {
        const c = children[i]!;
        if (!seen.has(c) && this.held(c)) {
          seen.add(c);
          stack.push(c);
        }
      }
    }
    return false;
  }
}

/**
 * One repository's landed commits by handle, their parents resolved to handles once: the views of all its
 * pull requests (each its own window of committer times) share it. A commit added twice keeps the last.
 */
export class RepoCommits {
  private readonly handles = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly times: number[] = [];
  private readonly parentIds: (readonly string[])[] = [];
  private resolved: Resolved | undefined;

  add(id: string, ts: number, parents: readonly string[]): void {
    const known = this.handles.get(id);
    const h = known ?? this.ids.length;
    if (known === undefined) {
      this.handles.set(id, h);
      this.ids.push(id);
    }
    this.times[h] = ts;
    this.parentIds[h] = parents;
    this.resolved = undefined;
  }

  private resolve(): Resolved {
    if (this.resolved) return this.resolved;
    const n = this.ids.length;
    const start = new Int32Array(n + 1);
    for (let h = 0; h < n; h++) start[h + 1] = start[h]! + this.parentIds[h]!.length;
    const parents = new Int32Array(start[n]!);
    const childStart = new Int32Array(n + 1);
    for (let h = 0; h < n; h++) {
      const list = this.parentIds[h]!;
      for (let k = 0; k < list.length; k++) {
        const p = this.handles.get(list[k]!) ?? -1;
        parents[start[h]! + k] = p;
        if (p !== -1) childStart[p + 1]!++;
      }
    }
    for (let h = 0; h < n; h++) childStart[h + 1]! += childStart[h]!;
    const children = new Int32Array(childStart[n]!);
    const filled = childStart.slice(0, n);
    for (let h = 0; h < n; h++) {
      for (let i = start[h]!; i < start[h + 1]!; i++) if (parents[i] !== -1) children[filled[parents[i]!]!++] = h;
    }
    const ts = Float64Array.from(this.times);
    const sorted = ts.slice().sort();
    this.resolved = { handles: this.handles, ids: this.ids, ts, sorted, start, parents, childStart, children };
    return this.resolved;
  }

  /** The commits committed from `from` to `to` (epoch milliseconds, inclusive). */
  view(from: number, to: number): CommitView {
    return new WindowView(this.resolve(), from, to);
  }
}

/** The first-parent chain from `start`, while `keep` holds and the commits are known. */
function firstParentChain(start: number, view: CommitView, limit: number, keep: (h: number) => boolean): number[] {
  const chain: number[] = [];
  let h = start;
  while (h !== -1 && chain.length < limit) {
    if (!keep(h)) break;
    chain.push(h);
    h = view.parentCount(h) > 0 ? view.parent(h, 0) : -1;
  }
  return chain;
}

/**
 * The known ancestors of `start` (itself included), at most MAX_WALK of them, marked in `seen` (cleared
 * first) and listed in the order met; none of `stop` is entered.
 */
function ancestors(start: number, view: CommitView, seen: Marks, stop?: Marks): number[] {
  seen.clear();
  const out: number[] = [];
  const stack = start === -1 ? [] : [start];
  while (stack.length > 0 && out.length < MAX_WALK) {
    const h = stack.pop()!;
    if (seen.has(h) || stop?.has(h)) continue;
    seen.add(h);
    out.push(h);
    for (let k = 0, n = view.parentCount(h); k < n; k++) {
      const p = view.parent(h, k);
      if (p !== -1) stack.push(p);
    }
  }
  return out;
}

/**
 * A merge commit's first-parent change: what its other parents bring that its first parent has not. The
 * first parent's known ancestors are only part of main when a commit no machine reported sits on it (a
 * colleague's): past that gap, main's earlier commits would look like the branch's. When the pull request
 * says how many commits it had, each other parent's first-parent chain of at most that many is taken, so a
 * gap errs low; without a count (GitLab), every known ancestor main is not known to have.
 */
function mergedBranch(merge: number, view: CommitView, count: number | null, scratch: LinkScratch): number[] {
  const first = view.parent(merge, 0);
  const inBase = count === null ? undefined : ancestorTest(first, view, scratch);
  if (!inBase) ancestors(first, view, scratch.base);
  const out = [merge];
  for (let k = 1, n = view.parentCount(merge); k < n; k++) {
    const p = view.parent(merge, k);
    out.push(...(inBase ? firstParentChain(p, view, count!, (h) => !inBase(h)) : ancestors(p, view, scratch.seen, scratch.base)));
  }
  return out;
}

/**
 * Whether a commit of the view is one of the known ancestors of `start` (ancestors(start), it included).
 * Walking up from `start` takes main's whole history in the window, for each pull request, when the
 * question is only about a few branch commits, whose descendants in the window are few: a view that can
 * walk down, holding no more commits than ancestors() looks at (so it would take them all), is asked
 * from the commit down instead. Past as many commits as the view holds, ancestors() is walked once.
 */
function ancestorTest(start: number, view: CommitView, scratch: LinkScratch): (h: number) => boolean {
  if (start === -1) return () => false;
  const size = view.size?.() ?? MAX_WALK + 1;
  const budget = { left: view.reachesDown && size <= MAX_WALK ? size : 0 };
  let walked = false;
  return (h) => {
    if (!walked && budget.left > 0) {
      const found = view.reachesDown!(h, start, scratch.seen, budget);
      if (found !== undefined) return found;
    }
    if (!walked) {
      ancestors(start, view, scratch.base);
      walked = true;
    }
    return scratch.base.has(h);
  };
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
  return linkedCommitsIn(pr, new GraphView(graph), named);
}

/** linkedCommits over a view of handles; `scratch` may be shared by the pull requests linked one by one. */
export function linkedCommitsIn(
  pr: LinkablePullRequest,
  view: CommitView,
  named: ReadonlySet<string> = new Set(),
  scratch: LinkScratch = new LinkScratch(),
): string[] {
  const own = new Set([pr.mergeCommitId, pr.squashCommitId, pr.headCommitId]);
  const anothers = (h: number) => named.has(view.id(h)) && !own.has(view.id(h));
  const linked: number[] = [];
  scratch.linked.clear();
  const link = (h: number) => {
    if (scratch.linked.has(h)) return;
    scratch.linked.add(h);
    linked.push(h);
  };
  const limit = Math.min(pr.commitCount ?? MAX_LINKED_COMMITS, MAX_LINKED_COMMITS);
  const merge = pr.mergeCommitId ? view.find(pr.mergeCommitId) : -1;
  const mergeParents = merge === -1 ? 0 : view.parentCount(merge);
  const squash = pr.squashCommitId ? view.find(pr.squashCommitId) : -1;
  const head = pr.headCommitId ? view.find(pr.headCommitId) : -1;
  if (squash !== -1) {
    link(squash);
    if (mergeParents > 1) link(merge);
  } else if (mergeParents > 1) {
    for (const h of mergedBranch(merge, view, pr.commitCount === null ? null : limit, scratch)) link(h);
  } else if (pr.host === 'github' && head !== -1) {
    for (const h of firstParentChain(head, view, limit, () => true)) link(h);
    if (merge !== -1) link(merge);
  } else if (merge !== -1) {
    const at = view.ts(merge);
    for (const h of firstParentChain(merge, view, limit, (h) => view.ts(h) === at && !anothers(h))) link(h);
  } else if (pr.host === 'gitlab' && head !== -1) {
    for (const h of firstParentChain(head, view, limit, (h) => view.ts(h) >= pr.openedAt && !anothers(h))) link(h);
  }
  return linked.slice(0, MAX_LINKED_COMMITS).map((h) => view.id(h));
}
