// Gemini CLI chat records (packages/core/src/services/chatRecordingService.ts and chatRecordingTypes.ts):
// only the fields usage needs. A JSONL chat holds a metadata line ({sessionId, projectHash, startTime, ...}),
// message records ({id, timestamp, type, content, model?, tokens?, toolCalls?, thoughts?}) appended again
// whenever they change, `{"$set": {...}}` metadata updates and `{"$rewindTo": "<message id>"}` lines. A chat
// of the versions before JSONL is one JSON object {sessionId, ..., messages: [...]}.
import { z } from 'zod';

const count = z.number().int().nonnegative().catch(0).default(0);

/** TokensSummary: the model call's usageMetadata (promptTokenCount, candidatesTokenCount, ...). */
export const GeminiTokens = z.looseObject({
  /** promptTokenCount: the whole prompt, cached part included. */
  input: count,
  /** candidatesTokenCount: the answer, without the thoughts. */
  output: count,
  /** cachedContentTokenCount: the part of the prompt read from the cache. */
  cached: count,
  /** thoughtsTokenCount: reasoning, billed as output. */
  thoughts: count,
  /** toolUsePromptTokenCount: the prompt of server-side tools (grounding, code execution), billed as input. */
  tool: count,
  total: count,
});
export type GeminiTokens = z.infer<typeof GeminiTokens>;

export const GeminiMessage = z.looseObject({
  id: z.string().min(1),
  timestamp: z.string(),
  type: z.literal('gemini'),
  model: z.string().min(1).optional().catch(undefined),
  tokens: GeminiTokens.nullish().catch(undefined),
});
export type GeminiMessage = z.infer<typeof GeminiMessage>;

/** A chat file of the versions before JSONL: the whole conversation as one object. */
export const GeminiLegacyChat = z.looseObject({
  sessionId: z.string().optional(),
  messages: z.array(z.unknown()),
});
