// The tool vocabulary Claude Code and Droid share: Bash/Execute as the shell, the Skill tool,
// `mcp__<server>__<tool>`, and Write/Create/Edit/MultiEdit/ApplyPatch as file tools. Their event names
// are already the pipeline's.

import { type FileWrite, patchWrites, replaceWrite, wholeFileWrite } from '../code/edit-lines.ts';
import { mcpParts, skillName } from '../derive.ts';
import { patchText } from '../patch.ts';
import type { ToolVocabulary } from './types.ts';

const SHELL_TOOLS = new Set(['Bash', 'Execute']);

export const CLAUDE_STYLE_TOOLS: ToolVocabulary = {
  isShell: (toolName) => SHELL_TOOLS.has(toolName),
  shellCommand(toolName, toolInput) {
    if (!SHELL_TOOLS.has(toolName)) return undefined;
    const command = (toolInput as { command?: unknown } | undefined)?.command;
    return typeof command === 'string' ? command : undefined;
  },
  mcp: (toolName) => mcpParts(toolName),
  skill: (toolName, toolInput) => (toolName === 'Skill' ? skillName(toolInput) : undefined),
  writes: claudeStyleWrites,
};

/**
 * Pure: the files one successful call wrote. Claude Code's Write made its file when the response says
 * `type: "create"` (else it overwrote one); Droid's Create always makes one; Edit and MultiEdit change one;
 * an ApplyPatch (Droid) writes what its patch says.
 */
export function claudeStyleWrites(toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[] {
  switch (toolName) {
    case 'Write': {
      const created = (toolResponse as { type?: unknown } | null | undefined)?.type === 'create';
      return wholeFileWrite(created ? 'create' : 'edit', toolInput, toolResponse);
    }
    case 'Create':
      return wholeFileWrite('create', toolInput, toolResponse);
    case 'Edit':
    case 'MultiEdit':
      return replaceWrite('edit', toolInput, toolResponse);
    case 'ApplyPatch':
    case 'apply_patch': {
      const patch = patchText(toolInput);
      return patch ? patchWrites(patch) : [];
    }
    default:
      return [];
  }
}

/** For agents whose hook events already carry the pipeline's names. */
export const sameEventName = (event: string): string => event;
