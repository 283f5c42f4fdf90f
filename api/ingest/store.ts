// Stores validated wire records. The batch is written as NDJSON to a temporary file and loaded by
// DuckDB's read_json: parsing and converting rows happens inside DuckDB, off the event loop, so the
// server keeps validating the next request meanwhile (DuckDB's appender, row by row or by data chunk,
// costs the main thread several times more a row). Events are idempotent on (org_id, id). A usage or
// assistant-message id names one model call (docs/metrics.md §1), which can arrive more than once: read while it
// streamed, or copied into a continued session's transcript. A record belongs to the user who sent its id
// first: the same id from another user of the organization is refused (the answer rejects it, the collector
// quarantines it), never merged, so nobody can take another's record over or inflate its counts. A repeated
// id from the same user keeps the earliest copy's time, session and model, and the largest of each token count (combineUsage in api/ingest/decode.ts does
// the same within a batch). A call moved to an earlier day keeps the day it left (moved_from), which the
// next batch rebuilds with the new one.
//
// Why events and messages are first stored with a plain INSERT: DuckDB's conflict-handling insert costs
// several times a plain insert's time a row against the primary-key index. A batch holds ids already stored only
// when it is delivered again (the collector lost an acknowledgement) or holds a continued session's copies,
// which is rare; the primary key then makes the plain insert fail, the whole batch is rolled back and
// stored again with INSERT OR IGNORE (events) and the upsert (messages).
// Dropping the repeats first with an anti-join against the batch's time range would cost every batch what
// only the rare re-delivery needs.
//
// Batches are written on the database's writer connection, small ones that wait together in one
// transaction (together), and a large one beside the writer's on a second connection (writeBeside).
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listValue } from '@duckdb/node-api';
import { CommitOrder } from '../../common/db/commit-order.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { HttpError } from '../../common/errors.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { SharedExclusive } from '../../common/shared-exclusive.ts';
import type { IngestResponse, WireRecord } from '../../common/wire.ts';
import { type DecodedBatch, decodeItems, indicesOf, type RecordKind } from './decode.ts';

/**
 * How every temporary file is read: NDJSON, and nothing taken from its path. DuckDB would otherwise read a
 * folder named `key=value` on the way to it (the database's path is the user's choice) as a column, and
 * overwrite `id` or `ts` with it.
 */
const READ_NDJSON = "format = 'newline_delimited', hive_partitioning = false";

const EVENT_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', event: 'VARCHAR', session_id: 'VARCHAR', client: 'VARCHAR',
  autonomy: 'VARCHAR', tool_name: 'VARCHAR', tool_success: 'BOOLEAN', mcp_server: 'VARCHAR', skill: 'VARCHAR', is_shell: 'BOOLEAN',
  files: 'STRUCT(ext VARCHAR, name VARCHAR, op VARCHAR)[]', git_commit: 'BOOLEAN', pr_created: 'BOOLEAN', slash_command: 'VARCHAR', reason: 'VARCHAR', agent_id: 'VARCHAR',
  agent_type: 'VARCHAR', truncated: 'BOOLEAN', hooks: 'STRUCT(event VARCHAR, matcher VARCHAR, command VARCHAR)[]',
  api_session_id: 'VARCHAR', api_message_id: 'VARCHAR',
  edits: 'STRUCT(ext VARCHAR, name VARCHAR, lines_added BIGINT, lines_deleted BIGINT, repo_id VARCHAR, repo VARCHAR)[]',
  repo: 'VARCHAR', repo_id: 'VARCHAR'}`;

const USAGE_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', session_id: 'VARCHAR', model: 'VARCHAR', input_tokens: 'BIGINT',
  output_tokens: 'BIGINT', cache_read_tokens: 'BIGINT', cache_write_tokens: 'BIGINT', thinking_tokens: 'BIGINT', thinking: 'BOOLEAN',
  cache_write_1h_tokens: 'BIGINT', source: 'VARCHAR'}`;

const MESSAGE_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', session_id: 'VARCHAR', model: 'VARCHAR'}`;

/** One batch's file, whose rows are all of the request's organization and user. */
const oneFile = (columns: string) => ({
  org: '$org',
  user: '$user',
  from: `read_json($file, ${READ_NDJSON}, columns = ${columns}) r`,
});

/**
 * The files of a group's batches (IngestStore.loadGroup), each row with the organization and user of the
 * batch its file came from: $files, $orgs and $users are lists of the same length, in batch order.
 */
const groupFiles = (columns: string) => ({
  org: 'b.org_id',
  user: 'b.user_id',
  from: `read_json($files, ${READ_NDJSON}, columns = ${columns}, filename = true) r
JOIN (SELECT unnest($files) AS filename, unnest($orgs) AS org_id, unnest($users) AS user_id) b USING (filename)`,
});

type RowSource = ReturnType<typeof oneFile>;

const selectEvents = ({ org, user, from }: RowSource) => `
SELECT ${org}, id, ${user}, now()::TIMESTAMP, epoch_ms(ts), agent, event, session_id, client, autonomy, tool_name, tool_success,
       mcp_server, skill, is_shell, files, git_commit, pr_created, slash_command, reason, agent_id, agent_type, truncated, hooks,
       api_session_id, api_message_id, edits, repo, repo_id
FROM ${from}`;

const INSERT_EVENTS = `INSERT INTO events ${selectEvents(oneFile(EVENT_COLUMNS))}`;
const INSERT_EVENTS_OR_IGNORE = `INSERT OR IGNORE INTO events ${selectEvents(oneFile(EVENT_COLUMNS))}`;
const INSERT_GROUP_EVENTS = `INSERT INTO events ${selectEvents(groupFiles(EVENT_COLUMNS))}`;

/**
 * The days a row counted on before copies moved it earlier (migration 097): the batch rebuilds them too,
 * however far back the row moved. Evaluated against the stored row, as every SET expression is.
 */
const movedFrom = (table: string) => `CASE WHEN CAST(excluded.ts AS DATE) < CAST(${table}.ts AS DATE)
    THEN list_append(coalesce(${table}.moved_from, []::DATE[]), CAST(${table}.ts AS DATE)) ELSE ${table}.moved_from END`;

/**
 * A repeated usage id combines with the stored row only when the same user sent both (docs/metrics.md §1: a
 * continued session's copies count once). Another user's row is never changed: `onOtherUser` either
 * fails the statement (the fast path, so that the batch is written again by the careful one, which finds
 * and refuses those ids) or leaves the row as it is (the careful path).
 */
const upsertUsage = (onOtherUser: string) => `
INSERT INTO usage
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts), agent, session_id, model, input_tokens, output_tokens,
       cache_read_tokens, cache_write_tokens, thinking_tokens, thinking, coalesce(cache_write_1h_tokens, 0), source, NULL
FROM read_json($file, ${READ_NDJSON}, columns = ${USAGE_COLUMNS})
ON CONFLICT (org_id, id) DO UPDATE SET
  received_at = excluded.received_at, ts = least(excluded.ts, usage.ts),
  moved_from = ${movedFrom('usage')},
  session_id = CASE WHEN excluded.ts < usage.ts THEN excluded.session_id ELSE usage.session_id END,
  model = CASE WHEN excluded.ts < usage.ts THEN excluded.model ELSE usage.model END,
  input_tokens = greatest(excluded.input_tokens, usage.input_tokens),
  output_tokens = greatest(excluded.output_tokens, usage.output_tokens),
  cache_read_tokens = greatest(excluded.cache_read_tokens, usage.cache_read_tokens),
  cache_write_tokens = greatest(excluded.cache_write_tokens, usage.cache_write_tokens),
  thinking_tokens = greatest(excluded.thinking_tokens, usage.thinking_tokens),
  cache_write_1h_tokens = greatest(excluded.cache_write_1h_tokens, usage.cache_write_1h_tokens),
  thinking = excluded.thinking OR usage.thinking
WHERE CASE WHEN usage.user_id <> excluded.user_id THEN ${onOtherUser} ELSE
     excluded.ts < usage.ts OR excluded.input_tokens > usage.input_tokens OR excluded.output_tokens > usage.output_tokens
   OR excluded.cache_read_tokens > usage.cache_read_tokens OR excluded.cache_write_tokens > usage.cache_write_tokens
   OR excluded.thinking_tokens > usage.thinking_tokens OR excluded.cache_write_1h_tokens > usage.cache_write_1h_tokens OR (excluded.thinking AND NOT usage.thinking) END`;

/** What the fast path's usage upsert fails with when an id is another user's. */
const OTHER_USERS_ID = 'agentmeter: a record id held by another user';
const UPSERT_USAGE = upsertUsage(`error('${OTHER_USERS_ID}')`);
const UPSERT_USAGE_CAREFULLY = upsertUsage('false');

const selectMessages = ({ org, user, from }: RowSource) => `
SELECT ${org}, id, ${user}, now()::TIMESTAMP, epoch_ms(ts), agent, session_id, model, NULL
FROM ${from}`;

const INSERT_MESSAGES = `INSERT INTO assistant_messages ${selectMessages(oneFile(MESSAGE_COLUMNS))}`;
const INSERT_GROUP_MESSAGES = `INSERT INTO assistant_messages ${selectMessages(groupFiles(MESSAGE_COLUMNS))}`;
/** A message stored before keeps its place unless this copy is earlier. */
const UPSERT_MESSAGES = `INSERT INTO assistant_messages ${selectMessages(oneFile(MESSAGE_COLUMNS))}
ON CONFLICT (org_id, id) DO UPDATE SET
  received_at = excluded.received_at, ts = excluded.ts, session_id = excluded.session_id, model = excluded.model,
  moved_from = ${movedFrom('assistant_messages')}
WHERE excluded.ts < assistant_messages.ts AND assistant_messages.user_id = excluded.user_id`;

/**
 * The ids of a batch file that another user of the organization holds in `table`. Records are keyed by
 * (organization, id), and an id names one user's record: a copy from anyone else is refused, never
 * merged (it could take the record over or inflate its counts). Run only on the careful path, so its
 * scan of the table costs nothing on a batch of new ids.
 */
const otherUsersIds = (table: string) => `
SELECT DISTINCT r.id FROM read_json($file, ${READ_NDJSON}, columns = {id: 'VARCHAR'}) r
JOIN ${table} t ON t.org_id = $org AND t.id = r.id
WHERE t.user_id <> $user`;

/**
 * DuckDB's message when a plain insert meets an existing key, or the usage upsert another user's id; or,
 * with a batch written beside the writer (IngestStore.writeBeside), when the commit finds a key the other
 * transaction committed first, or both changed or deleted one stored row (a removed user's commit that
 * both release: RELEASE_REMOVED_USERS_COMMITS).
 */
export const isKeyConflict = (error: unknown) =>
  error instanceof Error &&
  (/Constraint Error: Duplicate key|Failed to commit: PRIMARY KEY or UNIQUE constraint violation|Conflict on update|Conflict on tuple deletion/i.test(
    error.message,
  ) ||
    error.message.includes(OTHER_USERS_ID));

const COMMIT_COLUMNS = `{repo_id: 'VARCHAR', commit: 'VARCHAR', ts: 'BIGINT', repo: 'VARCHAR', author: 'VARCHAR', lines_added: 'BIGINT',
  lines_deleted: 'BIGINT', agent_lines: 'BIGINT', by_agent: 'STRUCT(agent VARCHAR, model VARCHAR, lines BIGINT)[]',
  by_session: 'STRUCT(agent VARCHAR, session_id VARCHAR, lines BIGINT)[]', parents: 'VARCHAR[]'}`;

/**
 * A landed commit counts once per (organization, repository, commit) (docs/metrics.md §5): when several
 * machines of its author report it, the record with the most agent lines stands (never a sum); a repeat
 * with no more is ignored. Only the user who holds it replaces it: a commit has one author, so another
 * user's copy (under an address of theirs) is refused (OTHER_USERS_COMMITS), never taken over. A commit
 * whose holder was removed (its row kept, without erasure) is the author address's current owner's: their
 * copy replaces it whole (the sender owns the address, checked before anything is written). received_at
 * moves with a replacement, so the next batch rebuilds its day.
 */
const INSERT_COMMITS = `INSERT INTO landed_commits
  (org_id, repo_id, commit_id, user_id, received_at, ts, repo, lines_added, lines_deleted, agent_lines, by_agent, author, by_session, parents)
SELECT $org, repo_id, commit, $user, now()::TIMESTAMP, epoch_ms(ts), repo, lines_added, lines_deleted, agent_lines, by_agent, author, by_session, parents
FROM read_json($file, ${READ_NDJSON}, columns = ${COMMIT_COLUMNS})
ON CONFLICT (org_id, repo_id, commit_id) DO UPDATE SET
  user_id = excluded.user_id, received_at = excluded.received_at, ts = excluded.ts, repo = excluded.repo,
  lines_added = excluded.lines_added, lines_deleted = excluded.lines_deleted, agent_lines = excluded.agent_lines,
  by_agent = excluded.by_agent, author = excluded.author, by_session = excluded.by_session, parents = excluded.parents
WHERE excluded.agent_lines > landed_commits.agent_lines AND excluded.user_id = landed_commits.user_id`;

/**
 * The batch file's commits held by a user who was removed: they go before INSERT_COMMITS, which then
 * stores the sender's copy (the upsert's condition cannot ask whether a user exists).
 */
const RELEASE_REMOVED_USERS_COMMITS = `DELETE FROM landed_commits
USING read_json($file, ${READ_NDJSON}, columns = {repo_id: 'VARCHAR', commit: 'VARCHAR'}) r
WHERE landed_commits.org_id = $org AND landed_commits.repo_id = r.repo_id AND landed_commits.commit_id = r.commit
  AND landed_commits.user_id NOT IN (SELECT id FROM users WHERE org_id = $org)`;

/** The ids of a batch file's commit records whose commit another user of the organization holds. */
const OTHER_USERS_COMMITS = `SELECT DISTINCT r.id FROM read_json($file, ${READ_NDJSON}, columns = {id: 'VARCHAR', repo_id: 'VARCHAR', commit: 'VARCHAR'}) r
JOIN landed_commits t ON t.org_id = $org AND t.repo_id = r.repo_id AND t.commit_id = r.commit
WHERE t.user_id <> $user`;

/** Why a commit record is refused when another user holds the commit. */
export const COMMIT_HELD =
  'another user of the organization holds this commit: a landed commit counts once, for the user who owns its author address';

/** The addresses a user owns: their e-mail and their aliases (lower case). */
const OWN_ADDRESSES = `SELECT lower(email) AS email FROM users WHERE org_id = $org AND id = $user
UNION SELECT email FROM user_aliases WHERE org_id = $org AND user_id = $user`;

/** Why a commit record of another person's address is refused (docs/metrics.md §5). */
export const NOT_YOUR_COMMIT =
  "the commit's author address is not yours: a landed commit is taken only from a key of the user who owns its author address (their e-mail or an alias)";

const DECISION_COLUMNS = `{id: 'VARCHAR', ts: 'BIGINT', agent: 'VARCHAR', session_id: 'VARCHAR', decision: 'VARCHAR', count: 'BIGINT',
  tool_name: 'VARCHAR', language: 'VARCHAR'}`;

/** An edit decision record counts once per (organization, id): a repeat is ignored (docs/metrics.md §11). */
const INSERT_DECISIONS = `INSERT OR IGNORE INTO edit_decisions
SELECT $org, id, $user, now()::TIMESTAMP, epoch_ms(ts), agent, session_id, decision, count, tool_name, language
FROM read_json($file, ${READ_NDJSON}, columns = ${DECISION_COLUMNS})`;

/**
 * DuckDB's errors that are about the rows it was given (a value it cannot read or convert, a NOT NULL
 * column left empty), as opposed to the server being unwell (I/O, memory, a conflicting transaction).
 * The same batch fails the same way on every try.
 */
const CONTENT_ERROR = /^(Invalid Input|Conversion|Out of Range|Constraint) Error: /;

/**
 * The store refused a batch for what it holds, though every record passed validation (validation is meant
 * to rule this out; this is the net under it). The route answers 422 with the reason, and the collector
 * narrows the batch down to the record that fails (collector/narrow.ts).
 */
export class BatchRefused extends Error {}

/**
 * The batch's sender was removed after the request was authenticated and before its transaction began
 * (IngestStore.removeSender): nothing of it was stored. Answered 401, as the removed user's credential
 * is from then on, by every route that stores a batch.
 */
export class SenderRemoved extends HttpError {
  constructor() {
    super(401, 'the user of this credential was removed; nothing of this batch was stored');
  }
}

const senderKey = (org: OrgId, user: UserId) => `${org}\n${user}`;

/** DuckDB's first line, without the temporary file's path, cut short: the reason a collector keeps. */
export function refusalReason(message: string): string {
  const line = message.split('\n')[0] ?? '';
  return line.replace(/ in file "[^"]*"/g, '').slice(0, 300);
}

/**
 * The folder for the temporary NDJSON files of the database at dbPath: beside the database (the same
 * disk and the same privacy as the data it becomes), or in the system's temporary folder for an
 * in-memory database.
 */
export function ingestTempRoot(dbPath: string): string {
  return dbPath === '' || dbPath === ':memory:' ? join(tmpdir(), `agentmeter-ingest-${process.pid}`) : `${dbPath}.ingest`;
}

/** Temporary folders of the stores alive in this process; anything else in a root is left over. */
const liveTempDirs = new Set<string>();

/**
 * Removes what a store that is gone left in root: a server killed mid-batch (kill -9) leaves raw events
 * there. Only this process can be using the root, since DuckDB lets one process open the database; the
 * stores alive in this process are spared. A link is removed, never followed. Returns how many entries.
 */
export function sweepIngestTemp(root: string): number {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  let swept = 0;
  for (const name of names) {
    const path = join(root, name);
    if (liveTempDirs.has(path)) continue;
    rmSync(path, { recursive: true, force: true });
    swept++;
  }
  return swept;
}

export interface StoreResult {
  stored: number;
  duplicates: number;
  /** Records refused because another user of the organization holds their id (index and reason). */
  refused: IngestResponse['rejected'];
}

const REFUSED_REASON =
  'another user of the organization already sent a record with this id; a record belongs to the user who sent it first';

/** What one batch's transaction wrote: the rows stored and the records refused for another user's id. */
interface Written {
  stored: number;
  refused: IngestResponse['rejected'];
}

/** A batch waiting for the writer (IngestStore.together). */
interface Waiting {
  records: number;
  org: OrgId;
  user: UserId;
  /** Its events' and messages' files and rows, if any: a group loads each table's in one statement. */
  events: { file: string; rows: number } | undefined;
  messages: { file: string; rows: number } | undefined;
  /**
   * Its fast path inside a transaction shared with other batches: every statement, or (`groupLoaded`)
   * all but its events' and messages', which the group's own statements loaded.
   */
  fast: (tx: Db, groupLoaded: boolean) => Promise<Written>;
  /** Its own transaction, and the careful path when an id was stored before. */
  alone: () => Promise<Written>;
  /** Its fast path alone on another connection, beside the writer's transaction (IngestStore.writeBeside). */
  beside: (on: Db) => Promise<Written>;
  /** Its fast path failed beside the writer: the writer takes it, as if it had never been tried. */
  byWriter: boolean;
  /** Its fast path failed in a group: it is written alone. */
  failedInGroup: boolean;
  /**
   * A group's statement over it and other batches failed: every group it is in until it is answered runs
   * each batch's statements in turn, which finds the one that fails.
   */
  inFailedStatement: boolean;
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/**
 * A group's bounds. Small batches gain from sharing (a statement's own cost is about that of 1,000 rows);
 * a full batch of 10,000 gains little, and a batch of a group is answered only once the whole group is
 * written, so a batch over the bound is written alone.
 */
const GROUP_MOST_RECORDS = 2_000;
const GROUP_MOST_BATCHES = 64;

/**
 * The store's transactions so far, by shape (a batch's own on the writer, a group's, or a batch's fast
 * path on the second connection beside the writer's: IngestStore.writeBeside) and outcome. A rollback is
 * ordinary (a batch delivered again takes its careful path after one), but one that keeps rising means
 * batches are stored twice over: the server's metrics read these at each scrape.
 */
export interface StoreTransactions {
  single: { committed: number; rolledBack: number };
  group: { committed: number; rolledBack: number };
  beside: { committed: number; rolledBack: number };
}

export class IngestStore {
  /** A folder of this store's own (0700): two servers in one process (tests) must not remove each other's files. */
  private readonly dir: string;
  private sequence = 0;
  /** Entries a store that is gone left behind, removed when this one started. */
  readonly swept: number;
  /** Batches waiting for the writer, and whether it is writing them (together). */
  private readonly waiting: Waiting[] = [];
  private writing = false;
  /** The connection large batches are written on beside the writer (writeBeside), once one was. */
  private second: Promise<Db> | undefined;
  private besideBusy = false;
  private readonly order = new CommitOrder();
  private readonly hold = new SharedExclusive();
  /** Users removed while this store ran (removeSender), as senderKey: their batches are refused. */
  private readonly removedSenders = new Set<string>();
  readonly transactions: StoreTransactions = {
    single: { committed: 0, rolledBack: 0 },
    group: { committed: 0, rolledBack: 0 },
    beside: { committed: 0, rolledBack: 0 },
  };

  constructor(private readonly db: Db) {
    const root = ingestTempRoot(db.path);
    // A root that is a link or not a folder is not ours to write into: it goes (the link, not its target).
    try {
      if (!lstatSync(root).isDirectory()) rmSync(root, { force: true });
    } catch {
      // Not there yet.
    }
    mkdirSync(root, { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    this.swept = sweepIngestTemp(root);
    this.dir = mkdtempSync(join(root, `${process.pid}-`));
    liveTempDirs.add(this.dir);
  }

  /** Stores typed records (imports and tests): validated like a request; an invalid one is an error. */
  async storeRecords(orgId: OrgId, userId: UserId, records: readonly WireRecord[]): Promise<StoreResult> {
    const batch = await decodeItems(records, Infinity);
    if (batch.rejected.length) throw new Error(`invalid records: ${JSON.stringify(batch.rejected.slice(0, 3))}`);
    return this.store(orgId, userId, batch);
  }

  async store(orgId: OrgId, userId: UserId, batch: DecodedBatch): Promise<StoreResult> {
    const n = ++this.sequence;
    // Commits of an address the key's user does not own are refused before anything is written.
    const notYours: IngestResponse['rejected'] = [];
    let commitRows = batch.commits.ndjson;
    if (batch.commits.items.length) {
      const own = new Set((await this.db.all<{ email: string }>(OWN_ADDRESSES, { org: orgId, user: userId })).map((r) => r.email));
      const kept = batch.commits.items.filter((c) => own.has(c.author));
      for (const c of batch.commits.items)
        if (!own.has(c.author)) notYours.push({ index: c.index, id: c.id.slice(0, 256), reason: NOT_YOUR_COMMIT });
      commitRows = kept.map((c) => c.ndjson).join('');
    }
    const files: { sql: string; fallback: string; file: string; kind: RecordKind | 'commit' | 'decision'; table: string }[] = [];
    for (const [sql, fallback, ndjson, kind, table] of [
      [INSERT_EVENTS, INSERT_EVENTS_OR_IGNORE, batch.events.ndjson, 'event', 'events'],
      [UPSERT_USAGE, UPSERT_USAGE_CAREFULLY, batch.usageNdjson, 'usage', 'usage'],
      [INSERT_MESSAGES, UPSERT_MESSAGES, batch.messages.ndjson, 'message', 'assistant_messages'],
      [INSERT_COMMITS, INSERT_COMMITS, commitRows, 'commit', 'landed_commits'],
      [INSERT_DECISIONS, INSERT_DECISIONS, batch.decisions.ndjson, 'decision', 'edit_decisions'],
    ] as const) {
      if (ndjson.length === 0) continue;
      const file = join(this.dir, `${n}-${kind === 'message' ? 'messages' : table}.ndjson`);
      // Raw events: readable by this user only whatever the umask; 'wx' never writes through a planted link.
      writeFileSync(file, ndjson, { mode: 0o600, flag: 'wx' });
      files.push({ sql, fallback, file, kind, table });
    }
    const params = (file: string) => ({ org: orgId, user: userId, file });
    // The rows of the files a group's own statements load: a plain insert stores every row of its file or fails.
    const groupRows: Partial<Record<string, number>> = { event: batch.events.count, message: batch.messages.count };
    const writeIn = async (tx: Db, fast: boolean, groupLoaded = false): Promise<Written> => {
      this.refuseRemoved(orgId, userId);
      let stored = 0;
      const refused: IngestResponse['rejected'] = [];
      for (const { sql, fallback, file, kind, table } of files) {
        const loadedRows = groupLoaded ? groupRows[kind] : undefined;
        if (loadedRows !== undefined) {
          stored += loadedRows;
          continue;
        }
        if (kind === 'commit') await tx.run(RELEASE_REMOVED_USERS_COMMITS, { org: orgId, file });
        stored += await tx.run(fast ? sql : fallback, params(file));
        if (kind === 'commit') {
          // Commits were sorted by their author's owner above; one another user holds is left as it is.
          const held = new Set((await tx.all<{ id: string }>(OTHER_USERS_COMMITS, params(file))).map((r) => r.id));
          for (const c of batch.commits.items)
            if (held.has(c.id)) refused.push({ index: c.index, id: c.id.slice(0, 256), reason: COMMIT_HELD });
          continue;
        }
        // A decision has no owner to refuse for.
        if (fast || kind === 'decision') continue;
        const held = await tx.all<{ id: string }>(otherUsersIds(table), params(file));
        for (const { index, id } of indicesOf(batch, kind, new Set(held.map((r) => r.id))))
          refused.push({ index, id: id.slice(0, 256), reason: REFUSED_REASON });
      }
      return { stored, refused };
    };
    // The careful path reads what other users hold: no other batch's transaction may be open meanwhile.
    const write = (fast: boolean) => this.transaction('single', (tx) => writeIn(tx, fast), this.db, fast ? 'shared' : 'exclusive');
    const loaded = (kind: 'event' | 'message') => {
      const found = files.find((f) => f.kind === kind);
      return found ? { file: found.file, rows: groupRows[kind]! } : undefined;
    };
    try {
      const { stored, refused } = await this.together({
        records: batch.received,
        org: orgId,
        user: userId,
        events: loaded('event'),
        messages: loaded('message'),
        fast: (tx, groupLoaded) => writeIn(tx, true, groupLoaded),
        beside: (on) => this.transaction('beside', (tx) => writeIn(tx, true), on),
        alone: () =>
          write(true).catch((error: unknown) => {
            if (isKeyConflict(error)) return write(false);
            throw error;
          }),
      }).catch((error: unknown) => {
        if (error instanceof Error && CONTENT_ERROR.test(error.message) && !isKeyConflict(error))
          throw new BatchRefused(refusalReason(error.message));
        throw error;
      });
      refused.push(...notYours);
      refused.sort((a, b) => a.index - b.index);
      return { stored, duplicates: batch.received - batch.rejected.length - refused.length - stored, refused };
    } finally {
      for (const { file } of files) rmSync(file, { force: true });
    }
  }

  /**
   * Writes a batch in the next transaction, with the batches that wait for the writer beside it (group
   * commit). Each statement and each transaction has a cost of its own whatever its rows (about 4 ms of a
   * 20-record batch), and the writer takes one transaction at a time: collectors that each send a
   * second's records would otherwise queue behind one another's commits. A batch waits only while the
   * transaction before it runs.
   *
   * The shared transaction loads the events of all its batches with one plain insert, and their messages
   * with another (loadGroup): each stores all of its rows or fails, so a batch's count of them is its
   * rows. Then it runs each batch's other statements in turn (the usage upsert counts what it changed),
   * each seeing what the batches before it wrote. When a group's statement fails (an id stored before,
   * repeated in another batch of the group, or another user's; a row DuckDB refuses; a count other than
   * the files' rows), the transaction is rolled back and its batches are grouped again, with any that
   * arrived since, each running its own statements in turn. When a batch's own statement fails, the
   * transaction is rolled back whole and the batches go back in the same order: those before it are
   * grouped again, it is written alone as it would have been without grouping, and those after it wait
   * for the next group.
   */
  private together(entry: Omit<Waiting, 'failedInGroup' | 'inFailedStatement' | 'byWriter' | 'resolve' | 'reject'>): Promise<Written> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...entry, failedInGroup: false, inFailedStatement: false, byWriter: false, resolve, reject });
      if (!this.writing) void this.writeWaiting();
      else this.writeBeside();
    });
  }

  /**
   * Starts the next waiting batch on the store's second connection when the writer is busy and that batch
   * is one the writer would take alone (more records than a group holds). DuckDB runs two connections'
   * statements at once, each on its own thread, so two collectors' full batches are loaded side by side
   * (the writer alone loads one at a time, and a full batch's statements are most of its time). Only its
   * fast path runs there, in a shared hold: when it fails (an id stored before, or sent in the batch
   * beside it, which DuckDB finds at the commit) it goes back to the head of the queue for the writer,
   * whose careful path holds the store alone. Every transaction of the store commits in the order it
   * began (CommitOrder), so a batch's received_at never falls below a watermark already taken.
   */
  private writeBeside(): void {
    const next = this.waiting[0];
    if (this.besideBusy || !next || next.byWriter || next.failedInGroup || next.inFailedStatement || next.records <= GROUP_MOST_RECORDS)
      return;
    this.waiting.shift();
    this.besideBusy = true;
    void (async () => {
      try {
        // A connection that could not be made is asked for again by the next batch.
        this.second ??= this.db.connection().catch((error: unknown) => {
          this.second = undefined;
          throw error;
        });
        next.resolve(await next.beside(await this.second));
      } catch {
        next.byWriter = true;
        this.waiting.unshift(next);
        if (!this.writing) void this.writeWaiting();
      } finally {
        this.besideBusy = false;
        if (this.writing) this.writeBeside();
      }
    })();
  }

  /** Writes the waiting batches, a group a transaction, until none waits; never rejects. */
  private async writeWaiting(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const group = this.waiting.splice(0, this.groupSize());
      this.writeBeside();
      if (group.length === 1) {
        const [entry] = group as [Waiting];
        try {
          entry.resolve(await entry.alone());
        } catch (error) {
          entry.reject(error);
        }
        continue;
      }
      // The group's events and messages are loaded by one statement each, unless such a statement over
      // some of these batches failed before: then each batch runs its own in turn, to find the one that fails.
      const shared = !group.some((entry) => entry.inFailedStatement);
      let failed = -1;
      let inSharedStatement = false;
      try {
        const written = await this.transaction('group', async (tx) => {
          // A batch of a removed sender fails the group before it loads anything: each is then written alone.
          for (const entry of group) this.refuseRemoved(entry.org, entry.user);
          if (shared) {
            inSharedStatement = true;
            await this.loadGroup(tx, group, INSERT_GROUP_EVENTS, (entry) => entry.events);
            await this.loadGroup(tx, group, INSERT_GROUP_MESSAGES, (entry) => entry.messages);
            inSharedStatement = false;
          }
          const out: Written[] = [];
          for (const [i, entry] of group.entries()) {
            failed = i;
            out.push(await entry.fast(tx, shared));
          }
          failed = -1;
          return out;
        });
        for (const [i, entry] of group.entries()) entry.resolve(written[i]!);
      } catch {
        // A statement of the whole group failed: its batches are grouped again, each running its own. The
        // batch whose fast path failed goes alone; the commit itself failing sends every batch alone.
        for (const [i, entry] of group.entries())
          if (inSharedStatement) entry.inFailedStatement = true;
          else if (failed === -1 || i === failed) entry.failedInGroup = true;
        this.waiting.unshift(...group);
      }
    }
    this.writing = false;
  }

  /**
   * Loads one table's rows of every batch of a group in one statement (a statement's own cost, about a
   * millisecond, is most of a small batch's). A plain insert stores every row of its files or fails; any
   * other count means a file was not read as it should have been, and fails the group.
   */
  private async loadGroup(tx: Db, group: Waiting[], sql: string, rowsOf: (entry: Waiting) => Waiting['events']): Promise<void> {
    const files: string[] = [];
    const orgs: string[] = [];
    const users: string[] = [];
    let rows = 0;
    for (const entry of group) {
      const loaded = rowsOf(entry);
      if (!loaded) continue;
      files.push(loaded.file);
      orgs.push(entry.org);
      users.push(entry.user);
      rows += loaded.rows;
    }
    if (files.length === 0) return;
    const stored = await tx.run(sql, { files: listValue(files), orgs: listValue(orgs), users: listValue(users) });
    if (stored !== rows) throw new Error(`a group statement stored ${stored} rows of ${rows}`);
  }

  /**
   * A transaction of the database, counted by shape and outcome, in the store's commit order: on the
   * writer unless `on` says otherwise, with the store held shared (beside another batch's transaction) or
   * exclusive (alone).
   */
  private async transaction<T>(
    shape: keyof StoreTransactions,
    fn: (tx: Db) => Promise<T>,
    on = this.db,
    hold: 'shared' | 'exclusive' = 'shared',
  ): Promise<T> {
    try {
      const result = await this.hold.run(hold, () => on.transaction(fn, this.order));
      this.transactions[shape].committed++;
      return result;
    } catch (error) {
      this.transactions[shape].rolledBack++;
      throw error;
    }
  }

  /**
   * Runs `remove` (a user's removal, with or without the erasure of their records) while no batch is
   * written, and refuses that user's batches from then on. A request authenticated before the removal
   * could otherwise store its rows after it, beside the removal's transaction on the second connection or
   * waiting for the writer behind it, and rows the erasure never saw would stay. A batch's transactions
   * ask (refuseRemoved) inside the store's hold, which the removal holds alone. User ids are never
   * reused, so the set grows only by the users removed while the server runs; after a restart no request
   * authenticated before a removal is left.
   */
  async removeSender<T>(org: OrgId, user: UserId, remove: () => Promise<T>): Promise<T> {
    return this.hold.run('exclusive', async () => {
      const result = await remove();
      this.removedSenders.add(senderKey(org, user));
      return result;
    });
  }

  private refuseRemoved(org: OrgId, user: UserId): void {
    if (this.removedSenders.has(senderKey(org, user))) throw new SenderRemoved();
  }

  /** How many of the waiting batches the next transaction takes: up to one that failed in a group, or the bounds. */
  private groupSize(): number {
    if (this.waiting[0]!.failedInGroup) return 1;
    let records = this.waiting[0]!.records;
    let size = 1;
    for (; size < this.waiting.length && size < GROUP_MOST_BATCHES; size++) {
      const next = this.waiting[size]!;
      if (next.failedInGroup || records + next.records > GROUP_MOST_RECORDS) break;
      records += next.records;
    }
    return size;
  }

  close(): void {
    void this.second?.then((second) => second.close()).catch(() => undefined);
    liveTempDirs.delete(this.dir);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
