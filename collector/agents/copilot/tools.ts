// Copilot's tool vocabulary, for both hosts.
// - Copilot CLI (hooks-reference.md, "Tool names"): `bash`/`powershell` run a command ({command}); `create`
//   makes a file ({path, file_text}); `edit` and `str_replace_editor` change one ({path, old_str, new_str});
//   `apply_patch` applies a patch. With the PascalCase events it reports Claude Code's names instead
//   (bash→Bash, create→Write, edit→Edit, view→Read, task→Agent), with the same arguments.
// - VS Code's Copilot agent (microsoft/vscode-copilot-chat src/extension/tools/common/toolNames.ts):
//   `run_in_terminal` ({command}); `create_file` ({filePath, content}); `replace_string_in_file` ({filePath,
//   oldString, newString}); `multi_replace_string_in_file` ({replacements: [...]}); `insert_edit_into_file`
//   ({filePath, code}, a sketch whose lines are not the file's); `apply_patch` ({input}); and `editFiles`,
//   which its hooks documentation shows with only the files ({files: [...]}).
// MCP tools are named `mcp__<server>__<tool>` in the Claude-compatible form.

import { type FileWrite, patchWrites, replaceWrite, wholeFileWrite } from '../../code/edit-lines.ts';
import { mcpParts, skillName } from '../../derive.ts';
import { patchText } from '../../patch.ts';
import type { ToolVocabulary } from '../types.ts';

const SHELLS = new Set(['bash', 'powershell', 'Bash', 'run_in_terminal']);

/** VS Code's own agent tools: never Copilot CLI's or Claude Code's. */
export const VSCODE_TOOLS = new Set([
  'editFiles',
  'run_in_terminal',
  'create_file',
  'replace_string_in_file',
  'multi_replace_string_in_file',
  'insert_edit_into_file',
]);

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** VS Code's replace arguments in the names the edit-line builders read. */
const oldNew = (r: Record<string, unknown>) => ({
  ...r,
  ...(r['oldString'] !== undefined ? { old_string: r['oldString'] } : {}),
  ...(r['newString'] !== undefined ? { new_string: r['newString'] } : {}),
});

/**
 * Pure: the files one successful call wrote, with their lines. `create`/`Write`/`create_file` make a file,
 * the replace tools edit one, a patch writes what it says; `editFiles` names its files and no lines.
 */
export function copilotWrites(toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[] {
  const input = record(toolInput);
  switch (toolName) {
    case 'create':
    case 'Write':
    case 'create_file':
      return wholeFileWrite('create', { ...input, content: input['content'] ?? input['file_text'] }, toolResponse);
    case 'edit':
    case 'Edit':
    case 'str_replace_editor': {
      // str_replace_editor's `create` command makes the file.
      if (input['command'] === 'create') return wholeFileWrite('create', { ...input, content: input['file_text'] }, toolResponse);
      return replaceWrite('edit', oldNew(input), toolResponse);
    }
    case 'replace_string_in_file':
    case 'insert_edit_into_file':
      return replaceWrite('edit', oldNew(input), toolResponse);
    case 'multi_replace_string_in_file': {
      const list = Array.isArray(input['replacements']) ? input['replacements'] : [];
      return list.flatMap((r) => replaceWrite('edit', oldNew(record(r)), toolResponse));
    }
    case 'editFiles': {
      const files = Array.isArray(input['files']) ? input['files'] : [];
      return files.flatMap((f) => {
        const path = str(f) ?? str(record(f)['filePath']) ?? str(record(f)['path']);
        return path ? replaceWrite('edit', { path }, undefined) : [];
      });
    }
    case 'apply_patch':
    case 'ApplyPatch': {
      const patch = patchText(toolInput);
      return patch ? patchWrites(patch) : [];
    }
    default:
      return [];
  }
}

export const COPILOT_TOOLS: ToolVocabulary = {
  isShell: (toolName) => SHELLS.has(toolName),
  shellCommand: (toolName, toolInput) => (SHELLS.has(toolName) ? str(record(toolInput)['command']) : undefined),
  mcp: (toolName) => mcpParts(toolName),
  skill: (toolName, toolInput) => (toolName === 'skill' || toolName === 'Skill' ? skillName(toolInput) : undefined),
  writes: copilotWrites,
};
