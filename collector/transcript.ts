// Incremental reading of JSONL transcripts: from a remembered byte offset to the last complete line. Their
// paths come from the agents' events, so only regular files are read (regular-file.ts).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { z } from 'zod';
import { openRegularFile } from './regular-file.ts';

/**
 * Where a reading of a file stopped: the byte offset of the first line not yet read, and a digest of the
 * bytes just before it (TAIL_BYTES), by which a file replaced or rewritten past the offset is told from
 * one that grew. A mark saved before the digest existed has none: only a shorter file is a rewritten one.
 */
export const TranscriptMark = z.object({ offset: z.number().int().nonnegative(), tail: z.string().optional() });
export type TranscriptMark = z.infer<typeof TranscriptMark>;

/** File path → where its reading stopped, and the session it belongs to (part of an agent's state). */
export const TranscriptOffsets = z.record(z.string(), TranscriptMark.extend({ sessionId: z.string() }));
export type TranscriptOffsets = z.infer<typeof TranscriptOffsets>;

/** At most this much is read from one transcript per batch; the rest is read by the next batch. */
export const MAX_TRANSCRIPT_READ = 64 * 1024 * 1024;

export interface TranscriptChunk {
  lines: string[];
  /** Offset just past the last complete line read. */
  nextOffset: number;
  /** The digest of the bytes before nextOffset (the mark to save with it). */
  tail: string;
  /** The file was not the one read before (shorter, replaced or rewritten): these lines are from its start. */
  restarted: boolean;
}

/** How many bytes before the offset the mark's digest covers: enough to hold a line's own ids and time. */
const TAIL_BYTES = 256;

function tailDigest(fd: number, offset: number): string {
  const length = Math.min(offset, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, offset - length);
  return createHash('sha256').update(buffer.subarray(0, read)).digest('base64url').slice(0, 22);
}

/** The complete lines after `from` (the start when absent), and where the next reading starts. */
export function readNewLines(path: string, from?: TranscriptMark, maxBytes = MAX_TRANSCRIPT_READ): TranscriptChunk | undefined {
  const fd = openRegularFile(path, { followLinks: true });
  if (fd === undefined) return undefined;
  try {
    const size = fstatSync(fd).size;
    const offset = from?.offset ?? 0;
    // A transcript shorter than our offset, or whose bytes before it changed, is not the one read: read it
    // again from the start (the agents' record ids do not depend on where a line is).
    const restarted = size < offset || (from?.tail !== undefined && tailDigest(fd, offset) !== from.tail);
    const start = restarted ? 0 : offset;
    const length = Math.min(size - start, maxBytes);
    const buffer = Buffer.alloc(Math.max(0, length));
    const read = length > 0 ? readSync(fd, buffer, 0, length, start) : 0;
    const lastNewline = buffer.subarray(0, read).lastIndexOf(0x0a);
    if (lastNewline < 0) return { lines: [], nextOffset: start, tail: tailDigest(fd, start), restarted };
    const text = buffer.subarray(0, lastNewline).toString('utf8');
    const nextOffset = start + lastNewline + 1;
    return { lines: text.split('\n').filter((l) => l.trim() !== ''), nextOffset, tail: tailDigest(fd, nextOffset), restarted };
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
