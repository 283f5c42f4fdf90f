// A decode worker thread (see decode-pool.ts): inflates and decodes one ingest body at a time.
// Built as an entry of its own (dist/server/decode-worker.mjs) for the built server; from the sources,
// started through tsx by the pool's bootstrap.
import { parentPort } from 'node:worker_threads';
import { decodeBody, transferableMemory } from './decode.ts';
import type { DecodeJob } from './decode-pool.ts';

// One job at a time: the pool sends the next only when this one answered.
parentPort!.on('message', (job: DecodeJob) => {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  void decodeBody(bytes, job.gzip, job.format, job.limits).then((result) => parentPort!.postMessage(result, transferableMemory(result)));
});
