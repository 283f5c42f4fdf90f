// Codex CLI's tool vocabulary as its hooks name tools: the shell is `Bash` (tool_input {command}), files
// change through `apply_patch` (tool_input {command: <patch text>}), MCP tools are `mcp__<server>__<tool>`.
// Codex has no skill tool (its skills are instructions it reads, not calls), so no call is a skill.

import { type FileWrite, patchWrites } from '../../code/edit-lines.ts';
import { mcpParts } from '../../derive.ts';
import { patchText } from '../../patch.ts';
import type { ToolVocabulary } from '../types.ts';

const SHELL = 'Bash';

/** Pure: the command line of a shell call; an argv array (`["bash", "-lc", "git commit"]`) gives its script. */
export function codexShellCommand(toolInput: unknown): string | undefined {
  const command = (toolInput as { command?: unknown } | undefined)?.command;
  if (typeof command === 'string') return command;
  if (Array.isArray(command) && command.every((w) => typeof w === 'string')) {
    const words = command as string[];
    const script = words.findIndex((w) => w === '-c' || w === '-lc');
    return script >= 0 && script + 1 < words.length ? words[script + 1] : words.join(' ');
  }
  return undefined;
}

/**
 * Pure: the files a successful call wrote. `apply_patch` writes its patch; models also send a patch through
 * the shell (`apply_patch <<'EOF' … EOF`), which Codex runs as a patch.
 */
export function codexWrites(toolName: string, toolInput: unknown): FileWrite[] {
  if (toolName === SHELL) {
    const command = codexShellCommand(toolInput);
    return command && /(^|[\s;&|(])apply_patch\b/.test(command) && command.includes('*** Begin Patch') ? patchWrites(command) : [];
  }
  if (toolName !== 'apply_patch') return [];
  const patch = patchText(toolInput);
  return patch ? patchWrites(patch) : [];
}

export const CODEX_TOOLS: ToolVocabulary = {
  isShell: (toolName) => toolName === SHELL,
  shellCommand: (toolName, toolInput) => (toolName === SHELL ? codexShellCommand(toolInput) : undefined),
  mcp: (toolName) => mcpParts(toolName),
  skill: () => undefined,
  writes: (toolName, toolInput) => codexWrites(toolName, toolInput),
};
