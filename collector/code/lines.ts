// What a line of code is for the code figures (docs/metrics.md §5): a line counts only when it is not blank,
// and its fingerprint is the line with its outer whitespace removed and every inner run made one space,
// so an agent's line re-indented by a formatter still matches the line that was committed.

/** Pure: whether a line holds only whitespace (such a line never counts). */
export const isBlank = (line: string): boolean => line.trim() === '';

/** Pure: the fingerprint of a line (case kept). */
export const fingerprint = (line: string): string => line.trim().replace(/\s+/g, ' ');

/**
 * Pure: the lines of a text as a file holds them. A final newline ends the last line rather than
 * starting an empty one; `\r\n` counts as one line break.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Pure: how many lines of a list are not blank. */
export const countNonBlank = (lines: readonly string[]): number => lines.reduce((n, line) => (isBlank(line) ? n : n + 1), 0);
