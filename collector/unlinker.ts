// Removes shipped spool files on a worker thread. An unlink is the dearest step of shipping a spool file
// (a directory update in the kernel, ~8 µs here); on the event loop thread it held up reading and
// encoding the next batch, and through libuv's pool each one still cost the loop a request and a promise.
// The worker takes a whole batch's paths in one message and answers once.
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

export class Unlinker {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', ({ id, failed }: { id: number; failed: string | null }) => {
      const request = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      if (failed === null) request?.resolve();
      else request?.reject(new Error(`cannot remove ${failed}`));
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.worker = undefined;
      this.failAll(new Error('unlink worker exited'));
    });
    worker.unref();
    return worker;
  }

  private failAll(error: Error): void {
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
  }

  /** Unlinks the files (a missing one is fine); resolves when all are gone. */
  remove(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return Promise.resolve();
    this.worker ??= this.start();
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Referenced while it owes an answer, so the process waits for it.
    this.worker.ref();
    this.worker.postMessage({ id, paths });
    return done;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
