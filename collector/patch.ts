// The one apply_patch parser (Codex's patch grammar, also sent by Droid's ApplyPatch and others): which
// files a patch creates, edits or deletes, and the lines of each. The files it touched (docs/metrics.md §3)
// and its edit lines (§5) are both read from this one parse, so they cannot disagree.

export interface PatchFile {
  /** The path as the patch names it; a moved file is named by its new path. */
  path: string;
  /** `*** Add File:` creates, `*** Update File:` (moved or not) edits, `*** Delete File:` deletes. */
  op: 'create' | 'edit' | 'delete';
  /** The `+` lines (every line of an added file). */
  added: string[];
  /** The `-` lines. */
  removed: string[];
}

const HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const MOVE = /^\*\*\* Move to: (.+)$/;
const OPS = { Add: 'create', Update: 'edit', Delete: 'delete' } as const;

/**
 * Pure: the files of an apply_patch body, once each, in the order the patch first names them. A file
 * named twice keeps the operation it was first given (added then updated is still created) and the
 * lines of both. A deleted file has no lines (the grammar gives Delete File no body).
 */
export function parseApplyPatch(patch: string): PatchFile[] {
  const files = new Map<string, PatchFile>();
  let current: PatchFile | undefined;
  const lines = patch.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = HEADER.exec(line);
    if (header) {
      const kind = header[1] as keyof typeof OPS;
      const move = kind === 'Update' ? MOVE.exec(lines[i + 1] ?? '') : null;
      if (move) i++;
      const path = (move ? move[1]! : header[2]!).trim();
      const file = files.get(path) ?? { path, op: OPS[kind], added: [], removed: [] };
      files.set(path, file);
      current = kind === 'Delete' ? undefined : file;
      continue;
    }
    if (!current || line.startsWith('***')) {
      if (line.startsWith('*** End Patch')) current = undefined;
      continue;
    }
    if (line.startsWith('+')) current.added.push(line.slice(1));
    else if (line.startsWith('-')) current.removed.push(line.slice(1));
  }
  return [...files.values()];
}

/** The patch text of a patch tool's input: the input itself, or its `command`, `input` or `patch` field. */
export function patchText(toolInput: unknown): string | undefined {
  if (typeof toolInput === 'string') return toolInput;
  const input = toolInput && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>) : {};
  for (const key of ['command', 'input', 'patch']) {
    const value = input[key];
    if (typeof value === 'string' && value.includes('*** ')) return value;
  }
  return undefined;
}
