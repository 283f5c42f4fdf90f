// Sessions and their messages in DuckDB: the user side (create, read, patch, send) and the computer side
// (claim, start, heartbeat, finish). Every change runs on the single writer connection, so a claim is
// atomic: two polls never get the same message, and a session runs one message at a time, in order.

import { listValue } from '@duckdb/node-api';
import { type Attachment, CLAIM_LEASE_MS, type ResultBody, RUN_LEASE_MS, type WorkItem } from '../../common/computer-protocol.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { newMessageId, newSessionId } from '../../common/ids.ts';
import { type AgentSessionUsage, sessionCounts, sessionStatus, sessionUsage, titleFrom } from './derive.ts';
import type { CreateMessageBody, Session, SessionMessage, SessionSettingsInput, SessionSettingsPatch, SessionStatus } from './schema.ts';

const SESSION_COLUMNS = `
  s.id, s.user_id, s.computer_id, s.cwd, s.title, CAST(s.settings AS VARCHAR) AS settings, s.created_ms,
  count(m.id) AS message_count,
  count(*) FILTER (WHERE m.role = 'user' AND m.status = 'running') AS running,
  count(*) FILTER (WHERE m.role = 'user' AND m.status IN ('queued', 'claimed')) AS waiting,
  max(m.completed_ms) FILTER (WHERE m.role = 'user') AS last_completed_ms,
  greatest(s.updated_ms, coalesce(max(greatest(m.created_ms, coalesce(m.started_ms, 0), coalesce(m.completed_ms, 0))), 0)) AS updated_ms`;

const SESSION_GROUP = 's.id, s.user_id, s.computer_id, s.cwd, s.title, CAST(s.settings AS VARCHAR), s.created_ms, s.updated_ms';

export const SQL = {
  // Only while its user and computer are there: an erasure that committed after the request was
  // authenticated found no session to delete, so none may appear after it.
  insertSession: `INSERT INTO sessions SELECT $id, $org, $user, $computer, $cwd, NULL, $settings, $now, $now
    WHERE EXISTS (SELECT 1 FROM users WHERE org_id = $org AND id = $user)
      AND EXISTS (SELECT 1 FROM computers WHERE org_id = $org AND id = $computer)`,
  session: `SELECT ${SESSION_COLUMNS}
            FROM sessions s LEFT JOIN session_messages m ON m.session_id = s.id
            WHERE s.org_id = $org AND s.id = $id
            GROUP BY ${SESSION_GROUP}`,
  // Newest first; the cursor is the last item's "created_ms.id", so inserts never shift a page.
  list: `SELECT ${SESSION_COLUMNS}
         FROM sessions s LEFT JOIN session_messages m ON m.session_id = s.id
         WHERE s.org_id = $org AND ($user IS NULL OR s.user_id = $user) AND ($computer IS NULL OR s.computer_id = $computer)
           AND ($cursor_ms IS NULL OR (s.created_ms, s.id) < ($cursor_ms, $cursor_id))
         GROUP BY ${SESSION_GROUP}
         ORDER BY s.created_ms DESC, s.id DESC
         LIMIT $limit`,
  // Each session of the list's filter with its running and waiting messages (sessionStatus's inputs).
  statuses: `SELECT s.id,
               count(*) FILTER (WHERE m.role = 'user' AND m.status = 'running') AS running,
               count(*) FILTER (WHERE m.role = 'user' AND m.status IN ('queued', 'claimed')) AS waiting
             FROM sessions s LEFT JOIN session_messages m ON m.session_id = s.id
             WHERE s.org_id = $org AND ($user IS NULL OR s.user_id = $user) AND ($computer IS NULL OR s.computer_id = $computer)
             GROUP BY s.id`,
  patchSettings: `UPDATE sessions SET settings = $settings, updated_ms = $now WHERE org_id = $org AND id = $id`,
  setTitle: `UPDATE sessions SET title = $title WHERE id = $id AND title IS NULL`,
  moveSession: `UPDATE sessions SET computer_id = $computer WHERE id = $id`,
  // Conversation order: the k-th user message is 2k, its answer 2k + 1, so a message sent while another
  // runs still lists after that one's answer.
  nextUserSeq: `SELECT coalesce(max(seq) FILTER (WHERE role = 'user'), 0) + 2 AS seq FROM session_messages WHERE session_id = $session`,
  // Only into a session that is there (an erasure may have deleted it since the request read it).
  insertMessage: `INSERT INTO session_messages
                  SELECT $id, $session, $org, $seq, $role, $text, $attachments, $computer, $status, $reply_to, $exit_code, $error, NULL, $now, $started, $completed
                  WHERE EXISTS (SELECT 1 FROM sessions WHERE org_id = $org AND id = $session)`,
  messages: `SELECT id, role, text, CAST(attachments AS VARCHAR) AS attachments, computer_id, status, reply_to, exit_code, error, created_ms, started_ms, completed_ms, seq
             FROM session_messages
             WHERE session_id = $session AND ($after IS NULL OR seq > $after)
             ORDER BY seq LIMIT $limit`,
  // The oldest queued message of this computer whose session has nothing claimed or running and no older
  // message still queued (a session's messages run in order, one at a time, wherever they run).
  claimable: `SELECT m.id, m.session_id, m.text, CAST(m.attachments AS VARCHAR) AS attachments, s.cwd,
                     json_extract_string(s.settings, '$.model') AS model
              FROM session_messages m JOIN sessions s ON s.id = m.session_id
              WHERE m.role = 'user' AND m.status = 'queued' AND m.computer_id = $computer
                AND NOT EXISTS (SELECT 1 FROM session_messages o WHERE o.session_id = m.session_id AND o.role = 'user'
                                AND (o.status IN ('claimed', 'running') OR (o.status = 'queued' AND o.seq < m.seq)))
              ORDER BY m.created_ms, m.seq LIMIT 1`,
  claim: `UPDATE session_messages SET status = 'claimed', lease_ms = $lease WHERE id = $id AND status = 'queued'`,
  start: `UPDATE session_messages SET status = 'running', started_ms = $now, lease_ms = $lease
          WHERE id = $id AND computer_id = $computer AND status = 'claimed'`,
  heartbeat: `UPDATE session_messages SET lease_ms = $lease WHERE id = $id AND computer_id = $computer AND status = 'running'`,
  message: `SELECT id, session_id, org_id, seq, status, computer_id FROM session_messages WHERE id = $id AND role = 'user'`,
  finish: `UPDATE session_messages SET status = $status, exit_code = $exit_code, error = $error, completed_ms = $now, lease_ms = NULL
           WHERE id = $id AND computer_id = $computer AND status = 'running'`,
  // A claim whose lease ran out was never started: hand it out again. A run whose lease ran out may have
  // had effects (files, commits): fail it rather than run it twice.
  requeueExpired: `UPDATE session_messages SET status = 'queued', lease_ms = NULL WHERE status = 'claimed' AND lease_ms < $now`,
  failExpired: `UPDATE session_messages SET status = 'failed', lease_ms = NULL, completed_ms = $now,
                  error = 'the computer agent stopped answering while running this message; it was not run again'
                WHERE status = 'running' AND lease_ms < $now`,
  // The computer agent restarted: what it had claimed goes back to the queue, what it had started failed.
  requeueClaimsOf: `UPDATE session_messages SET status = 'queued', lease_ms = NULL WHERE computer_id = $computer AND status = 'claimed'`,
  failRunsOf: `UPDATE session_messages SET status = 'failed', lease_ms = NULL, completed_ms = $now,
                  error = 'the computer agent restarted while running this message; it was not run again'
                WHERE computer_id = $computer AND status = 'running'`,
  // Retention: sessions idle (nothing queued or running) whose last activity is older than the cutoff go,
  // with their messages.
  // Every organization, in id order: retention reads each one's sessionRetentionDays (retention.ts).
  organizations: `SELECT id FROM orgs ORDER BY id`,
  expiredSessions: `SELECT s.id FROM sessions s LEFT JOIN session_messages m ON m.session_id = s.id
                    WHERE s.org_id = $org
                    GROUP BY s.id, s.updated_ms
                    HAVING count(*) FILTER (WHERE m.role = 'user' AND m.status IN ('queued', 'claimed', 'running')) = 0
                       AND greatest(s.updated_ms, coalesce(max(greatest(m.created_ms, coalesce(m.completed_ms, 0))), 0)) < $cutoff`,
  deleteMessages: `DELETE FROM session_messages WHERE session_id IN (SELECT unnest($ids::VARCHAR[]))`,
  deleteSessions: `DELETE FROM sessions WHERE id IN (SELECT unnest($ids::VARCHAR[]))`,
  // Token usage: the agent sessions whose hook events carry the API session's id; per run (API message),
  // the one seen first is the run's own, those that began later are its subagents. Only the session's
  // creator's events and usage count: any key holder can send events naming a session id.
  usage: `
    WITH runs AS (
      SELECT e.api_session_id, e.api_message_id, e.session_id AS agent_session, s.user_id AS creator, min(e.ts) AS first_ts
      FROM events e JOIN sessions s ON s.id = e.api_session_id AND s.org_id = e.org_id AND s.user_id = e.user_id
      WHERE e.org_id = $org AND e.api_session_id IN (SELECT unnest($sessions::VARCHAR[]))
      GROUP BY ALL
    ), agent_sessions AS (
      SELECT api_session_id, agent_session, creator, bool_or(rank = 1) AS is_primary
      FROM (SELECT *, row_number() OVER (PARTITION BY api_session_id, api_message_id ORDER BY first_ts, agent_session) AS rank FROM runs)
      GROUP BY ALL
    ), priced AS (
      SELECT a.api_session_id, a.agent_session, a.is_primary, u.id, u.input_tokens, u.output_tokens, u.cache_read_tokens,
             u.cache_write_tokens, u.thinking_tokens,
             coalesce(arg_max(p.multiplier, (p.effective_from, length(p.match))), 1.0) AS multiplier
      FROM agent_sessions a
      LEFT JOIN usage u ON u.org_id = $org AND u.session_id = a.agent_session AND u.user_id = a.creator
      LEFT JOIN pricing p ON u.model LIKE replace(p.match, '*', '%') AND p.effective_from <= CAST(u.ts AS DATE)
      GROUP BY ALL
    )
    SELECT api_session_id, agent_session, is_primary,
           coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
           coalesce(sum(cache_write_tokens), 0) AS cache_write, coalesce(sum(cache_read_tokens), 0) AS cache_read,
           coalesce(sum(thinking_tokens), 0) AS thinking,
           round(coalesce(sum(multiplier * (input_tokens + output_tokens + cache_write_tokens + cache_read_tokens / 10.0)), 0)) AS credits
    FROM priced GROUP BY ALL`,
} as const;

interface SessionRow {
  id: string;
  user_id: string;
  computer_id: string;
  cwd: string | null;
  title: string | null;
  settings: string;
  created_ms: number;
  message_count: number;
  running: number;
  waiting: number;
  last_completed_ms: number | null;
  updated_ms: number;
}

interface UsageRow {
  api_session_id: string;
  agent_session: string;
  is_primary: boolean;
  input: number;
  output: number;
  cache_write: number;
  cache_read: number;
  thinking: number;
  credits: number;
}

interface MessageRow {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  attachments: string | null;
  computer_id: string | null;
  status: SessionMessage['status'];
  reply_to: string | null;
  exit_code: number | null;
  error: string | null;
  created_ms: number;
  started_ms: number | null;
  completed_ms: number | null;
  seq: number;
}

/** What the routes need to know about a stored session to decide who may do what with it. */
export interface SessionRecord {
  id: string;
  userId: string;
  computerId: string;
  status: SessionStatus;
}

export type Outcome = 'ok' | 'not-found' | 'conflict';

export class SessionStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  /** Undefined when the user or the computer was removed since the request read them. */
  async create(
    org: string,
    user: string,
    computer: string,
    cwd: string | undefined,
    settings: SessionSettingsInput,
  ): Promise<Session | undefined> {
    const id = newSessionId();
    const inserted = await this.db.run(SQL.insertSession, {
      id,
      org,
      user,
      computer,
      cwd: cwd ?? null,
      settings: JSON.stringify(settings),
      now: this.now(),
    });
    if (inserted === 0) return undefined;
    return (await this.view(org, id))!;
  }

  /** The session as it stands after lapsed leases are applied (what the routes check access with). */
  async record(org: string, id: string): Promise<SessionRecord | undefined> {
    await this.expireLeases();
    return this.read(org, id);
  }

  private async read(org: string, id: string): Promise<SessionRecord | undefined> {
    const [row] = await this.db.all<SessionRow & Record<string, unknown>>(SQL.session, { org, id });
    return row ? { id: row.id, userId: row.user_id, computerId: row.computer_id, status: sessionStatus(row) } : undefined;
  }

  /** The session in the API's shape, token usage included. */
  async view(org: string, id: string): Promise<Session | undefined> {
    const rows = await this.db.all<SessionRow & Record<string, unknown>>(SQL.session, { org, id });
    return (await this.assemble(org, rows))[0];
  }

  async list(
    org: string,
    filter: { user: string | null; computer: string | null; cursor: { ms: number; id: string } | null; limit: number },
  ): Promise<{ sessions: Session[]; hasMore: boolean; nextCursor?: string }> {
    await this.expireLeases();
    const rows = await this.db.all<SessionRow & Record<string, unknown>>(SQL.list, {
      org,
      user: filter.user,
      computer: filter.computer,
      cursor_ms: filter.cursor?.ms ?? null,
      cursor_id: filter.cursor?.id ?? null,
      limit: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    const hasMore = rows.length > filter.limit;
    return {
      sessions: await this.assemble(org, page),
      hasMore,
      ...(hasMore && last ? { nextCursor: `${last.created_ms}.${last.id}` } : {}),
    };
  }

  /** How many sessions of the filter are in each status, over every page. */
  async counts(org: string, filter: { user: string | null; computer: string | null }): Promise<Record<SessionStatus, number>> {
    await this.expireLeases();
    const rows = await this.db.all<{ running: number; waiting: number }>(SQL.statuses, {
      org,
      user: filter.user,
      computer: filter.computer,
    });
    return sessionCounts(rows.map((r) => ({ running: Number(r.running), waiting: Number(r.waiting) })));
  }

  private async assemble(org: string, rows: SessionRow[]): Promise<Session[]> {
    if (rows.length === 0) return [];
    const usage = await this.db.all<UsageRow & Record<string, unknown>>(SQL.usage, { org, sessions: listValue(rows.map((r) => r.id)) });
    return rows.map((row) => {
      const agentSessions: AgentSessionUsage[] = usage
        .filter((u) => u.api_session_id === row.id)
        .map((u) => ({
          agentSessionId: u.agent_session,
          primary: u.is_primary,
          usage: {
            inputTokens: u.input,
            outputTokens: u.output,
            cacheCreationTokens: u.cache_write,
            cacheReadTokens: u.cache_read,
            thinkingTokens: u.thinking,
            serviceCredits: u.credits,
          },
        }));
      const status = sessionStatus(row);
      return {
        sessionId: row.id,
        status,
        messageCount: row.message_count,
        createdAt: row.created_ms,
        updatedAt: row.updated_ms,
        ...(row.title !== null ? { title: row.title } : {}),
        ...(status === 'idle' && row.last_completed_ms !== null ? { completedAt: row.last_completed_ms } : {}),
        computerId: row.computer_id,
        ...(row.cwd !== null ? { cwd: row.cwd } : {}),
        sessionSettings: { ...(JSON.parse(row.settings) as Record<string, unknown>), ...sessionUsage(agentSessions) },
      };
    });
  }

  /** Merges a PATCH into the stored settings (null removes a field). */
  async patch(org: string, id: string, patch: SessionSettingsPatch): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [row] = await tx.all<{ settings: string }>(
        'SELECT CAST(settings AS VARCHAR) AS settings FROM sessions WHERE org_id = $org AND id = $id',
        { org, id },
      );
      const merged: Record<string, unknown> = JSON.parse(row!.settings) as Record<string, unknown>;
      for (const [key, value] of Object.entries(patch)) {
        if (value === null) delete merged[key];
        else if (value !== undefined) merged[key] = value;
      }
      await tx.run(SQL.patchSettings, { org, id, settings: JSON.stringify(merged), now: this.now() });
    });
  }

  /**
   * Queues a user message on a computer; the session moves to that computer. Undefined when the session
   * was deleted (its user's erasure) since the request read it.
   */
  async addMessage(
    org: string,
    session: SessionRecord,
    computer: string,
    body: CreateMessageBody,
  ): Promise<{ messageId: string; status: SessionStatus } | undefined> {
    const attachments: Attachment[] = [
      ...(body.images ?? []).map((i) => ({ kind: 'image' as const, data: i.data })),
      ...(body.files ?? []).map((f) => ({
        kind: 'file' as const,
        data: f.data,
        ...(f.name ? { name: f.name } : {}),
        ...(f.path ? { path: f.path } : {}),
        ...(f.parsedData ? { parsedData: f.parsedData } : {}),
      })),
    ];
    const messageId = newMessageId();
    const added = await this.db.transaction(async (tx) => {
      const [{ seq }] = (await tx.all<{ seq: number }>(SQL.nextUserSeq, { session: session.id })) as [{ seq: number }];
      const inserted = await tx.run(SQL.insertMessage, {
        id: messageId,
        session: session.id,
        org,
        seq,
        role: 'user',
        text: body.text,
        attachments: attachments.length ? JSON.stringify(attachments) : null,
        computer,
        status: 'queued',
        reply_to: null,
        exit_code: null,
        error: null,
        now: this.now(),
        started: null,
        completed: null,
      });
      if (inserted === 0) return false;
      const title = titleFrom(body.text);
      if (title) await tx.run(SQL.setTitle, { id: session.id, title });
      if (computer !== session.computerId) await tx.run(SQL.moveSession, { id: session.id, computer });
      return true;
    });
    // The route's record() applied lapsed leases a moment ago: read the new status only.
    const after = added ? await this.read(org, session.id) : undefined;
    return after ? { messageId, status: after.status } : undefined;
  }

  async messages(
    session: string,
    after: number | null,
    limit: number,
  ): Promise<{ messages: SessionMessage[]; hasMore: boolean; nextCursor?: string }> {
    await this.expireLeases();
    const rows = await this.db.all<MessageRow & Record<string, unknown>>(SQL.messages, { session, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { messages: page.map(toMessage), hasMore, ...(hasMore ? { nextCursor: String(page.at(-1)!.seq) } : {}) };
  }

  // --- The computer's side -------------------------------------------------------------------------

  /** Hands the next message to the computer, or null when there is none. */
  async claim(computer: string): Promise<WorkItem | null> {
    await this.expireLeases();
    const leaseUntil = this.now() + CLAIM_LEASE_MS;
    return this.db.transaction(async (tx) => {
      const [row] = await tx.all<{
        id: string;
        session_id: string;
        text: string;
        attachments: string | null;
        cwd: string | null;
        model: string | null;
      }>(SQL.claimable, { computer });
      if (!row) return null;
      await tx.run(SQL.claim, { id: row.id, lease: leaseUntil });
      return {
        sessionId: row.session_id,
        messageId: row.id,
        cwd: row.cwd,
        text: row.text,
        model: row.model,
        attachments: row.attachments ? (JSON.parse(row.attachments) as Attachment[]) : [],
        leaseUntil,
      };
    });
  }

  /** claimed → running. 'conflict' when the message is no longer this computer's claim (it expired). */
  async start(computer: string, id: string): Promise<{ outcome: Outcome; leaseUntil?: number }> {
    await this.expireLeases();
    const leaseUntil = this.now() + RUN_LEASE_MS;
    if (await this.db.run(SQL.start, { id, computer, now: this.now(), lease: leaseUntil })) return { outcome: 'ok', leaseUntil };
    return { outcome: (await this.ownedBy(computer, id)) ? 'conflict' : 'not-found' };
  }

  async heartbeat(computer: string, id: string): Promise<{ outcome: Outcome; leaseUntil?: number }> {
    await this.expireLeases();
    const leaseUntil = this.now() + RUN_LEASE_MS;
    if (await this.db.run(SQL.heartbeat, { id, computer, lease: leaseUntil })) return { outcome: 'ok', leaseUntil };
    return { outcome: (await this.ownedBy(computer, id)) ? 'conflict' : 'not-found' };
  }

  /**
   * running → completed (with the assistant's answer) or failed. Reporting the same result again answers
   * 'ok' without storing it twice (the agent retries until it hears back).
   */
  async finish(computer: string, id: string, result: ResultBody): Promise<{ outcome: Outcome; status?: SessionStatus }> {
    const message = await this.ownedBy(computer, id);
    if (!message) return { outcome: 'not-found' };
    const now = this.now();
    const failed = result.error !== undefined || result.exitCode !== 0;
    const outcome = await this.db.transaction(async (tx): Promise<Outcome> => {
      const changed = await tx.run(SQL.finish, {
        id,
        computer,
        status: failed ? 'failed' : 'completed',
        exit_code: result.exitCode,
        error: failed ? (result.error ?? `the agent exited with code ${result.exitCode}`) : null,
        now,
      });
      if (!changed) return message.status === 'completed' || message.status === 'failed' ? 'ok' : 'conflict';
      if (!failed || result.output !== '') {
        await tx.run(SQL.insertMessage, {
          id: newMessageId(),
          session: message.session_id,
          org: message.org_id,
          seq: message.seq + 1,
          role: 'assistant',
          text: result.output,
          attachments: null,
          computer,
          status: 'completed',
          reply_to: id,
          exit_code: null,
          error: null,
          now,
          started: null,
          completed: now,
        });
      }
      return 'ok';
    });
    const session = await this.read(message.org_id, message.session_id);
    return { outcome, ...(session ? { status: session.status } : {}) };
  }

  /** The computer agent (re)started: its unstarted claims are queued again, its started runs failed. */
  async computerRestarted(computer: string): Promise<{ requeued: number; failed: number }> {
    return this.db.transaction(async (tx) => ({
      requeued: await tx.run(SQL.requeueClaimsOf, { computer }),
      failed: await tx.run(SQL.failRunsOf, { computer, now: this.now() }),
    }));
  }

  /** The ids of every organization, in id order. */
  async organizations(): Promise<string[]> {
    return (await this.db.all<{ id: string }>(SQL.organizations)).map((r) => r.id);
  }

  /** Deletes the organization's idle sessions last active more than `days` days ago; returns how many. */
  async prune(org: string, days: number): Promise<number> {
    const cutoff = this.now() - days * 86_400_000;
    return this.db.transaction(async (tx) => {
      const ids = (await tx.all<{ id: string }>(SQL.expiredSessions, { org, cutoff })).map((r) => r.id);
      if (ids.length === 0) return 0;
      await tx.run(SQL.deleteMessages, { ids: listValue(ids) });
      await tx.run(SQL.deleteSessions, { ids: listValue(ids) });
      return ids.length;
    });
  }

  /** Applies lapsed leases; run before every read and claim so no session looks busy forever. */
  async expireLeases(): Promise<void> {
    const now = this.now();
    await this.db.run(SQL.requeueExpired, { now });
    await this.db.run(SQL.failExpired, { now });
  }

  private async ownedBy(computer: string, id: string) {
    const [row] = await this.db.all<{ id: string; session_id: string; org_id: string; seq: number; status: string; computer_id: string }>(
      SQL.message,
      { id },
    );
    return row && row.computer_id === computer ? row : undefined;
  }
}

function toMessage(row: MessageRow): SessionMessage {
  const attachments = row.attachments ? (JSON.parse(row.attachments) as Attachment[]) : [];
  return {
    messageId: row.id,
    role: row.role,
    text: row.text,
    status: row.status,
    createdAt: row.created_ms,
    ...(row.computer_id !== null && row.role === 'user' ? { computerId: row.computer_id } : {}),
    ...(row.started_ms !== null ? { startedAt: row.started_ms } : {}),
    ...(row.completed_ms !== null ? { completedAt: row.completed_ms } : {}),
    ...(row.reply_to !== null ? { replyTo: row.reply_to } : {}),
    ...(row.exit_code !== null ? { exitCode: row.exit_code } : {}),
    ...(row.error !== null ? { error: row.error } : {}),
    // Attachments are listed, not echoed: their bytes went to the computer.
    ...(attachments.length
      ? {
          attachments: attachments.map((a) => ({
            kind: a.kind,
            ...(a.name ? { name: a.name } : {}),
            ...(a.path ? { path: a.path } : {}),
            bytes: Buffer.byteLength(a.data, 'base64'),
          })),
        }
      : {}),
  };
}
