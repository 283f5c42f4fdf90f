// Decodes NDJSON ingest bodies (inflate, JSON.parse, zod, NDJSON for the store) on worker threads.
// Decoding is most of an ingest request's CPU: on the event loop it would leave DuckDB waiting for the next
// batch. With the decoding on a worker, the loop only receives requests and runs statements, and one
// request decodes while the one before it is stored.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { RUNS_BUILT } from '../../common/built.ts';
import type { BodyFormat, DecodeAnswer, DecodeLimits } from './decode.ts';

export type { DecodeAnswer } from './decode.ts';

export interface DecodeJob {
  bytes: Uint8Array;
  gzip: boolean;
  format: BodyFormat;
  limits: DecodeLimits;
}

/** Every worker is busy and the queue in front of them is full: the request is answered 503. */
export class DecodeQueueFull extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} ingest bodies are already waiting for a decode worker`);
  }
}

/**
 * Workers by default: two, so two requests in flight decode at once (on 2 cores two workers ingest
 * more than one or the event loop: `npm run bench -- ingest`); one fewer than the cores on larger machines,
 * up to four.
 */
export const defaultDecodeWorkers = () => Math.min(4, Math.max(2, availableParallelism() - 1));

/**
 * How a worker thread starts. Built (dist/server): decode-worker.mjs beside this bundle, plain JavaScript
 * (scripts/build-server.mjs builds every *-worker.ts as an entry). From the sources: a few lines of plain
 * JavaScript evaluated in the worker that register tsx there, then load the TypeScript worker; tsx's
 * module API is resolved here, as code evaluated in a worker resolves bare names from the working folder.
 */
function workerStart(): { script: string | URL; eval: boolean } {
  if (RUNS_BUILT) return { script: new URL(import.meta.resolve('./decode-worker.mjs')), eval: false };
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap = `
import(${JSON.stringify(tsxApi)})
  .then((tsx) => (tsx.register ?? tsx.default.register)())
  .then(() => import(${JSON.stringify(new URL('./decode-worker.ts', import.meta.url).href)}));
`;
  return { script: bootstrap, eval: true };
}

interface Pending {
  job: DecodeJob;
  resolve: (answer: DecodeAnswer) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** The job this worker is decoding (a worker takes one at a time), if any. */
  pending: Pending | undefined;
}

export class DecodePool {
  private readonly slots: (Slot | undefined)[];
  private readonly waiting: Pending[] = [];
  private closed = false;

  /** `maxWaiting`: bodies that may wait for a worker; one more is refused with DecodeQueueFull. */
  constructor(
    readonly size: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    this.slots = Array.from({ length: size }, () => undefined);
  }

  /** Bodies waiting for a worker now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Decodes a body as received (gzip, or plain NDJSON or JSON bytes); the bytes are copied, the caller
   * keeps them. Rejects with DecodeQueueFull, at once, when every worker is busy and maxWaiting wait.
   */
  decode(body: Buffer, gzip: boolean, format: BodyFormat, limits: DecodeLimits): Promise<DecodeAnswer> {
    if (this.closed) return Promise.reject(new Error('decode pool closed'));
    const idle = this.slots.some((slot) => !slot?.pending);
    if (!idle && this.waiting.length >= this.maxWaiting) return Promise.reject(new DecodeQueueFull(this.waiting.length));
    const bytes = new Uint8Array(body);
    const job: DecodeJob = { bytes, gzip, format, limits };
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.waiting.splice(0)) waiting.reject(new Error('decode pool closed'));
    await Promise.all(this.slots.map((slot) => slot?.worker.terminate()));
  }

  private dispatch(): void {
    for (let i = 0; i < this.slots.length && this.waiting.length; i++) {
      const slot = (this.slots[i] ??= this.start(i));
      if (slot.pending) continue;
      const pending = this.waiting.shift()!;
      slot.pending = pending;
      slot.worker.ref();
      slot.worker.postMessage(pending.job, [pending.job.bytes.buffer as ArrayBuffer]);
    }
  }

  private start(index: number): Slot {
    const { script, eval: evaluate } = workerStart();
    const worker = new Worker(script, { eval: evaluate });
    const slot: Slot = { worker, pending: undefined };
    worker.on('message', (answer: DecodeAnswer) => {
      const pending = slot.pending;
      slot.pending = undefined;
      worker.unref();
      pending?.resolve(answer);
      this.dispatch();
    });
    // A worker that dies fails its job (the request answers 500, the collector retries) and is replaced
    // by a new one at the next job.
    const lost = (error: Error) => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
      const pending = slot.pending;
      slot.pending = undefined;
      pending?.reject(error);
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (error) => lost(new Error(`decode worker failed: ${error.message}`)));
    worker.on('exit', (code) => lost(new Error(`decode worker exited (${code})`)));
    worker.unref();
    return slot;
  }
}
