// The local spool written by hooks/agentmeter-hook.sh: tmp/ (being written), new/ (complete events),
// bad/ (quarantined, each with a .reason file beside it).
import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drop, ok, quarantine, type StepResult } from '../common/result.ts';

/** Bodies longer than this were cut by the hook (it keeps at most this many bytes + 1). */
export const HOOK_BODY_CAP = 1024 * 1024;
/** tmp/ files older than this belong to a hook that died mid-write. */
export const TMP_MAX_AGE_MS = 36 * 3600 * 1000;

export interface SpoolDirs {
  root: string;
  tmp: string;
  new: string;
  bad: string;
}

export function spoolDirs(agentmeterHome: string): SpoolDirs {
  const root = join(agentmeterHome, 'spool');
  return { root, tmp: join(root, 'tmp'), new: join(root, 'new'), bad: join(root, 'bad') };
}

export function ensureSpool(dirs: SpoolDirs): void {
  for (const dir of [dirs.tmp, dirs.new, dirs.bad]) mkdirSync(dir, { recursive: true });
}

/** A spool file as the hook wrote it: header fields and the raw body. */
export interface SpoolEntry {
  name: string;
  header: Record<string, string>;
  body: Buffer;
  /** Modification time in ms: the event time unless the header's time= overrides it. */
  mtimeMs: number;
  truncated: boolean;
}

/** Parses "key=value" header lines up to the first blank line. Pure. */
export function parseSpoolFile(name: string, content: Buffer, mtimeMs: number): StepResult<SpoolEntry> {
  const end = content.indexOf('\n\n');
  if (end < 0) return quarantine('no header: the file does not come from the agentmeter hook');
  const headerText = content.subarray(0, end).toString('utf8');
  const header: Record<string, string> = {};
  for (const line of headerText.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) return quarantine(`malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    header[line.slice(0, eq)] = line.slice(eq + 1);
  }
  if (header['agentmeter-spool'] !== '1') return quarantine(`unknown spool format ${JSON.stringify(header['agentmeter-spool'] ?? '')}`);
  const body = content.subarray(end + 2);
  return ok({ name, header, body, mtimeMs, truncated: body.length > HOOK_BODY_CAP });
}

export function listNew(dirs: SpoolDirs): string[] {
  let names: string[];
  try {
    names = readdirSync(dirs.new);
  } catch {
    return [];
  }
  return names.sort();
}

/** Reads a spool file through one descriptor: its size and modification time, then its bytes. */
export function readEntry(dirs: SpoolDirs, name: string): StepResult<SpoolEntry> {
  let fd: number | undefined;
  try {
    fd = openSync(`${dirs.new}/${name}`, 'r');
    const stat = fstatSync(fd);
    const content = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, content, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return parseSpoolFile(name, content.subarray(0, read), stat.mtimeMs);
  } catch (error) {
    // Gone since it was listed: another collector shipped it. Nothing to keep.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return drop('file vanished after it was listed');
    return quarantine(`unreadable: ${(error as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The spool's new/ listing, read once and handed out in batches: listing a folder of 100k files for
 * every batch would cost more than shipping them. Refilled when used up; a refill leaves out the files
 * handed out and not yet finished (a batch in flight is still in new/ until it is acknowledged).
 */
export class SpoolQueue {
  private names: string[] = [];
  private next = 0;
  private readonly out = new Set<string>();
  constructor(private readonly dirs: SpoolDirs) {}

  take(limit: number): string[] {
    if (this.next >= this.names.length) {
      this.names = this.out.size ? listNew(this.dirs).filter((name) => !this.out.has(name)) : listNew(this.dirs);
      this.next = 0;
    }
    const batch = this.names.slice(this.next, this.next + limit);
    this.next += batch.length;
    for (const name of batch) this.out.add(name);
    return batch;
  }

  /** These files are dealt with (shipped, quarantined or given back): a refill may list them again. */
  finish(names: readonly string[]): void {
    for (const name of names) this.out.delete(name);
  }

  /** Forget the cached listing and what is out (after a failed batch, its files are handed out again). */
  reset(): void {
    this.names = [];
    this.next = 0;
    this.out.clear();
  }
}

/** Moves a spool file to bad/ with its reason beside it. */
export function quarantineFile(dirs: SpoolDirs, name: string, reason: string): void {
  mkdirSync(dirs.bad, { recursive: true });
  writeFileSync(join(dirs.bad, `${name}.reason`), `${reason}\n`);
  try {
    renameSync(join(dirs.new, name), join(dirs.bad, name));
  } catch {
    // Already moved by an earlier attempt: the reason file above still records why.
  }
}

/** Writes a record that the server refused (not a spool file) to bad/ so it is not lost. */
export function quarantineRecord(dirs: SpoolDirs, id: string, record: unknown, reason: string): void {
  mkdirSync(dirs.bad, { recursive: true });
  const name = `record.${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120)}.json`;
  writeFileSync(join(dirs.bad, name), `${JSON.stringify(record)}\n`);
  writeFileSync(join(dirs.bad, `${name}.reason`), `${reason}\n`);
}

/** Deletes tmp/ files older than maxAgeMs (hooks that died mid-write); returns how many. */
export function sweepTmp(dirs: SpoolDirs, now = Date.now(), maxAgeMs = TMP_MAX_AGE_MS): number {
  let swept = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dirs.tmp);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dirs.tmp, name);
    try {
      if (now - statSync(path).mtimeMs > maxAgeMs) {
        rmSync(path, { force: true });
        swept++;
      }
    } catch {
      // Renamed into new/ while we looked: not ours to sweep.
    }
  }
  return swept;
}

export function spoolCounts(dirs: SpoolDirs): { pending: number; quarantined: number; inProgress: number } {
  const count = (dir: string, filter: (n: string) => boolean = () => true) => {
    try {
      return readdirSync(dir).filter(filter).length;
    } catch {
      return 0;
    }
  };
  return {
    pending: count(dirs.new),
    quarantined: count(dirs.bad, (n) => !n.endsWith('.reason')),
    inProgress: count(dirs.tmp),
  };
}
