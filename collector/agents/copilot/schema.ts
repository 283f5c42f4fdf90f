// The payloads Copilot's hosts send our hook, in the hook payload's names (collector/agents/hook-payload.ts).
// Three dialects (fixtures and their sources: collector/agents/copilot/fixtures/SOURCE.md):
// - Copilot CLI, PascalCase events (what the installer registers): Claude Code's names, `hook_event_name`,
//   `session_id`, `tool_name`, `tool_input`, an ISO `timestamp`, and `tool_result{result_type,
//   text_result_for_llm}` after a call;
// - Copilot CLI, camelCase events: `sessionId`, epoch-ms `timestamp`, `toolName`, `toolArgs` (a JSON
//   string), `toolResult{resultType, textResultForLlm}`, and often no event name at all: it is told from
//   the fields each event has (below);
// - VS Code's Copilot agent: `hookEventName` and `sessionId` in camelCase, the rest in Claude Code's names
//   (`tool_name`, `tool_input`, `tool_use_id`, `tool_response`, `transcript_path`), an ISO `timestamp`.
// Unknown fields stay in the local spool and are never read.

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** Pure: whether a payload is VS Code's dialect (camelCase event and session, Claude Code's tool fields). */
export function isVsCodePayload(json: unknown): boolean {
  const p = record(json);
  return (
    typeof p['hookEventName'] === 'string' &&
    !('toolName' in p) &&
    !('toolArgs' in p) &&
    !('toolResult' in p) &&
    typeof p['timestamp'] !== 'number'
  );
}

/**
 * Pure: the event of a camelCase Copilot CLI payload that does not name it, from the fields only that
 * event has (hooks-reference.md, "Hook input"): a tool result (postToolUse), tool arguments (preToolUse), a
 * prompt (userPromptSubmitted), an error (errorOccurred), a stop reason (agentStop), a start source
 * (sessionStart), an end reason (sessionEnd), a compaction trigger (preCompact).
 */
export function camelCaseEvent(p: Record<string, unknown>): string | undefined {
  const named = str(p['hookEventName']) ?? str(p['hook_event_name']);
  if (named) return named;
  if ('toolResult' in p) return 'postToolUse';
  if ('toolName' in p || 'toolArgs' in p) return 'preToolUse';
  if ('prompt' in p) return 'userPromptSubmitted';
  if ('error' in p) return 'errorOccurred';
  if ('stopReason' in p) return 'agentStop';
  if ('source' in p || 'initialPrompt' in p) return 'sessionStart';
  if ('reason' in p) return 'sessionEnd';
  if ('trigger' in p) return 'preCompact';
  return undefined;
}

/** Tool arguments as Copilot CLI sends them in camelCase: a JSON string (or, in some versions, an object). */
function toolArgs(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return {};
  }
}

/** A camelCase tool result in Claude Code's response fields (`success: false` when it did not succeed). */
function camelToolResult(value: unknown): unknown {
  const r = record(value);
  const type = str(r['resultType']) ?? str(r['result_type']);
  return type === undefined ? value : { ...r, result_type: type, success: type === 'success' };
}

/** Pure: any of the three dialects in the hook payload's names. */
export function copilotPayload(json: unknown): unknown {
  const p = record(json);
  if (typeof p['hook_event_name'] === 'string') {
    // The PascalCase form: Claude Code's names already; the result of a call is `tool_result`.
    const result = p['tool_response'] ?? p['tool_result'];
    const type = str(record(result)['result_type']);
    return {
      ...p,
      session_id: p['session_id'] ?? p['sessionId'],
      ...(result !== undefined ? { tool_response: type ? { ...record(result), success: type === 'success' } : result } : {}),
    };
  }
  if (isVsCodePayload(json)) return { ...p, hook_event_name: p['hookEventName'], session_id: p['sessionId'] };
  const event = camelCaseEvent(p);
  const out: Record<string, unknown> = { ...(event ? { hook_event_name: event } : {}), session_id: p['sessionId'] };
  if (typeof p['cwd'] === 'string') out['cwd'] = p['cwd'];
  if (typeof p['transcriptPath'] === 'string') out['transcript_path'] = p['transcriptPath'];
  if ('toolName' in p) out['tool_name'] = p['toolName'];
  if ('toolArgs' in p) out['tool_input'] = toolArgs(p['toolArgs']);
  if ('toolResult' in p) out['tool_response'] = camelToolResult(p['toolResult']);
  if ('prompt' in p) out['prompt'] = p['prompt'];
  const reason = str(p['reason']) ?? str(p['stopReason']);
  if (reason) out['reason'] = reason;
  return out;
}
