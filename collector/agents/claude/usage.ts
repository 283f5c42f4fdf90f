// Claude Code token usage from the transcript JSONL (docs/metrics.md §1). A model call is one (message.id,
// requestId): it streams over several lines, and a continued or resumed session's transcript begins with
// copies of the earlier session's lines (same message.id and requestId, sometimes a new timestamp). Its
// record id therefore leaves the session out (claudeRecordId), so the server stores a call once however many
// transcripts hold it. Lines of one call combine as the server combines copies (api/ingest/store.ts): the
// largest of each token count, the earliest timestamp, thinking if any line had it. Sidechain (subagent)
// lines included, and each subagent's own transcript beside the session's (paths.ts), read with the session
// whether or not a SubagentStop named it; the <synthetic> model ignored.

import { z } from 'zod';
import { parseEventTime } from '../../../common/time.ts';
import type { WireMessage, WireUsage } from '../../../common/wire.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines, SKIPPED_LINES, TranscriptOffsets } from '../../transcript.ts';
import { pieceOf, type SessionTouch, type UsageReader, type UsageReadResult } from '../types.ts';
import { claudeSubagentTranscripts } from './paths.ts';
import { ClaudeAssistantLine } from './schema.ts';

export interface ClaudeMessageUsage {
  messageId: string;
  /** The API request the message answered; missing on lines of old Claude Code versions. */
  requestId?: string;
  model: string;
  ts: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The part of cacheWrite written for one hour (usage.cache_creation.ephemeral_1h_input_tokens). */
  cacheWrite1h: number;
  thinking: boolean;
}

/**
 * Pure: the record id of a model call. With a requestId the call is unique across all of an organization's
 * transcripts (a continued session's copies get the same id); without one, only within its session.
 */
export function claudeRecordId(sessionId: string, messageId: string, requestId: string | undefined): string {
  return requestId === undefined ? `cc:${sessionId}:${messageId}` : `cc:${messageId}:${requestId}`;
}

/** Pure: two lines of one model call as one: the largest of each count, the earliest time, any thinking. */
function combineLines(a: ClaudeMessageUsage, b: ClaudeMessageUsage): ClaudeMessageUsage {
  return {
    ...(b.output > a.output ? b : a),
    ts: Math.min(a.ts, b.ts),
    input: Math.max(a.input, b.input),
    output: Math.max(a.output, b.output),
    cacheRead: Math.max(a.cacheRead, b.cacheRead),
    cacheWrite: Math.max(a.cacheWrite, b.cacheWrite),
    cacheWrite1h: Math.max(a.cacheWrite1h, b.cacheWrite1h),
    thinking: a.thinking || b.thinking,
  };
}

/** Pure: the distinct model calls of a set of transcript lines, one per (message.id, requestId). */
export function claudeMessagesFromLines(lines: string[]): { messages: ClaudeMessageUsage[]; problems: string[] } {
  const byId = new Map<string, ClaudeMessageUsage>();
  const problems: string[] = [];
  for (const line of lines) {
    const json = parseJsonLine(line);
    if (json === undefined) {
      problems.push('transcript line is not JSON');
      continue;
    }
    if ((json as { type?: unknown })?.type !== 'assistant') continue;
    const parsed = ClaudeAssistantLine.safeParse(json);
    if (!parsed.success) continue;
    const { message, timestamp, requestId } = parsed.data;
    if (message.model === '<synthetic>') continue;
    const ts = parseEventTime(timestamp);
    if (ts === null) {
      problems.push(`assistant line ${message.id} has no usable timestamp`);
      continue;
    }
    const content = Array.isArray(message.content) ? message.content : [];
    const thinking = content.some((block) => block.type === 'thinking' || block.type === 'redacted_thinking');
    const candidate: ClaudeMessageUsage = {
      messageId: message.id,
      ...(requestId !== undefined ? { requestId } : {}),
      model: message.model,
      ts,
      input: message.usage.input_tokens,
      output: message.usage.output_tokens,
      cacheRead: message.usage.cache_read_input_tokens ?? 0,
      cacheWrite: message.usage.cache_creation_input_tokens ?? 0,
      cacheWrite1h: message.usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
      thinking,
    };
    // The session is the same for every line here: the key only has to tell calls apart.
    const key = claudeRecordId('', message.id, requestId);
    const previous = byId.get(key);
    byId.set(key, previous ? combineLines(previous, candidate) : candidate);
  }
  return { messages: [...byId.values()], problems };
}

export function claudeRecords(sessionId: string, messages: ClaudeMessageUsage[]): (WireUsage | WireMessage)[] {
  const records: (WireUsage | WireMessage)[] = [];
  for (const m of messages) {
    const id = claudeRecordId(sessionId, m.messageId, m.requestId);
    records.push({
      kind: 'usage',
      id,
      agent: 'claude',
      session_id: sessionId,
      ts: m.ts,
      model: m.model,
      input_tokens: m.input,
      output_tokens: m.output,
      cache_read_tokens: m.cacheRead,
      cache_write_tokens: m.cacheWrite,
      ...(m.cacheWrite1h > 0 ? { cache_write_1h_tokens: Math.min(m.cacheWrite1h, m.cacheWrite) } : {}),
      thinking_tokens: 0,
      thinking: m.thinking,
    });
    records.push({
      kind: 'message',
      id,
      agent: 'claude',
      session_id: sessionId,
      ts: m.ts,
      model: m.model,
    });
  }
  return records;
}

/** Claude Code's piece of the collector state: how far each transcript was read. */
export const ClaudeState = z.object({ transcripts: TranscriptOffsets });
export type ClaudeState = z.infer<typeof ClaudeState>;

function readUsage(session: SessionTouch, state: ClaudeState): UsageReadResult {
  const listed = new Set<string>();
  for (const path of session.transcriptPaths)
    for (const sub of claudeSubagentTranscripts(path, session.sessionId)) if (!session.transcriptPaths.has(sub)) listed.add(sub);
  return readTranscripts(session.sessionId, session.transcriptPaths, listed, state);
}

/**
 * Reads a session's new transcript lines: those its events named (a link there is followed: an agent's
 * transcript may be one), then the subagent transcripts no event named, found by listing their folder,
 * read only as the regular files listed, never through a link put in one's place since.
 */
export function readTranscripts(
  sessionId: string,
  named: ReadonlySet<string>,
  listed: ReadonlySet<string>,
  state: ClaudeState,
): UsageReadResult {
  const records: (WireUsage | WireMessage)[] = [];
  const problems: string[] = [];
  for (const path of [...named, ...listed]) {
    const known = state.transcripts[path];
    const chunk = readNewLines(path, known, undefined, { followLinks: named.has(path) });
    if (!chunk) {
      problems.push(`transcript ${path} is not readable`);
      continue;
    }
    if (chunk.skipped) problems.push(`${path}: ${SKIPPED_LINES(chunk.skipped)}`);
    const { messages, problems: lineProblems } = claudeMessagesFromLines(chunk.lines);
    problems.push(...lineProblems.map((p) => `${path}: ${p}`));
    records.push(...claudeRecords(sessionId, messages));
    state.transcripts[path] = { offset: chunk.nextOffset, tail: chunk.tail, sessionId };
  }
  return { records, problems };
}

export const CLAUDE_USAGE: UsageReader<ClaudeState> = {
  state: ClaudeState,
  empty: () => ({ transcripts: {} }),
  read: readUsage,
};

/** Reads a session's new transcript lines, advancing Claude Code's piece of `state`. */
export const readClaudeUsage = (session: SessionTouch, state: CollectorState): UsageReadResult =>
  readUsage(session, pieceOf(state.agents, 'claude', CLAUDE_USAGE));
