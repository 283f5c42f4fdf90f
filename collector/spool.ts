// The local spool written by hooks/agentmeter-hook.sh: tmp/ (being written), new/ (complete events),
// bad/ (quarantined, each with a .reason file beside it). The hook delivers a finished file into new/ by
// a hard link and leaves its tmp/ name behind (a twin): the collector removes the twin with the file,
// once the event is shipped or quarantined.
//
// The spool is handled as a place others might reach: its folders must be real folders of this user
// (never links), entries are opened without following links, and only regular files this user could
// have written there are read, shipped, quarantined or removed. Anything else (a link, a folder, a fifo,
// another user's file, a name or size the hook never writes) is left exactly where it is, and reported.
// Nothing read from a spool file is ever copied into a log line or a .reason file.
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { currentUid, ensurePrivateDir, ownDirProblem, PRIVATE_FILE_MODE, writeFailure, writePrivateFile } from '../common/private-files.ts';
import { drop, ok, quarantine, type StepResult } from '../common/result.ts';

/** Bodies longer than this were cut by the hook (an older hook kept at most this many bytes + 1). */
export const HOOK_BODY_CAP = 1024 * 1024;
/**
 * The hook's file-size limit (`ulimit -f 2056`, in 512-byte blocks: 1 MiB + 4 KiB): a file this long was
 * cut there. The 4 KiB leave room for the header, so the body of a cut file is longer than HOOK_BODY_CAP
 * too, except after a header of over 4 KiB (the environment values in it are cut to safe characters, not
 * in length), which only this size test recognizes.
 */
export const HOOK_FILE_CAP = 2056 * 512;
/** tmp/ files older than this belong to a hook that died mid-write: the collector's sweep removes them. */
export const TMP_MAX_AGE_MS = 36 * 3600 * 1000;
/**
 * A tmp/ file not written to for this long is abandoned: a hook copies its event in milliseconds, so no
 * hook is writing it any more (the hook or its `cat` was killed, the machine stopped). It stays until the
 * sweep (TMP_MAX_AGE_MS after its last write); `collect status` and `doctor` name it meanwhile.
 */
export const TMP_ABANDONED_AFTER_MS = 60_000;
/** The largest file the hook writes: its capped body and a header of a few short lines, with room. */
export const SPOOL_FILE_MAX = HOOK_BODY_CAP + 1 + 64 * 1024;
/**
 * Names the hook gives its files (`<boot id>.<uptime>.<pid>`, or `<seconds>.<pid>.<host>`) and the
 * test helpers' `test-<pid>-<ms>-<n>`: no leading dot, no separators, no spaces.
 */
const SPOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,254}$/;

export interface SpoolDirs {
  /** $AGENTMETER_HOME, which holds the spool. */
  home: string;
  root: string;
  tmp: string;
  new: string;
  bad: string;
}

export function spoolDirs(agentmeterHome: string): SpoolDirs {
  const root = join(agentmeterHome, 'spool');
  return { home: agentmeterHome, root, tmp: join(root, 'tmp'), new: join(root, 'new'), bad: join(root, 'bad') };
}

/**
 * Creates the spool's folders (0700) or checks them: each must be a real folder of this user. A link or
 * someone else's folder throws a UserError before anything is read or moved.
 */
export function ensureSpool(dirs: SpoolDirs): void {
  for (const dir of [dirs.home, dirs.root, dirs.tmp, dirs.new, dirs.bad]) ensurePrivateDir(dir);
}

/**
 * Why the hook (or the collector) cannot write into the spool, or undefined when it can: each folder the
 * hook writes (tmp/, new/) and the collector's bad/ must be writable, or, where one does not exist yet,
 * the nearest folder above it, in which the hook creates it. Nothing is created. The hook itself stays
 * silent when it cannot write (it must never disturb the agent), so this is how `doctor` and
 * `collect status` tell that events are being dropped.
 */
export function spoolWriteProblem(dirs: SpoolDirs): string | undefined {
  for (const dir of [dirs.tmp, dirs.new, dirs.bad]) {
    let at = dir;
    while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
    try {
      accessSync(at, constants.W_OK);
    } catch (error) {
      return `the spool cannot be written: ${at} ${at === dir ? '' : `(where ${dir} would be created) `}refuses writes, ${writeFailure(error)}; the hook drops every event until it is writable`;
    }
  }
  return undefined;
}

/** What is wrong with the spool's folders as they are (nothing is created or changed), if anything. */
export function spoolProblem(dirs: SpoolDirs): string | undefined {
  for (const dir of [dirs.home, dirs.root, dirs.tmp, dirs.new, dirs.bad]) {
    let stat: Stats;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    const problem = ownDirProblem(dir, stat);
    if (problem) return problem;
  }
  return undefined;
}

/** What entryProblem looks at: an lstat of the entry, or an fstat of it opened without following a link. */
export type EntryStat = Pick<Stats, 'isSymbolicLink' | 'isDirectory' | 'isFile' | 'uid' | 'nlink' | 'size'>;

/** Pure: whether the hook could have given an entry of new/ this name (checked before anything opens it). */
export const spoolName = (name: string): boolean => SPOOL_NAME.test(name);

/**
 * Why an entry of new/ is not a file the hook could have written, or undefined when it may be. Pure.
 * `links`: the links the file may have: 1, or 2 when the other one is the hook's tmp/ name (hookTwin).
 */
export function entryProblem(name: string, stat: EntryStat, uid = currentUid(), links = 1): string | undefined {
  if (!SPOOL_NAME.test(name)) return 'its name is not one the hook gives';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a folder';
  if (!stat.isFile()) return 'not a regular file';
  if (uid !== undefined && stat.uid !== uid) return `belongs to uid ${stat.uid}, not to this user`;
  if (stat.nlink !== links) return 'has other hard links';
  if (stat.size > SPOOL_FILE_MAX) return 'larger than any file the hook writes';
  return undefined;
}

/**
 * Whether new/<name>'s second link is tmp/<name>, the name the hook wrote the file under: the same file
 * (device and inode), so the entry is as much the hook's as a file with one link. Any other second link
 * (a file linked in from elsewhere) keeps the entry out of reach: shipping it, or tightening its mode in
 * quarantine, would reach that other file.
 */
export function hookTwin(dirs: SpoolDirs, name: string, stat: Pick<Stats, 'nlink' | 'ino' | 'dev'>): boolean {
  if (stat.nlink !== 2) return false;
  try {
    const twin = lstatSync(join(dirs.tmp, name));
    return twin.isFile() && twin.ino === stat.ino && twin.dev === stat.dev;
  } catch {
    return false;
  }
}

/** entryProblem for an entry of new/ as it is on disk, its hook twin in tmp/ allowed for. */
export function newEntryProblem(dirs: SpoolDirs, name: string, stat: Stats): string | undefined {
  return entryProblem(name, stat, currentUid(), hookTwin(dirs, name, stat) ? 2 : 1);
}

/** A spool file as the hook wrote it: header fields and the raw body. */
export interface SpoolEntry {
  name: string;
  header: Record<string, string>;
  body: Buffer;
  /** Modification time in ms: the event time unless the header's time= overrides it. */
  mtimeMs: number;
  truncated: boolean;
  /** Whether tmp/<name> is this file's second link (hookTwin), to be removed with it. */
  twin?: boolean;
}

/**
 * Parses "key=value" header lines up to the first blank line. Pure. Reasons say what is wrong and where,
 * never what the file holds: a file that is not an event could hold anything, a secret included.
 */
export function parseSpoolFile(name: string, content: Buffer, mtimeMs: number): StepResult<SpoolEntry> {
  const end = content.indexOf('\n\n');
  if (end < 0) return quarantine('no header: the file does not come from the agentmeter hook');
  const headerText = content.subarray(0, end).toString('utf8');
  const header: Record<string, string> = {};
  const lines = headerText.split('\n');
  for (const [i, line] of lines.entries()) {
    const eq = line.indexOf('=');
    if (eq <= 0) return quarantine(`malformed header line ${i + 1}`);
    header[line.slice(0, eq)] = line.slice(eq + 1);
  }
  if (header['agentmeter-spool'] !== '1') return quarantine('unknown spool format (the header has no agentmeter-spool=1)');
  const body = content.subarray(end + 2);
  return ok({ name, header, body, mtimeMs, truncated: body.length > HOOK_BODY_CAP || content.length >= HOOK_FILE_CAP });
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

/** An entry of new/ that is not the hook's: it stays where it is, untouched. */
export interface ForeignEntry {
  readonly kind: 'foreign';
  readonly reason: string;
}
export type SpoolRead = StepResult<SpoolEntry> | ForeignEntry;
const foreign = (reason: string): ForeignEntry => ({ kind: 'foreign', reason });
/** An entry left where it is, with why. */
export const foreignEntry = foreign;
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * How a spool entry is opened: never through a link (a link fails with ELOOP), never waiting for a
 * writer (a fifo), never becoming the collector's terminal. What was opened is then judged by its fstat,
 * so nothing can be swapped in between a look and the open.
 */
export const SPOOL_OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * Pure: the read of an entry whose open failed with `code`, or undefined for a failure that is not the
 * entry's (out of descriptors, say): the drain stops on it and the spool keeps its files.
 */
export function openFailure(code: string | undefined): SpoolRead | undefined {
  // Gone since it was listed: another collector shipped it. Nothing to keep.
  if (code === 'ENOENT') return drop('file vanished after it was listed');
  if (code === 'ELOOP') return foreign('a symbolic link');
  if (code === 'EACCES' || code === 'EPERM') return foreign('not readable by this user');
  // A socket (or a device without a driver) cannot be opened: not a file the hook writes.
  if (code === 'ENXIO' || code === 'ENODEV' || code === 'EOPNOTSUPP') return foreign('not a regular file');
  return undefined;
}

/**
 * An opened entry of new/, judged by its fstat: a file that is not the hook's stays where it is
 * (`content` is not called); the hook's file is read through `content` and parsed. `twin`: whether its
 * second link is its tmp/ name (hookTwin). `uid`: this user's (currentUid).
 */
export function openedEntry(
  name: string,
  stat: EntryStat & Pick<Stats, 'mtimeMs'>,
  twin: boolean,
  content: () => Buffer,
  uid = currentUid(),
): SpoolRead {
  const problem = entryProblem(name, stat, uid, twin ? 2 : 1);
  if (problem) return foreign(problem);
  let bytes: Buffer;
  try {
    bytes = content();
  } catch (error) {
    // Our own regular file that cannot be read (an I/O error): set aside with the error's code only.
    return quarantine(`unreadable (${errorCode(error) ?? 'read error'})`);
  }
  const parsed = parseSpoolFile(name, bytes, stat.mtimeMs);
  if (twin && parsed.kind === 'ok') parsed.value.twin = true;
  return parsed;
}

/**
 * Reads a spool file through one descriptor: opened without following a link (SPOOL_OPEN_FLAGS), judged
 * by its fstat, and read only when it is a regular file of this user with a name and size the hook
 * writes. The collector reads its batches on a worker (spool-reader.ts) the same way; this reads one.
 */
export function readEntry(dirs: SpoolDirs, name: string): SpoolRead {
  if (!SPOOL_NAME.test(name)) return foreign('its name is not one the hook gives');
  let fd: number;
  try {
    fd = openSync(join(dirs.new, name), SPOOL_OPEN_FLAGS);
  } catch (error) {
    const failed = openFailure(errorCode(error));
    if (failed) return failed;
    throw error;
  }
  try {
    let stat: Stats;
    try {
      stat = fstatSync(fd);
    } catch (error) {
      return quarantine(`unreadable (${errorCode(error) ?? 'read error'})`);
    }
    return openedEntry(name, stat, hookTwin(dirs, name, stat), () => {
      const content = Buffer.allocUnsafe(stat.size);
      let read = 0;
      while (read < stat.size) {
        const n = readSync(fd, content, read, stat.size - read, read);
        if (n === 0) break;
        read += n;
      }
      return content.subarray(0, read);
    });
  } finally {
    closeSync(fd);
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
  /** Entries that are not the hook's files: never handed out again by this queue (they stay in new/). */
  private readonly leftAlone = new Set<string>();
  constructor(private readonly dirs: SpoolDirs) {}

  take(limit: number): string[] {
    if (this.next >= this.names.length) {
      const skip = (name: string) => this.out.has(name) || this.leftAlone.has(name);
      this.names = this.out.size || this.leftAlone.size ? listNew(this.dirs).filter((name) => !skip(name)) : listNew(this.dirs);
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

  /** These entries are not the hook's files: they stay where they are and are not looked at again. */
  leaveAlone(names: readonly string[]): void {
    for (const name of names) this.leftAlone.add(name);
  }

  /** Forget the cached listing and what is out (after a failed batch, its files are handed out again). */
  reset(): void {
    this.names = [];
    this.next = 0;
    this.out.clear();
  }
}

/** The paths that remove a shipped spool file, in order: its tmp/ twin first, then the file itself. */
export function shippedPaths(dirs: SpoolDirs, name: string, twin: boolean): string[] {
  // A listed name holds no separator: no join (normalizing) needed, for thousands of names a batch.
  return twin ? [`${dirs.tmp}/${name}`, `${dirs.new}/${name}`] : [`${dirs.new}/${name}`];
}

/** Moves a spool file (one readEntry accepted as the hook's) to bad/ with its reason beside it. */
export function quarantineFile(dirs: SpoolDirs, name: string, reason: string): void {
  ensurePrivateDir(dirs.bad);
  writePrivateFile(join(dirs.bad, `${name}.reason`), `${reason}\n`);
  const dest = join(dirs.bad, name);
  // Its tmp/ twin goes first, as when it is shipped (shippedPaths): the file then has one name, and a
  // collector stopped right here finds it in new/ as a renamed file and quarantines it again.
  try {
    if (hookTwin(dirs, name, lstatSync(join(dirs.new, name)))) unlinkSync(join(dirs.tmp, name));
  } catch {
    // Moved already by an earlier attempt: its twin went then.
  }
  try {
    // rename moves the entry itself, never what a link would point to.
    renameSync(join(dirs.new, name), dest);
  } catch {
    // Already moved by an earlier attempt: the reason file above still records why.
  }
  try {
    // Written by a hook before it set its umask, the file may be readable by others: not in bad/.
    const fd = openSync(dest, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not there (see above): nothing to tighten.
  }
}

/** Writes a record that the server refused (not a spool file) to bad/ so it is not lost. */
export function quarantineRecord(dirs: SpoolDirs, id: string, record: unknown, reason: string): void {
  ensurePrivateDir(dirs.bad);
  const name = `record.${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120)}.json`;
  writePrivateFile(join(dirs.bad, name), `${JSON.stringify(record)}\n`);
  writePrivateFile(join(dirs.bad, `${name}.reason`), `${reason}\n`);
}

/**
 * Deletes tmp/ files older than maxAgeMs (hooks that died mid-write); returns how many. Only regular
 * files of this user with one link: a file with two is delivered (its new/ name is waiting to be read),
 * and a link or anything else found there is not ours to remove.
 */
/**
 * The most entries bad/ keeps, each with its .reason: past it the oldest go, so that a server refusing
 * every event for days (or a hook misconfigured for weeks) cannot fill the developer's disk.
 */
export const QUARANTINE_MOST = 10_000;

/**
 * Once bad/ holds more than `most` entries (of those `only` names, when given), removes the oldest (by
 * modification time, each with its .reason) down to 90% of `most`, so that the next prune is not due at
 * once. Only regular files of this user go; anything else is left where it is (and still counted), and
 * nothing is followed. Returns how many went, and how many such entries are left.
 */
export function pruneQuarantine(
  dirs: SpoolDirs,
  most = QUARANTINE_MOST,
  only: (name: string) => boolean = () => true,
): { removed: number; left: number } {
  let names: string[];
  try {
    names = readdirSync(dirs.bad);
  } catch {
    return { removed: 0, left: 0 };
  }
  const entries = names.filter((name) => !name.endsWith('.reason') && only(name));
  if (entries.length <= most) return { removed: 0, left: entries.length };
  const uid = currentUid();
  const aged = entries.flatMap((name) => {
    try {
      const stat = lstatSync(join(dirs.bad, name));
      return stat.isFile() && (uid === undefined || stat.uid === uid) ? [{ name, mtime: stat.mtimeMs }] : [];
    } catch {
      return []; // removed meanwhile
    }
  });
  aged.sort((a, b) => a.mtime - b.mtime || (a.name < b.name ? -1 : 1));
  const drop = aged.slice(0, Math.max(0, aged.length - Math.floor(most * 0.9)));
  for (const { name } of drop)
    for (const file of [name, `${name}.reason`]) {
      try {
        const path = join(dirs.bad, file);
        if (lstatSync(path).isFile()) unlinkSync(path);
      } catch {
        // Gone already.
      }
    }
  return { removed: drop.length, left: entries.length - drop.length };
}

export function sweepTmp(dirs: SpoolDirs, now = Date.now(), maxAgeMs = TMP_MAX_AGE_MS): number {
  let swept = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dirs.tmp);
  } catch {
    return 0;
  }
  const uid = currentUid();
  for (const name of names) {
    const path = join(dirs.tmp, name);
    try {
      const stat = lstatSync(path);
      if (!stat.isFile() || stat.nlink !== 1 || (uid !== undefined && stat.uid !== uid)) continue;
      if (now - stat.mtimeMs > maxAgeMs) {
        unlinkSync(path);
        swept++;
      }
    } catch {
      // Renamed into new/ while we looked: not ours to sweep.
    }
  }
  return swept;
}

export interface SpoolCounts {
  /** Files of the hook waiting in new/. */
  pending: number;
  /** Entries of new/ that are not the hook's files: left where they are. */
  leftAlone: number;
  quarantined: number;
  /** Files in tmp/ that are not yet in new/ and were written to in the last TMP_ABANDONED_AFTER_MS: being written. */
  inProgress: number;
  /** Files in tmp/ that are not in new/ and were not written to for longer: abandoned, until the sweep. */
  abandoned: number;
  /** The last write of the oldest abandoned file (epoch ms), if any. */
  oldestAbandonedMs?: number;
}

/** Pure: when the sweep removes a tmp/ file last written at `mtimeMs` (epoch ms). */
export const sweptAt = (mtimeMs: number): number => mtimeMs + TMP_MAX_AGE_MS;

/**
 * The tmp/ files that are not in new/ (one link), split into those being written and those abandoned
 * (see TMP_ABANDONED_AFTER_MS), with the last write of the oldest abandoned one.
 */
export function tmpFiles(dirs: SpoolDirs, now = Date.now()): { writing: number; abandoned: number; oldestAbandonedMs?: number } {
  let names: string[];
  try {
    names = readdirSync(dirs.tmp);
  } catch {
    return { writing: 0, abandoned: 0 };
  }
  let writing = 0;
  let abandoned = 0;
  let oldest: number | undefined;
  for (const name of names) {
    try {
      const stat = lstatSync(join(dirs.tmp, name));
      if (stat.nlink !== 1) continue;
      if (now - stat.mtimeMs < TMP_ABANDONED_AFTER_MS) writing++;
      else {
        abandoned++;
        if (oldest === undefined || stat.mtimeMs < oldest) oldest = stat.mtimeMs;
      }
    } catch {
      // Delivered and read while we counted.
    }
  }
  return { writing, abandoned, ...(oldest !== undefined ? { oldestAbandonedMs: oldest } : {}) };
}

export function spoolCounts(dirs: SpoolDirs, now = Date.now()): SpoolCounts {
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  let pending = 0;
  let leftAlone = 0;
  for (const name of list(dirs.new)) {
    let problem: string | undefined;
    try {
      problem = newEntryProblem(dirs, name, lstatSync(join(dirs.new, name)));
    } catch {
      continue; // shipped while we counted
    }
    if (problem) leftAlone++;
    else pending++;
  }
  const tmp = tmpFiles(dirs, now);
  return {
    pending,
    leftAlone,
    quarantined: list(dirs.bad).filter((n) => !n.endsWith('.reason')).length,
    inProgress: tmp.writing,
    abandoned: tmp.abandoned,
    ...(tmp.oldestAbandonedMs !== undefined ? { oldestAbandonedMs: tmp.oldestAbandonedMs } : {}),
  };
}
