// The edit lines of one successful tool call as the wire carries them (counts per file, by extension or
// name: common/wire.ts EditLines), and the file edits themselves for the private ledger. Files excluded
// by name (lock files, minified, node_modules/vendor/dist/build) or binary count nowhere; exclusion by a
// repository's .gitattributes needs the repository and is applied by the ledger (collector/impact/ledger.ts).
import type { EditLines } from '../../common/wire.ts';
import { fileFacts } from '../derive.ts';
import { editLines, type FileEdit } from './edit-lines.ts';
import { isExcludedPath } from './exclude.ts';

export interface CallEdits {
  /** What ships: one entry per file with lines added or removed. */
  wire: EditLines[];
  /** What the ledger keeps (locally, never shipped): the same files with their added lines. */
  files: FileEdit[];
}

/** Pure: the counted edits of one successful call of `agent`'s tool. */
export function callEdits(agent: string, toolName: string, toolInput: unknown, toolResponse: unknown): CallEdits {
  const files = editLines(agent, toolName, toolInput, toolResponse).filter((f) => !f.binary && !isExcludedPath(f.path));
  const wire: EditLines[] = [];
  for (const file of files) {
    if (file.added.length === 0 && file.deleted === 0) continue;
    const facts = fileFacts(file.path, 'edit');
    wire.push({
      ext: facts.ext,
      ...(facts.name !== undefined ? { name: facts.name } : {}),
      lines_added: file.added.length,
      lines_deleted: file.deleted,
    });
  }
  return { wire, files };
}
