// Incremental reading of JSONL transcripts: from a remembered byte offset to the last complete line. Their
// paths come from the agents' events, so only regular files are read (regular-file.ts).
import { closeSync, fstatSync, readSync } from 'node:fs';
import { z } from 'zod';
import { openRegularFile } from './regular-file.ts';

/** File path → byte offset of the first line not yet read, and the session it belongs to (part of an agent's state). */
export const TranscriptOffsets = z.record(z.string(), z.object({ offset: z.number().int().nonnegative(), sessionId: z.string() }));
export type TranscriptOffsets = z.infer<typeof TranscriptOffsets>;

/** At most this much is read from one transcript per batch; the rest is read by the next batch. */
export const MAX_TRANSCRIPT_READ = 64 * 1024 * 1024;

export interface TranscriptChunk {
  lines: string[];
  /** Offset just past the last complete line read. */
  nextOffset: number;
}

export function readNewLines(path: string, offset: number, maxBytes = MAX_TRANSCRIPT_READ): TranscriptChunk | undefined {
  const fd = openRegularFile(path, { followLinks: true });
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    // A transcript shorter than our offset was rewritten: read it again from the start.
    const start = size < offset ? 0 : offset;
    const length = Math.min(size - start, maxBytes);
    if (length <= 0) return { lines: [], nextOffset: start };
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, start);
    const lastNewline = buffer.subarray(0, read).lastIndexOf(0x0a);
    if (lastNewline < 0) return { lines: [], nextOffset: start };
    const text = buffer.subarray(0, lastNewline).toString('utf8');
    return { lines: text.split('\n').filter((l) => l.trim() !== ''), nextOffset: start + lastNewline + 1 };
  } finally {
    closeSync(fd);
  }
}

export function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
