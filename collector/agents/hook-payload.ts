// The hook payload both agents send (Claude Code and Droid use the same field names). Unknown fields are
// allowed and ignored: they stay in the local spool and never ship.
import { z } from 'zod';

export const HookPayload = z.looseObject({
  hook_event_name: z.string().trim().min(1).max(128),
  session_id: z.string().trim().min(1).max(256),
  cwd: z.string().optional(),
  // Codex CLI sends null when the session keeps no rollout (its schema: string | null).
  transcript_path: z.string().nullish(),
  permission_mode: z.string().optional(),
  // A tool name that is not a string is a parsing artifact: it still counts, as "unknown".
  tool_name: z.unknown().optional(),
  tool_input: z.unknown().optional(),
  tool_response: z.unknown().optional(),
  prompt: z.unknown().optional(),
  reason: z.string().optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  /** Claude Code: the subagent's own transcript, on SubagentStop. */
  agent_transcript_path: z.string().optional(),
});
export type HookPayload = z.infer<typeof HookPayload>;
