// Claude Code token usage from the transcript JSONL (METRICS.md §1): each assistant message.id counts
// once, with the line that has the largest output_tokens (a message streams over several lines); dated by
// the line's timestamp; sidechain (subagent) lines included; the <synthetic> model ignored.
import { parseEventTime } from '../../../common/time.ts';
import type { WireRecord } from '../../../common/wire.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines } from '../../transcript.ts';
import type { SessionTouch, UsageReadResult } from '../types.ts';
import { ClaudeAssistantLine } from './schema.ts';

export interface ClaudeMessageUsage {
  messageId: string;
  model: string;
  ts: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  thinking: boolean;
}

/** Pure: the distinct assistant messages of a set of transcript lines, largest output per message id. */
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
    const { message, timestamp } = parsed.data;
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
      model: message.model,
      ts,
      input: message.usage.input_tokens,
      output: message.usage.output_tokens,
      cacheRead: message.usage.cache_read_input_tokens ?? 0,
      cacheWrite: message.usage.cache_creation_input_tokens ?? 0,
      thinking,
    };
    const previous = byId.get(message.id);
    if (!previous) byId.set(message.id, candidate);
    else {
      // Keep the line with the largest output; thinking seen on any line of the message counts.
      const keep = candidate.output > previous.output ? candidate : previous;
      byId.set(message.id, { ...keep, thinking: previous.thinking || candidate.thinking });
    }
  }
  return { messages: [...byId.values()], problems };
}

export function claudeRecords(sessionId: string, messages: ClaudeMessageUsage[]): WireRecord[] {
  const records: WireRecord[] = [];
  for (const m of messages) {
    records.push({
      kind: 'usage',
      id: `cc:${sessionId}:${m.messageId}`,
      agent: 'claude',
      session_id: sessionId,
      ts: m.ts,
      model: m.model,
      input_tokens: m.input,
      output_tokens: m.output,
      cache_read_tokens: m.cacheRead,
      cache_write_tokens: m.cacheWrite,
      thinking_tokens: 0,
      thinking: m.thinking,
    });
    records.push({
      kind: 'message',
      id: `cc:${sessionId}:${m.messageId}`,
      agent: 'claude',
      session_id: sessionId,
      ts: m.ts,
      model: m.model,
    });
  }
  return records;
}

export function readClaudeUsage(session: SessionTouch, state: CollectorState): UsageReadResult {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  for (const path of session.transcriptPaths) {
    const known = state.transcripts[path];
    const chunk = readNewLines(path, known?.offset ?? 0);
    if (!chunk) {
      problems.push(`transcript ${path} is not readable`);
      continue;
    }
    const { messages, problems: lineProblems } = claudeMessagesFromLines(chunk.lines);
    problems.push(...lineProblems.map((p) => `${path}: ${p}`));
    records.push(...claudeRecords(session.sessionId, messages));
    state.transcripts[path] = { offset: chunk.nextOffset, sessionId: session.sessionId };
  }
  return { records, problems };
}
