// Qwen Code token usage from its chat JSONL (docs/metrics.md §1, "Other agents' usage"). Each model call is one
// `type: "assistant"` record with a fresh `uuid` and Gemini-style `usageMetadata`; one appended again as it
// changes counts once, with its final usage. /branch copies a session's records into a new session's file
// keeping each `uuid` (`forkedFrom.messageUuid` is the same value), so the record id is `qwen:<uuid>` without
// the session: the server stores a call once however many chats hold it (the usage upsert keeps the earliest
// time and the largest counts), and the collector remembers no uuids — only the byte offset of each chat it
// read, as for Claude Code transcripts.

import { z } from 'zod';
import { parseEventTime } from '../../../common/time.ts';
import type { WireRecord } from '../../../common/wire.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines, SKIPPED_LINES, TranscriptOffsets } from '../../transcript.ts';
import { pieceOf, type SessionTouch, type UsageReader, type UsageReadResult } from '../types.ts';
import { findQwenChatFile } from './paths.ts';
import { QwenAssistantRecord, type QwenUsageMetadata } from './schema.ts';

export interface QwenTokens {
  input: number;
  output: number;
  cacheRead: number;
  thinking: number;
}

/**
 * Pure: the four wire counts of one call's usageMetadata. `promptTokenCount` includes the cached tokens
 * (Gemini's definition; Qwen's OpenAI path fills it from `prompt_tokens`, which includes
 * `prompt_tokens_details.cached_tokens`), so input is the uncached rest. Reasoning counts as output. Gemini
 * keeps `thoughtsTokenCount` out of `candidatesTokenCount` (total = prompt + candidates + thoughts); an
 * OpenAI-compatible provider's `completion_tokens` already holds its reasoning tokens, which the total then
 * shows (total = prompt + candidates): thoughts are added only when the total does not already account for
 * them, so a call is never counted twice.
 */
export function qwenTokens(meta: QwenUsageMetadata): QwenTokens {
  const prompt = meta.promptTokenCount;
  const cached = Math.min(meta.cachedContentTokenCount, prompt);
  const thoughts = meta.thoughtsTokenCount;
  const total = meta.totalTokenCount;
  const thoughtsSeparate = total === undefined || total >= prompt + meta.candidatesTokenCount + thoughts;
  return {
    input: prompt - cached,
    output: meta.candidatesTokenCount + (thoughtsSeparate ? thoughts : 0),
    cacheRead: cached,
    thinking: thoughts,
  };
}

export interface QwenCall {
  uuid: string;
  sessionId: string | undefined;
  model: string;
  ts: number;
  tokens: QwenTokens | undefined;
}

const usageSize = (t: QwenTokens | undefined) => (t ? t.input + t.output + t.cacheRead : -1);

/**
 * Pure: the model calls of a set of chat lines, one per uuid. A record appended again as it changes keeps
 * its final (largest) usage and its earliest time (docs/metrics.md §1), as the server combines copies.
 */
export function qwenCallsFromLines(lines: string[]): { calls: QwenCall[]; problems: string[] } {
  const byUuid = new Map<string, QwenCall>();
  const problems: string[] = [];
  for (const line of lines) {
    const json = parseJsonLine(line);
    if (json === undefined) {
      problems.push('chat line is not JSON');
      continue;
    }
    if ((json as { type?: unknown } | null)?.type !== 'assistant') continue;
    const parsed = QwenAssistantRecord.safeParse(json);
    if (!parsed.success) {
      problems.push('assistant record without a usable uuid or timestamp');
      continue;
    }
    const r = parsed.data;
    const ts = parseEventTime(r.timestamp);
    if (ts === null) {
      problems.push(`assistant record ${r.uuid} has no usable timestamp`);
      continue;
    }
    const call: QwenCall = {
      uuid: r.uuid,
      sessionId: r.sessionId,
      model: r.model ?? 'unknown',
      ts,
      tokens: r.usageMetadata ? qwenTokens(r.usageMetadata) : undefined,
    };
    const previous = byUuid.get(r.uuid);
    if (!previous) {
      byUuid.set(r.uuid, call);
      continue;
    }
    const first = previous.ts <= call.ts ? previous : call;
    const largest = usageSize(call.tokens) > usageSize(previous.tokens) ? call : previous;
    byUuid.set(r.uuid, { ...first, model: first.model === 'unknown' ? largest.model : first.model, tokens: largest.tokens });
  }
  return { calls: [...byUuid.values()], problems };
}

export const qwenRecordId = (uuid: string) => `qwen:${uuid}`;

/** Pure: wire records of the calls, a usage record for each call that reported tokens and a message for each. */
export function qwenRecords(sessionId: string, calls: QwenCall[]): WireRecord[] {
  const records: WireRecord[] = [];
  for (const c of calls) {
    const id = qwenRecordId(c.uuid);
    const session = c.sessionId ?? sessionId;
    const t = c.tokens;
    if (t && t.input + t.output + t.cacheRead > 0) {
      records.push({
        kind: 'usage',
        id,
        agent: 'qwen',
        session_id: session,
        ts: c.ts,
        model: c.model,
        input_tokens: t.input,
        output_tokens: t.output,
        cache_read_tokens: t.cacheRead,
        // Qwen's usageMetadata has no cache-creation count.
        cache_write_tokens: 0,
        thinking_tokens: t.thinking,
        thinking: t.thinking > 0,
      });
    }
    records.push({ kind: 'message', id, agent: 'qwen', session_id: session, ts: c.ts, model: c.model });
  }
  return records;
}

/** Qwen Code's piece of the collector state: how far each chat was read. */
export const QwenState = z.object({ transcripts: TranscriptOffsets });
export type QwenState = z.infer<typeof QwenState>;

function readUsage(session: SessionTouch, state: QwenState, home: string): UsageReadResult {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  const named = [...session.transcriptPaths].filter((p) => p.endsWith('.jsonl'));
  // A payload without a readable chat (an older version's transcript_path, a moved runtime dir): the chat
  // is looked up by session id under the projects folder.
  const paths = new Set(named);
  let found: string | undefined;
  const lookUp = () => (found ??= findQwenChatFile(home, session.sessionId));
  if (named.length === 0 && lookUp()) paths.add(found!);
  for (const path of paths) {
    const chunk = readNewLines(path, state.transcripts[path]);
    if (!chunk && lookUp() && found !== path && !paths.has(found!)) {
      paths.add(found!);
      continue;
    }
    if (!chunk) {
      problems.push(`qwen chat ${path} is not readable`);
      continue;
    }
    if (chunk.skipped) problems.push(`${path}: ${SKIPPED_LINES(chunk.skipped)}`);
    const { calls, problems: lineProblems } = qwenCallsFromLines(chunk.lines);
    problems.push(...lineProblems.map((p) => `${path}: ${p}`));
    records.push(...qwenRecords(session.sessionId, calls));
    state.transcripts[path] = { offset: chunk.nextOffset, tail: chunk.tail, sessionId: session.sessionId };
  }
  return { records, problems };
}

export const QWEN_USAGE: UsageReader<QwenState> = {
  state: QwenState,
  empty: () => ({ transcripts: {} }),
  read: readUsage,
};

/** Reads a session's new chat lines, advancing Qwen Code's piece of `state`. */
export const readQwenUsage = (session: SessionTouch, state: CollectorState, home: string): UsageReadResult =>
  readUsage(session, pieceOf(state.agents, 'qwen', QWEN_USAGE), home);
