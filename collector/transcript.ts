// Incremental reading of JSONL transcripts: from a remembered byte offset to the last complete line. Their
// paths come from the agents' events, or a folder beside one (a session's subagents), so only regular
// files are read (regular-file.ts).
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, readdirSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/** The problem a reader reports for lines passed over (TranscriptChunk.skipped). */
export const SKIPPED_LINES = (count: number) => `${count} line(s) longer than ${MAX_TRANSCRIPT_READ} bytes passed over unread`;

export interface TranscriptChunk {
  lines: string[];
  /** Offset just past the last complete line read. */
  nextOffset: number;
  /** The digest of the bytes before nextOffset (the mark to save with it). */
  tail: string;
  /** The file was not the one read before (shorter, replaced or rewritten): these lines are from its start. */
  restarted: boolean;
  /** Lines passed over unread because one alone is longer than a reading (maxBytes). */
  skipped: number;
}

/** How many bytes before the offset the mark's digest covers: enough to hold a line's own ids and time. */
const TAIL_BYTES = 256;

function tailDigest(fd: number, offset: number): string {
  const length = Math.min(offset, TAIL_BYTES);
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, offset - length);
  return createHash('sha256').update(buffer.subarray(0, read)).digest('base64url').slice(0, 22);
}

/** The position of the first newline at or after `from` (before `size`), or undefined. */
function newlineAfter(fd: number, from: number, size: number): number | undefined {
  const buffer = Buffer.alloc(1024 * 1024);
  for (let at = from; at < size; ) {
    const read = readSync(fd, buffer, 0, Math.min(buffer.length, size - at), at);
    if (read <= 0) return undefined;
    const i = buffer.subarray(0, read).indexOf(0x0a);
    if (i >= 0) return at + i;
    at += read;
  }
  return undefined;
}

/**
 * The complete lines after `from` (the start when absent), and where the next reading starts. A link at
 * the path is followed (an agent's transcript may be one) unless `followLinks` is false: for a file the
 * collector found by listing a folder, which must still be the regular file it listed.
 */
export function readNewLines(
  path: string,
  from?: TranscriptMark,
  maxBytes = MAX_TRANSCRIPT_READ,
  { followLinks = true }: { followLinks?: boolean } = {},
): TranscriptChunk | undefined {
  const fd = openRegularFile(path, { followLinks });
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
    if (lastNewline < 0) {
      // A line longer than a whole reading would be read again, and never past, by every later reading: once
      // its end is written, it is passed over (no usage line is that long: those are tool results).
      const end = read === maxBytes ? newlineAfter(fd, start + read, size) : undefined;
      const nextOffset = end === undefined ? start : end + 1;
      return { lines: [], nextOffset, tail: tailDigest(fd, nextOffset), restarted, skipped: end === undefined ? 0 : 1 };
    }
    const text = buffer.subarray(0, lastNewline).toString('utf8');
    const nextOffset = start + lastNewline + 1;
    return { lines: text.split('\n').filter((l) => l.trim() !== ''), nextOffset, tail: tailDigest(fd, nextOffset), restarted, skipped: 0 };
  } finally {
    closeSync(fd);
  }
}

/**
 * The JSONL files in a folder named by the session beside its transcript (`under` it, and names starting
 * with `prefix`): where agents keep a session's subagent transcripts. Regular files only, sorted; a
 * session id that could name a folder outside (a UUID cannot) names none, and so does a folder on the way
 * that is a link (no agent makes one: nothing follows a link the collector did not make).
 */
export function transcriptsBeside(transcriptPath: string, sessionId: string, under: string[] = [], prefix = ''): string[] {
  if (!/^[A-Za-z0-9_.-]+$/.test(sessionId) || sessionId === '.' || sessionId === '..') return [];
  let dir = dirname(transcriptPath);
  try {
    for (const name of [sessionId, ...under]) {
      dir = join(dir, name);
      if (!lstatSync(dir).isDirectory()) return [];
    }
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.startsWith(prefix) && entry.name.endsWith('.jsonl'))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}

export function parseJsonLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
