// What a touched file ships (docs/metrics.md §5): its extension or name only when the language table knows
// it. Apart from the other derivations (derive.ts) because the table is large: only what turns events into
// records loads it, not the CLI's start or the collector's status.
import { basename, extname } from 'node:path';
import { languageMap } from '../common/languages.ts';
import type { FileTouch } from '../common/wire.ts';

/** Extension (lower case, no dot) and, for extension-less files, the base name (Makefile, Dockerfile). */
let knownFiles: Map<string, string> | undefined;

/**
 * Pure: what a touched file ships: its lower-case extension when the language table (linguist-languages)
 * knows it, or its name when the table knows that exact name (Makefile, .bashrc), else nothing but
 * `ext: ''` (language `other`). No other part of a file name leaves the machine (docs/metrics.md §5).
 */
export function fileFacts(path: string, op: FileTouch['op']): FileTouch {
  knownFiles ??= languageMap();
  const base = basename(path.trim());
  const ext = extname(base).slice(1).toLowerCase();
  // ".bashrc" has no extension in Linguist's sense: it is a file name.
  if (ext && `.${ext}` !== base.toLowerCase() && knownFiles.has(`ext:${ext}`)) return { ext, op };
  if (knownFiles.has(`name:${base}`)) return { ext: '', name: base, op };
  return { ext: '', op };
}
