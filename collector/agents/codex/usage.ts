// Codex CLI token usage from the session rollout (docs/metrics.md §1 "Other agents' usage"). Each model response
// is followed by an event_msg token_count whose info.total_token_usage is cumulative for the session; the
// same total can be written again without a new call (Codex re-emits token_count, e.g. with new rate
// limits). So a call is the difference between two successive distinct totals, dated by the timestamp of
// the line that carries the new total, with the model of the latest turn_context before it. The record id
// is the cumulative total itself, so reading a line twice (a crash before the state was saved) yields the
// same id, which the server stores once.
//
// Forks and subagents: a forked (or spawned) session's rollout begins with its own session_meta, then a
// copy of its ancestors' rollout (their session_meta lines, their token_count lines with the timestamps
// rewritten to the fork). So a token_count is named by the session of the last session_meta before it
// (`owner`) and its cumulative total: a copied line gets the id its original has, and the server keeps one
// of them, at the original's earlier time. Lines after the copy continue the ancestor's totals, so their
// ids stay distinct. Assistant messages are named the same way: by their id, or (Codex writes none) by
// their turn and place among the rollout's messages, which a copy repeats (the fork's session_meta comes
// before any message). The turn id tells a fork's own messages from its parent's later ones at the same
// place: those follow the same copied totals, so owner and place alone would name both alike.
//
// Mapping: Codex's input_tokens includes cached_input_tokens, so input = input − cached and cache read =
// cached (never counted twice); Codex has no cache writes; output_tokens already includes
// reasoning_output_tokens, so output is output as is and the reasoning part is thinking_tokens (tier
// thinking when > 0). Assistant messages: one per assistant response_item, by its id when it has one,
// else by its turn and position in the rollout.
import { z } from 'zod';
import { parseEventTime } from '../../../common/time.ts';
import type { WireRecord } from '../../../common/wire.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines, SKIPPED_LINES, TranscriptMark } from '../../transcript.ts';
import { pieceOf, type SessionTouch, type UsageReader, type UsageReadResult } from '../types.ts';
import { findCodexRollout, isCompressedRollout, isRolloutPath } from './paths.ts';
import { AssistantMessagePayload, RolloutLine, SessionMetaPayload, TokenCountPayload, TurnContextPayload } from './schema.ts';

/** Codex's cumulative total_token_usage (input includes the cached input; output includes reasoning). */
export const CodexTotals = z.object({
  input: z.number().nonnegative(),
  cached: z.number().nonnegative(),
  output: z.number().nonnegative(),
  reasoning: z.number().nonnegative(),
});
export type CodexTotals = z.infer<typeof CodexTotals>;

/**
 * What reading a rollout so far left: the cumulative token_count total at the last reading (its fields as
 * Codex names them), the model of the latest turn_context, and how many assistant messages were read
 * (the ids of those without one of their own).
 */
export const CodexRolloutState = z.object({
  totals: CodexTotals.nullable(),
  model: z.string().optional(),
  messages: z.number().int().nonnegative(),
  sessionId: z.string(),
  /** The session whose session_meta came last: its totals are what follows (forks copy ancestors'). */
  owner: z.string().optional(),
  /** The turn id of the latest turn_context (absent from older Codex and older saved states). */
  turn: z.string().optional(),
});
export type CodexRolloutState = z.infer<typeof CodexRolloutState>;

/**
 * Codex's piece of the collector state: per rollout, the reading above and where it stopped (TranscriptMark).
 * Offset and totals are one entry, so they cannot be saved apart.
 */
export const CodexState = z.object({
  rollouts: z.record(z.string(), CodexRolloutState.extend(TranscriptMark.shape)),
});
export type CodexState = z.infer<typeof CodexState>;

const KEYS = ['input', 'cached', 'output', 'reasoning'] as const;

/** Pure: the usage between two cumulative totals; a total that went down means the count started over. */
export function codexDelta(previous: CodexTotals | null, current: CodexTotals): CodexTotals {
  const base = previous && KEYS.every((k) => current[k] >= previous[k]) ? previous : { input: 0, cached: 0, output: 0, reasoning: 0 };
  return {
    input: current.input - base.input,
    cached: current.cached - base.cached,
    output: current.output - base.output,
    reasoning: current.reasoning - base.reasoning,
  };
}

const same = (a: CodexTotals | null, b: CodexTotals) => a !== null && KEYS.every((k) => a[k] === b[k]);

/**
 * Pure: the usage and assistant-message records of new rollout lines, continuing from `known` (the state
 * after the lines read before). Returns the state after these lines.
 */
export function codexRecordsFromLines(
  sessionId: string,
  lines: string[],
  known: CodexRolloutState,
): { records: WireRecord[]; state: CodexRolloutState; problems: string[] } {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  const state: CodexRolloutState = { ...known };
  for (const text of lines) {
    const json = parseJsonLine(text);
    if (json === undefined) {
      problems.push('rollout line is not JSON');
      continue;
    }
    const line = RolloutLine.safeParse(json);
    if (!line.success) continue;
    const { type, payload, timestamp } = line.data;
    if (type === 'session_meta') {
      const meta = SessionMetaPayload.safeParse(payload);
      if (meta.success && meta.data.id) state.owner = meta.data.id;
      continue;
    }
    if (type === 'turn_context') {
      const context = TurnContextPayload.safeParse(payload);
      if (context.success && context.data.model) state.model = context.data.model;
      if (context.success) state.turn = context.data.turn_id;
      continue;
    }
    if (type === 'response_item') {
      const message = AssistantMessagePayload.safeParse(payload);
      if (!message.success) continue;
      const ts = parseEventTime(timestamp);
      state.messages += 1;
      if (ts === null) {
        problems.push('assistant message line has no usable timestamp');
        continue;
      }
      const place = state.turn ? `${state.turn}:m${state.messages}` : `m${state.messages}`;
      records.push({
        kind: 'message',
        id: `codex:${state.owner ?? sessionId}:${message.data.id ?? place}`,
        agent: 'codex',
        session_id: sessionId,
        ts,
        ...(state.model ? { model: state.model } : {}),
      });
      continue;
    }
    if (type !== 'event_msg') continue;
    const count = TokenCountPayload.safeParse(payload);
    if (!count.success || !count.data.info) continue;
    const t = count.data.info.total_token_usage;
    const current: CodexTotals = {
      input: t.input_tokens,
      cached: t.cached_input_tokens,
      output: t.output_tokens,
      reasoning: t.reasoning_output_tokens,
    };
    if (same(state.totals, current)) continue;
    const delta = codexDelta(state.totals, current);
    state.totals = current;
    if (KEYS.every((k) => delta[k] === 0)) continue;
    const ts = parseEventTime(timestamp);
    if (ts === null) {
      problems.push('token_count line has no usable timestamp');
      continue;
    }
    if (!state.model) problems.push('token_count before any turn_context: model unknown');
    records.push({
      kind: 'usage',
      id: `codex:${state.owner ?? sessionId}:${KEYS.map((k) => current[k]).join(':')}`,
      agent: 'codex',
      session_id: sessionId,
      ts,
      model: state.model ?? 'unknown',
      input_tokens: Math.max(0, delta.input - delta.cached),
      output_tokens: delta.output,
      cache_read_tokens: delta.cached,
      cache_write_tokens: 0,
      thinking_tokens: delta.reasoning,
      thinking: delta.reasoning > 0,
    });
  }
  return { records, state, problems };
}

/** The rollout of a session: the payload's transcript_path when it is one, else found by the session id. */
function rolloutPaths(session: SessionTouch, home: string, state: CodexState): string[] {
  const named = [...session.transcriptPaths].filter(isRolloutPath);
  if (named.length) return named;
  const known = Object.entries(state.rollouts).find(([, s]) => s.sessionId === session.sessionId)?.[0];
  if (known) return [known];
  const found = findCodexRollout(home, session.sessionId);
  return found ? [found] : [];
}

function readUsage(session: SessionTouch, state: CodexState, home: string): UsageReadResult {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  const paths = rolloutPaths(session, home, state);
  if (paths.length === 0) problems.push(`no Codex rollout found for session ${session.sessionId}: its usage is not counted`);
  for (const path of paths) {
    if (isCompressedRollout(path)) {
      // Node 20's zlib has no zstd: saying so beats counting the session as if it used nothing.
      problems.push(`Codex rollout ${path} is zstd-compressed, which this collector cannot read: its usage is not counted`);
      continue;
    }
    const saved = state.rollouts[path];
    const chunk = readNewLines(path, saved);
    if (!chunk) {
      problems.push(`Codex rollout ${path} is not readable`);
      continue;
    }
    if (chunk.skipped) problems.push(`${path}: ${SKIPPED_LINES(chunk.skipped)}`);
    // A rollout that is not the one read before (shorter, replaced, rewritten) is read again from the start,
    // and so are its totals (the record ids stay the same, so the server keeps what it already has once).
    const known: CodexRolloutState = saved && !chunk.restarted ? saved : { totals: null, messages: 0, sessionId: session.sessionId };
    const read = codexRecordsFromLines(known.sessionId, chunk.lines, known);
    records.push(...read.records);
    problems.push(...read.problems.map((p) => `${path}: ${p}`));
    state.rollouts[path] = { ...read.state, offset: chunk.nextOffset, tail: chunk.tail };
  }
  return { records, problems };
}

export const CODEX_USAGE: UsageReader<CodexState> = {
  state: CodexState,
  empty: () => ({ rollouts: {} }),
  read: readUsage,
};

/** Reads a session's new rollout lines, advancing Codex's piece of `state`. */
export const readCodexUsage = (session: SessionTouch, state: CollectorState, home: string): UsageReadResult =>
  readUsage(session, pieceOf(state.agents, 'codex', CODEX_USAGE), home);
