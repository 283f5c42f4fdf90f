// Each merged pull request with its commits, lines, agent lines and cost (docs/metrics.md §10), from the
// stored pull requests and landed commits: the link is made when both are known, so a commit that lands
// after its webhook is counted from then on.

import { utcDay } from '../../common/time.ts';
import { hoursToMerge, median, pullRequestCosts, round4, type SessionLines, withLaterCosts } from './figures.ts';
import { LinkScratch, linkedCommitsIn, RepoCommits } from './link.ts';
import {
  type CommitRow,
  DAY_MS,
  type GraphRow,
  type HeldCommit,
  LINK_WINDOW_DAYS,
  type MergedRow,
  type PullRequestReads,
} from './store.ts';

export interface PullRequestFigures {
  repo: string;
  number: number;
  host: 'github' | 'gitlab';
  author: string | null;
  openedAt: number;
  mergedAt: number;
  hoursToMerge: number;
  /** The users whose landed commits it holds. */
  users: string[];
  commits: string[];
  linesAdded: number;
  agentLines: number;
  byAgent: { agent: string; model: string; lines: number }[];
  sessions: SessionLines[];
  costUsd: number | null;
}

const prKey = (p: { repo: string; number: number }) => `${p.repo}#${p.number}`;

/** The commit ids merged pull requests are named by: the walks of linkedCommits stop at another's. */
export const namedCommits = (prs: readonly MergedRow[]) =>
  new Set(prs.flatMap((p) => [p.merge_commit_id, p.squash_commit_id, p.head_commit_id]).filter((id): id is string => id !== null));

/** Pure: what linking reads of a merged pull request's row. */
export const linkTarget = (p: MergedRow) => ({
  host: p.host,
  mergeCommitId: p.merge_commit_id,
  squashCommitId: p.squash_commit_id,
  headCommitId: p.head_commit_id,
  commitCount: p.commit_count,
  openedAt: p.opened_ms,
});

/**
 * Pure: the commits linking gives each pull request (sorted ids, in the order of `prs`). A pull request sees
 * only its repository's commits from LINK_WINDOW_DAYS before it opened to a day after its merge, whatever
 * else `graph` holds: its commits are the same read with any other pull requests. `named`: the commits
 * merged pull requests of the organization are named by (namedCommits), those of `graph` at least.
 */
export function linkedIds(
  prs: readonly MergedRow[],
  graph: readonly GraphRow[],
  named: ReadonlySet<string> = namedCommits(prs),
): string[][] {
  const byRepo = new Map<string, RepoCommits>();
  for (const c of graph) {
    const repo = byRepo.get(c.repo) ?? new RepoCommits();
    repo.add(c.commit_id, c.ts_ms, c.parents);
    byRepo.set(c.repo, repo);
  }
  const none = new RepoCommits();
  const scratch = new LinkScratch();
  return prs.map((p) => {
    const view = (byRepo.get(p.repo) ?? none).view(p.opened_ms - LINK_WINDOW_DAYS * DAY_MS, p.merged_ms + DAY_MS);
    return linkedCommitsIn(linkTarget(p), view, named, scratch).sort();
  });
}

/**
 * Pure: each pull request with its commits (`ids[i]` for `prs[i]`, from linkedIds), their lines and their
 * sessions' lines, its cost not yet set (0). `commits` holds those commits at least.
 */
export function pullRequestsOf(prs: readonly MergedRow[], ids: readonly string[][], commits: readonly HeldCommit[]): PullRequestFigures[] {
  // By repository, then id: a key joined from the two is a new string to hash at every lookup.
  const byRepo = new Map<string, Map<string, HeldCommit>>();
  for (const c of commits) {
    const repo = byRepo.get(c.repo) ?? new Map<string, HeldCommit>();
    repo.set(c.commit_id, c);
    byRepo.set(c.repo, repo);
  }
  return prs.map((p, i) => {
    const linked = ids[i] ?? [];
    const repo = byRepo.get(p.repo);
    const held = repo ? linked.map((id) => repo.get(id)).filter((c): c is HeldCommit => c !== undefined) : [];
    const agents = new Map<string, number>();
    const sessions = new Map<string, number>();
    for (const c of held) {
      for (const a of c.by_agent) agents.set(`${a.agent}\n${a.model}`, (agents.get(`${a.agent}\n${a.model}`) ?? 0) + a.lines);
      for (const s of c.by_session) if (s.session_id) sessions.set(s.session_id, (sessions.get(s.session_id) ?? 0) + s.lines);
    }
    return {
      repo: p.repo,
      number: p.number,
      host: p.host,
      author: p.author,
      openedAt: p.opened_ms,
      mergedAt: p.merged_ms,
      hoursToMerge: hoursToMerge(p.opened_ms, p.merged_ms),
      users: [...new Set(held.map((c) => c.user_id))].sort(),
      commits: linked,
      linesAdded: held.reduce((n, c) => n + c.lines_added, 0),
      agentLines: held.reduce((n, c) => n + c.agent_lines, 0),
      byAgent: [...agents]
        .map(([k, lines]) => {
          const [agent, model] = k.split('\n') as [string, string];
          return { agent, model, lines };
        })
        .sort((a, b) => b.lines - a.lines || a.agent.localeCompare(b.agent) || a.model.localeCompare(b.model)),
      sessions: [...sessions].map(([sessionId, lines]) => ({ sessionId, lines })).sort((a, b) => a.sessionId.localeCompare(b.sessionId)),
      costUsd: 0,
    };
  });
}

/** Pure: linkedIds and pullRequestsOf over the same commits. */
export const linkPullRequests = (
  prs: readonly MergedRow[],
  commits: readonly CommitRow[],
  named: ReadonlySet<string> = namedCommits(prs),
) => pullRequestsOf(prs, linkedIds(prs, commits, named), commits);

/** Reads and links the pull requests' commits: the graph first, then the commits linked, whole. */
async function linkedPullRequests(reads: PullRequestReads, orgId: string, prs: readonly MergedRow[]): Promise<PullRequestFigures[]> {
  const { graph, named } = await reads.graphFor(orgId, prs);
  const ids = linkedIds(prs, graph, named);
  return pullRequestsOf(prs, ids, await reads.held(orgId, prs, [...new Set(ids.flat())]));
}

/** The sessions whose lines the pull requests hold. */
const heldSessions = (prs: readonly PullRequestFigures[]) => [...new Set(prs.flatMap((p) => p.sessions.map((s) => s.sessionId)))];

/**
 * Pure: the figures of each pull request (linkPullRequests) with its cost, given the credited lines and
 * costs of the sessions whose lines they hold.
 */
export function assemblePullRequests(
  prs: readonly MergedRow[],
  commits: readonly CommitRow[],
  credited: ReadonlyMap<string, number>,
  costs: ReadonlyMap<string, number | null>,
  named: ReadonlySet<string> = namedCommits(prs),
): PullRequestFigures[] {
  const out = linkPullRequests(prs, commits, named);
  const prCosts = pullRequestCosts(new Map(out.map((p) => [prKey(p), p.sessions])), credited, costs);
  for (const p of out) p.costUsd = prCosts.get(prKey(p)) ?? 0;
  return out;
}

/**
 * The pull requests merged from `first` to `last`, with their figures; `user` keeps a member's own;
 * `later`: the sessions' dollars the batch has not counted yet (today's, from the live figures). Reads the
 * range's pull requests and the commits they can hold; a session's split reads its credited lines over
 * all its commits, for the sessions these pull requests hold alone.
 */
export async function pullRequestFigures(
  reads: PullRequestReads,
  orgId: string,
  first: string,
  last: string,
  user: string | null,
  later: ReadonlyMap<string, number | null> = new Map(),
): Promise<PullRequestFigures[]> {
  return figuresOf(reads, orgId, await reads.merged(orgId, first, last), user, later);
}

/** The figures of the pull requests `prs` (pullRequestFigures), in their order. */
async function figuresOf(
  reads: PullRequestReads,
  orgId: string,
  prs: readonly MergedRow[],
  user: string | null,
  later: ReadonlyMap<string, number | null>,
): Promise<PullRequestFigures[]> {
  const linked = await linkedPullRequests(reads, orgId, prs);
  const sessions = heldSessions(linked);
  const { credited, costs } = await reads.sessionFigures(orgId, sessions);
  const prCosts = pullRequestCosts(new Map(linked.map((p) => [prKey(p), p.sessions])), credited, withLaterCosts(costs, later, sessions));
  for (const p of linked) p.costUsd = prCosts.get(prKey(p)) ?? 0;
  if (!user) return linked;
  const mine = await reads.addresses(orgId, user);
  return linked.filter((p) => p.users.includes(user) || (p.author !== null && mine.has(p.author)));
}

/** What the list orders and pages pull requests by. */
export interface Listed {
  mergedAt: number;
  number: number;
  repo: string;
}

/** Pure: the list's order: the latest merge first, then the higher number, then the later repository. */
export const listOrder = (a: Listed, b: Listed) =>
  b.mergedAt - a.mergedAt || b.number - a.number || (a.repo < b.repo ? 1 : a.repo > b.repo ? -1 : 0);

/**
 * One page of the list of the pull requests merged from `first` to `last`, for a reader who sees them all
 * (not a member's own, not a team's): those `after` keeps, in listOrder, are paged first and only the
 * page's are linked and priced, since a pull request's figures do not depend on which others are read
 * with it. `more`: whether any is left after the page.
 */
export async function pullRequestPage(
  reads: PullRequestReads,
  orgId: string,
  first: string,
  last: string,
  after: (p: Listed) => boolean,
  limit: number,
  later: ReadonlyMap<string, number | null> = new Map(),
): Promise<{ page: PullRequestFigures[]; more: boolean }> {
  const listed = (await reads.merged(orgId, first, last))
    .map((row) => ({ row, key: { mergedAt: row.merged_ms, number: row.number, repo: row.repo } }))
    .sort((a, b) => listOrder(a.key, b.key))
    .filter((p) => after(p.key));
  const page = await figuresOf(
    reads,
    orgId,
    listed.slice(0, limit).map((p) => p.row),
    null,
    later,
  );
  return { page, more: listed.length > limit };
}

/**
 * Of the sessions with dollars from `first` to `last` (one user's, or everyone's), those whose lines
 * reached a merged pull request (any of the organization's): read through the merged pull requests that
 * can hold those sessions' commits, not every one (with the sessions of those pull requests). `linked`:
 * pull requests already linked (the range's, pullRequestFigures): a pull request's commits do not depend
 * on which others are linked with it, so those are not linked again, and the sessions they hold count too.
 */
export async function shippedSessions(
  reads: PullRequestReads,
  orgId: string,
  first: string,
  last: string,
  user: string | null,
  linked: readonly PullRequestFigures[] = [],
): Promise<string[]> {
  const known = new Set(linked.map(prKey));
  const others = (await reads.reaching(orgId, first, last, user)).filter((p) => !known.has(prKey(p)));
  return [...new Set([...heldSessions(linked), ...heldSessions(await linkedPullRequests(reads, orgId, others))])];
}

const share = (agent: number, all: number) => (all > 0 ? round4(agent / all) : 0);

interface Tally {
  merged: number;
  withAgent: number;
  linesAdded: number;
  agentLines: number;
  hours: number[];
  cost: number | null;
}
const emptyTally = (): Tally => ({ merged: 0, withAgent: 0, linesAdded: 0, agentLines: 0, hours: [], cost: 0 });
function add(t: Tally, p: PullRequestFigures, agentLines = p.agentLines, cost = p.costUsd) {
  t.merged++;
  if (agentLines > 0) t.withAgent++;
  t.linesAdded += p.linesAdded;
  t.agentLines += agentLines;
  t.hours.push(p.hoursToMerge);
  t.cost = t.cost === null || cost === null ? null : t.cost + cost;
}
const costs = (t: Tally) => ({
  cost_usd: t.cost === null ? null : round4(t.cost),
  cost_per_merged_usd: t.cost === null || t.merged === 0 ? null : round4(t.cost / t.merged),
});

/** Pure: one record per day (zeros included) of the pull requests merged on it. */
export function pullRequestDays(
  days: readonly string[],
  prs: readonly PullRequestFigures[],
  notShipped: ReadonlyMap<string, number | null>,
) {
  const byDay = new Map(days.map((d) => [d, emptyTally()]));
  for (const p of prs) {
    const t = byDay.get(utcDay(p.mergedAt));
    if (t) add(t, p);
  }
  return days.map((date) => {
    const t = byDay.get(date)!;
    const left = notShipped.get(date);
    return {
      date,
      merged: t.merged,
      merged_with_agent_lines: t.withAgent,
      lines_added: t.linesAdded,
      agent_lines: t.agentLines,
      agent_share: share(t.agentLines, t.linesAdded),
      median_hours_to_merge: median(t.hours),
      ...costs(t),
      not_shipped_cost_usd: left === undefined ? 0 : left === null ? null : round4(left),
    };
  });
}

/**
 * Pure: rows per day and group with a merged pull request. repo: its repository; agent: each agent with
 * lines in it (its lines; cost not split by agent, so the pull request's whole cost); team: each team of
 * the people whose commits it holds on the day of merge (`teamsOf(day, user)`).
 */
export function pullRequestGroups(
  groupBy: 'repo' | 'agent' | 'team',
  prs: readonly PullRequestFigures[],
  teamsOf: (day: string, user: string) => readonly string[],
) {
  const rows = new Map<string, Tally>();
  const tally = (date: string, key: string) => {
    const k = `${date}\n${key}`;
    const t = rows.get(k) ?? emptyTally();
    rows.set(k, t);
    return t;
  };
  for (const p of prs) {
    const date = utcDay(p.mergedAt);
    if (groupBy === 'repo') add(tally(date, p.repo), p);
    else if (groupBy === 'agent') {
      const lines = new Map<string, number>();
      for (const a of p.byAgent) lines.set(a.agent, (lines.get(a.agent) ?? 0) + a.lines);
      for (const [agent, n] of lines) add(tally(date, agent), p, n);
    } else for (const team of new Set(p.users.flatMap((u) => teamsOf(date, u)))) add(tally(date, team), p);
  }
  return [...rows]
    .map(([k, t]) => {
      const [date, group_key] = k.split('\n') as [string, string];
      return {
        date,
        group_key,
        merged: t.merged,
        merged_with_agent_lines: t.withAgent,
        agent_lines: t.agentLines,
        median_hours_to_merge: median(t.hours),
        ...costs(t),
      };
    })
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0));
}

/**
 * Pure: the range in one, from the day records: merged pull requests, those with agent lines, lines and
 * agent lines with their share, the dollars, and the cost per merged pull request (the range's dollars ÷
 * its merged pull requests, 4 decimals). Dollars are null when a day's are (a session without a price);
 * the cost per merged pull request then too, and without a merged pull request.
 */
export function pullRequestTotals(
  days: readonly {
    merged: number;
    merged_with_agent_lines: number;
    lines_added: number;
    agent_lines: number;
    cost_usd: number | null;
    not_shipped_cost_usd: number | null;
  }[],
) {
  const sum = (f: (d: (typeof days)[number]) => number) => days.reduce((n, d) => n + f(d), 0);
  const dollars = (f: (d: (typeof days)[number]) => number | null) =>
    days.some((d) => f(d) === null) ? null : round4(sum((d) => f(d) ?? 0));
  const merged = sum((d) => d.merged);
  const lines = sum((d) => d.lines_added);
  const agent = sum((d) => d.agent_lines);
  const cost = dollars((d) => d.cost_usd);
  return {
    merged,
    merged_with_agent_lines: sum((d) => d.merged_with_agent_lines),
    lines_added: lines,
    agent_lines: agent,
    agent_share: share(agent, lines),
    cost_usd: cost,
    cost_per_merged_usd: cost === null || merged === 0 ? null : round4(cost / merged),
    not_shipped_cost_usd: dollars((d) => d.not_shipped_cost_usd),
  };
}

/**
 * Pure: each group of the grouped rows over the range: merged, with agent lines, agent lines, the dollars
 * (null when a day's are) and the cost per merged pull request; most merged first, then group_key.
 */
export function pullRequestGroupTotals(
  rows: readonly { group_key: string; merged: number; merged_with_agent_lines: number; agent_lines: number; cost_usd: number | null }[],
) {
  const groups = new Map<string, { merged: number; merged_with_agent_lines: number; agent_lines: number; cost: number | null }>();
  for (const r of rows) {
    const t = groups.get(r.group_key) ?? { merged: 0, merged_with_agent_lines: 0, agent_lines: 0, cost: 0 };
    t.merged += r.merged;
    t.merged_with_agent_lines += r.merged_with_agent_lines;
    t.agent_lines += r.agent_lines;
    t.cost = t.cost === null || r.cost_usd === null ? null : t.cost + r.cost_usd;
    groups.set(r.group_key, t);
  }
  return [...groups]
    .map(([group_key, { cost, ...t }]) => ({
      group_key,
      ...t,
      cost_usd: cost === null ? null : round4(cost),
      cost_per_merged_usd: cost === null || t.merged === 0 ? null : round4(cost / t.merged),
    }))
    .sort((a, b) => b.merged - a.merged || (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0));
}
