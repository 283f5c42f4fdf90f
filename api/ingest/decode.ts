// Turns an ingest request's records into what the store loads: each record is parsed, validated (zod)
// and written out (kept as sent where that is exact, see lineSaysExactly) in one pass, so its objects
// are garbage at once: a whole batch of objects kept alive across collections would reach the old
// generation, where collecting them costs as much as parsing them. Lines kept as sent are not copied one by one: runs of
// them are cut from the request's bytes, or its text when it is not ASCII (RowsBuilder).
//
// Events are kept as NDJSON bytes, what the store writes (first delivery of an id wins). Usage and assistant-message records stay
// objects until the batch ends, since a repeated id combines with the one before it (combineUsage,
// earlierMessage): a model call read while it streamed, or copied into a continued session's transcript.
import { isAscii } from 'node:buffer';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { isArrayBuffer } from 'node:util/types';
import { gunzipSync } from 'node:zlib';
import { redactCommand } from '../../common/redact.ts';
import {
  describeZodError,
  type IngestResponse,
  type WireEditDecision,
  type WireHookEvent,
  type WireLandedCommit,
  type WireMessage,
  WireRecord,
  type WireUsage,
} from '../../common/wire.ts';
import { compileJudge, type Judge } from './accepts.ts';

/**
 * zod's yes or no on a wire record without the copy safeParse makes, as the number of strings in an
 * accepted record or -1 (accepts.ts); WireRecord only judges, so it always compiles
 * (test/unit/ingest-accepts.unit.test.ts).
 */
const judgeRecord: Judge = compileJudge(WireRecord) ?? ((item) => (WireRecord.safeParse(item).success ? stringCount(item) : -1));

/**
 * Records handled between two yields to the event loop. A 10k-record batch is tens of milliseconds of
 * work; done in one go it would hold up the database callbacks of the batch before it (each statement
 * resumes on this thread), and two batches in flight would take turns instead of overlapping.
 */
const SLICE = 500;

/**
 * Masked hook commands by command as sent. The same few configured hooks arrive with nearly every event,
 * so each distinct command is masked once; capped, since the commands are the sender's text.
 */
const maskedCommands = new Map<string, string>();
const MAX_MASKED_COMMANDS = 10_000;

/**
 * The command masked last and its masked form: most events of a batch carry the same hook, and comparing
 * with it costs less than hashing each newly parsed command for the map.
 */
let lastCommand = '';
let lastMasked = '';

function masked(command: string): string {
  if (command === lastCommand) return lastMasked;
  let out = maskedCommands.get(command);
  if (out === undefined) {
    out = redactCommand(command);
    if (maskedCommands.size >= MAX_MASKED_COMMANDS) maskedCommands.clear();
    maskedCommands.set(command, out);
  }
  lastCommand = command;
  lastMasked = out;
  return out;
}

/**
 * Pure: the event with every hook command masked (common/redact.ts), or the event itself when nothing
 * changed. Current collectors mask before shipping and masking is idempotent, so this changes only what
 * older collectors sent in clear: a credential never reaches the store either way.
 */
export function maskHookCommands(record: WireHookEvent): WireHookEvent {
  const hooks = record.hooks;
  if (!hooks) return record;
  // Nearly always nothing changes: no copy is made until a command does.
  let i = 0;
  while (i < hooks.length && masked(hooks[i]!.command) === hooks[i]!.command) i++;
  if (i === hooks.length) return record;
  return {
    ...record,
    hooks: hooks.map((hook) => {
      const command = masked(hook.command);
      return command === hook.command ? hook : { ...hook, command };
    }),
  };
}

/** Records of one table as NDJSON. */
export interface NdjsonRows {
  ndjson: string;
  count: number;
}

/**
 * The events as NDJSON in UTF-8 bytes, what the store writes to its file: most of a batch, cut from the
 * body's bytes as they came. As a string it cost a join, a copy each way to and from the decode worker
 * and an encoding to UTF-8 before the write (~5 ms of a 10k-event batch); bytes cost one copy, or none when
 * the events are one run of the body's lines (RowsBuilder.finish).
 */
export interface NdjsonBytes {
  ndjson: Uint8Array;
  count: number;
}

export interface DecodedBatch {
  /** Records received (non-empty lines, or array items). */
  received: number;
  rejected: IngestResponse['rejected'];
  events: NdjsonBytes;
  messages: NdjsonRows;
  usage: WireUsage[];
  /** The usage rows as NDJSON, what the store writes (serialized here, on the decode worker). */
  usageNdjson: string;
  /** Landed commits (docs/metrics.md §5): of several records of an id, the one with the most agent lines. */
  commits: NdjsonRows & { items: { index: number; id: string; author: string; ndjson: string }[] };
  /** Edit decisions (docs/metrics.md §11), first delivery of an id wins. */
  decisions: NdjsonRows;
  /** Valid records that repeat an id earlier in the same batch. */
  inBatchDuplicates: number;
  /**
   * Where each stored row came from: the index of its record in the batch (as a rejection names it), so
   * that the store can refuse an id another user holds and the answer say which records those were.
   */
  positions: RecordPositions;
}

export type RecordKind = 'event' | 'usage' | 'message';

/**
 * The batch index of each row, in the order of the rows (events.ndjson's lines, the usage array,
 * messages.ndjson's lines), and the records that repeated an id of the batch. Typed arrays: they cross
 * from a decode worker for almost nothing, where a Map of ids cost ~15 ms a 10k batch to clone.
 */
export interface RecordPositions {
  rows: Record<RecordKind, Int32Array>;
  repeats: { kind: RecordKind; id: string; index: number }[];
}

/** The id of each row of a kind, in row order (read again from the rows: only on the rare path that needs it). */
function rowIds(batch: DecodedBatch, kind: RecordKind): string[] {
  if (kind === 'usage') return batch.usage.map((row) => row.id);
  const ndjson =
    kind === 'event'
      ? Buffer.from(batch.events.ndjson.buffer, batch.events.ndjson.byteOffset, batch.events.ndjson.byteLength).toString()
      : batch.messages.ndjson;
  return ndjson
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { id: string }).id);
}

/** The batch indices of every record with these ids, of one kind (first copies and repeats). */
export function indicesOf(batch: DecodedBatch, kind: RecordKind, ids: ReadonlySet<string>): { index: number; id: string }[] {
  const found: { index: number; id: string }[] = [];
  if (ids.size === 0) return found;
  const rows = batch.positions.rows[kind];
  rowIds(batch, kind).forEach((id, row) => {
    if (ids.has(id)) found.push({ index: rows[row]!, id });
  });
  for (const r of batch.positions.repeats) if (r.kind === kind && ids.has(r.id)) found.push({ index: r.index, id: r.id });
  return found;
}

/**
 * Pure: two records of one model call as one (docs/metrics.md §1), as the store's upsert combines a repeated id
 * (store.ts): the earliest copy's time, session and model, the largest of each token count (a
 * streamed message's lines differ only in output so far; a continued session's copies repeat the final
 * usage), thinking if either had it. On equal times the one first received stays.
 */
export function combineUsage(first: WireUsage, next: WireUsage): WireUsage {
  const earliest = next.ts < first.ts ? next : first;
  return {
    ...earliest,
    input_tokens: Math.max(first.input_tokens, next.input_tokens),
    output_tokens: Math.max(first.output_tokens, next.output_tokens),
    cache_read_tokens: Math.max(first.cache_read_tokens, next.cache_read_tokens),
    cache_write_tokens: Math.max(first.cache_write_tokens, next.cache_write_tokens),
    ...(first.cache_write_1h_tokens !== undefined || next.cache_write_1h_tokens !== undefined
      ? { cache_write_1h_tokens: Math.max(first.cache_write_1h_tokens ?? 0, next.cache_write_1h_tokens ?? 0) }
      : {}),
    thinking_tokens: Math.max(first.thinking_tokens, next.thinking_tokens),
    thinking: first.thinking || next.thinking,
  };
}

/** Pure: of two records of one assistant message, the earliest (on equal times, the one first received). */
export const earlierMessage = (first: WireMessage, next: WireMessage): WireMessage => (next.ts < first.ts ? next : first);

/** Strings in a validated value, keys included, at any depth. */
export function stringCount(value: unknown): number {
  if (typeof value === 'string') return 1;
  let n = 0;
  if (Array.isArray(value)) for (const item of value) n += stringCount(item);
  else if (value !== null && typeof value === 'object')
    for (const key in value) n += 1 + stringCount((value as Record<string, unknown>)[key]);
  return n;
}

/** Quote characters in a line (indexOf finds a single character far faster than a loop over a string). */
function quoteCount(line: string): number {
  let n = 0;
  for (let at = line.indexOf('"'); at !== -1; at = line.indexOf('"', at + 1)) n++;
  return n;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CARRIAGE_RETURN = 0x0d;

/**
 * Pure: lineSaysExactly on a line's bytes, [start, end) of an ASCII body (where a byte is a character):
 * one pass over the bytes finds a backslash or a carriage return and counts the quotes, at about half
 * the cost of indexOf called once a quote (~40 a record) and twice more for the other two.
 */
export function bytesSayExactly(bytes: Uint8Array, start: number, end: number, strings: number): boolean {
  let quotes = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) quotes++;
    else if (byte === BACKSLASH || byte === CARRIAGE_RETURN) return false;
  }
  return quotes === 2 * strings;
}

const QUOTES = 0x22222222;
const LOW_SEVEN_BITS = 0x7f7f7f7f;
const HIGH_BITS = 0x80808080;

/**
 * Pure: the quote characters among the four bytes of `word`. Each byte that is a quote becomes zero when
 * XORed with quotes; adding 0x7f to a byte's low seven bits sets its high bit unless they were all zero, and
 * OR-ing the byte itself sets it for a byte whose own high bit was set (0x80, from 0xa2), so the high bits
 * left clear are the zero bytes. Multiplying their flags by 0x01010101 sums them into the top byte.
 */
export function quotesInWord(word: number): number {
  const x = word ^ QUOTES;
  const zeros = ~(((x & LOW_SEVEN_BITS) + LOW_SEVEN_BITS) | x) & HIGH_BITS;
  return Math.imul(zeros >>> 7, 0x01010101) >>> 24;
}

/**
 * An ASCII body's bytes, for lineSaysExactly's check line by line. A body with no backslash and no carriage
 * return anywhere (one search each, in native code) needs only its lines' quotes counted, and these are
 * counted four bytes at a time (quotesInWord) over a 32-bit view of the body's aligned middle: about half
 * the time of bytesSayExactly, which a body with either character still takes.
 */
export class AsciiBody {
  private readonly plain: boolean;
  private readonly words: Uint32Array;
  /** The offset in the underlying memory of words[0]: the body's first byte rounded up to a multiple of four. */
  private readonly wordBase: number;

  constructor(readonly bytes: Uint8Array) {
    this.plain = bytes.indexOf(BACKSLASH) === -1 && bytes.indexOf(CARRIAGE_RETURN) === -1;
    this.wordBase = (bytes.byteOffset + 3) & ~3;
    const words = (bytes.byteOffset + bytes.byteLength - this.wordBase) >> 2;
    // A body too short to hold an aligned word (a small one sits anywhere in Node's pool) has none.
    this.words = words > 0 ? new Uint32Array(bytes.buffer, this.wordBase, words) : new Uint32Array(0);
  }

  /** lineSaysExactly on the line [start, end) of the body. */
  saysExactly(start: number, end: number, strings: number): boolean {
    if (!this.plain) return bytesSayExactly(this.bytes, start, end, strings);
    return this.quotes(start, end) === 2 * strings;
  }

  /** The quote characters in [start, end) of the body. */
  quotes(start: number, end: number): number {
    const { bytes, words } = this;
    let n = 0;
    let i = start;
    for (; i < end && ((bytes.byteOffset + i) & 3) !== 0; i++) if (bytes[i] === QUOTE) n++;
    for (let w = (bytes.byteOffset + i - this.wordBase) >> 2; i + 4 <= end; i += 4, w++) n += quotesInWord(words[w]!);
    for (; i < end; i++) if (bytes[i] === QUOTE) n++;
    return n;
  }
}

/**
 * Pure: whether the line as sent says exactly what zod validated, so it can be stored as it is instead of
 * serialized again (serializing was a quarter of the decoding time). Our schemas neither transform nor
 * default anything and refuse unknown keys, so the only way the text can say more than the parsed value
 * is a key given twice (JSON.parse keeps the last, another reader may keep the first). Without a
 * backslash every quote in the line delimits a string, so the line holds half as many strings as it has
 * quotes. Every string of the parsed value (keys included) came from one of them, and a key given twice
 * leaves at least one more in the text than in the value; the counts are equal only when no key repeats.
 * A line with a backslash or a carriage return is serialized again.
 */
export function lineSaysExactly(line: string, record: object, strings = stringCount(record)): boolean {
  if (line.includes('\\') || line.includes('\r')) return false;
  return quoteCount(line) === 2 * strings;
}

const NEWLINE = Buffer.from('\n');

/** Pure: whether a view spans at least half of its memory, so that keeping the memory for it wastes at most as much again. */
const isMostOfItsMemory = (view: Uint8Array) => 2 * view.byteLength >= view.buffer.byteLength;

/**
 * The events' rows as NDJSON bytes. Consecutive lines kept as sent are cut from the request as one piece,
 * so a batch of plain lines becomes a few pieces of the body, not one string per line: from its bytes
 * when the body is ASCII (a character a byte), else from its text.
 */
class RowsBuilder {
  private readonly parts: (string | Uint8Array)[] = [];
  /** The run of kept lines not yet cut: [runStart, runEnd) of the text, newlines included. */
  private runStart = 0;
  private runEnd = -1;
  private count = 0;

  constructor(
    private readonly text: string,
    private readonly bytes?: Uint8Array,
  ) {}

  /** A record whose line, [start, end) of the text, is kept as sent. */
  addLine(start: number, end: number): void {
    if (start !== this.runEnd) {
      this.cut();
      this.runStart = start;
    }
    this.runEnd = end < this.text.length ? end + 1 : end;
    this.count++;
  }

  /** A record written out again from its validated value. */
  addValue(record: object): void {
    this.cut();
    this.parts.push(`${JSON.stringify(record)}\n`);
    this.count++;
  }

  finish(): NdjsonBytes {
    this.cut();
    // A batch of lines all kept as sent, each ending in a newline as a collector sends them, is one piece
    // of the body: it is handed on as it is, not copied, when it is most of the memory under it. A view
    // keeps all of that memory alive until the batch is stored: lines of other kinds, refused lines, the
    // unused end of a 1 MiB inflate chunk (one event among 15 MiB of refused lines held 15 MiB).
    const [only] = this.parts;
    if (this.parts.length === 1 && typeof only !== 'string' && isMostOfItsMemory(only!)) return { ndjson: only!, count: this.count };
    return { ndjson: Buffer.concat(this.parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))), count: this.count };
  }

  private cut(): void {
    if (this.runEnd < 0) return;
    this.parts.push(this.bytes ? this.bytes.subarray(this.runStart, this.runEnd) : this.text.slice(this.runStart, this.runEnd));
    // The text's last line may have no newline of its own.
    if (this.text.charCodeAt(this.runEnd - 1) !== 10) this.parts.push(NEWLINE);
    this.runEnd = -1;
  }
}

/** A batch with more records than the limit; thrown as soon as the limit is passed. */
export class TooManyRecords extends Error {
  constructor(readonly limit: number) {
    super(`a batch holds at most ${limit} records`);
  }
}

/** Records as NDJSON, a line each. */
function ndjsonOf(rows: Iterable<object>): string {
  let out = '';
  for (const row of rows) out += `${JSON.stringify(row)}\n`;
  return out;
}

function commitRows(rows: { index: number; record: WireLandedCommit }[]): DecodedBatch['commits'] {
  const items = rows.map(({ index, record }) => ({
    index,
    id: record.id,
    author: record.author.toLowerCase(),
    ndjson: `${JSON.stringify({ ...record, author: record.author.toLowerCase(), by_session: record.by_session ?? [], parents: record.parents ?? [] })}\n`,
  }));
  return { ndjson: items.map((i) => i.ndjson).join(''), count: items.length, items };
}

/** Accumulates a batch record by record. */
export class BatchDecoder {
  private received = 0;
  private readonly rejected: IngestResponse['rejected'] = [];
  private readonly events: RowsBuilder;
  /** Ids seen, by kind (the first copy decides), and the batch index of each row in row order. */
  private readonly seen: Record<RecordKind, Set<string>> = { event: new Set(), usage: new Set(), message: new Set() };
  private readonly rowIndex: Record<RecordKind, number[]> = { event: [], usage: [], message: [] };
  private readonly repeats: RecordPositions['repeats'] = [];
  private readonly messages = new Map<string, WireMessage>();
  private readonly usage = new Map<string, WireUsage>();
  private readonly commits = new Map<string, { index: number; record: WireLandedCommit }>();
  private readonly decisions = new Map<string, WireEditDecision>();
  private inBatchDuplicates = 0;

  /** The body's bytes for the check that a line says exactly what was validated, when it is ASCII. */
  private readonly ascii: AsciiBody | undefined;

  /**
   * `text`: the NDJSON the records' lines are cut from ('' when the records came as a JSON array);
   * `bytes`: the same text as bytes when it is ASCII (a byte per character), for AsciiBody.
   */
  constructor(
    private readonly limit: number,
    text = '',
    bytes?: Uint8Array,
  ) {
    this.events = new RowsBuilder(text, bytes);
    this.ascii = bytes ? new AsciiBody(bytes) : undefined;
  }

  private next(): number {
    if (this.received >= this.limit) throw new TooManyRecords(this.limit);
    return this.received++;
  }

  /** Counts a line that is not JSON as a rejected record. */
  reject(reason: string): void {
    this.rejected.push({ index: this.next(), reason });
  }

  /** Adds one parsed item; `line` is the text it was parsed from, if any, at `start` of the decoder's text. */
  add(item: unknown, line?: string, start = 0): void {
    const index = this.next();
    // What WireRecord accepts it returns unchanged (acceptsRecord), so an accepted item is the record.
    let record: WireRecord;
    let strings = judgeRecord(item);
    if (strings >= 0) record = item as WireRecord;
    else {
      const parsed = WireRecord.safeParse(item);
      if (!parsed.success) {
        const id = (item as { id?: unknown } | null)?.id;
        this.rejected.push({ index, ...(typeof id === 'string' ? { id: id.slice(0, 256) } : {}), reason: describeZodError(parsed.error) });
        return;
      }
      record = parsed.data;
      strings = stringCount(record);
    }
    if (record.kind === 'commit') {
      // Keyed by (organization, repository, commit): of two records the one with more agent lines stands.
      const prev = this.commits.get(record.id);
      if (prev) this.inBatchDuplicates++;
      if (!prev || record.agent_lines > prev.record.agent_lines) this.commits.set(record.id, { index, record });
      return;
    }
    if (record.kind === 'decision') {
      // A decision's id is its collector's (machine, spool file, position): the first delivery is kept.
      if (this.decisions.has(record.id)) this.inBatchDuplicates++;
      else this.decisions.set(record.id, record);
      return;
    }
    const kind: RecordKind = record.kind === 'usage' || record.kind === 'message' ? record.kind : 'event';
    const repeated = this.seen[kind].has(record.id);
    if (repeated) {
      this.inBatchDuplicates++;
      this.repeats.push({ kind, id: record.id, index });
    } else {
      this.seen[kind].add(record.id);
      // A Map keeps the order keys were first set in: the usage and message rows follow their first copies.
      this.rowIndex[kind].push(index);
    }
    if (record.kind === 'usage') {
      const prev = this.usage.get(record.id);
      this.usage.set(record.id, prev ? combineUsage(prev, record) : record);
      return;
    }
    if (record.kind === 'message') {
      const prev = this.messages.get(record.id);
      this.messages.set(record.id, prev ? earlierMessage(prev, record) : record);
      return;
    }
    if (repeated) return;
    const event = maskHookCommands(record);
    const exact =
      event === record &&
      line !== undefined &&
      (this.ascii ? this.ascii.saysExactly(start, start + line.length, strings) : lineSaysExactly(line, record, strings));
    if (exact) this.events.addLine(start, start + line.length);
    else this.events.addValue(event);
  }

  finish(): DecodedBatch {
    const usage = [...this.usage.values()];
    return {
      received: this.received,
      rejected: this.rejected,
      events: this.events.finish(),
      messages: { ndjson: ndjsonOf(this.messages.values()), count: this.messages.size },
      usage,
      usageNdjson: ndjsonOf(usage),
      commits: commitRows([...this.commits.values()]),
      decisions: { ndjson: ndjsonOf(this.decisions.values()), count: this.decisions.size },
      inBatchDuplicates: this.inBatchDuplicates,
      positions: {
        rows: {
          event: Int32Array.from(this.rowIndex.event),
          usage: Int32Array.from(this.rowIndex.usage),
          message: Int32Array.from(this.rowIndex.message),
        },
        repeats: this.repeats,
      },
    };
  }
}

/**
 * NDJSON text → a decoded batch. Empty lines are skipped and do not count as records, but a text of more
 * blank lines than twice the record limit is refused as too many records: a body of newlines alone would
 * otherwise cost a loop turn per byte.
 */
export async function decodeNdjson(text: string, limit: number, asciiBytes?: Uint8Array): Promise<DecodedBatch> {
  const decoder = new BatchDecoder(limit, text, asciiBytes);
  let start = 0;
  let n = 0;
  let blank = 0;
  const maxBlank = 2 * limit;
  while (start < text.length) {
    if (text.charCodeAt(start) === 10) {
      start++;
      if (++blank > maxBlank) throw new TooManyRecords(limit);
      continue;
    }
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const lineStart = start;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') {
      if (++blank > maxBlank) throw new TooManyRecords(limit);
      continue;
    }
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (error) {
      decoder.reject(`not JSON (${(error as Error).message.slice(0, 120)}): ${line.slice(0, 80)}`);
      continue;
    }
    decoder.add(item, line, lineStart);
    if (++n % SLICE === 0) await yieldToEventLoop();
  }
  return decoder.finish();
}

/** Already parsed items (a JSON array body) → a decoded batch. */
export async function decodeItems(items: readonly unknown[], limit: number): Promise<DecodedBatch> {
  const decoder = new BatchDecoder(limit);
  for (let i = 0; i < items.length; i++) {
    decoder.add(items[i]);
    if (i % SLICE === SLICE - 1) await yieldToEventLoop();
  }
  return decoder.finish();
}

/** How a body came: NDJSON lines, or a JSON array of records (or `{"records": [...]}`). */
export type BodyFormat = 'ndjson' | 'json';

/** The bytes of records a batch stores (what the per-user byte quota counts, docs/ingest-limits.md). */
export const storedBytes = (batch: DecodedBatch): number =>
  batch.events.ndjson.length +
  batch.usageNdjson.length +
  batch.messages.ndjson.length +
  batch.commits.ndjson.length +
  batch.decisions.ndjson.length;

export interface DecodeLimits {
  maxRecords: number;
  maxInflatedBytes: number;
}

export type DecodeAnswer =
  | { batch: DecodedBatch; failure?: undefined }
  | { failure: 'gzip' | 'too-many' | 'too-large' | 'shape' | 'error'; message: string };

/**
 * The memory a decode worker's answer can hand over to the event loop rather than have copied: each typed
 * array's ArrayBuffer, when the array spans all of it or the memory is larger than Node's shared pool. A
 * 10k-event batch's NDJSON is megabytes (most often a view of the inflated body), which a structured clone
 * copies twice (out of the worker and into the loop); a small Buffer's memory may be that pool, which must
 * stay where it is.
 */
export function transferableMemory(answer: DecodeAnswer): ArrayBuffer[] {
  if (answer.failure !== undefined) return [];
  const { events, positions } = answer.batch;
  const out = new Set<ArrayBuffer>();
  for (const view of [events.ndjson, positions.rows.event, positions.rows.usage, positions.rows.message]) {
    const memory = view.buffer;
    const spansAll = view.byteOffset === 0 && memory.byteLength === view.byteLength;
    if (isArrayBuffer(memory) && view.byteLength > 0 && (spansAll || memory.byteLength > Buffer.poolSize)) out.add(memory);
  }
  return [...out];
}

/**
 * zlib's output chunk when inflating a body: 16 KiB (Node's default) made a 3 MB batch 200 round trips
 * into zlib and as many pieces to join, twice the time of one 1 MiB piece after another. The cap is
 * checked after each chunk, so inflating stops at most a chunk past it.
 */
const INFLATE_CHUNK_BYTES = 1024 * 1024;

/** The largest chunk a body is inflated into in one piece, when its gzip trailer states its size (inflateChunk). */
const ONE_CHUNK_MOST_BYTES = 4 * 1024 * 1024;

/**
 * Pure: zlib's output chunk for a gzip body. Its trailer's last four bytes state what it inflates to
 * (ISIZE, modulo 2^32); one byte more lets zlib end the stream inside the chunk, so the body inflates into
 * one buffer, neither pieces to join (each a copy and memory outside the heap, whose growth sets off full
 * collections) nor a spare chunk. The trailer is the sender's word: a size it misstates only costs more
 * chunks, and sizes from ONE_CHUNK_MOST_BYTES on, or too small to matter, take INFLATE_CHUNK_BYTES.
 */
export function inflateChunk(gzip: Uint8Array): number {
  if (gzip.length < 4) return INFLATE_CHUNK_BYTES;
  const stated = new DataView(gzip.buffer, gzip.byteOffset + gzip.length - 4, 4).getUint32(0, true);
  return stated >= INFLATE_CHUNK_BYTES && stated < ONE_CHUNK_MOST_BYTES ? stated + 1 : INFLATE_CHUNK_BYTES;
}

/** Node's zlib error when the output passes maxOutputLength: inflating stopped there. */
const isTooLarge = (error: unknown) => (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';

/**
 * A body as received → a decoded batch, or the reason it is refused. Inflating stops as soon as the
 * output passes maxInflatedBytes (zlib checks after each chunk, inflateChunk), so a gzip bomb costs at
 * most that much memory (and a chunk, at most ONE_CHUNK_MOST_BYTES) and the time to inflate it. Runs on a decode worker (decode-worker.ts), or on the event loop
 * when the server has none.
 */
export async function decodeBody(bytes: Buffer, gzip: boolean, format: BodyFormat, limits: DecodeLimits): Promise<DecodeAnswer> {
  let text: string;
  let asciiBytes: Uint8Array | undefined;
  try {
    const raw = gzip ? gunzipSync(bytes, { maxOutputLength: limits.maxInflatedBytes, chunkSize: inflateChunk(bytes) }) : bytes;
    if (raw.length > limits.maxInflatedBytes)
      return { failure: 'too-large', message: `the body is larger than ${limits.maxInflatedBytes} bytes` };
    // ASCII (a collector's batch nearly always is) decodes the same either way, three times faster as ASCII.
    if (isAscii(raw)) asciiBytes = raw;
    text = raw.toString(asciiBytes ? 'ascii' : 'utf8');
  } catch (error) {
    if (isTooLarge(error)) return { failure: 'too-large', message: `the body inflates to more than ${limits.maxInflatedBytes} bytes` };
    return { failure: 'gzip', message: (error as Error).message };
  }
  try {
    if (format === 'ndjson') return { batch: await decodeNdjson(text, limits.maxRecords, asciiBytes) };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      return { failure: 'shape', message: `the body is not JSON: ${(error as Error).message.slice(0, 120)}` };
    }
    const items = Array.isArray(body)
      ? body
      : body && typeof body === 'object' && Array.isArray((body as { records?: unknown }).records)
        ? (body as { records: unknown[] }).records
        : undefined;
    if (!items) return { failure: 'shape', message: 'body must be NDJSON (application/x-ndjson) or a JSON array of records' };
    if (items.length > limits.maxRecords) throw new TooManyRecords(limits.maxRecords);
    return { batch: await decodeItems(items, limits.maxRecords) };
  } catch (error) {
    if (error instanceof TooManyRecords) return { failure: 'too-many', message: error.message };
    return { failure: 'error', message: (error as Error).stack ?? String(error) };
  }
}
