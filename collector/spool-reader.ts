// Reads spool files on a worker thread. Opening, looking at and reading a file are five system calls
// (open, fstat, the tmp/ twin's lstat, read, close): for a spool of one file per event they are most of a
// batch's cost, and on the event loop thread they would hold up encoding and sending. The worker does
// only that I/O, for many files a message, into one buffer handed over without a copy; what may be read
// and what a file is (its reason when it is not the hook's, its parsed header) is judged on the loop by
// spool.ts's own functions (openedEntry), as a single read is (readEntry).
//
// One worker serves every collector of the process (see unlinker.ts for why), unreferenced while it owes
// no answer so that it never keeps the process alive.
import { constants } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { currentUid } from '../common/private-files.ts';
import {
  foreignEntry,
  openedEntry,
  openFailure,
  SPOOL_FILE_MAX,
  SPOOL_OPEN_FLAGS,
  type SpoolDirs,
  type SpoolRead,
  spoolName,
} from './spool.ts';

/**
 * Most bytes read into one answer: files up to a megabyte each must not make a batch of thousands hold
 * gigabytes. The worker stops after the file that passes it and says how many names it handled.
 */
const BYTES_PER_READ = 8 * 1024 * 1024;
/**
 * Most names a message: the loop judges and derives one slice while the worker reads the next. The
 * first slice is short, as nothing else is done while it is read.
 */
const NAMES_PER_READ = 1000;
const NAMES_FIRST_READ = 250;

/** What the worker found of one name: the open's error code, or the fstat (and the bytes, when read). */
type Fact =
  | { code: string }
  | { statError: string }
  | {
      mode: number;
      uid: number;
      nlink: number;
      size: number;
      mtimeMs: number;
      twin: boolean;
      start: number;
      end: number;
      readError?: string;
    };

interface Answer {
  id: number;
  facts: Fact[];
  bytes: ArrayBuffer;
}

// Plain CommonJS evaluated in the worker: no TypeScript loader is needed there. It reads a file only
// when it is a regular file of `uid` with the links (1, or 2 with its tmp/ twin) and size the hook
// gives its files: the same conditions as entryProblem, which judges the facts on the loop.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { closeSync, fstatSync, lstatSync, openSync, readSync } = require('node:fs');
parentPort.on('message', ({ id, newDir, tmpDir, names, flags, uid, max, budget }) => {
  let buffer = Buffer.allocUnsafeSlow(1 << 20);
  let used = 0;
  const facts = [];
  for (const name of names) {
    if (used >= budget) break;
    let fd;
    try { fd = openSync(newDir + '/' + name, flags); } catch (error) { facts.push({ code: error.code || 'EIO' }); continue; }
    try {
      let st;
      try { st = fstatSync(fd); } catch (error) { facts.push({ statError: error.code || 'EIO' }); continue; }
      let twin = false;
      if (st.nlink === 2) {
        try { const t = lstatSync(tmpDir + '/' + name); twin = t.isFile() && t.ino === st.ino && t.dev === st.dev; } catch {}
      }
      const fact = { mode: st.mode, uid: st.uid, nlink: st.nlink, size: st.size, mtimeMs: st.mtimeMs, twin, start: used, end: used };
      facts.push(fact);
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.nlink !== (twin ? 2 : 1) || st.size > max) continue;
      if (used + st.size > buffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.max(buffer.length * 2, used + st.size));
        buffer.copy(grown, 0, 0, used);
        buffer = grown;
      }
      try {
        let read = 0;
        while (read < st.size) {
          const n = readSync(fd, buffer, used + read, st.size - read, read);
          if (n === 0) break;
          read += n;
        }
        used += read;
        fact.end = used;
      } catch (error) { fact.readError = error.code || 'EIO'; }
    } finally {
      closeSync(fd);
    }
  }
  parentPort.postMessage({ id, facts, bytes: buffer.buffer }, [buffer.buffer]);
});
`;

class ReadWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();

  constructor(onExit: () => void) {
    this.worker.on('message', (answer: Answer) => {
      const request = this.pending.get(answer.id);
      this.pending.delete(answer.id);
      if (this.pending.size === 0) this.worker.unref();
      request?.resolve(answer);
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', () => {
      onExit();
      this.failAll(new Error('spool reader worker exited'));
    });
    this.worker.unref();
  }

  private failAll(error: Error): void {
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
  }

  read(dirs: SpoolDirs, names: readonly string[], uid: number | undefined): Promise<Answer> {
    const id = this.nextId++;
    const done = new Promise<Answer>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Referenced while it owes an answer, so the process waits for it.
    this.worker.ref();
    this.worker.postMessage({
      id,
      newDir: dirs.new,
      tmpDir: dirs.tmp,
      names,
      flags: SPOOL_OPEN_FLAGS,
      uid,
      max: SPOOL_FILE_MAX,
      budget: BYTES_PER_READ,
    });
    return done;
  }
}

let shared: ReadWorker | undefined;

const { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK } = constants;

/** A fact's fstat as entryProblem reads it. */
class FactStat {
  readonly uid: number;
  readonly nlink: number;
  readonly size: number;
  readonly mtimeMs: number;
  private readonly type: number;
  constructor(fact: Extract<Fact, { mode: number }>) {
    this.type = fact.mode & S_IFMT;
    this.uid = fact.uid;
    this.nlink = fact.nlink;
    this.size = fact.size;
    this.mtimeMs = fact.mtimeMs;
  }
  isFile(): boolean {
    return this.type === S_IFREG;
  }
  isDirectory(): boolean {
    return this.type === S_IFDIR;
  }
  isSymbolicLink(): boolean {
    return this.type === S_IFLNK;
  }
}

const failure = (code: string) => Object.assign(new Error(code), { code });

/** The read of each of `names` (readEntry's answers) from facts the worker gathered for them. */
function judge(names: readonly string[], answer: Answer, uid: number | undefined): SpoolRead[] {
  const bytes = Buffer.from(answer.bytes);
  return answer.facts.map((fact, i) => {
    const name = names[i]!;
    if ('code' in fact) {
      const failed = openFailure(fact.code);
      if (failed) return failed;
      throw Object.assign(new Error(`cannot open spool file ${name}: ${fact.code}`), { code: fact.code });
    }
    if ('statError' in fact) return { kind: 'quarantine', reason: `unreadable (${fact.statError})` } as const;
    return openedEntry(
      name,
      new FactStat(fact),
      fact.twin,
      () => {
        if (fact.readError) throw failure(fact.readError);
        return bytes.subarray(fact.start, fact.end);
      },
      uid,
    );
  });
}

/**
 * Reads spool files of new/ as readEntry does, in order, a slice at a time: yields each slice's names and
 * reads while the worker reads the next slice (a slice, not a file, a step: an async step costs promises).
 * A name the hook never gives is judged without being opened. Rejects (the drain stops, the spool keeps
 * its files) when a file cannot be opened for a reason that is not the file's (out of descriptors) or
 * the worker is gone.
 */
export async function* readEntries(dirs: SpoolDirs, names: readonly string[]): AsyncGenerator<[string, SpoolRead][]> {
  const uid = currentUid();
  const openable: string[] = [];
  for (const name of names) if (spoolName(name)) openable.push(name);
  const misnamed = foreignEntry('its name is not one the hook gives');
  // A worker that exited is replaced at the next request.
  const worker = () => (shared ??= new ReadWorker(() => (shared = undefined)));
  let from = 0;
  let reading = openable.length ? worker().read(dirs, openable.slice(0, NAMES_FIRST_READ), uid) : undefined;
  let index = 0;
  while (reading) {
    const answer = await reading;
    const slice = openable.slice(from, from + answer.facts.length);
    from += answer.facts.length;
    // The next slice is read while this one is judged and used.
    reading = from < openable.length ? worker().read(dirs, openable.slice(from, from + NAMES_PER_READ), uid) : undefined;
    // Not left unhandled when the caller stops early or throws.
    reading?.catch(() => undefined);
    const reads = judge(slice, answer, uid);
    const out: [string, SpoolRead][] = [];
    for (let i = 0; i < slice.length; i++) {
      // Misnamed entries in their place in the listing's order.
      for (; names[index] !== slice[i]; index++) out.push([names[index]!, misnamed]);
      out.push([slice[i]!, reads[i]!]);
      index++;
    }
    yield out;
  }
  if (index < names.length) yield names.slice(index).map((name): [string, SpoolRead] => [name, misnamed]);
}
