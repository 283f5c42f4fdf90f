// Cursor's hook events (cursor.com/docs/hooks) read as the common payload and counted by the pipeline's
// names. Cursor names the session conversation_id, has an event per kind of tool besides its generic tool
// events, and puts each kind's fields at the top level: normalize() maps them to HookPayload's fields, so
// the rest of the collector reads Cursor as it reads every agent.
//
// One call, one count: Cursor fires postToolUse for every tool that succeeded, and afterFileEdit besides it
// for a file edit. The edit is counted by afterFileEdit (it alone carries the replacements, hence the
// lines); postToolUse of a file-editing tool keeps its own name, an event that is no call. A failed call is
// postToolUseFailure. The before* events (not registered, hooks.ts) read as PreToolUse, after* of shell and
// MCP as their own names (postToolUse counts those calls).
import type { AutonomyLevel } from '../../../common/wire.ts';
import type { HookPayload } from '../hook-payload.ts';
import { CursorPayload } from './schema.ts';
import { CURSOR_SHELL, cursorMcpName } from './tools.ts';

/** Cursor's tools whose successful call afterFileEdit reports (with the lines), so postToolUse does not count it. */
const FILE_EDIT_TOOLS = new Set(['Write', 'Edit', 'StrReplace', 'MultiEdit']);
/** afterFileEdit's call when the payload names no tool: the agent's file-writing tool type (its matcher's). */
const EDIT_TOOL = 'Write';

const EVENTS: Record<string, string> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  beforeSubmitPrompt: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  beforeShellExecution: 'PreToolUse',
  beforeMCPExecution: 'PreToolUse',
  beforeReadFile: 'PreToolUse',
  afterFileEdit: 'PostToolUse',
  subagentStart: 'SubagentStart',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  stop: 'Stop',
};

/** Pure: the pipeline's name of a Cursor event (its own name where the pipeline has none). */
export function cursorEvent(event: string, payload: HookPayload): string {
  if (event === 'postToolUse') {
    const tool = typeof payload.tool_name === 'string' ? payload.tool_name.trim() : '';
    return FILE_EDIT_TOOLS.has(tool) ? event : 'PostToolUse';
  }
  return Object.hasOwn(EVENTS, event) ? EVENTS[event]! : event;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** MCP events pass the tool's arguments as a JSON string; generic events as an object. */
function jsonValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** The tool, its input and response of a Cursor event, in the generic tool events' fields. */
function toolFields(event: string, p: CursorPayload): Record<string, unknown> {
  switch (event) {
    case 'preToolUse':
    case 'postToolUse':
    case 'postToolUseFailure': {
      const input = jsonValue(p.tool_input);
      const failed = event === 'postToolUseFailure' ? { success: false, failure_type: p.failure_type } : {};
      return { tool_name: p.tool_name ?? '', tool_input: input, tool_response: failed };
    }
    case 'beforeShellExecution':
    case 'afterShellExecution':
      return { tool_name: CURSOR_SHELL, tool_input: { command: p.command } };
    case 'beforeMCPExecution':
    case 'afterMCPExecution':
      return { tool_name: p.tool_name ? cursorMcpName(p.tool_name) : '', tool_input: jsonValue(p.tool_input) };
    case 'beforeReadFile':
      // The file's content (in the payload) is never read.
      return { tool_name: 'Read', tool_input: { file_path: p.file_path } };
    case 'afterFileEdit':
      return { tool_name: str(p.tool_name) ?? EDIT_TOOL, tool_input: { file_path: p.file_path, edits: p.edits }, tool_response: {} };
    default:
      return {};
  }
}

/**
 * Pure: a Cursor payload in the common payload's fields: the session (conversation_id, else session_id), the
 * working directory (the event's cwd, else the workspace's first root), the tool fields of each kind of
 * event, the prompt, the model (model_id, else the slug). A payload that is not an object, or has no
 * session, is passed on for the common schema to refuse with its reason.
 */
export function normalizeCursor(json: unknown): unknown {
  const parsed = CursorPayload.safeParse(json);
  if (!parsed.success) return json;
  const p = parsed.data;
  const event = p.hook_event_name ?? '';
  const session = str(p.conversation_id) ?? str(p.session_id);
  const cwd = str(p.cwd) ?? p.workspace_roots?.find((root) => str(root) !== undefined);
  const model = str(p.model_id) ?? str(p.model);
  const out: Record<string, unknown> = {
    hook_event_name: event,
    ...(session !== undefined ? { session_id: session } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(model !== undefined ? { model } : {}),
    ...toolFields(event, p),
  };
  if (event === 'beforeSubmitPrompt') out['prompt'] = p.prompt;
  if (event === 'sessionEnd' && p.reason !== undefined) out['reason'] = p.reason;
  if (event === 'subagentStart' || event === 'subagentStop') {
    if (p.subagent_id !== undefined) out['agent_id'] = p.subagent_id;
    if (p.subagent_type !== undefined) out['agent_type'] = p.subagent_type;
  }
  return out;
}

/** The model an event names (kept by normalizeCursor), for the ledger's credit: Cursor's files give none. */
export const cursorModel = (payload: HookPayload): string | undefined => str(payload['model']);

/**
 * Cursor's payloads say nothing of how much the person lets the agent do (its auto-run settings are not
 * sent; sessionStart's composer_mode is the chat's mode, not an approval level): manual, as for every
 * payload without a mode (docs/metrics.md §1).
 */
export const cursorAutonomy = (): AutonomyLevel => 'manual';

/** Headless Cursor (`cursor-agent -p` in CI) is not told apart by its payload: AGENTMETER_CLIENT says it. */
export const cursorHeadless = (): boolean => false;
