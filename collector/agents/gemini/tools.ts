// Gemini CLI's tool vocabulary (packages/core/src/tools/tool-names.ts): run_shell_command is the shell,
// activate_skill runs a skill ({name}), write_file creates or overwrites a file, replace edits one.

import { type FileWrite, replaceWrite, wholeFileWrite } from '../../code/edit-lines.ts';
import { mcpParts, skillName } from '../../derive.ts';
import type { HookPayload } from '../hook-payload.ts';
import type { ToolVocabulary } from '../types.ts';

const SHELL = 'run_shell_command';

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The MCP server of a call. Gemini names the server in `mcp_context.server_name` on BeforeTool/AfterTool of
 * an MCP tool: that wins. Without it (older versions), the name: `mcp__<server>__<tool>` as Claude Code
 * spells it, or Gemini's `mcp_<server>_<tool>`, split at the first `_` after the prefix as Gemini's own
 * parser does, so a server whose name holds `_` is cut there (`mcp_my_db_query` reads as server `my`).
 */
export function geminiMcp(toolName: string, payload: HookPayload): { server: string; tool: string } | undefined {
  const context = record(payload['mcp_context']);
  const server = str(context['server_name']);
  if (server) return { server: server.trim(), tool: str(context['tool_name'])?.trim() ?? toolName };
  const claudeStyle = mcpParts(toolName);
  if (claudeStyle) return claudeStyle;
  const match = /^mcp_([^_]+)_(.+)$/.exec(toolName.trim());
  return match ? { server: match[1]!, tool: match[2]! } : undefined;
}

/**
 * Pure: the file a successful write_file or replace wrote. write_file's returnDisplay (a FileDiff) says
 * `isNewFile`; versions without it say "Successfully created and wrote to new file" in llmContent.
 * replace creates a file when old_string is empty and the file did not exist (isNewFile again).
 */
export function geminiWrites(toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[] {
  if (toolName !== 'write_file' && toolName !== 'replace') return [];
  const response = record(toolResponse);
  const display = record(response['returnDisplay']);
  const created =
    display['isNewFile'] === true ||
    (display['isNewFile'] === undefined && /^Successfully created and wrote to new file/.test(str(response['llmContent']) ?? ''));
  const op = created ? 'create' : 'edit';
  return toolName === 'write_file' ? wholeFileWrite(op, toolInput, toolResponse) : replaceWrite(op, toolInput, toolResponse);
}

export const GEMINI_TOOLS: ToolVocabulary = {
  isShell: (toolName) => toolName === SHELL,
  shellCommand: (toolName, toolInput) => (toolName === SHELL ? str(record(toolInput)['command']) : undefined),
  mcp: geminiMcp,
  skill: (toolName, toolInput) => (toolName === 'activate_skill' ? skillName(toolInput) : undefined),
  writes: geminiWrites,
};
