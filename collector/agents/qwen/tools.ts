// Qwen Code's tool vocabulary (tool ids as hook payloads carry them: docs/users/features/hooks.md, "Matcher
// Patterns"): `run_shell_command` is the shell (input `{command}`), `skill` runs a skill (input `{skill}`),
// `write_file` and `edit` write files, MCP tools are `mcp__<server>__<tool>`.

import { type FileWrite, replaceWrite, wholeFileWrite } from '../../code/edit-lines.ts';
import { mcpParts, skillName } from '../../derive.ts';
import type { ToolVocabulary } from '../types.ts';

const SHELL = 'run_shell_command';

/** Every string of a tool response, at any depth (bounded): Qwen's write_file says what it did in text. */
function responseTexts(value: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 4 || out.length > 32) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) responseTexts(v, depth + 1, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) responseTexts(v, depth + 1, out);
  return out;
}

/**
 * Pure: whether a successful write_file created its file. Qwen Code (like Gemini CLI, whose WriteFileTool it
 * inherits: packages/core/src/tools/write-file.ts) answers "Successfully created and wrote to new file:
 * <path>" for a new file and "Successfully overwrote file: <path>" otherwise (its own CLI parses the same
 * two messages); a diff display with `originalContent: null` is a new file too. A response that says
 * neither counts as an edit: overwriting is the safer reading.
 */
export function writeFileCreated(toolResponse: unknown): boolean {
  // The message first: some versions' diff display gives a new file an empty string, not null.
  const texts = responseTexts(toolResponse);
  if (texts.some((text) => /\bcreated and wrote to new file\b/i.test(text))) return true;
  if (texts.some((text) => /\bSuccessfully overwrote file\b/i.test(text))) return false;
  const display = (toolResponse as { returnDisplay?: { originalContent?: unknown } } | undefined)?.returnDisplay;
  return Boolean(display && typeof display === 'object' && 'originalContent' in display && display.originalContent === null);
}

/** Pure: the file a successful write_file or edit wrote. */
export function qwenWrites(toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[] {
  switch (toolName) {
    case 'write_file':
      return wholeFileWrite(writeFileCreated(toolResponse) ? 'create' : 'edit', toolInput, toolResponse);
    case 'edit':
      // An edit with an empty old_string creates the file (the edit tool's own rule).
      return replaceWrite((toolInput as { old_string?: unknown } | null)?.old_string === '' ? 'create' : 'edit', toolInput, toolResponse);
    default:
      return [];
  }
}

export const QWEN_TOOLS: ToolVocabulary = {
  isShell: (toolName) => toolName === SHELL,
  shellCommand(toolName, toolInput) {
    if (toolName !== SHELL) return undefined;
    const command = (toolInput as { command?: unknown } | undefined)?.command;
    return typeof command === 'string' ? command : undefined;
  },
  mcp: (toolName) => mcpParts(toolName),
  skill: (toolName, toolInput) => (toolName === 'skill' ? skillName(toolInput) : undefined),
  writes: qwenWrites,
};
