// Reading the agents' own files: JSONL transcripts incrementally, from a remembered byte offset to the last
// complete line, and whole files (a session's settings, a legacy chat). Their paths come from the agents'
// events, so only regular files are read: a FIFO or a device there would hold the collector's one thread
// on its first read, and with it every batch, for good.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { z } from 'zod';

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

/**
 * An agent's file opened for reading, or undefined when it is missing, unreadable or not a regular file.
 * O_NONBLOCK: opening a FIFO to read would otherwise wait for a writer.
 */
export function openAgentFile(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).isFile()) return fd;
  } catch {
    // fstat of an open descriptor fails only on an I/O error: as unreadable.
  }
  closeSync(fd);
  return undefined;
}

/** An agent's whole file as UTF-8 text, or undefined when it is missing, unreadable or not a regular file. */
export function readAgentFile(path: string): string | undefined {
  const fd = openAgentFile(path);
  if (fd === undefined) return undefined;
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

export function readNewLines(path: string, offset: number, maxBytes = MAX_TRANSCRIPT_READ): TranscriptChunk | undefined {
  const fd = openAgentFile(path);
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
