// The edit lines of one successful tool call as the wire carries them (counts per file, by extension or
// name: common/wire.ts EditLines), and the file edits themselves for the private ledger. Files excluded
// by name (lock files, minified, node_modules/vendor/dist/build) or binary count nowhere; exclusion by a
// repository's .gitattributes needs the repository and is applied by the ledger (collector/code/ledger.ts).
import type { EditLines } from '../../common/wire.ts';
import { fileFacts } from '../file-facts.ts';
import type { FileEdit } from './edit-lines.ts';
import type { EditRepos } from './edit-repo.ts';
import { isExcludedPath } from './exclude.ts';
import { absolutePath } from './git.ts';

/**
 * Pure: the path exclusions are matched on for a file outside any work tree: relative to the session's
 * folder when inside it, else its base name (a folder above the work is never taken for a build folder).
 */
export function outsideTreePath(path: string, cwd: string | undefined): string {
  const absolute = absolutePath(path, cwd);
  if (!absolute) return path;
  if (cwd && absolute.startsWith(`${cwd.replace(/\/+$/, '')}/`)) return absolute.slice(cwd.replace(/\/+$/, '').length + 1);
  return absolute.slice(absolute.lastIndexOf('/') + 1);
}

export interface CallEdits {
  /** What ships: one entry per file with lines added or removed. */
  wire: EditLines[];
  /** What the ledger keeps (locally, never shipped): the same files with their added lines. */
  files: FileEdit[];
}

/**
 * The counted edits of one successful call, from the file edits its agent's vocabulary read
 * (`ToolVocabulary.writes`). Without `repos` (or a cwd for relative patch paths) files are placed in no
 * repository: pure, by name alone.
 */
export function callEdits(edits: FileEdit[], repos?: EditRepos, cwd?: string): CallEdits {
  const wire: EditLines[] = [];
  const files: FileEdit[] = [];
  for (const file of edits) {
    if (file.binary) continue;
    // Matched on the path inside the work tree: a clone under ~/build/ is not a build folder (docs/metrics.md §5).
    const place = repos?.place(file.path, cwd);
    if (place ? isExcludedPath(place.relPath, place.rules) : isExcludedPath(outsideTreePath(file.path, cwd))) continue;
    files.push(file);
    if (file.added.length === 0 && file.deleted === 0) continue;
    const facts = fileFacts(file.path, 'edit');
    wire.push({
      ext: facts.ext,
      ...(facts.name !== undefined ? { name: facts.name } : {}),
      lines_added: file.added.length,
      lines_deleted: file.deleted,
      ...(place?.repo && place.repoId ? { repo_id: place.repoId, repo: place.repo.slice(0, 512) } : {}),
    });
  }
  return { wire, files };
}
