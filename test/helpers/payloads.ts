// Factories for realistic hook payloads (Claude Code and Droid field names), with overrides.
export type Payload = Record<string, unknown>;

let counter = 0;
const base = (overrides: Payload): Payload => ({
  session_id: 'sess-1',
  transcript_path: '/nonexistent/transcript.jsonl',
  cwd: '/home/dev/project',
  permission_mode: 'default',
  ...overrides,
});

export const sessionStart = (o: Payload = {}) => base({ hook_event_name: 'SessionStart', source: 'startup', ...o });
export const userPrompt = (prompt: string, o: Payload = {}) => base({ hook_event_name: 'UserPromptSubmit', prompt, ...o });
export const preToolUse = (tool_name: string, tool_input: unknown = {}, o: Payload = {}) =>
  base({ hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: `toolu_${++counter}`, ...o });
export const postToolUse = (tool_name: string, tool_input: unknown = {}, tool_response: unknown = {}, o: Payload = {}) =>
  base({ hook_event_name: 'PostToolUse', tool_name, tool_input, tool_response, tool_use_id: `toolu_${++counter}`, ...o });
export const postToolUseFailure = (tool_name: string, tool_input: unknown = {}, o: Payload = {}) =>
  base({ hook_event_name: 'PostToolUseFailure', tool_name, tool_input, error: 'failed', ...o });
export const stop = (o: Payload = {}) => base({ hook_event_name: 'Stop', stop_hook_active: false, ...o });
export const sessionEnd = (reason = 'other', o: Payload = {}) => base({ hook_event_name: 'SessionEnd', reason, ...o });
export const notification = (message: string, o: Payload = {}) => base({ hook_event_name: 'Notification', message, ...o });

/** A Claude Code transcript assistant line. */
export function claudeAssistantLine(o: {
  id: string;
  model?: string;
  timestamp: string;
  input?: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  thinking?: boolean;
  sidechain?: boolean;
  sessionId?: string;
  /** The API request (Claude Code writes it on every line of an API answer); left out when not given. */
  requestId?: string;
}): string {
  return JSON.stringify({
    type: 'assistant',
    sessionId: o.sessionId ?? 'sess-1',
    ...(o.requestId !== undefined ? { requestId: o.requestId } : {}),
    isSidechain: o.sidechain ?? false,
    timestamp: o.timestamp,
    uuid: `uuid-${++counter}`,
    message: {
      id: o.id,
      role: 'assistant',
      model: o.model ?? 'claude-sonnet-4-5-20250929',
      content: [...(o.thinking ? [{ type: 'thinking', thinking: '…' }] : []), { type: 'text', text: 'secret answer text' }],
      usage: {
        input_tokens: o.input ?? 0,
        output_tokens: o.output,
        cache_read_input_tokens: o.cacheRead ?? 0,
        cache_creation_input_tokens: o.cacheWrite ?? 0,
      },
    },
  });
}

export const claudeUserLine = (text: string, timestamp: string) =>
  JSON.stringify({ type: 'user', timestamp, message: { role: 'user', content: text } });
