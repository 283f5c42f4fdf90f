// Stores validated wire records. Rows go through a DuckDB appender into temporary staging tables, then
// one INSERT … SELECT per table moves them in: idempotent on (org_id, id) for events and messages, and
// "keep the larger output" for usage (a streamed message may be read before it finished).
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { Db } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { WireHookEvent, WireMessage, WireRecord, WireUsage } from '../../common/wire.ts';

const STAGING_DDL = `
CREATE TEMP TABLE IF NOT EXISTS stage_events (
  id VARCHAR, ts_ms BIGINT, agent VARCHAR, event VARCHAR, session_id VARCHAR, client VARCHAR, autonomy VARCHAR,
  tool_name VARCHAR, tool_success BOOLEAN, mcp_server VARCHAR, skill VARCHAR, is_shell BOOLEAN, files VARCHAR,
  git_commit BOOLEAN, pr_created BOOLEAN, slash_command VARCHAR, reason VARCHAR, agent_id VARCHAR, agent_type VARCHAR,
  truncated BOOLEAN, hooks VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS stage_usage (
  id VARCHAR, ts_ms BIGINT, agent VARCHAR, session_id VARCHAR, model VARCHAR, input_tokens BIGINT, output_tokens BIGINT,
  cache_read_tokens BIGINT, cache_write_tokens BIGINT, thinking_tokens BIGINT, thinking BOOLEAN);
CREATE TEMP TABLE IF NOT EXISTS stage_messages (id VARCHAR, ts_ms BIGINT, agent VARCHAR, session_id VARCHAR, model VARCHAR);
`;

const MOVE_EVENTS = `
INSERT OR IGNORE INTO events
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts_ms), agent, event, session_id, client, autonomy, tool_name, tool_success,
       mcp_server, skill, is_shell, files::JSON, git_commit, pr_created, slash_command, reason, agent_id, agent_type, truncated, hooks::JSON
FROM stage_events`;

const MOVE_USAGE = `
INSERT INTO usage
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts_ms), agent, session_id, model, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, thinking_tokens, thinking
FROM stage_usage
ON CONFLICT (org_id, id) DO UPDATE SET
  received_at = excluded.received_at, ts = excluded.ts, model = excluded.model, input_tokens = excluded.input_tokens,
  output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
  cache_write_tokens = excluded.cache_write_tokens, thinking_tokens = excluded.thinking_tokens,
  thinking = excluded.thinking OR usage.thinking
WHERE excluded.output_tokens > usage.output_tokens`;

const MOVE_MESSAGES = `
INSERT OR IGNORE INTO assistant_messages
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts_ms), agent, session_id, model FROM stage_messages`;

const CLEAR_STAGING = 'DELETE FROM stage_events; DELETE FROM stage_usage; DELETE FROM stage_messages;';

export interface StoreResult {
  stored: number;
  duplicates: number;
}

const str = (a: DuckDBAppender, v: string | undefined) => (v === undefined ? a.appendNull() : a.appendVarchar(v));
const bool = (a: DuckDBAppender, v: boolean | undefined) => (v === undefined ? a.appendNull() : a.appendBoolean(v));
const big = (a: DuckDBAppender, v: number) => a.appendBigInt(BigInt(v));

function appendEvents(a: DuckDBAppender, rows: WireHookEvent[]): void {
  for (const r of rows) {
    a.appendVarchar(r.id);
    big(a, r.ts);
    a.appendVarchar(r.agent);
    a.appendVarchar(r.event);
    a.appendVarchar(r.session_id);
    a.appendVarchar(r.client);
    a.appendVarchar(r.autonomy);
    str(a, r.tool_name);
    bool(a, r.tool_success);
    str(a, r.mcp_server);
    str(a, r.skill);
    bool(a, r.is_shell);
    str(a, r.files ? JSON.stringify(r.files) : undefined);
    bool(a, r.git_commit);
    bool(a, r.pr_created);
    str(a, r.slash_command);
    str(a, r.reason);
    str(a, r.agent_id);
    str(a, r.agent_type);
    bool(a, r.truncated);
    str(a, r.hooks ? JSON.stringify(r.hooks) : undefined);
    a.endRow();
  }
}

function appendUsage(a: DuckDBAppender, rows: WireUsage[]): void {
  for (const r of rows) {
    a.appendVarchar(r.id);
    big(a, r.ts);
    a.appendVarchar(r.agent);
    a.appendVarchar(r.session_id);
    a.appendVarchar(r.model);
    big(a, r.input_tokens);
    big(a, r.output_tokens);
    big(a, r.cache_read_tokens);
    big(a, r.cache_write_tokens);
    big(a, r.thinking_tokens);
    a.appendBoolean(r.thinking);
    a.endRow();
  }
}

function appendMessages(a: DuckDBAppender, rows: WireMessage[]): void {
  for (const r of rows) {
    a.appendVarchar(r.id);
    big(a, r.ts);
    a.appendVarchar(r.agent);
    a.appendVarchar(r.session_id);
    str(a, r.model);
    a.endRow();
  }
}

async function stage<T>(conn: DuckDBConnection, table: string, rows: T[], fill: (a: DuckDBAppender, rows: T[]) => void): Promise<void> {
  if (rows.length === 0) return;
  const appender = await conn.createAppender(table, 'main', 'temp');
  fill(appender, rows);
  appender.flushSync();
  appender.closeSync();
}

/** Pure: one record per id; for usage the one with the largest output (a streamed message). */
export function dedupeBatch(records: WireRecord[]): { events: WireHookEvent[]; usage: WireUsage[]; messages: WireMessage[]; inBatchDuplicates: number } {
  const events = new Map<string, WireHookEvent>();
  const usage = new Map<string, WireUsage>();
  const messages = new Map<string, WireMessage>();
  let inBatchDuplicates = 0;
  for (const r of records) {
    if (r.kind === 'event') {
      if (events.has(r.id)) inBatchDuplicates++;
      else events.set(r.id, r);
    } else if (r.kind === 'usage') {
      const prev = usage.get(r.id);
      if (prev) inBatchDuplicates++;
      if (!prev || r.output_tokens > prev.output_tokens) usage.set(r.id, prev ? { ...r, thinking: r.thinking || prev.thinking } : r);
    } else {
      if (messages.has(r.id)) inBatchDuplicates++;
      else messages.set(r.id, r);
    }
  }
  return { events: [...events.values()], usage: [...usage.values()], messages: [...messages.values()], inBatchDuplicates };
}

export class IngestStore {
  private staged = false;
  constructor(private readonly db: Db) {}

  async store(orgId: OrgId, userId: UserId, records: WireRecord[]): Promise<StoreResult> {
    const batch = dedupeBatch(records);
    return this.db.exclusive(async (conn) => {
      if (!this.staged) {
        await conn.run(STAGING_DDL);
        this.staged = true;
      }
      await conn.run('BEGIN TRANSACTION');
      try {
        await stage(conn, 'stage_events', batch.events, appendEvents);
        await stage(conn, 'stage_usage', batch.usage, appendUsage);
        await stage(conn, 'stage_messages', batch.messages, appendMessages);
        const params = { org: orgId, user: userId };
        let stored = 0;
        if (batch.events.length) stored += Number((await conn.run(MOVE_EVENTS, params)).rowsChanged);
        if (batch.usage.length) stored += Number((await conn.run(MOVE_USAGE, params)).rowsChanged);
        if (batch.messages.length) stored += Number((await conn.run(MOVE_MESSAGES, params)).rowsChanged);
        await conn.run(CLEAR_STAGING);
        await conn.run('COMMIT');
        return { stored, duplicates: records.length - stored };
      } catch (error) {
        await conn.run('ROLLBACK').catch(() => undefined);
        await conn.run(CLEAR_STAGING).catch(() => undefined);
        throw error;
      }
    });
  }
}
