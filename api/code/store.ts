// Reads what the code figures need (docs/metrics.md §5): the daily code aggregates of a range of days, and the
// landed commits themselves for the commit list. `user` restricts every read to one person (a member sees
// only their own); null reads the whole organization.
import type { Db } from '../../common/db/duckdb.ts';
import { pullRequestCosts, type SessionLines, withLaterCosts } from '../pull-requests/figures.ts';
import { PullRequestReads } from '../pull-requests/store.ts';

const RANGE = 'org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) AND ($user IS NULL OR user_id = $user)';

export const CODE_SQL = {
  edits: `SELECT CAST(day AS VARCHAR) AS day, agent, model, language, repo, sum(lines_added)::BIGINT AS lines_added, sum(lines_deleted)::BIGINT AS lines_deleted
          FROM agg_code_edit_day WHERE ${RANGE} GROUP BY ALL`,
  landed: `SELECT CAST(day AS VARCHAR) AS day, repo, sum(commits)::BIGINT AS commits, sum(commits_with_agent_lines)::BIGINT AS commits_with_agent_lines,
                  sum(lines_added)::BIGINT AS lines_added, sum(lines_deleted)::BIGINT AS lines_deleted, sum(agent_lines)::BIGINT AS agent_lines
           FROM agg_code_landed_day WHERE ${RANGE} GROUP BY ALL`,
  landedAgents: `SELECT CAST(day AS VARCHAR) AS day, repo, agent, model, sum(lines)::BIGINT AS lines
                 FROM agg_code_landed_agent_day WHERE ${RANGE} GROUP BY ALL`,
  /** Newest first: committer time, then repository and commit id, so the order is total and the cursor exact. */
  commits: `SELECT c.repo_id, c.repo, c.commit_id AS commit, c.user_id, u.email AS user_email, epoch_ms(c.ts) AS ts_ms,
                   c.lines_added, c.lines_deleted, c.agent_lines, c.by_agent, c.author, c.by_session
            FROM landed_commits c LEFT JOIN users u ON u.id = c.user_id AND u.org_id = c.org_id
            WHERE c.org_id = $org AND c.ts >= CAST($from AS TIMESTAMP) AND c.ts < CAST($to AS TIMESTAMP) + INTERVAL 1 DAY
              AND ($user IS NULL OR c.user_id = $user)
              AND ($periods IS NULL OR EXISTS (
                SELECT 1 FROM (SELECT unnest(CAST(from_json($periods, '[{"user":"VARCHAR","from":"VARCHAR","to":"VARCHAR"}]') AS STRUCT("user" VARCHAR, "from" VARCHAR, "to" VARCHAR)[]), recursive := true)) p
                WHERE p."user" = c.user_id AND CAST(c.ts AS DATE) >= CAST(p."from" AS DATE)
                  AND (p."to" IS NULL OR CAST(c.ts AS DATE) <= CAST(p."to" AS DATE))))
              AND ($cursor_ts IS NULL OR (epoch_ms(c.ts), c.repo_id, c.commit_id) < ($cursor_ts, $cursor_repo, $cursor_commit))
            ORDER BY c.ts DESC, c.repo_id DESC, c.commit_id DESC
            LIMIT $limit`,
} as const;

/** The same rows per user, for the users of a list (team figures: api/code/teams.ts restricts them per day). */
const USERS_RANGE =
  "org_id = $org AND day BETWEEN CAST($from AS DATE) AND CAST($to AS DATE) AND user_id IN (SELECT unnest(string_split($users, ',')))";
export const CODE_USER_SQL = {
  edits: `SELECT CAST(day AS VARCHAR) AS day, user_id, agent, model, language, repo, lines_added, lines_deleted
          FROM agg_code_edit_day WHERE ${USERS_RANGE}`,
  landed: `SELECT CAST(day AS VARCHAR) AS day, user_id, repo, commits, commits_with_agent_lines, lines_added, lines_deleted, agent_lines
           FROM agg_code_landed_day WHERE ${USERS_RANGE}`,
  landedAgents: `SELECT CAST(day AS VARCHAR) AS day, user_id, repo, agent, model, lines FROM agg_code_landed_agent_day WHERE ${USERS_RANGE}`,
} as const;

/**
 * Today's rows, read from the stored records themselves (docs/metrics.md §5: a commit counts in /today within
 * 60 s of reaching the server): the same derivations as pipeline/sql/46_code.sql over one day. `$users`:
 * comma-separated user ids, or NULL for the whole organization.
 */
const TODAY_USERS = "($users IS NULL OR user_id IN (SELECT unnest(string_split($users, ','))))";
const TODAY_RANGE = `org_id = $org AND ts >= CAST($day AS TIMESTAMP) AND ts < CAST($day AS TIMESTAMP) + INTERVAL 1 DAY AND ${TODAY_USERS}`;
export const CODE_TODAY_SQL = {
  edits: `WITH e AS (
            SELECT org_id, ts, agent, session_id, unnest(edits) AS f FROM events
            WHERE ${TODAY_RANGE} AND edits IS NOT NULL AND tool_success AND event = 'PostToolUse'
          ),
          m AS (
            SELECT org_id, session_id, ts, model FROM assistant_messages
            WHERE org_id = $org AND model IS NOT NULL AND model <> '' AND model <> '<synthetic>'
              AND ts < CAST($day AS TIMESTAMP) + INTERVAL 1 DAY AND session_id IN (SELECT session_id FROM e)
          )
          SELECT CAST($day AS VARCHAR) AS day, e.agent, coalesce(m.model, 'unknown') AS model, coalesce(l.language, '') AS language,
                 coalesce(e.f.repo, '') AS repo, sum(e.f.lines_added)::BIGINT AS lines_added, sum(e.f.lines_deleted)::BIGINT AS lines_deleted
          FROM e ASOF LEFT JOIN m ON e.org_id = m.org_id AND e.session_id = m.session_id AND m.ts <= e.ts
          LEFT JOIN languages l
            ON l.kind || ':' || l.key = CASE WHEN e.f.ext <> '' THEN 'ext:' || e.f.ext ELSE 'name:' || coalesce(e.f.name, '') END
          GROUP BY ALL`,
  landed: `SELECT CAST($day AS VARCHAR) AS day, repo, count(*)::BIGINT AS commits, count(*) FILTER (WHERE agent_lines > 0)::BIGINT AS commits_with_agent_lines,
                  sum(lines_added)::BIGINT AS lines_added, sum(lines_deleted)::BIGINT AS lines_deleted, sum(agent_lines)::BIGINT AS agent_lines
           FROM landed_commits WHERE ${TODAY_RANGE} GROUP BY ALL`,
  landedAgents: `SELECT CAST($day AS VARCHAR) AS day, repo, a.agent, a.model, sum(a.lines)::BIGINT AS lines
                 FROM (SELECT repo, unnest(by_agent) AS a FROM landed_commits WHERE ${TODAY_RANGE}) GROUP BY ALL`,
} as const;

/**
 * The agent lines of each session that the landed commits of each day and user hold (docs/metrics.md §8:
 * `landed.cost_usd`, the cost of those sessions, split as §10 splits a pull request's). `$users`:
 * comma-separated user ids, or NULL for the whole organization. From the stored commits (today's), or
 * (`batched`) from the batch's rows, built with the landed counts from the same commits: a commit that
 * arrives after its day was built counts, lines and dollars alike, once the batch rebuilds the day.
 */
const landedSessionsSql = (source: string) => `SELECT CAST(day AS VARCHAR) AS day, user_id, session_id, sum(lines)::BIGINT AS lines
  FROM ${source}
  WHERE org_id = $org AND day >= CAST($from AS DATE) AND day <= CAST($to AS DATE)
    AND ($users IS NULL OR list_contains(string_split($users, ','), user_id))
  GROUP BY ALL`;
export const LANDED_SESSIONS_SQL = {
  stored: landedSessionsSql(`(SELECT org_id, CAST(ts AS DATE) AS day, user_id, s.session_id AS session_id, s.lines AS lines
    FROM (SELECT org_id, ts, user_id, unnest(by_session) AS s FROM landed_commits
          WHERE org_id = $org AND ts >= CAST($from AS TIMESTAMP) AND ts < CAST($to AS TIMESTAMP) + INTERVAL 1 DAY)
    WHERE s.session_id <> '')`),
  batched: landedSessionsSql('agg_code_landed_session_day'),
} as const;

/** Which commits and dollars CodeStore.landedCost reads. */
export interface LandedCostOptions {
  counts?: (day: string, user: string) => boolean;
  later?: ReadonlyMap<string, number | null>;
  batched: boolean;
}

/** A row of one user. */
export type PerUser<T> = T & { user_id: string };

export interface EditRow {
  day: string;
  agent: string;
  model: string;
  /** '' when the file's language is not known. */
  language: string;
  /** The repository's host/path; '' for files outside a work tree or without an origin remote. */
  repo: string;
  lines_added: number;
  lines_deleted: number;
}
export interface LandedRow {
  day: string;
  repo: string;
  commits: number;
  commits_with_agent_lines: number;
  lines_added: number;
  lines_deleted: number;
  agent_lines: number;
}
export interface LandedAgentRow {
  day: string;
  repo: string;
  agent: string;
  model: string;
  lines: number;
}
export interface CommitRow {
  repo_id: string;
  repo: string;
  commit: string;
  user_id: string;
  user_email: string | null;
  ts_ms: number;
  lines_added: number;
  lines_deleted: number;
  agent_lines: number;
  by_agent: { agent: string; model: string; lines: number }[];
  /** The author address ('' for records stored before commits named it). */
  author: string;
  by_session: { agent: string; session_id: string; lines: number }[];
}
export interface CommitCursor {
  ts: number;
  repoId: string;
  commit: string;
}

const num = (v: unknown) => Number(v);

export class CodeStore {
  private readonly sessions: PullRequestReads;
  constructor(private readonly db: Db) {
    this.sessions = new PullRequestReads(db);
  }

  /**
   * Each day's landed cost in US dollars (docs/metrics.md §8 and §10): for every agent session whose lines
   * the day's landed commits hold, the session's cost times the share of its credited lines they hold, so
   * a session's cost is split over the days its lines landed on and never counted twice; null when such a
   * session used a model without a price. `users`: those users' commits (null: everyone's); `counts`
   * keeps a user's commits of a day (a team's members on it); `later`: the sessions' dollars the batch
   * has not counted yet (today's, from the live figures); `batched`: the sessions' lines from the batch's
   * rows, for the days whose landed counts come from them (LANDED_SESSIONS_SQL). Days without such
   * sessions are absent.
   */
  async landedCost(
    org: string,
    from: string,
    to: string,
    users: readonly string[] | null,
    { counts = () => true, later = new Map(), batched }: LandedCostOptions,
  ): Promise<Map<string, number | null>> {
    if (users !== null && users.length === 0) return new Map();
    const rows = await this.db.all<{ day: string; user_id: string; session_id: string; lines: number | bigint }>(
      batched ? LANDED_SESSIONS_SQL.batched : LANDED_SESSIONS_SQL.stored,
      { org, from, to, users: users === null ? null : users.join(',') },
    );
    const held = new Map<string, Map<string, number>>();
    for (const r of rows) {
      if (!counts(r.day, r.user_id)) continue;
      const day = held.get(r.day) ?? new Map<string, number>();
      day.set(r.session_id, (day.get(r.session_id) ?? 0) + num(r.lines));
      held.set(r.day, day);
    }
    const ids = [...new Set(rows.map((r) => r.session_id))];
    const [credited, costs] = await Promise.all([this.sessions.credited(org, ids), this.sessions.sessionCosts(org, ids)]);
    const lines = new Map<string, SessionLines[]>(
      [...held].map(([day, bySession]) => [day, [...bySession].map(([sessionId, n]) => ({ sessionId, lines: n }))]),
    );
    return pullRequestCosts(lines, credited, withLaterCosts(costs, later, ids));
  }

  private params(org: string, from: string, to: string, user: string | null) {
    return { org, from, to, user };
  }

  async edits(org: string, from: string, to: string, user: string | null): Promise<EditRow[]> {
    const rows = await this.db.all<EditRow & Record<string, unknown>>(CODE_SQL.edits, this.params(org, from, to, user));
    return rows.map((r) => ({ ...r, lines_added: num(r.lines_added), lines_deleted: num(r.lines_deleted) }));
  }

  async landed(org: string, from: string, to: string, user: string | null): Promise<LandedRow[]> {
    const rows = await this.db.all<LandedRow & Record<string, unknown>>(CODE_SQL.landed, this.params(org, from, to, user));
    return rows.map((r) => ({
      ...r,
      commits: num(r.commits),
      commits_with_agent_lines: num(r.commits_with_agent_lines),
      lines_added: num(r.lines_added),
      lines_deleted: num(r.lines_deleted),
      agent_lines: num(r.agent_lines),
    }));
  }

  async landedAgents(org: string, from: string, to: string, user: string | null): Promise<LandedAgentRow[]> {
    const rows = await this.db.all<LandedAgentRow & Record<string, unknown>>(CODE_SQL.landedAgents, this.params(org, from, to, user));
    return rows.map((r) => ({ ...r, lines: num(r.lines) }));
  }

  /**
   * Today's rows over what has arrived (`users`: those users only; null: the whole organization);
   * `sessionCosts`: the sessions' dollars of today, which the landed cost adds to the batch's.
   */
  async today(
    org: string,
    day: string,
    users: readonly string[] | null,
    sessionCosts: ReadonlyMap<string, number | null> = new Map(),
  ): Promise<{ edits: EditRow[]; landed: LandedRow[]; agents: LandedAgentRow[]; cost: Map<string, number | null> }> {
    const p = { org, day, users: users === null ? null : users.join(',') };
    const [edits, landed, agents, cost] = await Promise.all([
      this.db.all<EditRow & Record<string, unknown>>(CODE_TODAY_SQL.edits, p),
      this.db.all<LandedRow & Record<string, unknown>>(CODE_TODAY_SQL.landed, p),
      this.db.all<LandedAgentRow & Record<string, unknown>>(CODE_TODAY_SQL.landedAgents, p),
      this.landedCost(org, day, day, users, { later: sessionCosts, batched: false }),
    ]);
    return {
      cost,
      edits: edits.map((r) => ({ ...r, lines_added: num(r.lines_added), lines_deleted: num(r.lines_deleted) })),
      landed: landed.map((r) => ({
        ...r,
        commits: num(r.commits),
        commits_with_agent_lines: num(r.commits_with_agent_lines),
        lines_added: num(r.lines_added),
        lines_deleted: num(r.lines_deleted),
        agent_lines: num(r.agent_lines),
      })),
      agents: agents.map((r) => ({ ...r, lines: num(r.lines) })),
    };
  }

  /** The code rows of each of `users` (user ids) from `from` to `to`, per user. */
  async perUser(
    org: string,
    from: string,
    to: string,
    users: readonly string[],
  ): Promise<{ edits: PerUser<EditRow>[]; landed: PerUser<LandedRow>[]; agents: PerUser<LandedAgentRow>[] }> {
    if (users.length === 0) return { edits: [], landed: [], agents: [] };
    const p = { org, from, to, users: users.join(',') };
    const [edits, landed, agents] = await Promise.all([
      this.db.all<PerUser<EditRow> & Record<string, unknown>>(CODE_USER_SQL.edits, p),
      this.db.all<PerUser<LandedRow> & Record<string, unknown>>(CODE_USER_SQL.landed, p),
      this.db.all<PerUser<LandedAgentRow> & Record<string, unknown>>(CODE_USER_SQL.landedAgents, p),
    ]);
    return {
      edits: edits.map((r) => ({ ...r, lines_added: num(r.lines_added), lines_deleted: num(r.lines_deleted) })),
      landed: landed.map((r) => ({
        ...r,
        commits: num(r.commits),
        commits_with_agent_lines: num(r.commits_with_agent_lines),
        lines_added: num(r.lines_added),
        lines_deleted: num(r.lines_deleted),
        agent_lines: num(r.agent_lines),
      })),
      agents: agents.map((r) => ({ ...r, lines: num(r.lines) })),
    };
  }

  /** One page of landed commits, newest first (limit + 1 fetched to know whether more follow). */
  async commits(
    org: string,
    from: string,
    to: string,
    user: string | null,
    cursor: CommitCursor | undefined,
    limit: number,
    /** team=: only commits of users who were members (of these periods) on the commit's day. */
    periods: readonly { user: string; from: string; to: string | null }[] | null = null,
  ): Promise<CommitRow[]> {
    const rows = await this.db.all<CommitRow & Record<string, unknown>>(CODE_SQL.commits, {
      ...this.params(org, from, to, user),
      cursor_ts: cursor?.ts ?? null,
      cursor_repo: cursor?.repoId ?? null,
      cursor_commit: cursor?.commit ?? null,
      periods: periods ? JSON.stringify(periods) : null,
      limit: limit + 1,
    });
    return rows.map((r) => ({
      ...r,
      ts_ms: num(r.ts_ms),
      lines_added: num(r.lines_added),
      lines_deleted: num(r.lines_deleted),
      agent_lines: num(r.agent_lines),
      by_agent: (r.by_agent ?? []).map((a) => ({ agent: a.agent, model: a.model, lines: num(a.lines) })),
      author: r.author ?? '',
      by_session: (r.by_session ?? []).map((a) => ({ agent: a.agent, session_id: a.session_id, lines: num(a.lines) })),
    }));
  }
}
