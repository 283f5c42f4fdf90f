// Droid's session settings file and transcript lines: only the fields usage needs.
import { z } from 'zod';

const count = z.number().nonnegative().catch(0).default(0);

export const DroidTokenUsage = z.looseObject({
  inputTokens: count,
  outputTokens: count,
  cacheCreationTokens: count,
  cacheReadTokens: count,
  thinkingTokens: count,
});

export const DroidSessionSettings = z.looseObject({
  model: z.string().optional(),
  tokenUsage: DroidTokenUsage.optional(),
});

/** A transcript line of an assistant message: Droid writes {type, id?, timestamp?, message: {role, id?, model?}}. */
export const DroidTranscriptLine = z.looseObject({
  type: z.string().optional(),
  id: z.string().optional(),
  timestamp: z.string().optional(),
  role: z.string().optional(),
  message: z.looseObject({ role: z.string().optional(), id: z.string().optional(), model: z.string().optional() }).optional(),
});
