// Cursor's hook input (cursor.com/docs/hooks, "Reference"): the fields every event has and the ones of
// each event agentmeter reads. Everything is optional here: normalize() (events.ts) maps what is present to
// the common payload, whose schema then says what is missing. Unknown fields are allowed and never read:
// prompts, file contents, command output and the agent's text stay in the local spool.
import { z } from 'zod';

const text = z.string().optional().catch(undefined);

export const CursorPayload = z.looseObject({
  hook_event_name: text,
  /** Stable across the conversation's turns: the session. */
  conversation_id: text,
  /** sessionStart and sessionEnd (the same as conversation_id), and later builds on every event. */
  session_id: text,
  /** Changes with every user message. */
  generation_id: text,
  /** The legacy model slug ("default" when Cursor picks it), and the structured id when there is one. */
  model: text,
  model_id: text,
  cursor_version: text,
  workspace_roots: z.array(z.string()).optional().catch(undefined),
  user_email: z.string().nullish().catch(undefined),
  transcript_path: z.string().nullish().catch(undefined),
  cwd: text,
  // Generic tool events (preToolUse, postToolUse, postToolUseFailure): the tool and its input; an MCP
  // tool's own events pass tool_input as a JSON string.
  tool_name: text,
  tool_input: z.unknown().optional(),
  failure_type: text,
  // beforeShellExecution / afterShellExecution.
  command: text,
  // beforeReadFile, afterFileEdit: the file; afterFileEdit the replacements it made.
  file_path: text,
  edits: z.unknown().optional(),
  // beforeSubmitPrompt: the prompt (read for a slash command only).
  prompt: z.unknown().optional(),
  // sessionEnd: how it ended. stop, subagentStop: the loop's status.
  reason: text,
  status: text,
  // subagentStart / subagentStop.
  subagent_id: text,
  subagent_type: text,
  agent_transcript_path: z.string().nullish().catch(undefined),
});
export type CursorPayload = z.infer<typeof CursorPayload>;
