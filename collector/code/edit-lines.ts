// What one successful file-writing tool call wrote, per file: created or edited (docs/metrics.md §3) and the
// lines it added and removed (§5 "Edits"), from one reading of the payload. Each agent's tool vocabulary
// picks the builder its tools need; the lines come, in the contract's order of preference, from non-empty
// hunks (Claude Code's structuredPatch, Gemini's and Qwen's unified fileDiff); an apply_patch body (the one
// parser, collector/patch.ts); old and new text, diffed with the `diff` library's Myers algorithm; a whole
// new file (every line added). The added lines' text is for the private ledger only: callers ship counts.
import { diffArrays } from 'diff';
import { parseApplyPatch } from '../patch.ts';
import { isBlank, splitLines } from './lines.ts';

/** What one call did to one file: its added lines (blank ones removed) and how many lines it removed. */
export interface FileEdit {
  /** The path as the payload names it (absolute, or relative to the session's cwd for patches). */
  path: string;
  /** The non-blank lines added, in order (duplicates kept: multiplicity matters when crediting). */
  added: string[];
  /** Non-blank lines removed. */
  deleted: number;
  /** The text held a NUL byte: git would call the file binary, so it is excluded. */
  binary?: boolean;
}

/** A file one call wrote: whether it made the file or changed one, and its lines. */
export interface FileWrite {
  op: 'create' | 'edit';
  edit: FileEdit;
}

/** Sides of an old/new diff longer than this are counted without the diff (line multisets): Myers is O(ND). */
export const MAX_DIFF_LINES = 20_000;

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

function edit(path: string, added: string[], deletedLines: string[], binary = false): FileEdit {
  const out: FileEdit = { path, added: added.filter((l) => !isBlank(l)), deleted: deletedLines.filter((l) => !isBlank(l)).length };
  if (binary) out.binary = true;
  return out;
}

/** Pure: added and removed lines of hunks given as lines prefixed `+`, `-` or ` ` (Claude Code's structuredPatch). */
export function hunkLines(hunks: unknown): { added: string[]; removed: string[] } | undefined {
  if (!Array.isArray(hunks) || hunks.length === 0) return undefined;
  const added: string[] = [];
  const removed: string[] = [];
  for (const hunk of hunks) {
    const lines = record(hunk)['lines'];
    if (!Array.isArray(lines)) return undefined;
    for (const line of lines) {
      if (typeof line !== 'string') continue;
      if (line.startsWith('+')) added.push(line.slice(1));
      else if (line.startsWith('-')) removed.push(line.slice(1));
    }
  }
  return { added, removed };
}

/**
 * Pure: added and removed lines of a unified diff's hunks (Gemini's and Qwen's `returnDisplay.fileDiff`).
 * Only lines inside `@@` hunks count, so the `---`/`+++` file headers never do. Undefined when it has
 * no hunk (some versions leave a placeholder there).
 */
export function unifiedDiffLines(diff: string): { added: string[]; removed: string[] } | undefined {
  const added: string[] = [];
  const removed: string[] = [];
  let oldLeft = 0;
  let newLeft = 0;
  let hunks = 0;
  for (const line of diff.split(/\r?\n/)) {
    const header = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (header) {
      hunks++;
      oldLeft = header[1] === undefined ? 1 : Number(header[1]);
      newLeft = header[2] === undefined ? 1 : Number(header[2]);
      continue;
    }
    if (oldLeft <= 0 && newLeft <= 0) continue;
    if (line.startsWith('+')) {
      added.push(line.slice(1));
      newLeft--;
    } else if (line.startsWith('-')) {
      removed.push(line.slice(1));
      oldLeft--;
    } else if (line.startsWith(' ') || line === '') {
      oldLeft--;
      newLeft--;
    }
  }
  return hunks > 0 ? { added, removed } : undefined;
}

/** Pure: a line diff of two texts (Myers, `diff` library); lines in both are unchanged. */
export function textDiffLines(before: string, after: string): { added: string[]; removed: string[] } {
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return multisetDiff(a, b);
  const added: string[] = [];
  const removed: string[] = [];
  for (const part of diffArrays(a, b)) {
    if (part.added) added.push(...part.value);
    else if (part.removed) removed.push(...part.value);
  }
  return { added, removed };
}

/** Lines of b not matched in a, and of a not matched in b, by count: a cheap bound for huge texts. */
function multisetDiff(a: string[], b: string[]): { added: string[]; removed: string[] } {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of b) {
    const n = counts.get(line) ?? 0;
    if (n > 0) counts.set(line, n - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const [line, n] of counts) for (let i = 0; i < n; i++) removed.push(line);
  return { added, removed };
}

/**
 * Pure: the files an apply_patch body wrote. An added file is created with all its lines added; an updated
 * one (under its new name when moved) is edited with its `+` and `-` lines. A deleted file is neither
 * created nor edited (§3) and adds no line (§5: it counts 0), so it is left out.
 */
export function patchWrites(patch: string): FileWrite[] {
  return parseApplyPatch(patch)
    .filter((file) => file.op !== 'delete')
    .map((file) => ({ op: file.op === 'create' ? 'create' : 'edit', edit: edit(file.path, file.added, file.removed) }));
}

/** Pure: per file, the lines an apply_patch body adds and removes (deleted files left out). */
export const applyPatchEdits = (patch: string): FileEdit[] => patchWrites(patch).map((w) => w.edit);

function pathOf(input: Json, response: Json): string | undefined {
  const display = record(response['returnDisplay']);
  return (
    nonEmpty(input['file_path']) ??
    nonEmpty(input['path']) ??
    nonEmpty(input['absolute_path']) ??
    nonEmpty(input['filePath']) ??
    nonEmpty(response['filePath']) ??
    nonEmpty(display['filePath'])
  );
}

/** One file's edit from the best shape the payload has (preference 1, 3, then 4). */
function singleFileEdit(path: string, response: Json, opts: { wholeFile?: string; oldNew?: [string, string][] }): FileEdit {
  const contentSeen = [opts.wholeFile ?? '', ...(opts.oldNew ?? []).flat()].some((t) => t.includes('\0'));
  const hunks = hunkLines(response['structuredPatch']);
  if (hunks) return edit(path, hunks.added, hunks.removed, contentSeen);
  const fileDiff = text(record(response['returnDisplay'])['fileDiff']);
  const unified = fileDiff ? unifiedDiffLines(fileDiff) : undefined;
  if (unified) return edit(path, unified.added, unified.removed, contentSeen);
  // Old and new text: the whole file before and after when the response has them, else the edit's strings.
  const display = record(response['returnDisplay']);
  const before = text(display['originalContent']) ?? text(response['originalFile']);
  const after = text(display['newContent']);
  if (before !== undefined && after !== undefined) {
    const d = textDiffLines(before, after);
    return edit(path, d.added, d.removed, before.includes('\0') || after.includes('\0'));
  }
  if (opts.oldNew?.length) {
    const added: string[] = [];
    const removed: string[] = [];
    for (const [oldText, newText] of opts.oldNew) {
      const d = textDiffLines(oldText, newText);
      added.push(...d.added);
      removed.push(...d.removed);
    }
    return edit(path, added, removed, contentSeen);
  }
  if (opts.wholeFile !== undefined) {
    // Overwritten with nothing known of the file before: every line added (the conservative reading for
    // the ledger: a line that did not change simply never meets a commit that adds it).
    if (before !== undefined) {
      const d = textDiffLines(before, opts.wholeFile);
      return edit(path, d.added, d.removed, contentSeen);
    }
    return edit(path, splitLines(opts.wholeFile), [], contentSeen);
  }
  return edit(path, [], []);
}

/** The (old, new) text pairs of an Edit/MultiEdit-style input: old_string/new_string or Droid's old_str/new_str. */
function oldNewPairs(input: Json): [string, string][] {
  const pair = (o: Json): [string, string] | undefined => {
    const before = text(o['old_string']) ?? text(o['old_str']);
    const after = text(o['new_string']) ?? text(o['new_str']);
    return before !== undefined && after !== undefined ? [before, after] : undefined;
  };
  const edits = input['edits'];
  if (Array.isArray(edits)) return edits.map((e) => pair(record(e))).filter((p): p is [string, string] => p !== undefined);
  const one = pair(input);
  return one ? [one] : [];
}

/**
 * Pure: a file written whole (Write, Create, write_file), named by the payload; its lines from the
 * response's hunks or diff when it has them, else every line of the content added.
 */
export function wholeFileWrite(op: FileWrite['op'], toolInput: unknown, toolResponse: unknown): FileWrite[] {
  const input = record(toolInput);
  const response = record(toolResponse);
  const path = pathOf(input, response);
  if (!path) return [];
  const content = text(input['content']) ?? text(response['content']) ?? '';
  return [{ op, edit: singleFileEdit(path, response, { wholeFile: content }) }];
}

/**
 * Pure: a file changed by replacing text (Edit, MultiEdit, replace, edit), named by the payload; its lines
 * from the response's hunks or diff when it has them, else a diff of each old and new text.
 */
export function replaceWrite(op: FileWrite['op'], toolInput: unknown, toolResponse: unknown): FileWrite[] {
  const input = record(toolInput);
  const response = record(toolResponse);
  const path = pathOf(input, response);
  return path ? [{ op, edit: singleFileEdit(path, response, { oldNew: oldNewPairs(input) }) }] : [];
}
