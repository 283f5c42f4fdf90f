// The private ledger of agent-written lines (docs/metrics.md §5 "Ledger"), under $AGENTMETER_HOME/code (CODE_STATE_DIR):
// per repository, one line per added line of an edit: its keyed hash (HMAC-SHA256 of the file's path in
// the work tree and the line's fingerprint, under a random per-machine key: never the line's text), the
// time, the agent, the model and the agent session. Lines credited to a landed commit are listed beside it. Files are 0600
// in 0700 folders, opened without following a link. Bounded: lines older than 30 days and credited lines
// are dropped when the file is compacted, and past MAX_LEDGER_LINES the oldest go, logged and counted.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { currentUid, ensurePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from '../../common/private-files.ts';
import { CREDIT_WINDOW_MS, type LedgerLine } from './credit.ts';

/** Most ledger lines kept per repository; past it the oldest are dropped (logged and counted). */
export const MAX_LEDGER_LINES = 1_000_000;

export interface LedgerWrite {
  /** Path of the file relative to the work tree, with `/`. */
  relPath: string;
  /** Fingerprints of the added lines (collector/code/lines.ts), duplicates kept. */
  fingerprints: string[];
  ts: number;
  agent: string;
  model: string;
  /** The agent session that wrote the lines. */
  session?: string;
}

/**
 * Opens a file of ours for reading: no link followed, a regular file owned by this user (else it throws);
 * undefined when it is missing. The caller closes the descriptor.
 */
function openPrivate(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const stat = fstatSync(fd);
  const uid = currentUid();
  if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) {
    closeSync(fd);
    throw new Error(`${path} is not a file of this user`);
  }
  return fd;
}

/** Reads a file of ours: no link followed, a regular file owned by this user; '' when missing. */
export function readPrivate(path: string): string {
  const fd = openPrivate(path);
  if (fd === undefined) return '';
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Appends to a file of ours (created 0600), never through a link. */
export function appendPrivate(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = Buffer.from(text);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

const NEWLINE = 10;

/** The size of a file (a link's own size: it is refused when opened), 0 when missing. */
function sizeOf(path: string): number {
  try {
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

/** Pure: the first 8 characters of a key at `at` as a number (the keys are base64url: 6 bits a character). */
function keyPrefix(bytes: Buffer, at: number): number {
  let n = 0;
  for (let i = at; i < at + 8 && i < bytes.length; i++) n = n * 64 + (bytes[i]! & 0x7f);
  return n;
}

/** The generation in a ledger file's header, or '' (missing file, no header). */
function headerGen(path: string): string {
  let gen = '';
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const head = Buffer.alloc(64);
      const n = readSync(fd, head, 0, 64, 0);
      gen = HEADER.exec(head.toString('latin1', 0, n).split('\n')[0] ?? '')?.[1] ?? '';
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
  return gen;
}

/** Chunk size of eachLine. */
const CHUNK = 1 << 20;

/**
 * Calls onLine(bytes, start, end, seq) for each line after the `#gen` header of a ledger file of ours (no
 * link followed, a regular file of this user), reading it in 1 MiB chunks. Returns the generation, or ''
 * when the file is missing or has no header.
 */
function eachLine(path: string, onLine: (bytes: Buffer, start: number, end: number, seq: number) => void): string {
  const fd = openPrivate(path);
  if (fd === undefined) return '';
  try {
    let buffer = Buffer.alloc(CHUNK);
    let filled = 0;
    let gen: string | undefined;
    let seq = 0;
    for (;;) {
      if (filled === buffer.length) {
        // A line longer than the buffer: grow it (ledger lines are short; this is a guard).
        const bigger = Buffer.alloc(buffer.length * 2);
        buffer.copy(bigger, 0, 0, filled);
        buffer = bigger;
      }
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      const end = filled + read;
      let start = 0;
      for (;;) {
        const nl = buffer.indexOf(NEWLINE, start);
        if (nl < 0 || nl >= end) break;
        if (gen === undefined) {
          gen = HEADER.exec(buffer.toString('latin1', start, nl))?.[1] ?? '';
          if (!gen) return '';
        } else if (nl > start) onLine(buffer, start, nl, seq++);
        start = nl + 1;
      }
      if (read === 0) return gen ?? '';
      buffer.copy(buffer, 0, start, end);
      filled = end - start;
    }
  } finally {
    closeSync(fd);
  }
}

/** Pure: a repository's file name in the ledger (its work tree's path, hashed). */
export const repoFileKey = (root: string): string => createHash('sha256').update(root).digest('hex').slice(0, 16);

interface LedgerFile {
  gen: string;
  lines: LedgerLine[];
  credited: Set<number>;
}

const HEADER = /^#gen ([0-9a-f]+)$/;

export class Ledger {
  private readonly dir: string;
  private machineKey: Buffer | undefined;

  constructor(private readonly stateDir: string) {
    this.dir = join(stateDir, 'ledger');
  }

  /** The per-machine key of the line hashes: 32 random bytes, made once. */
  private key(): Buffer {
    if (this.machineKey) return this.machineKey;
    ensurePrivateDir(this.stateDir);
    const path = join(this.stateDir, 'key');
    const stored = readPrivate(path).trim();
    if (/^[0-9a-f]{64}$/.test(stored)) this.machineKey = Buffer.from(stored, 'hex');
    else {
      this.machineKey = randomBytes(32);
      writePrivateFile(path, `${this.machineKey.toString('hex')}\n`);
    }
    return this.machineKey;
  }

  /** The keyed hash of a line of a file: what the ledger stores and a commit's lines are matched by. */
  lineKey(relPath: string, fingerprint: string): string {
    return createHmac('sha256', this.key()).update(relPath).update('\0').update(fingerprint).digest('base64url').slice(0, 22);
  }

  private paths(root: string) {
    const base = join(this.dir, repoFileKey(root));
    return { lines: `${base}.lines`, credited: `${base}.credited` };
  }

  private read(root: string, keep?: Set<string>): LedgerFile {
    const paths = this.paths(root);
    const out: LedgerFile = { gen: '', lines: [], credited: new Set() };
    // Crediting reads the lines of a few keys out of many: a line's key is tested by a number made of its
    // first characters (no string made for it), and only lines that may match are decoded.
    const prefixes = keep ? new Set([...keep].map((k) => keyPrefix(Buffer.from(k, 'latin1'), 0))) : undefined;
    out.gen = eachLine(paths.lines, (bytes, start, end, seq) => {
      if (prefixes && !prefixes.has(keyPrefix(bytes, start))) return;
      const [key, ts, agent, model, session] = bytes.toString('utf8', start, end).split('\t');
      if (keep && !keep.has(key!)) return;
      out.lines.push({ seq, key: key!, ts: Number(ts), agent: agent!, model: model!, session: session ?? '' });
    });
    if (!out.gen) return out;
    const credited = readPrivate(paths.credited).split('\n');
    if (HEADER.exec(credited[0] ?? '')?.[1] === out.gen) for (const line of credited.slice(1)) if (line) out.credited.add(Number(line));
    return out;
  }

  /** Appends the added lines of edits in the work tree `root`. Returns how many lines were written. */
  append(root: string, writes: LedgerWrite[]): number {
    ensurePrivateDir(this.stateDir);
    ensurePrivateDir(this.dir);
    const paths = this.paths(root);
    let text = '';
    if (sizeOf(paths.lines) === 0) text += `#gen ${randomBytes(4).toString('hex')}\n`;
    let n = 0;
    for (const w of writes) {
      const agent = w.agent.replace(/[\t\n]/g, ' ');
      const model = w.model.replace(/[\t\n]/g, ' ');
      const session = (w.session ?? '').replace(/[\t\n]/g, ' ');
      for (const fp of w.fingerprints) {
        text += `${this.lineKey(w.relPath, fp)}\t${w.ts}\t${agent}\t${model}\t${session}\n`;
        n++;
      }
    }
    if (n) appendPrivate(paths.lines, text);
    return n;
  }

  /** The ledger lines of `root` whose key is in `keys`, by key, oldest first; and which are credited. */
  lookup(root: string, keys: Set<string>): { index: Map<string, LedgerLine[]>; credited: Set<number> } {
    const file = this.read(root, keys);
    const index = new Map<string, LedgerLine[]>();
    for (const line of file.lines) {
      const list = index.get(line.key);
      if (list) list.push(line);
      else index.set(line.key, [line]);
    }
    for (const list of index.values()) list.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
    return { index, credited: file.credited };
  }

  /**
   * Moves the ledger kept under an old name (a work tree's root, before repositories were keyed by their
   * common folder) to a repository's key, when that key has none yet.
   */
  adopt(oldKey: string, newKey: string): void {
    const from = this.paths(oldKey);
    const to = this.paths(newKey);
    if (oldKey === newKey || sizeOf(from.lines) === 0 || sizeOf(to.lines) > 0) return;
    renameSync(from.lines, to.lines);
    if (sizeOf(from.credited) > 0) renameSync(from.credited, to.credited);
  }

  /** The generation of a repository's ledger file ('' when it has none): what credited line numbers refer to. */
  generation(root: string): string {
    return headerGen(this.paths(root).lines);
  }

  /**
   * Records ledger lines as credited: they never count again. `gen`, when given, is the generation the
   * numbers were read from: a list for another one (the file was compacted since) is not applied.
   */
  markCredited(root: string, seqs: number[], gen?: string): void {
    if (!seqs.length) return;
    const paths = this.paths(root);
    const current = headerGen(paths.lines);
    if (!current || (gen !== undefined && gen !== current)) return;
    const existing = readPrivate(paths.credited);
    const header = `#gen ${current}\n`;
    appendPrivate(paths.credited, `${existing.startsWith(header) ? '' : header}${seqs.join('\n')}\n`);
  }

  /**
   * Rewrites the ledger of `root` without lines older than 30 days, credited lines, and the oldest past
   * MAX_LEDGER_LINES. Returns what was dropped for each reason (the cap's drop is logged by the caller).
   * Reads and writes in chunks: memory stays a few megabytes and one number a line, whatever the size.
   */
  compact(root: string, now: number, maxLines = MAX_LEDGER_LINES): { expired: number; credited: number; capped: number; kept: number } {
    const paths = this.paths(root);
    const creditedText = readPrivate(paths.credited).split('\n');
    const from = now - CREDIT_WINDOW_MS;
    const tsOf = (bytes: Buffer, start: number, end: number) => {
      const a = bytes.indexOf(9, start);
      const b = bytes.indexOf(9, a + 1);
      return Number(bytes.toString('latin1', a + 1, b < 0 || b > end ? end : b));
    };
    // The credited list applies to the generation it names, the file's own.
    const fileGen = headerGen(paths.lines);
    if (!fileGen) return { expired: 0, credited: 0, capped: 0, kept: 0 };
    const credited = new Set<number>();
    if (HEADER.exec(creditedText[0] ?? '')?.[1] === fileGen) for (const line of creditedText.slice(1)) if (line) credited.add(Number(line));
    // First pass: which lines stay for age and credit, and their times (for the cap).
    let expired = 0;
    let creditedN = 0;
    const times: number[] = [];
    eachLine(paths.lines, (bytes, start, end, seq) => {
      if (credited.has(seq)) creditedN++;
      else {
        const ts = tsOf(bytes, start, end);
        if (ts < from) expired++;
        else times.push(ts);
      }
    });
    const capped = Math.max(0, times.length - maxLines);
    if (expired === 0 && creditedN === 0 && capped === 0) return { expired, credited: 0, capped, kept: times.length };
    // The cap keeps the newest: lines older than the cutoff go, and at the cutoff as many as needed.
    let cutoff = Number.NEGATIVE_INFINITY;
    let dropAtCutoff = 0;
    if (capped) {
      const sorted = Float64Array.from(times).sort();
      cutoff = sorted[capped - 1]!;
      dropAtCutoff = capped - sorted.findIndex((t) => t >= cutoff);
    }
    const newGen = randomBytes(4).toString('hex');
    const tmp = `${paths.lines}.tmp-${process.pid}`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
    let kept = 0;
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
      writeSync(fd, `#gen ${newGen}\n`);
      eachLine(paths.lines, (bytes, start, end, seq) => {
        if (credited.has(seq)) return;
        const ts = tsOf(bytes, start, end);
        if (ts < from || ts < cutoff) return;
        if (ts === cutoff && dropAtCutoff > 0) {
          dropAtCutoff--;
          return;
        }
        writeSync(fd, bytes, start, end - start);
        writeSync(fd, '\n');
        kept++;
      });
    } catch (error) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(tmp, paths.lines);
    // A crash before this line leaves the old generation's credited list, which the new file ignores.
    writePrivateFile(paths.credited, `#gen ${newGen}\n`);
    return { expired, credited: creditedN, capped, kept };
  }
}
