// Gemini CLI's hook context (packages/core/src/hooks/types.ts): its event names mapped to the pipeline's,
// autonomy and headless from what the hook read of the Gemini process (hooks/agentmeter-hook.sh).
import type { AutonomyLevel } from '../../../common/wire.ts';
import type { HookPayload } from '../hook-payload.ts';

/**
 * Gemini's events as the pipeline counts them (Claude Code's names). BeforeAgent carries the user's prompt
 * (the turn), AfterAgent ends the turn (Stop), PreCompress is PreCompact. AfterTool is a tool call; it
 * failed when its tool_response has an `error` (coreToolHookTriggers.ts passes the ToolResult's
 * {llmContent, returnDisplay, error}; error is set only when the tool failed).
 */
const EVENTS: Record<string, string> = {
  SessionStart: 'SessionStart',
  SessionEnd: 'SessionEnd',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  BeforeTool: 'PreToolUse',
  PreCompress: 'PreCompact',
  Notification: 'Notification',
};

export function geminiEvent(event: string, payload: HookPayload): string {
  if (event === 'AfterTool') return toolFailed(payload.tool_response) ? 'PostToolUseFailure' : 'PostToolUse';
  return Object.hasOwn(EVENTS, event) ? EVENTS[event]! : event;
}

function toolFailed(response: unknown): boolean {
  if (!response || typeof response !== 'object') return false;
  const error = (response as Record<string, unknown>)['error'];
  return error !== undefined && error !== null && error !== false;
}

/**
 * Gemini's approval modes (ApprovalMode in packages/core/src/policy/types.ts: default, autoEdit, yolo,
 * plan; the flag spells auto_edit) as docs/metrics.md §1 maps them. The payload has none: the hook reads the
 * mode the Gemini process was started with (-y/--yolo, --approval-mode) into gemini_mode=. A one-shot run
 * cannot change it; an interactive session can (Shift+Tab, Ctrl+Y) and that is not seen, so the level is
 * the one it started with. Nothing read (another OS, no flag): manual.
 */
const MODES: Record<string, AutonomyLevel> = {
  yolo: 'auto-high',
  autoEdit: 'auto-low',
  auto_edit: 'auto-low',
  plan: 'spec',
  default: 'manual',
};

export function geminiAutonomy(_permissionMode: unknown, header: Record<string, string>): AutonomyLevel {
  const mode = header['gemini_mode'] ?? '';
  return Object.hasOwn(MODES, mode) ? MODES[mode]! : 'manual';
}

/** One-shot Gemini (`gemini -p`, a positional prompt, piped stdin), as the hook read it from /proc. */
export const geminiHeadless = (header: Record<string, string>): boolean => header['gemini_headless'] === '1';
