// The private ledger of agent-written lines (METRICS.md §5 "Ledger"), under $AGENTMETER_HOME/impact:
// per repository, one line per added line of an edit: its keyed hash (HMAC-SHA256 of the file's path in
// the work tree and the line's fingerprint, under a random per-machine key: never the line's text), the
// time, the agent and the model. Lines credited to a landed commit are listed beside it. Files are 0600
// in 0700 folders, opened without following a link. Bounded: lines older than 30 days and credited lines
// are dropped when the file is compacted, and past MAX_LEDGER_LINES the oldest go, logged and counted.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { currentUid, ensurePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from '../../common/private-files.ts';
import { CREDIT_WINDOW_MS, type LedgerLine } from './credit.ts';

/** Most ledger lines kept per repository; past it the oldest are dropped (logged and counted). */
export const MAX_LEDGER_LINES = 1_000_000;

export interface LedgerWrite {
  /** Path of the file relative to the work tree, with `/`. */
  relPath: string;
  /** Fingerprints of the added lines (collector/impact/lines.ts), duplicates kept. */
  fingerprints: string[];
  ts: number;
  agent: string;
  model: string;
}

/** Reads a file of ours: no link followed, a regular file owned by this user; '' when missing. */
export function readPrivate(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const uid = currentUid();
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid)) throw new Error(`${path} is not a file of this user`);
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

  constructor(private readonly impactDir: string) {
    this.dir = join(impactDir, 'ledger');
  }

  /** The per-machine key of the line hashes: 32 random bytes, made once. */
  private key(): Buffer {
    if (this.machineKey) return this.machineKey;
    ensurePrivateDir(this.impactDir);
    const path = join(this.impactDir, 'key');
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
    const text = readPrivate(paths.lines);
    const out: LedgerFile = { gen: '', lines: [], credited: new Set() };
    if (text === '') return out;
    let at = text.indexOf('\n');
    const header = HEADER.exec(text.slice(0, at < 0 ? text.length : at));
    if (!header) return out;
    out.gen = header[1]!;
    let seq = 0;
    while (at >= 0 && at < text.length - 1) {
      const start = at + 1;
      at = text.indexOf('\n', start);
      const end = at < 0 ? text.length : at;
      const tab = text.indexOf('\t', start);
      const key = text.slice(start, tab);
      const n = seq++;
      if (keep && !keep.has(key)) continue;
      const [, ts, agent, model] = text.slice(start, end).split('\t');
      out.lines.push({ seq: n, key, ts: Number(ts), agent: agent!, model: model! });
    }
    const credited = readPrivate(paths.credited).split('\n');
    if (HEADER.exec(credited[0] ?? '')?.[1] === out.gen) for (const line of credited.slice(1)) if (line) out.credited.add(Number(line));
    return out;
  }

  /** Appends the added lines of edits in the work tree `root`. Returns how many lines were written. */
  append(root: string, writes: LedgerWrite[]): number {
    ensurePrivateDir(this.impactDir);
    ensurePrivateDir(this.dir);
    const paths = this.paths(root);
    let text = '';
    if (readPrivate(paths.lines) === '') text += `#gen ${randomBytes(4).toString('hex')}\n`;
    let n = 0;
    for (const w of writes) {
      const agent = w.agent.replace(/[\t\n]/g, ' ');
      const model = w.model.replace(/[\t\n]/g, ' ');
      for (const fp of w.fingerprints) {
        text += `${this.lineKey(w.relPath, fp)}\t${w.ts}\t${agent}\t${model}\n`;
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

  /** Records ledger lines as credited: they never count again. */
  markCredited(root: string, seqs: number[]): void {
    if (!seqs.length) return;
    const paths = this.paths(root);
    const gen = HEADER.exec(readPrivate(paths.lines).slice(0, 20).split('\n')[0] ?? '')?.[1];
    if (!gen) return;
    const existing = readPrivate(paths.credited);
    const header = `#gen ${gen}\n`;
    appendPrivate(paths.credited, `${existing.startsWith(header) ? '' : header}${seqs.join('\n')}\n`);
  }

  /**
   * Rewrites the ledger of `root` without lines older than 30 days, credited lines, and the oldest past
   * MAX_LEDGER_LINES. Returns what was dropped for each reason (the cap's drop is logged by the caller).
   */
  compact(root: string, now: number, maxLines = MAX_LEDGER_LINES): { expired: number; credited: number; capped: number; kept: number } {
    const file = this.read(root);
    if (!file.gen) return { expired: 0, credited: 0, capped: 0, kept: 0 };
    const from = now - CREDIT_WINDOW_MS;
    let expired = 0;
    let credited = 0;
    let kept = file.lines.filter((l) => {
      if (file.credited.has(l.seq)) {
        credited++;
        return false;
      }
      if (l.ts < from) {
        expired++;
        return false;
      }
      return true;
    });
    let capped = 0;
    if (kept.length > maxLines) {
      kept = [...kept].sort((a, b) => a.ts - b.ts);
      capped = kept.length - maxLines;
      kept = kept.slice(capped);
    }
    if (expired === 0 && credited === 0 && capped === 0) return { expired, credited, capped, kept: kept.length };
    const gen = randomBytes(4).toString('hex');
    const paths = this.paths(root);
    writePrivateFile(paths.lines, `#gen ${gen}\n${kept.map((l) => `${l.key}\t${l.ts}\t${l.agent}\t${l.model}\n`).join('')}`);
    // A crash before this line leaves the old generation's credited list, which the new file ignores.
    writePrivateFile(paths.credited, `#gen ${gen}\n`);
    return { expired, credited, capped, kept: kept.length };
  }
}
