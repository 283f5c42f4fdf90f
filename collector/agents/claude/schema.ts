// Claude Code transcript lines (JSONL): only the fields usage needs. Other line types pass through.
import { z } from 'zod';

export const ClaudeUsage = z.looseObject({
  input_tokens: z.number().nonnegative().default(0),
  output_tokens: z.number().nonnegative().default(0),
  cache_creation_input_tokens: z.number().nonnegative().nullish(),
  cache_read_input_tokens: z.number().nonnegative().nullish(),
  /** Cache writes by lifetime (five minutes, one hour); the one-hour ones are priced apart (docs/metrics.md §8). */
  cache_creation: z.looseObject({ ephemeral_1h_input_tokens: z.number().nonnegative().nullish() }).nullish().catch(undefined),
});

export const ClaudeAssistantLine = z.looseObject({
  type: z.literal('assistant'),
  timestamp: z.string(),
  isSidechain: z.boolean().optional(),
  /** The API request; with message.id it names one model call across transcripts (docs/metrics.md §1). A value
   * that is not a string is as good as none: the line still counts, keyed by its session. */
  requestId: z.string().min(1).optional().catch(undefined),
  message: z.looseObject({
    id: z.string().min(1),
    model: z.string().min(1),
    usage: ClaudeUsage,
    content: z
      .array(z.looseObject({ type: z.string() }))
      .or(z.string())
      .optional(),
  }),
});
export type ClaudeAssistantLine = z.infer<typeof ClaudeAssistantLine>;
