// Codex CLI rollout lines (JSONL, `{timestamp, type, payload}`): only the fields usage and the client
// type need. Other line types (response_item of other kinds, event_msg of other kinds) pass through.
import { z } from 'zod';

const count = z.number().nonnegative().catch(0).default(0);

export const RolloutLine = z.looseObject({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.unknown(),
});

/** session_meta: `source` is cli, vscode, exec, mcp, … (`codex exec` writes "exec"), or an object for subagents. */
export const SessionMetaPayload = z.looseObject({ id: z.string().optional(), source: z.unknown().optional() });

/** turn_context: the model of the turn that follows, and (newer Codex) the turn's id (one too long is left out). */
export const TurnContextPayload = z.looseObject({
  model: z.string().min(1).optional(),
  turn_id: z.string().min(1).max(128).optional().catch(undefined),
});

/** A cumulative or per-turn usage: input includes cached_input; output includes reasoning_output. */
export const CodexTokenUsage = z.looseObject({
  input_tokens: count,
  cached_input_tokens: count,
  output_tokens: count,
  reasoning_output_tokens: count,
});

/** event_msg of type token_count: info is null before the first model response. */
export const TokenCountPayload = z.looseObject({
  type: z.literal('token_count'),
  info: z.looseObject({ total_token_usage: CodexTokenUsage }).nullish(),
});

/** response_item of an assistant message. */
export const AssistantMessagePayload = z.looseObject({
  type: z.literal('message'),
  role: z.literal('assistant'),
  id: z.string().min(1).optional(),
});
