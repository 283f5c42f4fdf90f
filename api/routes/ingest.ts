// POST /api/v1/ingest/events: a batch of wire records as NDJSON (optionally gzip) or a JSON array.
// Any authenticated user may send their own events: the user and organization come from the credential,
// never from the body. Bad records are rejected with their index and reason; the good ones are stored.
// A record whose id another user of the organization already sent is rejected too (api/store/ingest.ts):
// the collector quarantines it like any other.
// A batch the store refuses as a whole although every record passed validation (validation is meant to
// rule that out) is answered 422: nothing of it was stored, and the same batch would fail again, so the
// collector sends it again in halves until it finds the record at fault (collector/narrow.ts).

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, HttpError } from '../../common/errors.ts';
import { INGEST_PATH, type IngestResponse } from '../../common/wire.ts';
import { type DecodedBatch, decodeItems, decodeNdjson, TooManyRecords } from '../ingest/decode.ts';
import type { DecodePool } from '../ingest/decode-pool.ts';
import type { Principal } from '../store/accounts.ts';
import { BatchRefused, type IngestStore } from '../store/ingest.ts';

const gunzipAsync = promisify(gunzip);

/** Largest request body as sent (compressed) and once decompressed. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;
export const MAX_RECORDS = 100_000;

export interface IngestDeps {
  ingest: IngestStore;
  authenticate: (request: FastifyRequest) => Promise<Principal>;
  /** Decodes NDJSON bodies off the event loop; without it they are decoded on the loop. */
  decoders?: DecodePool | undefined;
  /** Told of every stored batch (the dashboard's machines note the collector version). */
  onStored?: (principal: Principal, request: FastifyRequest) => void;
}

/** An NDJSON body as received: decompressed and decoded only once the sender is authenticated. */
class NdjsonBody {
  constructor(
    readonly bytes: Buffer,
    readonly encoding: string | undefined,
  ) {}
}

/** Whether the body is gzip; 415 for any other Content-Encoding. */
function isGzip(body: NdjsonBody): boolean {
  if (body.encoding === 'gzip') return true;
  if (body.encoding && body.encoding !== 'identity')
    throw new HttpError(415, `Content-Encoding ${body.encoding} is not supported (use gzip or none)`);
  return false;
}

const gzipError = (message: string) => new HttpError(400, `gzip body could not be decompressed: ${message}`);

async function decodeOnLoop(body: NdjsonBody): Promise<DecodedBatch> {
  let text: string;
  if (isGzip(body)) {
    try {
      text = (await gunzipAsync(body.bytes, { maxOutputLength: MAX_INFLATED_BYTES })).toString('utf8');
    } catch (error) {
      throw gzipError((error as Error).message);
    }
  } else text = body.bytes.toString('utf8');
  return decodeNdjson(text, MAX_RECORDS);
}

async function decodeOnWorker(pool: DecodePool, body: NdjsonBody): Promise<DecodedBatch> {
  const answer = await pool.decode(body.bytes, isGzip(body), MAX_RECORDS, MAX_INFLATED_BYTES);
  if (answer.failure === undefined) return answer.batch;
  if (answer.failure === 'gzip') throw gzipError(answer.message);
  if (answer.failure === 'too-many') throw new TooManyRecords(MAX_RECORDS);
  throw new Error(`decoding failed: ${answer.message}`);
}

export function registerIngestRoutes(app: FastifyInstance, deps: IngestDeps): void {
  app.addContentTypeParser(
    'application/x-ndjson',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    async (request: FastifyRequest, body: Buffer) => new NdjsonBody(body, request.headers['content-encoding']),
  );

  app.post(INGEST_PATH, { bodyLimit: MAX_BODY_BYTES, config: { collectorKey: true } }, async (request, reply) => {
    const principal = await deps.authenticate(request);
    const body = request.body;
    let batch: DecodedBatch;
    try {
      if (body instanceof NdjsonBody) batch = await (deps.decoders ? decodeOnWorker(deps.decoders, body) : decodeOnLoop(body));
      else {
        const items = Array.isArray(body)
          ? body
          : body && typeof body === 'object' && Array.isArray((body as { records?: unknown }).records)
            ? (body as { records: unknown[] }).records
            : undefined;
        if (!items) throw badRequest('body must be NDJSON (application/x-ndjson) or a JSON array of records');
        batch = await decodeItems(items, MAX_RECORDS);
      }
    } catch (error) {
      if (error instanceof TooManyRecords) throw badRequest(`a batch holds at most ${MAX_RECORDS} records; this one has more`);
      throw error;
    }
    const result = await deps.ingest.store(principal.orgId, principal.userId, batch).catch((error: unknown) => {
      if (!(error instanceof BatchRefused)) throw error;
      request.log.warn({ user: principal.userId, received: batch.received, reason: error.message }, 'ingest batch refused by the store');
      throw new HttpError(422, `the store refused this batch, nothing of it was stored: ${error.message}`);
    });
    deps.onStored?.(principal, request);
    request.log.info(
      {
        user: principal.userId,
        received: batch.received,
        stored: result.stored,
        duplicates: result.duplicates,
        rejected: batch.rejected.length,
        refused: result.refused.length,
      },
      'ingest batch',
    );
    const response: IngestResponse = {
      received: batch.received,
      stored: result.stored,
      duplicates: result.duplicates,
      rejected: result.refused.length ? [...batch.rejected, ...result.refused].sort((a, b) => a.index - b.index) : batch.rejected,
    };
    return reply.status(200).send(response);
  });
}
