// POST /api/v1/ingest/events: a batch of wire records as NDJSON (optionally gzip) or a JSON array.
// Any authenticated user may send their own events: the user and organization come from the credential,
// never from the body. Bad records are rejected with their index and reason; the good ones are stored.
// A record whose id another user of the organization already sent is rejected too (store.ts):
// the collector quarantines it like any other.
// A batch the store refuses as a whole although every record passed validation (validation is meant to
// rule that out) is answered 422: nothing of it was stored, and the same batch would fail again, so the
// collector sends it again in halves until it finds the record at fault (collector/narrow.ts).
//
// What one request may cost is bounded (api/ingest/limits.ts, gate.ts): it is admitted before its body is read
// (429 when its user or organization already has requests in progress or the user is over their
// volume quota, 503 when the server has too many), its body must keep arriving at a minimum rate and
// within a deadline (408 and the connection closed otherwise, which frees its place), it is read as
// bytes whatever its type (NDJSON or a JSON array, decoded on a worker, never parsed on the event
// loop), and inflating stops at a cap (413). Every refusal carries the documented error body; 429/503
// carry Retry-After.

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, HttpError } from '../../common/errors.ts';
import { INGEST_PATH, IngestResponse } from '../../common/wire.ts';
import type { Principal } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { type BodyFormat, type DecodeAnswer, type DecodedBatch, decodeBody, storedBytes } from './decode.ts';
import { type DecodePool, DecodeQueueFull } from './decode-pool.ts';
import type { IngestGate } from './gate.ts';
import { RetryLater, tooLarge } from './limits.ts';
import { ContentEncodingHeader, JsonBody, NdjsonBody } from './schema.ts';
import { BatchRefused, type IngestStore } from './store.ts';

const gunzipAsync = promisify(gunzip);

export interface IngestDeps {
  ingest: IngestStore;
  /** Decodes bodies off the event loop; without it they are decoded on the loop. */
  decoders?: DecodePool | undefined;
  /** Told of every stored batch (the dashboard's machines note the collector version). */
  onStored?: (principal: Principal, request: FastifyRequest) => void;
  /** Who may send now (the quota, the requests in progress), shared with the OTLP route. */
  gate: IngestGate;
}

/** A body as received: decompressed and decoded only once the sender is authenticated and admitted. */
class RawBody {
  constructor(
    readonly bytes: Buffer,
    readonly encoding: string | undefined,
    readonly format: BodyFormat,
  ) {}
}

/** Whether the body is gzip; 415 for any other Content-Encoding. */
function isGzip(body: RawBody): boolean {
  if (body.encoding === 'gzip') return true;
  if (body.encoding && body.encoding !== 'identity')
    throw new HttpError(415, `Content-Encoding ${body.encoding} is not supported (use gzip or none)`);
  return false;
}

/** Bodies this small (as sent) that inflate to at most SMALL_INFLATED_BYTES are decoded on the event loop. */
const SMALL_BODY_BYTES = 32 * 1024;
const SMALL_INFLATED_BYTES = 256 * 1024;

/**
 * The body's bytes, inflated, when it is small enough to decode on the event loop (a millisecond or two),
 * else undefined. A small batch, a collector's usual one, then never waits for a decode worker behind
 * large ones (or bombs). Inflating runs on libuv's threads and stops at SMALL_INFLATED_BYTES; a bad gzip
 * stream is left to the decoder, which says why.
 */
async function smallBody(bytes: Buffer, gzip: boolean): Promise<Buffer | undefined> {
  if (bytes.length > SMALL_BODY_BYTES) return undefined;
  if (!gzip) return bytes;
  try {
    return await gunzipAsync(bytes, { maxOutputLength: SMALL_INFLATED_BYTES });
  } catch {
    return undefined;
  }
}

export function registerIngestRoutes(app: FastifyInstance, deps: IngestDeps): void {
  const { gate } = deps;
  const limits = gate.limits;

  const decode = async (body: RawBody): Promise<DecodedBatch> => {
    const gzip = isGzip(body);
    const decodeLimits = { maxRecords: limits.maxRecords, maxInflatedBytes: limits.maxInflatedBytes };
    let answer: DecodeAnswer;
    try {
      const small = deps.decoders ? await smallBody(body.bytes, gzip) : undefined;
      answer = small
        ? await decodeBody(small, false, body.format, decodeLimits)
        : deps.decoders
          ? await deps.decoders.decode(body.bytes, gzip, body.format, decodeLimits)
          : await decodeBody(body.bytes, gzip, body.format, decodeLimits);
    } catch (error) {
      if (error instanceof DecodeQueueFull)
        throw new RetryLater(
          503,
          `the server is busy decoding other batches; retry after ${limits.retryAfterSeconds} s`,
          limits.retryAfterSeconds,
        );
      throw error;
    }
    switch (answer.failure) {
      case undefined:
        return answer.batch;
      case 'gzip':
        throw badRequest(`gzip body could not be decompressed: ${answer.message}`);
      case 'too-large':
        throw tooLarge(`${answer.message}: send at most ${limits.maxInflatedBytes} bytes of records in one request`);
      case 'too-many':
        throw tooLarge(`a batch holds at most ${limits.maxRecords} records; this one has more`);
      case 'shape':
        throw badRequest(answer.message);
      default:
        throw new Error(`decoding failed: ${answer.message}`);
    }
  };

  // Its own scope, so that its JSON parser (bytes, decoded on a worker) is not the other routes'.
  app.register(async (scope) => {
    scope.removeContentTypeParser(['application/json']);
    scope.addContentTypeParser(
      ['application/x-ndjson', 'application/json'],
      { parseAs: 'buffer', bodyLimit: limits.maxBodyBytes },
      async (request: FastifyRequest, body: Buffer) => {
        const type = String(request.headers['content-type'] ?? '');
        return new RawBody(body, request.headers['content-encoding'], type.startsWith('application/json') ? 'json' : 'ndjson');
      },
    );

    declareRoute(
      scope,
      {
        method: 'POST',
        path: INGEST_PATH,
        tag: 'Ingest',
        summary: 'Store a batch of events, token usage and assistant messages (what the collector sends)',
        description:
          'Bad records are rejected one by one with their index and reason; the good ones are stored. The user and organization come from the credential. At most 10,000 records and 4 MiB as sent; a gzip body inflating past 16 MiB is refused (413) as soon as it does. 429 when the credential’s user already has 4 requests in progress (over all their keys), its organization 6, or the user has sent more than their quota (60,000 records or 64 MiB of records a minute by default), 503 when the server is busy; both carry Retry-After. 408 when the body arrives slower than 16 KiB every 5 s or not within 30 s (docs/ingest-limits.md).',
        access: { kind: 'user', collectorKey: true },
        // The body is read as bytes by the parser above and decoded on a worker, never parsed here.
        bodyContent: { 'application/x-ndjson': { schema: NdjsonBody }, 'application/json': { schema: JsonBody } },
        headers: [ContentEncodingHeader],
        responses: { 200: IngestResponse },
        errors: [408, 429, 503],
        options: { bodyLimit: limits.maxBodyBytes, preParsing: [gate.admit] },
      },
      async ({ principal }, request): Promise<IngestResponse> => {
        const body = request.body;
        if (!(body instanceof RawBody)) throw badRequest('body must be NDJSON (application/x-ndjson) or a JSON array of records');
        const batch = await decode(body);
        // Per request, not per record: the decoded NDJSON's lengths are known already.
        gate.charge(principal, batch.received, storedBytes(batch));
        const result = await deps.ingest.store(principal.orgId, principal.userId, batch).catch((error: unknown) => {
          if (!(error instanceof BatchRefused)) throw error;
          request.log.warn(
            { user: principal.userId, received: batch.received, reason: error.message },
            'ingest batch refused by the store',
          );
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
        return {
          received: batch.received,
          stored: result.stored,
          duplicates: result.duplicates,
          rejected: result.refused.length ? [...batch.rejected, ...result.refused].sort((a, b) => a.index - b.index) : batch.rejected,
        };
      },
    );
  });
}
