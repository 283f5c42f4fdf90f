// Which files a successful tool call created or edited (docs/metrics.md §3 Productivity), for both agents'
// tool vocabularies: Claude Code Write/Edit/MultiEdit, Droid Create/Edit/MultiEdit/ApplyPatch.
import type { FileTouch } from '../common/wire.ts';
import { fileFacts, patchFiles } from './derive.ts';

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

function inputPath(input: Record<string, unknown>): string | undefined {
  return str(input['file_path']) ?? str(input['path']) ?? str(input['filePath']);
}

/** Pure: the files one tool call touched, with create/edit. Only called for successful calls. */
export function fileTouches(toolName: string, toolInput: unknown, toolResponse: unknown): FileTouch[] {
  const input = toolInput && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>) : {};
  const response = toolResponse && typeof toolResponse === 'object' ? (toolResponse as Record<string, unknown>) : {};
  switch (toolName) {
    case 'Write': {
      const path = inputPath(input) ?? str(response['filePath']);
      if (!path) return [];
      return [fileFacts(path, response['type'] === 'create' ? 'create' : 'edit')];
    }
    case 'Create': {
      const path = inputPath(input);
      return path ? [fileFacts(path, 'create')] : [];
    }
    case 'Edit':
    case 'MultiEdit': {
      const path = inputPath(input) ?? str(response['filePath']);
      return path ? [fileFacts(path, 'edit')] : [];
    }
    case 'ApplyPatch': {
      const patch = str(input['patch']) ?? str(input['input']) ?? (typeof toolInput === 'string' ? toolInput : undefined);
      return patch ? patchFiles(patch).map((p) => fileFacts(p, 'edit')) : [];
    }
    default:
      return [];
  }
}
