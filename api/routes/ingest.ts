// POST /api/v1/ingest/events: a batch of wire records as NDJSON (optionally gzip) or a JSON array.
// Any authenticated user may send their own events: the user and organization come from the credential,
// never from the body. Bad records are rejected with their index and reason; the good ones are stored.
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, badRequest } from '../../common/errors.ts';
import { WireRecord, describeZodError, type IngestResponse } from '../../common/wire.ts';
import type { Principal } from '../store/accounts.ts';
import type { IngestStore } from '../store/ingest.ts';

const gunzipAsync = promisify(gunzip);

/** Largest request body as sent (compressed) and once decompressed. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;
export const MAX_RECORDS = 100_000;

export interface IngestDeps {
  ingest: IngestStore;
  authenticate: (request: FastifyRequest) => Promise<Principal>;
}

/** Pure: validates each record; returns the good ones and the rejections by index. */
export function validateRecords(items: unknown[]): { records: WireRecord[]; rejected: IngestResponse['rejected'] } {
  const records: WireRecord[] = [];
  const rejected: IngestResponse['rejected'] = [];
  items.forEach((item, index) => {
    const parsed = WireRecord.safeParse(item);
    if (parsed.success) records.push(parsed.data);
    else {
      const id = (item as { id?: unknown } | null)?.id;
      rejected.push({ index, ...(typeof id === 'string' ? { id: id.slice(0, 256) } : {}), reason: describeZodError(parsed.error) });
    }
  });
  return { records, rejected };
}

/** Pure: NDJSON text → items; a line that is not JSON becomes a marker that validation rejects. */
export function parseNdjson(text: string): unknown[] {
  const items: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      items.push(JSON.parse(line));
    } catch {
      items.push({ __invalid_json__: line.slice(0, 80) });
    }
  }
  return items;
}

export function registerIngestRoutes(app: FastifyInstance, deps: IngestDeps): void {
  app.addContentTypeParser('application/x-ndjson', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, async (request: FastifyRequest, body: Buffer) => {
    let raw = body;
    const encoding = request.headers['content-encoding'];
    if (encoding === 'gzip') {
      try {
        raw = await gunzipAsync(body, { maxOutputLength: MAX_INFLATED_BYTES });
      } catch (error) {
        throw new HttpError(400, `gzip body could not be decompressed: ${(error as Error).message}`);
      }
    } else if (encoding && encoding !== 'identity') {
      throw new HttpError(415, `Content-Encoding ${encoding} is not supported (use gzip or none)`);
    }
    return parseNdjson(raw.toString('utf8'));
  });

  app.post('/api/v1/ingest/events', { bodyLimit: MAX_BODY_BYTES }, async (request, reply) => {
    const principal = await deps.authenticate(request);
    const body = request.body;
    const items = Array.isArray(body) ? body : body && typeof body === 'object' && Array.isArray((body as { records?: unknown }).records) ? (body as { records: unknown[] }).records : undefined;
    if (!items) throw badRequest('body must be NDJSON (application/x-ndjson) or a JSON array of records');
    if (items.length > MAX_RECORDS) throw badRequest(`a batch holds at most ${MAX_RECORDS} records; this one has ${items.length}`);
    const { records, rejected } = validateRecords(items);
    const result = records.length ? await deps.ingest.store(principal.orgId, principal.userId, records) : { stored: 0, duplicates: 0 };
    request.log.info({ user: principal.userId, received: items.length, stored: result.stored, duplicates: result.duplicates, rejected: rejected.length }, 'ingest batch');
    const response: IngestResponse = { received: items.length, stored: result.stored, duplicates: result.duplicates, rejected };
    return reply.status(200).send(response);
  });
}
