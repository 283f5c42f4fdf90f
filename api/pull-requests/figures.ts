// The pull request figures of docs/metrics.md §10, as pure functions over what the store reads: each
// merged pull request's agent lines and cost, and the day's median time to merge. A session's cost is
// split over the pull requests its lines reached by the share of its credited lines each holds, so it is
// never counted twice; what reaches none is reported apart.

/** Agent lines of one landed commit by the agent session that wrote them. */
export interface SessionLines {
  sessionId: string;
  lines: number;
}

/**
 * Pure: the cost of each pull request. `held[pr]` is the session lines its commits hold; `credited` a
 * session's credited lines over all its landed commits; `cost` a session's cost in dollars (null when a
 * model it used has no price). A pull request holding a session without a price has a null cost.
 */
export function pullRequestCosts(
  held: ReadonlyMap<string, readonly SessionLines[]>,
  credited: ReadonlyMap<string, number>,
  cost: ReadonlyMap<string, number | null>,
): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const [pr, lines] of held) {
    let total: number | null = 0;
    for (const { sessionId, lines: n } of lines) {
      const all = credited.get(sessionId) ?? 0;
      const sessionCost = cost.get(sessionId);
      if (all <= 0 || n <= 0 || sessionCost === undefined) continue;
      if (sessionCost === null || total === null) {
        total = null;
        continue;
      }
      total += (sessionCost * Math.min(n, all)) / all;
    }
    out.set(pr, total === null ? null : round4(total));
  }
  return out;
}

export const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * Pure: the sessions' dollars of `costs` (the batch's) with `later` added (what they spent since, today's
 * from the live figures), for the sessions of `sessions`; null wherever either is.
 */
export function withLaterCosts(
  costs: ReadonlyMap<string, number | null>,
  later: ReadonlyMap<string, number | null>,
  sessions: readonly string[],
): Map<string, number | null> {
  const out = new Map(costs);
  for (const id of sessions) {
    if (!later.has(id)) continue;
    const before = out.get(id);
    const usd = later.get(id)!;
    out.set(id, before === null || usd === null ? null : (before ?? 0) + usd);
  }
  return out;
}

/** Pure: the median of the values (the mean of the middle two for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Pure: hours from opening to merge, to 2 decimals. */
export const hoursToMerge = (openedAt: number, mergedAt: number) => Math.round((mergedAt - openedAt) / 36_000) / 100;
