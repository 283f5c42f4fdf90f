// POST /api/v1/ingest/events: the request bodies the route documents and its Content-Encoding header.
// The record itself (WireRecord), the answer (IngestResponse) and the path (INGEST_PATH) are in
// common/wire.ts, because the collector that sends them shares them. The route never parses its body
// with these schemas on the event loop: decode.ts validates each record with WireRecord, on a worker.
import { z } from 'zod';
import { WireRecord } from '../../common/wire.ts';

/** An NDJSON body: a JSON Schema, since zod has no way to say "one record per line". */
export const NdjsonBody = {
  type: 'string',
  description: 'One wire record (see the JSON body) per line; Content-Encoding: gzip is accepted.',
};

/** A JSON body: an array of records, or an object holding them under `records`. */
export const JsonBody = z.union([z.array(WireRecord), z.strictObject({ records: z.array(WireRecord) })]);

/** The header that says whether the body is gzip (any other encoding is a 415). */
export const ContentEncodingHeader = {
  name: 'Content-Encoding',
  description: 'gzip or identity',
  schema: { type: 'string', enum: ['gzip', 'identity'] },
};
