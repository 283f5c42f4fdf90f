// Cursor's tool vocabulary (cursor.com/docs/hooks, matchers): `Shell` runs commands, `Read`, `Write`,
// `Grep`, `Delete`, `Task`, and MCP tools as `MCP:<tool>` (an MCP event names the tool, never its server).
// Its file edits come as afterFileEdit's `{file_path, edits: [{old_string, new_string}]}`, mapped to a call
// of its tool (events.ts): its lines are a diff of each replacement's old and new text, the builder Claude
// Code's Edit uses (code/edit-lines.ts).
import { type FileWrite, replaceWrite } from '../../code/edit-lines.ts';
import type { HookPayload } from '../hook-payload.ts';
import type { ToolVocabulary } from '../types.ts';

export const CURSOR_SHELL = 'Shell';
const MCP_PREFIX = 'MCP:';

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/** Pure: an MCP tool's name as Cursor's matchers spell it, `MCP:<tool>`. */
export const cursorMcpName = (tool: string): string => (tool.startsWith(MCP_PREFIX) ? tool : `${MCP_PREFIX}${tool}`);

/**
 * Pure: the files afterFileEdit wrote (a successful call with `edits`). Cursor does not say whether the
 * file is new: one replacement of nothing (an empty old_string) wrote the file whole, which is read as
 * creating it; anything else edited it.
 */
export function cursorWrites(_toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[] {
  const input = record(toolInput);
  const edits = input['edits'];
  if (!Array.isArray(edits) || nonEmpty(input['file_path']) === undefined) return [];
  const whole = edits.length === 1 && record(edits[0])['old_string'] === '';
  return replaceWrite(whole ? 'create' : 'edit', input, toolResponse);
}

export const CURSOR_TOOLS: ToolVocabulary = {
  isShell: (toolName) => toolName === CURSOR_SHELL,
  shellCommand: (toolName, toolInput) => (toolName === CURSOR_SHELL ? nonEmpty(record(toolInput)['command']) : undefined),
  mcp(toolName: string, payload: HookPayload) {
    if (!toolName.startsWith(MCP_PREFIX)) return undefined;
    const tool = toolName.slice(MCP_PREFIX.length).trim();
    // The server's name where an event gives one (none does today: beforeMCPExecution has its url or command).
    const server = nonEmpty(payload['mcp_server']) ?? 'unknown';
    return tool ? { server, tool } : undefined;
  },
  skill: () => undefined,
  writes: cursorWrites,
};
