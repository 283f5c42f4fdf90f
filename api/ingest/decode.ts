// Turns an ingest request's records into what the store loads: each record is parsed, validated (zod)
// and written out (kept as sent where that is exact, see lineSaysExactly) in one pass, so its objects
// are garbage at once. Parsing every line first and
// serializing at the end kept a whole batch of objects alive across collections; at 10k records a batch
// that promoted them all to the old generation, and garbage collection cost as much as the parsing.
//
// Events and messages are kept as NDJSON text (first delivery of an id wins); usage records stay objects,
// since a re-delivered one with a larger output count replaces the earlier one (a message read while it
// was streaming).
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { WireRecord, describeZodError, type IngestResponse, type WireUsage } from '../../common/wire.ts';

/**
 * Records handled between two yields to the event loop. A 10k-record batch is tens of milliseconds of
 * work; done in one go it would hold up the database callbacks of the batch before it (each statement
 * resumes on this thread), and two batches in flight would take turns instead of overlapping.
 */
const SLICE = 500;

/** Records of one table as NDJSON, with the time range their `ts` spans (epoch ms). */
export interface NdjsonRows {
  ndjson: string;
  count: number;
  lo: number;
  hi: number;
}

export interface DecodedBatch {
  /** Records received (non-empty lines, or array items). */
  received: number;
  rejected: IngestResponse['rejected'];
  events: NdjsonRows;
  messages: NdjsonRows;
  usage: WireUsage[];
  /** Valid records that repeat an id earlier in the same batch. */
  inBatchDuplicates: number;
}

const emptyRows = (): NdjsonRows => ({ ndjson: '', count: 0, lo: Infinity, hi: -Infinity });

/** Keys of a validated record, counting those of the objects in its lists (files, hooks). */
function keyCount(record: object): number {
  const keys = Object.keys(record);
  let n = keys.length;
  for (const key of keys) {
    const value = (record as Record<string, unknown>)[key];
    if (Array.isArray(value)) for (const item of value) if (item !== null && typeof item === 'object') n += Object.keys(item).length;
  }
  return n;
}

/** A backslash, a carriage return, or whitespace after a quote: the line is serialized again. */
const NOT_PLAIN = /[\\\r]|"[ \t]/;

/**
 * Pure: whether the line as sent says exactly what zod validated, so it can be stored as it is instead of
 * serialized again (serializing was a quarter of the decoding time). Our schemas neither transform nor
 * default anything and refuse unknown keys, so the only way the text can say more than the parsed value
 * is a key given twice (JSON.parse keeps the last, another reader may keep the first). Without a
 * backslash every quote in the line delimits a string, so `":` ends a key; with no whitespace after a
 * quote, no key is written as `" :`; counting `":` then counts the keys as written. Any other line (a
 * backslash, a carriage return, whitespace after a quote) is serialized again.
 */
export function lineSaysExactly(line: string, record: object): boolean {
  if (NOT_PLAIN.test(line)) return false;
  let written = 0;
  for (let at = line.indexOf('":'); at !== -1; at = line.indexOf('":', at + 2)) written++;
  return written === keyCount(record);
}

function addRow(rows: NdjsonRows, record: { ts: number }, line: string | undefined): void {
  rows.ndjson += line !== undefined && lineSaysExactly(line, record) ? `${line}\n` : `${JSON.stringify(record)}\n`;
  rows.count++;
  if (record.ts < rows.lo) rows.lo = record.ts;
  if (record.ts > rows.hi) rows.hi = record.ts;
}

/** A batch with more records than the limit; thrown as soon as the limit is passed. */
export class TooManyRecords extends Error {
  constructor(readonly limit: number) {
    super(`a batch holds at most ${limit} records`);
  }
}

/** Accumulates a batch record by record. */
export class BatchDecoder {
  private received = 0;
  private readonly rejected: IngestResponse['rejected'] = [];
  private readonly events = emptyRows();
  private readonly messages = emptyRows();
  private readonly eventIds = new Set<string>();
  private readonly messageIds = new Set<string>();
  private readonly usage = new Map<string, WireUsage>();
  private inBatchDuplicates = 0;

  constructor(private readonly limit: number) {}

  private next(): number {
    if (this.received >= this.limit) throw new TooManyRecords(this.limit);
    return this.received++;
  }

  /** Counts a line that is not JSON as a rejected record. */
  reject(reason: string): void {
    this.rejected.push({ index: this.next(), reason });
  }

  /** Adds one parsed item; `line` is the text it was parsed from, if any. */
  add(item: unknown, line?: string): void {
    const index = this.next();
    const parsed = WireRecord.safeParse(item);
    if (!parsed.success) {
      const id = (item as { id?: unknown } | null)?.id;
      this.rejected.push({ index, ...(typeof id === 'string' ? { id: id.slice(0, 256) } : {}), reason: describeZodError(parsed.error) });
      return;
    }
    const record = parsed.data;
    if (record.kind === 'usage') {
      const prev = this.usage.get(record.id);
      if (prev) this.inBatchDuplicates++;
      if (!prev || record.output_tokens > prev.output_tokens) this.usage.set(record.id, prev ? { ...record, thinking: record.thinking || prev.thinking } : record);
      return;
    }
    const [ids, rows] = record.kind === 'event' ? [this.eventIds, this.events] : [this.messageIds, this.messages];
    if (ids.has(record.id)) {
      this.inBatchDuplicates++;
      return;
    }
    ids.add(record.id);
    addRow(rows, record, line);
  }

  finish(): DecodedBatch {
    return { received: this.received, rejected: this.rejected, events: this.events, messages: this.messages, usage: [...this.usage.values()], inBatchDuplicates: this.inBatchDuplicates };
  }
}

/** NDJSON text → a decoded batch. Empty lines are skipped and do not count as records. */
export async function decodeNdjson(text: string, limit: number): Promise<DecodedBatch> {
  const decoder = new BatchDecoder(limit);
  let start = 0;
  let n = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (error) {
      decoder.reject(`not JSON (${(error as Error).message.slice(0, 120)}): ${line.slice(0, 80)}`);
      continue;
    }
    decoder.add(item, line);
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
