// Reading files the collector does not own, at paths others name (an agent's event, a work tree): only a
// regular file is read. O_NONBLOCK, because opening a FIFO to read would otherwise wait for a writer,
// holding the collector's one thread (and with it every batch) for good; O_NOFOLLOW unless links are
// wanted, so that a link is refused at the open itself and nothing can swap one in after a check.
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

export interface RegularFileOptions {
  /** Read through a link at the path (an agent's transcript may be one); refused when false. */
  followLinks?: boolean;
  /** A larger file is not read. */
  maxBytes?: number;
}

/**
 * The file opened for reading, or undefined when it is missing, unreadable, not a regular file, larger
 * than `maxBytes`, or a link not to be followed. The caller closes the descriptor.
 */
export function openRegularFile(path: string, { followLinks = false, maxBytes = Number.POSITIVE_INFINITY }: RegularFileOptions = {}) {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (followLinks ? 0 : constants.O_NOFOLLOW));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() && stat.size <= maxBytes) return fd;
  } catch {
    // fstat of an open descriptor fails only on an I/O error: as unreadable.
  }
  closeSync(fd);
  return undefined;
}

/** The file's text (UTF-8), or undefined when openRegularFile refuses it or it cannot be read. */
export function readRegularFile(path: string, options: RegularFileOptions = {}): string | undefined {
  const fd = openRegularFile(path, options);
  if (fd === undefined) return undefined;
  try {
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
