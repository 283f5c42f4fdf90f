// The tool vocabulary Claude Code and Droid share: Bash/Execute as the shell, the Skill tool,
// `mcp__<server>__<tool>`, and Write/Create/Edit/MultiEdit/ApplyPatch as file tools. Their event names
// are already the pipeline's.
import { mcpParts, skillName } from '../derive.ts';
import { fileTouches } from '../files.ts';
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
  files: fileTouches,
};

/** For agents whose hook events already carry the pipeline's names. */
export const sameEventName = (event: string): string => event;
