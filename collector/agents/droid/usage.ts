// Droid token usage (docs/metrics.md §1): the session settings file holds tokenUsage cumulative for the
// session; each reading's difference from the last one is usage, dated at the time of the event that
// caused the read, so a long session spreads over the days it ran. Assistant messages come from the
// transcript, one per distinct message id.

import { z } from 'zod';
import { jsonReadProblem } from '../../../common/json-read-problem.ts';
import { parseEventTime } from '../../../common/time.ts';
import type { WireRecord } from '../../../common/wire.ts';
import { readRegularFile } from '../../regular-file.ts';
import type { CollectorState } from '../../state.ts';
import { parseJsonLine, readNewLines, SKIPPED_LINES, TranscriptOffsets } from '../../transcript.ts';
import { pieceOf, type SessionTouch, type UsageReader, type UsageReadResult } from '../types.ts';
import { findDroidSettingsFile } from './paths.ts';
import { DroidSessionSettings, DroidTranscriptLine } from './schema.ts';

export const TokenTotals = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheCreationTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative(),
  thinkingTokens: z.number().nonnegative(),
});
export type TokenTotals = z.infer<typeof TokenTotals>;

/**
 * Droid's piece of the collector state: per session, the cumulative tokenUsage at the last reading and the
 * settings file it came from; how far each transcript was read.
 */
export const DroidState = z.object({
  sessions: z.record(z.string(), z.object({ totals: TokenTotals, settingsPath: z.string().optional(), model: z.string().optional() })),
  transcripts: TranscriptOffsets,
});
export type DroidState = z.infer<typeof DroidState>;

const ZERO: TokenTotals = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0 };
const KEYS = Object.keys(ZERO) as (keyof TokenTotals)[];

/** Pure: the usage between two cumulative readings. A counter that went down means the session was reset. */
export function usageDelta(previous: TokenTotals | undefined, current: TokenTotals): TokenTotals {
  const base = previous && KEYS.every((k) => current[k] >= previous[k]) ? previous : ZERO;
  return Object.fromEntries(KEYS.map((k) => [k, current[k] - base[k]])) as TokenTotals;
}

/**
 * Pure: the usage record of a reading. It is named by the reading it follows (`previous`, the totals the
 * collector's committed state holds), not by its own totals: a batch the server stored but never
 * acknowledged is read again from the same committed totals, and by then the session may have gone on. The
 * second reading then has the first one's id, and the server keeps the larger difference once
 * (api/ingest/store.ts) instead of adding both.
 */
export function droidUsageRecord(
  sessionId: string,
  model: string,
  ts: number,
  previous: TokenTotals | undefined,
  delta: TokenTotals,
): WireRecord {
  return {
    kind: 'usage',
    id: `droid:${sessionId}:after:${previous ? KEYS.map((k) => previous[k]).join(':') : 'start'}`,
    agent: 'droid',
    session_id: sessionId,
    ts,
    model,
    input_tokens: delta.inputTokens,
    output_tokens: delta.outputTokens,
    cache_read_tokens: delta.cacheReadTokens,
    cache_write_tokens: delta.cacheCreationTokens,
    thinking_tokens: delta.thinkingTokens,
    thinking: delta.thinkingTokens > 0,
  };
}

/** Pure: assistant message ids (and their times, when the line has one) in Droid transcript lines, <synthetic> ones left out. */
export function droidAssistantMessages(lines: string[]): { id: string; ts: number | null; model?: string }[] {
  const seen = new Map<string, { id: string; ts: number | null; model?: string }>();
  for (const line of lines) {
    const parsed = DroidTranscriptLine.safeParse(parseJsonLine(line));
    if (!parsed.success) continue;
    const l = parsed.data;
    const role = l.message?.role ?? l.role ?? (l.type === 'assistant' ? 'assistant' : undefined);
    if (role !== 'assistant') continue;
    const id = l.message?.id ?? l.id;
    // A line of the <synthetic> model is the agent's own, no model's answer (docs/metrics.md §1).
    if (!id || seen.has(id) || l.message?.model === '<synthetic>') continue;
    seen.set(id, { id, ts: parseEventTime(l.timestamp), ...(l.message?.model ? { model: l.message.model } : {}) });
  }
  return [...seen.values()];
}

function readUsage(session: SessionTouch, state: DroidState, home: string): UsageReadResult {
  const records: WireRecord[] = [];
  const problems: string[] = [];
  const known = state.sessions[session.sessionId];
  const settingsPath = known?.settingsPath ?? findDroidSettingsFile(home, session.sessionId);
  let model = known?.model;
  if (settingsPath) {
    try {
      const text = readRegularFile(settingsPath, { followLinks: true });
      if (text === undefined) throw new Error('not a readable file');
      const settings = DroidSessionSettings.parse(JSON.parse(text));
      model = settings.model ?? model;
      if (settings.tokenUsage) {
        const totals = settings.tokenUsage as TokenTotals;
        const current = Object.fromEntries(KEYS.map((k) => [k, totals[k]])) as TokenTotals;
        const delta = usageDelta(known?.totals, current);
        if (KEYS.some((k) => delta[k] > 0)) {
          records.push(droidUsageRecord(session.sessionId, model ?? 'unknown', session.latestTs, known?.totals, delta));
        }
        state.sessions[session.sessionId] = { totals: current, settingsPath, ...(model ? { model } : {}) };
      }
    } catch (error) {
      problems.push(`droid settings ${settingsPath}: ${jsonReadProblem(error)}`);
    }
  }
  for (const path of session.transcriptPaths) {
    const chunk = readNewLines(path, state.transcripts[path]);
    if (!chunk) {
      problems.push(`transcript ${path} is not readable`);
      continue;
    }
    if (chunk.skipped) problems.push(`${path}: ${SKIPPED_LINES(chunk.skipped)}`);
    for (const m of droidAssistantMessages(chunk.lines)) {
      const modelName = m.model ?? model;
      records.push({
        kind: 'message',
        id: `droid:${session.sessionId}:${m.id}`,
        agent: 'droid',
        session_id: session.sessionId,
        ts: m.ts ?? session.latestTs,
        ...(modelName ? { model: modelName } : {}),
      });
    }
    state.transcripts[path] = { offset: chunk.nextOffset, tail: chunk.tail, sessionId: session.sessionId };
  }
  return { records, problems };
}

export const DROID_USAGE: UsageReader<DroidState> = {
  state: DroidState,
  empty: () => ({ sessions: {}, transcripts: {} }),
  read: readUsage,
};

/** Reads a session's new usage and messages, advancing Droid's piece of `state`. */
export const readDroidUsage = (session: SessionTouch, state: CollectorState, home: string): UsageReadResult =>
  readUsage(session, pieceOf(state.agents, 'droid', DROID_USAGE), home);
