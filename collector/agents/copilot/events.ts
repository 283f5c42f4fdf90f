// Copilot's hook events as the pipeline counts them (Claude Code's names), its client, and the identity of
// an event that two hook files spooled. Copilot has no permission mode in any payload (its --allow-all-tools
// and --yolo are not passed to hooks), so its tool calls are `manual`; headless runs (`copilot -p`) are told
// only by AGENTMETER_CLIENT (docs/agents/copilot.md).
import { createHash } from 'node:crypto';
import type { AutonomyLevel, ClientType } from '../../../common/wire.ts';
import type { HookPayload } from '../hook-payload.ts';
import { camelCaseEvent, isVsCodePayload } from './schema.ts';
import { VSCODE_TOOLS } from './tools.ts';

/** The camelCase events (and the PascalCase ones that are not Claude Code's) by the pipeline's names. */
const EVENTS: Record<string, string> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  userPromptSubmitted: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  agentStop: 'Stop',
  subagentStart: 'SubagentStart',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  notification: 'Notification',
  permissionRequest: 'PermissionRequest',
  errorOccurred: 'ErrorOccurred',
};

const FAILED = new Set(['failure', 'denied', 'error', 'rejected']);

/** A call whose result says it did not succeed is a failed call, whichever event reported it. */
function failed(response: unknown): boolean {
  if (!response || typeof response !== 'object') return false;
  const r = response as Record<string, unknown>;
  const type = r['result_type'] ?? r['resultType'];
  return r['success'] === false || (typeof type === 'string' && FAILED.has(type));
}

export function copilotEvent(event: string, payload: HookPayload): string {
  const name = Object.hasOwn(EVENTS, event) ? EVENTS[event]! : event;
  return name === 'PostToolUse' && failed(payload.tool_response) ? 'PostToolUseFailure' : name;
}

export const copilotAutonomy = (): AutonomyLevel => 'manual';
export const copilotHeadless = (): boolean => false;

/** VS Code's dialect, or VS Code's own tool in Claude Code's field names (collector/agents/claude/fixtures/hosts). */
export function copilotClient(json: unknown): ClientType | undefined {
  if (isVsCodePayload(json)) return 'vscode';
  const tool = (json as { tool_name?: unknown } | null)?.tool_name;
  return typeof tool === 'string' && VSCODE_TOOLS.has(tool) ? 'vscode' : undefined;
}

/**
 * Pure: the event's identity from its own fields: the session, the event, the time the host stamped on it
 * and the tool call's id. VS Code builds one payload per event and hands it to every hook that names the
 * event, so the copies spooled through ~/.claude/settings.json and ~/.copilot/hooks have one key; so do an
 * event's copies when a policy file and a user file both run our hook. Without a session or a time: none.
 */
export function copilotEventKey(json: unknown): string | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const p = json as Record<string, unknown>;
  const session = p['sessionId'] ?? p['session_id'];
  const time = p['timestamp'];
  if (typeof session !== 'string' || (typeof time !== 'string' && typeof time !== 'number')) return undefined;
  const event = camelCaseEvent(p) ?? '';
  const call = p['tool_use_id'] ?? p['toolUseId'] ?? p['toolCallId'] ?? '';
  const tool = p['tool_name'] ?? p['toolName'] ?? '';
  return createHash('sha256')
    .update(JSON.stringify([session, event, String(time), call, tool]))
    .digest('hex')
    .slice(0, 40);
}
