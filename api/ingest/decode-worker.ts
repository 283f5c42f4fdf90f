// A decode worker thread (see decode-pool.ts): inflates and decodes one NDJSON ingest body at a time.
// Built as an entry of its own (dist/server/decode-worker.mjs) for the built server; from the sources,
// started through tsx by the pool's bootstrap.
import { parentPort } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import { decodeNdjson, TooManyRecords } from './decode.ts';
import type { DecodeAnswer, DecodeJob } from './decode-pool.ts';

async function answer(job: DecodeJob): Promise<DecodeAnswer> {
  let text: string;
  try {
    const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
    text = (job.gzip ? gunzipSync(bytes, { maxOutputLength: job.maxInflatedBytes }) : bytes).toString('utf8');
  } catch (error) {
    return { failure: 'gzip', message: (error as Error).message };
  }
  try {
    return { batch: await decodeNdjson(text, job.limit) };
  } catch (error) {
    if (error instanceof TooManyRecords) return { failure: 'too-many', message: error.message };
    return { failure: 'error', message: (error as Error).stack ?? String(error) };
  }
}

// One job at a time: the pool sends the next only when this one answered.
parentPort!.on('message', (job: DecodeJob) => {
  void answer(job).then((result) => parentPort!.postMessage(result));
});
