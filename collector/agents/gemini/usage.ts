// Gemini CLI token usage from its chat file (docs/metrics.md §1, "Other agents' usage"). A model call is one
// `type: "gemini"` message: Gemini appends the whole message again each time it changes (its tokens
// arrive, tool calls are added), so a message id is counted once, from its copy with the largest usage,
// dated by the message's own timestamp. `$set` lines are metadata (`$set.messages` repeats messages already
// appended); `$rewindTo` removes messages from the conversation, but a rewound call was still paid for, so
// it stays counted. The record id is the message id (a random UUID per message, kept when a legacy chat
// is migrated to JSONL or a session resumed), so the server stores a call once however often it is read.
//
// Tokens (usageMetadata): `input` is the whole prompt, cached part included, so cache reads are
// `cached` and input is `input - cached`; `tool` (server-side tool prompts) is billed as input;
// `thoughts` is billed as output and makes the tier thinking (thinking_tokens keeps it apart too).
// Gemini reports no cache writes.

import { statSync } from 'node:fs';
import { z } from 'zod';
import { jsonReadProblem } from '../../../common/json-read-problem.ts';
import { parseEventTime } from '../../../common/time.ts';
import type { WireRecord } from '../../../common/wire.ts';
import { readRegularFile } from '../../regular-file.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines, SKIPPED_LINES, TranscriptOffsets } from '../../transcript.ts';
import { pieceOf, type SessionTouch, type UsageReader, type UsageReadResult } from '../types.ts';
import { geminiSubagentChats } from './paths.ts';
import { GeminiLegacyChat, GeminiMessage, type GeminiTokens } from './schema.ts';

export interface GeminiCall {
  messageId: string;
  model?: string;
  ts: number;
  tokens?: GeminiTokens;
}

const size = (t: GeminiTokens | undefined) => (t ? t.input + t.output + t.thoughts + t.tool : -1);

/** Pure: the model calls among chat records (parsed JSON values), one per message id. */
export function geminiCallsFromRecords(records: unknown[]): { calls: GeminiCall[]; problems: string[] } {
  const byId = new Map<string, GeminiCall>();
  const problems: string[] = [];
  for (const record of records) {
    if ((record as { type?: unknown } | null)?.type !== 'gemini') continue;
    const parsed = GeminiMessage.safeParse(record);
    if (!parsed.success) {
      problems.push('a gemini message without id or timestamp');
      continue;
    }
    const m = parsed.data;
    const ts = parseEventTime(m.timestamp);
    if (ts === null) {
      problems.push(`gemini message ${m.id} has no usable timestamp`);
      continue;
    }
    const call: GeminiCall = { messageId: m.id, ts, ...(m.model ? { model: m.model } : {}), ...(m.tokens ? { tokens: m.tokens } : {}) };
    const previous = byId.get(m.id);
    if (!previous) {
      byId.set(m.id, call);
      continue;
    }
    // Later copies win unless they carry less usage; the model and the earliest time are kept either way.
    const kept = size(call.tokens) >= size(previous.tokens) ? call : previous;
    const model = call.model ?? previous.model;
    byId.set(m.id, { ...kept, ts: Math.min(previous.ts, call.ts), ...(model ? { model } : {}) });
  }
  return { calls: [...byId.values()], problems };
}

/** Pure: the wire records of model calls: usage for a call with tokens, an assistant message for each. */
export function geminiRecords(sessionId: string, calls: GeminiCall[]): WireRecord[] {
  const records: WireRecord[] = [];
  for (const call of calls) {
    const id = `gm:${call.messageId}`;
    const model = call.model ?? 'unknown';
    const t = call.tokens;
    if (t && t.input + t.output + t.thoughts + t.tool + t.cached > 0) {
      const cacheRead = Math.min(t.cached, t.input);
      records.push({
        kind: 'usage',
        id,
        agent: 'gemini',
        session_id: sessionId,
        ts: call.ts,
        model,
        input_tokens: t.input - cacheRead + t.tool,
        output_tokens: t.output + t.thoughts,
        cache_read_tokens: cacheRead,
        cache_write_tokens: 0,
        thinking_tokens: t.thoughts,
        thinking: t.thoughts > 0,
      });
    }
    // A gemini message without model or tokens is one Gemini made up (a summary), not a model's answer.
    if (call.model || t) records.push({ kind: 'message', id, agent: 'gemini', session_id: sessionId, ts: call.ts, model });
  }
  return records;
}

/** Gemini CLI's piece of the collector state: how far each chat was read (a legacy .json chat: its size). */
export const GeminiState = z.object({ transcripts: TranscriptOffsets });
export type GeminiState = z.infer<typeof GeminiState>;

/** New records of one chat file since the last reading (the whole file for a legacy .json chat). */
function readChat(path: string, state: GeminiState, sessionId: string): { records: unknown[]; problem?: string } | undefined {
  const known = state.transcripts[path];
  if (path.endsWith('.json')) {
    // Legacy chats are rewritten whole: read again when their size changed (records re-sent are stored
    // once, by id).
    let bytes: number;
    try {
      bytes = statSync(path).size;
    } catch {
      return undefined;
    }
    if (known?.offset === bytes) return { records: [] };
    try {
      const text = readRegularFile(path, { followLinks: true });
      if (text === undefined) return undefined;
      const chat = GeminiLegacyChat.parse(JSON.parse(text));
      state.transcripts[path] = { offset: bytes, sessionId };
      return { records: chat.messages };
    } catch (error) {
      return { records: [], problem: `not a Gemini chat (${jsonReadProblem(error)})` };
    }
  }
  const chunk = readNewLines(path, known);
  if (!chunk) return undefined;
  state.transcripts[path] = { offset: chunk.nextOffset, tail: chunk.tail, sessionId };
  const records: unknown[] = [];
  let unreadable = 0;
  for (const line of chunk.lines) {
    const json = parseJsonLine(line);
    if (json === undefined) unreadable++;
    else records.push(json);
  }
  const problem = [unreadable ? `${unreadable} chat line(s) are not JSON` : '', chunk.skipped ? SKIPPED_LINES(chunk.skipped) : '']
    .filter(Boolean)
    .join('; ');
  return { records, ...(problem ? { problem } : {}) };
}

function readUsage(session: SessionTouch, state: GeminiState): UsageReadResult {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  const paths = new Set<string>();
  for (const path of session.transcriptPaths) {
    paths.add(path);
    for (const sub of geminiSubagentChats(path, session.sessionId)) paths.add(sub);
  }
  for (const path of paths) {
    const read = readChat(path, state, session.sessionId);
    if (!read) {
      problems.push(`chat ${path} is not readable`);
      continue;
    }
    if (read.problem) problems.push(`${path}: ${read.problem}`);
    const { calls, problems: callProblems } = geminiCallsFromRecords(read.records);
    problems.push(...callProblems.map((p) => `${path}: ${p}`));
    records.push(...geminiRecords(session.sessionId, calls));
  }
  return { records, problems };
}

export const GEMINI_USAGE: UsageReader<GeminiState> = {
  state: GeminiState,
  empty: () => ({ transcripts: {} }),
  read: readUsage,
};

/** Reads a session's new chat records, advancing Gemini CLI's piece of `state`. */
export const readGeminiUsage = (session: SessionTouch, state: CollectorState): UsageReadResult =>
  readUsage(session, pieceOf(state.agents, 'gemini', GEMINI_USAGE));
