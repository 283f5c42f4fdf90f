// Pull requests, the hosts' secrets and the deliveries taken (migration 080). A delivery is recorded in
// the same transaction as what it says, so a replay (the same delivery id) changes nothing, and a
// delivery older than the stored one (hosts retry out of order) leaves the newer fact in place.
import type { Db } from '../../common/db/duckdb.ts';
import type { CodeHost, PullRequestFact } from './payloads.ts';

const SQL = {
  setSecret: `INSERT OR REPLACE INTO codehost_secrets (org_id, host, secret_sealed, secret_hash, set_by, set_at)
              VALUES ($org, $host, $sealed, $hash, $by, now())`,
  removeSecret: 'DELETE FROM codehost_secrets WHERE org_id = $org AND host = $host',
  secret: 'SELECT secret_sealed, secret_hash FROM codehost_secrets WHERE org_id = $org AND host = $host',
  hosts: `SELECT host, set_by AS "setBy", strftime(set_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "setAt"
          FROM codehost_secrets WHERE org_id = $org ORDER BY host`,
  takeDelivery: `INSERT OR IGNORE INTO codehost_deliveries (org_id, host, delivery_id, received_at)
                 VALUES ($org, $host, $delivery, now())`,
  stored: `SELECT updated_at, state, strftime(merged_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS merged_at
           FROM pull_requests WHERE org_id = $org AND repo = $repo AND number = $number`,
  // A merge event that arrives after a later change of the request (hosts retry out of order): its time.
  mergedAt: `UPDATE pull_requests SET merged_at = CAST($mergedAt AS TIMESTAMP)
             WHERE org_id = $org AND repo = $repo AND number = $number AND state = 'merged'`,
  upsert: `INSERT OR REPLACE INTO pull_requests (org_id, repo, number, host, host_id, author, state, opened_at,
             merged_at, updated_at, merge_commit_id, squash_commit_id, head_commit_id, commit_count)
           VALUES ($org, $repo, $number, $host, $hostId, $author, $state, CAST($openedAt AS TIMESTAMP),
             CAST($mergedAt AS TIMESTAMP), CAST($updatedAt AS TIMESTAMP), $merge, $squash, $head, $count)`,
} as const;

export interface StoredSecret {
  sealed: string | null;
  hash: string | null;
}

export interface CodeHostView {
  host: CodeHost;
  setBy: string;
  setAt: string;
}

export class PullRequestStore {
  constructor(private readonly db: Db) {}

  async setSecret(orgId: string, host: CodeHost, secret: StoredSecret, setBy: string): Promise<void> {
    await this.db.run(SQL.setSecret, { org: orgId, host, sealed: secret.sealed, hash: secret.hash, by: setBy });
  }

  async removeSecret(orgId: string, host: CodeHost): Promise<boolean> {
    return (await this.db.run(SQL.removeSecret, { org: orgId, host })) > 0;
  }

  async secret(orgId: string, host: CodeHost): Promise<StoredSecret | undefined> {
    const [row] = await this.db.all<{ secret_sealed: string | null; secret_hash: string | null }>(SQL.secret, { org: orgId, host });
    return row ? { sealed: row.secret_sealed, hash: row.secret_hash } : undefined;
  }

  hosts(orgId: string): Promise<CodeHostView[]> {
    return this.db.all<CodeHostView & Record<string, unknown>>(SQL.hosts, { org: orgId });
  }

  /**
   * Takes one delivery: false when its id was taken before (a replay). The fact, when there is one, is
   * stored unless a newer one of the same pull request is.
   */
  take(orgId: string, host: CodeHost, deliveryId: string, fact: PullRequestFact | undefined): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await tx.run(SQL.takeDelivery, { org: orgId, host, delivery: deliveryId })) === 0) return false;
      if (!fact) return true;
      const key = { org: orgId, repo: fact.repo, number: fact.number };
      const [stored] = await tx.all<{ updated_at: string; state: string; merged_at: string | null }>(SQL.stored, key);
      const merge = fact.state === 'merged' && fact.mergedAt !== null && !fact.mergedAtGuessed;
      if (stored && new Date(stored.updated_at).getTime() > fact.updatedAt.getTime()) {
        if (merge && stored.state === 'merged') await tx.run(SQL.mergedAt, { ...key, mergedAt: fact.mergedAt!.toISOString() });
        return true;
      }
      // A later change of a merged request keeps the time of the merge stored before.
      const mergedAt =
        fact.mergedAtGuessed && stored?.state === 'merged' && stored.merged_at ? stored.merged_at : fact.mergedAt?.toISOString();
      await tx.run(SQL.upsert, {
        org: orgId,
        repo: fact.repo,
        number: fact.number,
        host: fact.host,
        hostId: fact.hostId,
        author: fact.author,
        state: fact.state,
        openedAt: fact.openedAt.toISOString(),
        mergedAt: mergedAt ?? null,
        updatedAt: fact.updatedAt.toISOString(),
        merge: fact.mergeCommitId,
        squash: fact.squashCommitId,
        head: fact.headCommitId,
        count: fact.commitCount,
      });
      return true;
    });
  }
}

/** A merged pull request as the figures read it (times in epoch milliseconds). */
export interface MergedRow {
  repo: string;
  number: number;
  host: CodeHost;
  author: string | null;
  opened_ms: number;
  merged_ms: number;
  merge_commit_id: string | null;
  squash_commit_id: string | null;
  head_commit_id: string | null;
  commit_count: number | null;
}

/** A landed commit as linking reads it: its id, committer time and parents (first parent first). */
export interface GraphRow {
  repo: string;
  commit_id: string;
  ts_ms: number;
  parents: string[];
}

/** A landed commit as the figures read it once linked: who, its lines, and its lines by agent and session. */
export interface HeldCommit {
  repo: string;
  commit_id: string;
  user_id: string;
  lines_added: number;
  agent_lines: number;
  by_agent: { agent: string; model: string; lines: number }[];
  by_session: { agent: string; session_id: string; lines: number }[];
}

/** A landed commit as linking and the figures read it. */
export interface CommitRow extends GraphRow, HeldCommit {}

// The reads that carry many rows answer them as one JSON text (a list of objects, or one per repository):
// the driver turns each value of a row into JavaScript one by one, which costs several times what DuckDB
// takes to find the rows, while JSON.parse reads one text at once.
const MERGED_ROW = `{repo: repo, number: number, host: host, author: author, opened_ms: epoch_ms(opened_at),
    merged_ms: epoch_ms(merged_at), merge_commit_id: merge_commit_id, squash_commit_id: squash_commit_id,
    head_commit_id: head_commit_id, commit_count: commit_count}`;

// Every session's credited lines, over all its landed commits (the denominator of its split); and its
// dollars, null when a model it used has no price.
const CREDITED = `SELECT s.session_id, sum(s.lines) AS lines
    FROM (SELECT unnest(by_session) AS s FROM landed_commits WHERE org_id = $org)
    WHERE s.session_id IN (SELECT unnest(string_split($sessions, '\n')))
    GROUP BY s.session_id`;
const SESSION_COST = `SELECT session_id, CASE WHEN bool_or(cost_usd IS NULL) THEN NULL ELSE sum(cost_usd) END AS cost_usd
    FROM agg_session_cost_day
    WHERE org_id = $org AND session_id IN (SELECT unnest(string_split($sessions, '\n')))
    GROUP BY session_id`;

const READ_SQL = {
  merged: `SELECT to_json(list(${MERGED_ROW} ORDER BY merged_at DESC, repo DESC, number DESC)) AS rows
           FROM pull_requests
           WHERE org_id = $org AND state = 'merged' AND merged_at >= CAST($from AS TIMESTAMP) AND merged_at < CAST($to AS TIMESTAMP)`,
  // The commits the pull requests can hold: their repositories', committed from LINK_WINDOW_DAYS before the
  // first opened to a day after the last merged (each pull request keeps its own part of these), each with
  // whether a merged pull request of the organization is named by it (linking stops at another's: a merge
  // queue). Linking needs only ids, times and parents (commit ids are hex: the parents travel as one
  // string); the figures read the rest of the commits linked (held).
  graph: `WITH named AS (
            SELECT DISTINCT id FROM (
              SELECT unnest([merge_commit_id, squash_commit_id, head_commit_id]) AS id
              FROM pull_requests WHERE org_id = $org AND state = 'merged')
            WHERE id IS NOT NULL)
          SELECT repo, to_json(list({id: commit_id, ts: epoch_ms(ts), parents: array_to_string(coalesce(parents, []), ' '),
                   named: commit_id IN (SELECT id FROM named)})) AS commits
          FROM landed_commits
          WHERE org_id = $org AND list_contains(string_split($repos, '\n'), repo)
            AND ts >= CAST($from AS TIMESTAMP) AND ts <= CAST($to AS TIMESTAMP)
          GROUP BY repo`,
  held: `SELECT to_json(list({repo: repo, commit_id: commit_id, user_id: user_id, lines_added: lines_added, agent_lines: agent_lines,
           by_agent: by_agent, by_session: coalesce(by_session, [])})) AS rows
         FROM landed_commits
         WHERE org_id = $org AND list_contains(string_split($repos, '\n'), repo)
           AND ts >= CAST($from AS TIMESTAMP) AND ts <= CAST($to AS TIMESTAMP)
           AND commit_id IN (SELECT unnest(string_split($ids, '\n')))`,
  credited: CREDITED,
  sessionCost: SESSION_COST,
  // Both of a session, in one read: either may be missing.
  sessionFigures: `SELECT coalesce(c.session_id, k.session_id) AS session_id, c.lines, c.session_id IS NOT NULL AS credited,
                     k.cost_usd, k.session_id IS NOT NULL AS spent
                   FROM (${CREDITED}) c FULL OUTER JOIN (${SESSION_COST}) k ON c.session_id = k.session_id`,
  // The merged pull requests that can hold a line of a session with dollars from $from to $to (one user's
  // when $user is set): those of the repository of a commit holding such a session's lines, merged at most
  // a day before the commit and opened at most LINK_WINDOW_DAYS after it (the commits linking gives a pull
  // request, report.ts linkedIds). Of such commits, a pull request needs only the first at or after its
  // window opens (ASOF), then that one's time against its merge.
  reaching: `WITH spent AS (
               SELECT DISTINCT session_id FROM agg_session_cost_day
               WHERE org_id = $org AND day >= CAST($from AS DATE) AND day <= CAST($to AS DATE) AND ($user IS NULL OR user_id = $user)),
             held AS (
               SELECT DISTINCT repo, ts_ms
               FROM (SELECT repo, epoch_ms(ts) AS ts_ms, unnest(by_session) AS s FROM landed_commits WHERE org_id = $org)
               WHERE s.session_id IN (SELECT session_id FROM spent)),
             merged AS (
               SELECT repo, number, host, author, opened_at, merged_at, merge_commit_id, squash_commit_id, head_commit_id,
                 commit_count, epoch_ms(opened_at) - $window AS reach_from, epoch_ms(merged_at) + $day AS reach_to
               FROM pull_requests WHERE org_id = $org AND state = 'merged')
             SELECT to_json(list(${MERGED_ROW})) AS rows
             FROM (SELECT merged.* FROM merged ASOF JOIN held h ON merged.repo = h.repo AND merged.reach_from <= h.ts_ms
                   WHERE h.ts_ms <= merged.reach_to)`,
  // The cost, per day and user, of the sessions none of whose lines reached a merged pull request.
  notShipped: `SELECT CAST(day AS VARCHAR) AS day, user_id, sum(cost_usd) AS cost_usd, bool_or(cost_usd IS NULL) AS unpriced
               FROM agg_session_cost_day
               WHERE org_id = $org AND day >= CAST($from AS DATE) AND day <= CAST($to AS DATE)
                 AND ($user IS NULL OR user_id = $user)
                 AND session_id NOT IN (SELECT unnest(string_split($shipped, '\n')))
               GROUP BY day, user_id`,
  addresses: `SELECT lower(email) AS email FROM users WHERE org_id = $org AND id = $user
              UNION SELECT email FROM user_aliases WHERE org_id = $org AND user_id = $user`,
} as const;

/** How far before a pull request opened its commits may be (a long-lived branch errs low past it). */
export const LINK_WINDOW_DAYS = 90;
export const DAY_MS = 86_400_000;
const lines = (list: readonly string[]) => list.join('\n');

/** The repositories and times of the commits the pull requests can hold (READ_SQL.graph). */
const commitWindow = (orgId: string, prs: readonly MergedRow[]) => ({
  org: orgId,
  repos: lines([...new Set(prs.map((p) => p.repo))]),
  from: new Date(prs.reduce((n, p) => Math.min(n, p.opened_ms), Infinity) - LINK_WINDOW_DAYS * DAY_MS).toISOString(),
  to: new Date(prs.reduce((n, p) => Math.max(n, p.merged_ms), -Infinity) + DAY_MS).toISOString(),
});

/** The reads of the pull request figures. */
export class PullRequestReads {
  constructor(private readonly db: Db) {}

  /** Pull requests merged from `first` to `last` (UTC days, inclusive), newest first. */
  merged(orgId: string, first: string, last: string): Promise<MergedRow[]> {
    const to = new Date(Date.parse(`${last}T00:00:00Z`) + DAY_MS).toISOString();
    return this.jsonRows<MergedRow>(READ_SQL.merged, { org: orgId, from: `${first}T00:00:00Z`, to });
  }

  /** The rows of a read that answers them as one JSON list (`rows`). */
  private async jsonRows<T>(sql: string, params: Record<string, string | number | null>): Promise<T[]> {
    const [row] = await this.db.all<{ rows: string | null }>(sql, params);
    return row?.rows ? (JSON.parse(row.rows) as T[]) : [];
  }

  /**
   * The merged pull requests that can hold lines of the sessions with dollars from `first` to `last` (one
   * user's, or everyone's): what tells those sessions' shipped lines from the others.
   */
  reaching(orgId: string, first: string, last: string, user: string | null): Promise<MergedRow[]> {
    return this.jsonRows<MergedRow>(READ_SQL.reaching, {
      org: orgId,
      from: first,
      to: last,
      user,
      day: DAY_MS,
      window: LINK_WINDOW_DAYS * DAY_MS,
    });
  }

  /**
   * The landed commits the pull requests can hold (ids, times and parents), and those of them merged pull
   * requests are named by.
   */
  async graphFor(orgId: string, prs: readonly MergedRow[]): Promise<{ graph: GraphRow[]; named: Set<string> }> {
    if (prs.length === 0) return { graph: [], named: new Set() };
    const repos = await this.db.all<{ repo: string; commits: string }>(READ_SQL.graph, commitWindow(orgId, prs));
    const graph: GraphRow[] = [];
    const named = new Set<string>();
    for (const { repo, commits } of repos) {
      for (const c of JSON.parse(commits) as { id: string; ts: number; parents: string; named: boolean }[]) {
        graph.push({ repo, commit_id: c.id, ts_ms: c.ts, parents: c.parents === '' ? [] : c.parents.split(' ') });
        if (c.named) named.add(c.id);
      }
    }
    return { graph, named };
  }

  /** Of the landed commits the pull requests can hold, those of `ids`, whole. */
  held(orgId: string, prs: readonly MergedRow[], ids: readonly string[]): Promise<HeldCommit[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.jsonRows<HeldCommit>(READ_SQL.held, { ...commitWindow(orgId, prs), ids: lines(ids) });
  }

  async credited(orgId: string, sessions: readonly string[]): Promise<Map<string, number>> {
    if (sessions.length === 0) return new Map();
    const rows = await this.db.all<{ session_id: string; lines: number }>(READ_SQL.credited, { org: orgId, sessions: lines(sessions) });
    return new Map(rows.map((r) => [r.session_id, Number(r.lines)]));
  }

  /** The credited lines and the dollars of the sessions (READ_SQL.credited and sessionCost, in one read). */
  async sessionFigures(
    orgId: string,
    sessions: readonly string[],
  ): Promise<{ credited: Map<string, number>; costs: Map<string, number | null> }> {
    const credited = new Map<string, number>();
    const costs = new Map<string, number | null>();
    if (sessions.length === 0) return { credited, costs };
    const rows = await this.db.all<{
      session_id: string;
      lines: number | null;
      credited: boolean;
      cost_usd: number | null;
      spent: boolean;
    }>(READ_SQL.sessionFigures, { org: orgId, sessions: lines(sessions) });
    for (const r of rows) {
      if (r.credited) credited.set(r.session_id, Number(r.lines));
      if (r.spent) costs.set(r.session_id, r.cost_usd);
    }
    return { credited, costs };
  }

  async sessionCosts(orgId: string, sessions: readonly string[]): Promise<Map<string, number | null>> {
    if (sessions.length === 0) return new Map();
    const rows = await this.db.all<{ session_id: string; cost_usd: number | null }>(READ_SQL.sessionCost, {
      org: orgId,
      sessions: lines(sessions),
    });
    return new Map(rows.map((r) => [r.session_id, r.cost_usd]));
  }

  /**
   * Per day, the cost of sessions whose lines reached no merged pull request (null where one is unpriced):
   * one user's, or those `counts(day, user)` keeps (a team's members on each day), or everyone's.
   */
  async notShipped(
    orgId: string,
    first: string,
    last: string,
    shipped: readonly string[],
    user: string | null,
    counts: (day: string, user: string) => boolean = () => true,
  ): Promise<Map<string, number | null>> {
    const rows = await this.db.all<{ day: string; user_id: string; cost_usd: number | null; unpriced: boolean }>(READ_SQL.notShipped, {
      org: orgId,
      from: first,
      to: last,
      shipped: lines(shipped),
      user,
    });
    const out = new Map<string, number | null>();
    for (const r of rows) {
      if (!counts(r.day, r.user_id)) continue;
      const before = out.get(r.day) ?? 0;
      out.set(r.day, before === null || r.unpriced ? null : before + Number(r.cost_usd ?? 0));
    }
    return out;
  }

  async addresses(orgId: string, userId: string): Promise<Set<string>> {
    return new Set((await this.db.all<{ email: string }>(READ_SQL.addresses, { org: orgId, user: userId })).map((r) => r.email));
  }
}
