// Other hosts that run Claude Code's hook. VS Code's Copilot agent loads ~/.claude/settings.json by default
// and Cursor loads it when its third-party hooks are on, so our `agentmeter-hook.sh claude` also runs for
// their sessions, with their own payloads; VS Code's are recorded as Copilot's (agent copilot, client
// vscode), Cursor's are dropped with the reason (collector/agents/claude/fixtures/hosts/SOURCE.md). The hook stays the
// bare writer: it is the collector that tells them apart, from the payload's dialect and, where the payload
// could pass for Claude Code's, from the hook's environment (Claude Code sets CLAUDE_CODE_ENTRYPOINT, which
// the hook records as entrypoint=; neither other host does).
import { VSCODE_TOOLS } from '../copilot/tools.ts';
import type { OtherHost } from '../types.ts';

/**
 * Cursor's own hook events (cursor.com/docs/hooks) that no other host has; its generic ones (sessionStart,
 * preToolUse, stop…) are Copilot CLI's names too, and are told by Cursor's fields.
 */
const CURSOR_EVENTS = new Set([
  'beforeShellExecution',
  'afterShellExecution',
  'beforeMCPExecution',
  'afterMCPExecution',
  'beforeReadFile',
  'afterFileEdit',
  'beforeSubmitPrompt',
  'afterAgentResponse',
  'afterAgentThought',
  'beforeTabFileRead',
  'afterTabFileEdit',
  'workspaceOpen',
]);

/** Fields every Cursor payload has one of, and Claude Code's never have. */
const CURSOR_FIELDS = ['conversation_id', 'generation_id', 'cursor_version', 'workspace_roots'];

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * Pure: the host that wrote a payload spooled by the Claude Code hook, when it is not Claude Code; undefined
 * for Claude Code's own events (and for anything else, which the payload schema then judges).
 */
export function claudeHookHost(header: Record<string, string>, payload: unknown): OtherHost | undefined {
  const p = record(payload);
  const has = (key: string) => Object.hasOwn(p, key);
  const event = p['hook_event_name'] ?? p['hookEventName'];
  if (CURSOR_FIELDS.some(has) || (typeof event === 'string' && CURSOR_EVENTS.has(event)))
    return {
      host: 'cursor',
      reason: "Cursor ran the Claude Code hook (its payload has Cursor's fields or event names): not a Claude Code event",
    };
  // VS Code's Copilot agent: recorded as Copilot (client vscode), by its adapter (collector/agents/copilot).
  if ((has('hookEventName') || has('sessionId')) && !has('hook_event_name'))
    return {
      host: 'copilot',
      agent: 'copilot',
      reason: "VS Code's Copilot agent ran the Claude Code hook (camelCase hookEventName and sessionId): not a Claude Code event",
    };
  // Claude Code's event names are PascalCase; a camelCase one (Copilot CLI's dialect) is another host's.
  if (typeof event === 'string' && /^[a-z]/.test(event))
    return { host: 'other', reason: `a host other than Claude Code ran its hook (camelCase event ${event.slice(0, 64)})` };
  // A payload in Claude Code's own field names: only a VS Code tool, outside Claude Code (no entrypoint), tells.
  if (!header['entrypoint'] && typeof p['tool_name'] === 'string' && VSCODE_TOOLS.has(p['tool_name']))
    return {
      host: 'copilot',
      agent: 'copilot',
      reason: "VS Code's Copilot agent ran the Claude Code hook (a VS Code tool, no CLAUDE_CODE_ENTRYPOINT): not a Claude Code event",
    };
  return undefined;
}
