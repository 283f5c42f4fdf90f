// Codex CLI's tool vocabulary as its hooks name tools: the shell is `Bash` (tool_input {command}), files
// change through `apply_patch` (tool_input {command: <patch text>}), MCP tools are `mcp__<server>__<tool>`.
// Codex has no skill tool (its skills are instructions it reads, not calls), so no call is a skill.
import type { FileTouch } from '../../../common/wire.ts';
import { fileFacts, mcpParts } from '../../derive.ts';
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
 * Pure: the files an apply_patch body touched. `*** Add File: p` created p; `*** Update File: p` edited p,
 * or, followed by `*** Move to: q`, edited the file now named q; `*** Delete File: p` neither.
 */
export function codexPatchTouches(patch: string): FileTouch[] {
  const touched = new Map<string, FileTouch['op']>();
  const lines = patch.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const add = /^\*\*\* Add File: (.+)$/.exec(lines[i]!);
    if (add) {
      touched.set(add[1]!.trim(), 'create');
      continue;
    }
    const update = /^\*\*\* Update File: (.+)$/.exec(lines[i]!);
    if (update) {
      const move = /^\*\*\* Move to: (.+)$/.exec(lines[i + 1] ?? '');
      const path = (move ? move[1]! : update[1]!).trim();
      if (!touched.has(path)) touched.set(path, 'edit');
    }
  }
  return [...touched].map(([path, op]) => fileFacts(path, op));
}

function patchText(toolInput: unknown): string | undefined {
  if (typeof toolInput === 'string') return toolInput;
  const input = toolInput && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>) : {};
  for (const key of ['command', 'input', 'patch']) {
    const value = input[key];
    if (typeof value === 'string' && value.includes('*** ')) return value;
  }
  return undefined;
}

export const CODEX_TOOLS: ToolVocabulary = {
  isShell: (toolName) => toolName === SHELL,
  shellCommand: (toolName, toolInput) => (toolName === SHELL ? codexShellCommand(toolInput) : undefined),
  mcp: (toolName) => mcpParts(toolName),
  skill: () => undefined,
  files(toolName, toolInput) {
    if (toolName === SHELL) {
      // Models also call it through the shell (`apply_patch <<'EOF' … EOF`), which Codex runs as a patch.
      const command = codexShellCommand(toolInput);
      return command && /(^|[\s;&|(])apply_patch\b/.test(command) && command.includes('*** Begin Patch') ? codexPatchTouches(command) : [];
    }
    if (toolName !== 'apply_patch') return [];
    const patch = patchText(toolInput);
    return patch ? codexPatchTouches(patch) : [];
  },
};
