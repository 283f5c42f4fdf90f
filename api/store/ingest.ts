// Stores validated wire records. The batch is written as NDJSON to a temporary file and loaded by
// DuckDB's read_json: parsing and converting rows happens inside DuckDB, off the event loop, so the
// server keeps validating the next request meanwhile (a per-row appender costs the main thread ~3 µs a
// row). Events and messages are idempotent on (org_id, id); usage keeps the larger output (a streamed
// message may be read before it finished).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { WireHookEvent, WireMessage, WireRecord, WireUsage } from '../../common/wire.ts';

const EVENT_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', event: 'VARCHAR', session_id: 'VARCHAR', client: 'VARCHAR',
  autonomy: 'VARCHAR', tool_name: 'VARCHAR', tool_success: 'BOOLEAN', mcp_server: 'VARCHAR', skill: 'VARCHAR', is_shell: 'BOOLEAN',
  files: 'STRUCT(ext VARCHAR, name VARCHAR, op VARCHAR)[]', git_commit: 'BOOLEAN', pr_created: 'BOOLEAN', slash_command: 'VARCHAR', reason: 'VARCHAR', agent_id: 'VARCHAR',
  agent_type: 'VARCHAR', truncated: 'BOOLEAN', hooks: 'STRUCT(event VARCHAR, matcher VARCHAR, command VARCHAR)[]',
  api_session_id: 'VARCHAR', api_message_id: 'VARCHAR'}`;

const USAGE_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', session_id: 'VARCHAR', model: 'VARCHAR', input_tokens: 'BIGINT',
  output_tokens: 'BIGINT', cache_read_tokens: 'BIGINT', cache_write_tokens: 'BIGINT', thinking_tokens: 'BIGINT', thinking: 'BOOLEAN'}`;

const MESSAGE_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', session_id: 'VARCHAR', model: 'VARCHAR'}`;

const INSERT_EVENTS = `
INSERT OR IGNORE INTO events
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts), agent, event, session_id, client, autonomy, tool_name, tool_success,
       mcp_server, skill, is_shell, files, git_commit, pr_created, slash_command, reason, agent_id, agent_type, truncated, hooks,
       api_session_id, api_message_id
FROM read_json($file, format = 'newline_delimited', columns = ${EVENT_COLUMNS})`;

const UPSERT_USAGE = `
INSERT INTO usage
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts), agent, session_id, model, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, thinking_tokens, thinking
FROM read_json($file, format = 'newline_delimited', columns = ${USAGE_COLUMNS})
ON CONFLICT (org_id, id) DO UPDATE SET
  received_at = excluded.received_at, ts = excluded.ts, model = excluded.model, input_tokens = excluded.input_tokens,
  output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
  cache_write_tokens = excluded.cache_write_tokens, thinking_tokens = excluded.thinking_tokens,
  thinking = excluded.thinking OR usage.thinking
WHERE excluded.output_tokens > usage.output_tokens`;

const INSERT_MESSAGES = `
INSERT OR IGNORE INTO assistant_messages
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts), agent, session_id, model
FROM read_json($file, format = 'newline_delimited', columns = ${MESSAGE_COLUMNS})`;

export interface StoreResult {
  stored: number;
  duplicates: number;
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

const toNdjson = (rows: readonly object[]) => {
  let text = '';
  for (const row of rows) text += `${JSON.stringify(row)}\n`;
  return text;
};

export class IngestStore {
  private readonly dir = join(tmpdir(), `agentmeter-ingest-${process.pid}`);
  private sequence = 0;

  constructor(private readonly db: Db) {
    mkdirSync(this.dir, { recursive: true });
  }

  async store(orgId: OrgId, userId: UserId, records: WireRecord[]): Promise<StoreResult> {
    const batch = dedupeBatch(records);
    const n = ++this.sequence;
    const files: { sql: string; file: string }[] = [];
    for (const [sql, rows, name] of [
      [INSERT_EVENTS, batch.events, 'events'],
      [UPSERT_USAGE, batch.usage, 'usage'],
      [INSERT_MESSAGES, batch.messages, 'messages'],
    ] as const) {
      if (rows.length === 0) continue;
      const file = join(this.dir, `${n}-${name}.ndjson`);
      writeFileSync(file, toNdjson(rows));
      files.push({ sql, file });
    }
    try {
      const stored = await this.db.transaction(async (tx) => {
        let count = 0;
        for (const { sql, file } of files) count += await tx.run(sql, { org: orgId, user: userId, file });
        return count;
      });
      return { stored, duplicates: records.length - stored };
    } finally {
      for (const { file } of files) rmSync(file, { force: true });
    }
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
