// Qwen Code chat records (packages/core/src/services/chatRecordingService.ts, `ChatRecord`): one JSON object
// a line, `{uuid, parentUuid, sessionId, timestamp, type, model?, usageMetadata?, ...}`. Only the assistant
// records' fields that usage needs are read; other records pass through.
import { z } from 'zod';

const count = z.number().nonnegative().catch(0).default(0);

/** Gemini's GenerateContentResponseUsageMetadata, which Qwen Code records for every model call. */
export const QwenUsageMetadata = z.looseObject({
  promptTokenCount: count,
  candidatesTokenCount: count,
  thoughtsTokenCount: count,
  cachedContentTokenCount: count,
  totalTokenCount: z.number().nonnegative().optional().catch(undefined),
});
export type QwenUsageMetadata = z.infer<typeof QwenUsageMetadata>;

export const QwenAssistantRecord = z.looseObject({
  uuid: z.string().min(1),
  sessionId: z.string().min(1).optional().catch(undefined),
  timestamp: z.string(),
  type: z.literal('assistant'),
  model: z.string().min(1).optional().catch(undefined),
  usageMetadata: QwenUsageMetadata.optional().catch(undefined),
});
export type QwenAssistantRecord = z.infer<typeof QwenAssistantRecord>;
