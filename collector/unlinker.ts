// Removes shipped spool files on a worker thread. An unlink is the dearest step of shipping a spool file
// (a directory update in the kernel); on the event loop thread it would hold up reading and encoding the
// next batch, and through libuv's pool each one still costs the loop a request and a promise.
// The worker takes a whole batch's paths in one message and answers once.
//
// One worker serves every collector of the process: starting one is dear (a thread loading its module), and the sample
// replay of `npm start` runs forty collectors, one per sample user. It is unreferenced while it owes no
// answer, so it never keeps the process alive.
import { Worker } from 'node:worker_threads';

// Plain CommonJS evaluated in the worker: no TypeScript loader is needed there.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { unlinkSync } = require('node:fs');
parentPort.on('message', ({ id, paths }) => {
  let failed = null;
  for (const path of paths) {
    try { unlinkSync(path); } catch (error) { if (error.code !== 'ENOENT' && failed === null) failed = path + ': ' + error.message; }
  }
  parentPort.postMessage({ id, failed });
});
`;

class UnlinkWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  constructor(onExit: () => void) {
    this.worker.on('message', ({ id, failed }: { id: number; failed: string | null }) => {
      const request = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) this.worker.unref();
      if (failed === null) request?.resolve();
      else request?.reject(new Error(`cannot remove ${failed}`));
    });
    this.worker.on('error', (error) => this.failAll(error));
    this.worker.on('exit', () => {
      onExit();
      this.failAll(new Error('unlink worker exited'));
    });
    this.worker.unref();
  }

  private failAll(error: Error): void {
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
  }

  remove(paths: readonly string[]): Promise<void> {
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Referenced while it owes an answer, so the process waits for it.
    this.worker.ref();
    this.worker.postMessage({ id, paths });
    return done;
  }
}

let shared: UnlinkWorker | undefined;

export class Unlinker {
  private readonly inFlight = new Set<Promise<void>>();

  /** Unlinks the files (a missing one is fine); resolves when all are gone. */
  remove(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return Promise.resolve();
    // A worker that exited is replaced at the next request.
    shared ??= new UnlinkWorker(() => (shared = undefined));
    const done = shared.remove(paths);
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return done;
  }

  /** Resolves once this unlinker's removals are over (the shared worker stays for other collectors). */
  async close(): Promise<void> {
    await Promise.all(this.inFlight);
  }
}
