// The server's OTLP/HTTP routes (schema.ts): the body is decoded and mapped exactly as the collector's
// receiver does (common/otel/), and the facts stored like a collector's batch (api/ingest/store.ts) for
// the key's user and organization: identity attributes in the request are never read. The key must be a
// collector key or a personal key (a JWT or the dashboard's session is refused like on ingest: access
// collectorKey). A decision's id is the request's digest and its position, so an exporter's retry of the
// same request counts once. A request passes the same gate as an ingest request (api/ingest/gate.ts): its
// user's quota (charged with the records it maps to), the requests in progress, the body's arrival rate.
// What it cannot store (a token count of 1e12, a negative count, an id another user sent) is answered as
// OTLP's partial success, in the request's encoding: how many data points, log records or spans, and why.
// A refused protobuf request gets a protobuf google.rpc.Status (OTLP/HTTP "Failures"), a JSON one the
// server's error body.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { badRequest, HttpError } from '../../common/errors.ts';
import { CumulativeTotals, factRecord, mapSignals, refusalMessage } from '../../common/otel/map.ts';
import {
  boundMessage,
  decodeOtlp,
  encodingOf,
  exportResponse,
  OtlpDecodeError,
  type OtlpSignal,
  statusProtobuf,
} from '../../common/otel/otlp.ts';
import { MAX_BATCH_RECORDS, type WireRecord } from '../../common/wire.ts';
import type { Principal } from '../auth/principal.ts';
import { ErrorBodySchema } from '../http/errors.ts';
import { decodeItems, storedBytes } from '../ingest/decode.ts';
import type { IngestGate } from '../ingest/gate.ts';
import { tooLarge } from '../ingest/limits.ts';
import { ContentEncodingHeader } from '../ingest/schema.ts';
import type { IngestStore } from '../ingest/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import { JsonBody, MAX_OTLP_BODY_BYTES, MAX_OTLP_INFLATED_BYTES, OTLP_SIGNALS, OtlpJsonAnswer, otlpPath, ProtobufBody } from './schema.ts';

const gunzipAsync = promisify(gunzip);

export interface OtlpDeps {
  ingest: IngestStore;
  /** Where each user's cumulative totals are kept between restarts (migration 098). */
  db: Db;
  /** The ingest route's gate: one quota and one count of requests in progress for both. */
  gate: IngestGate;
  /** Told of every stored request (today's figures and alerts). */
  onStored?: (principal: Principal, request: FastifyRequest) => void;
  now?: () => number;
}

class OtlpBody {
  constructor(
    readonly bytes: Buffer,
    readonly type: string | undefined,
    readonly encoding: string | undefined,
  ) {}
}

/** Running totals of cumulative counters, per user (bounded), since a collector-less agent may export them. */
/** Why a request of another Content-Type, or none, is refused (415). */
const OTLP_TYPES = 'Content-Type must be application/x-protobuf or application/json (OTLP/HTTP)';

const MAX_USERS = 10_000;
const MAX_SERIES = 5_000;

const TOTALS_SQL = {
  load: 'SELECT totals FROM otlp_cumulative WHERE org_id = $org AND user_id = $user',
  // Only while the user is there: a request stored just before their removal saves nothing after it.
  save: `INSERT OR REPLACE INTO otlp_cumulative (org_id, user_id, totals)
    SELECT $org, $user, $totals WHERE EXISTS (SELECT 1 FROM users WHERE org_id = $org AND id = $user)`,
} as const;
const SavedTotals = z.array(z.tuple([z.string(), z.object({ startMs: z.number(), value: z.number(), timeMs: z.number().optional() })]));

export function registerOtlpRoutes(app: FastifyInstance, deps: OtlpDeps): void {
  // A user's totals in memory, read from the database at their first request after a start.
  const totals = new Map<string, CumulativeTotals>();
  const totalsOf = async (principal: Principal): Promise<CumulativeTotals> => {
    const key = `${principal.orgId}/${principal.userId}`;
    let t = totals.get(key);
    if (!t) {
      const [row] = await deps.db.all<{ totals: string }>(TOTALS_SQL.load, { org: principal.orgId, user: principal.userId });
      let saved: z.infer<typeof SavedTotals> = [];
      try {
        saved = row ? SavedTotals.parse(JSON.parse(row.totals)) : [];
      } catch {
        // Unreadable (it never should be): start afresh, as before the totals were kept.
      }
      if (totals.size >= MAX_USERS) totals.delete(totals.keys().next().value!);
      t = new CumulativeTotals(saved, MAX_SERIES);
      totals.set(key, t);
    }
    return t;
  };
  /** Saves the totals the stored facts were counted from, so a restart counts the next export from them. */
  const saveTotals = async (principal: Principal, t: CumulativeTotals) => {
    if (!t.changed) return;
    await deps.db.run(TOTALS_SQL.save, { org: principal.orgId, user: principal.userId, totals: JSON.stringify(t.entries()) });
    t.changed = false;
  };

  app.register(async (scope) => {
    scope.removeContentTypeParser(['application/json']);
    scope.addContentTypeParser(
      ['application/x-protobuf', 'application/protobuf', 'application/json'],
      { parseAs: 'buffer', bodyLimit: MAX_OTLP_BODY_BYTES },
      async (request: FastifyRequest, body: Buffer) =>
        new OtlpBody(body, request.headers['content-type'], request.headers['content-encoding'] as string | undefined),
    );
    // Any other type is taken as no body, which the route answers 415 with what it takes (OTLP/HTTP).
    scope.addContentTypeParser('*', { bodyLimit: MAX_OTLP_BODY_BYTES }, (_request, _payload, done) => done(null, undefined));
    // A refused protobuf request is answered as OTLP/HTTP says, in its own encoding: a protobuf
    // google.rpc.Status whose message is the error body's detail (a protobuf exporter reads no JSON). The
    // error handler (api/http/errors.ts) still chose the status, detail, headers and log line.
    scope.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode < 400 || encodingOf(request.headers['content-type']) !== 'protobuf' || typeof payload !== 'string')
        return payload;
      const parsed = ErrorBodySchema.safeParse(JSON.parse(payload));
      if (!parsed.success) return payload;
      reply.header('content-type', 'application/x-protobuf');
      return statusProtobuf(parsed.data.status, parsed.data.detail);
    });

    for (const signal of OTLP_SIGNALS)
      declareRoute(
        scope,
        {
          method: 'POST',
          path: otlpPath(signal),
          tag: 'OpenTelemetry',
          summary: `Take an agent's OpenTelemetry ${signal} (OTLP/HTTP, protobuf or JSON)`,
          description:
            "For agents that run where no collector is (docs/metrics.md §11): edit decisions and, for sessions whose agent keeps no usage files, token usage are stored for the key's user; every other signal is counted and dropped, and identity attributes in the request are never read. At most 4 MiB as sent, 16 MiB unzipped and 10,000 records (413). The records a request maps to count against its user's ingest quota, and the requests in progress are limited as on ingest (429 or 503 with Retry-After; 408 for a body too slow: docs/ingest-limits.md). The answer is an Export*ServiceResponse in the request's encoding: empty when all was taken; its partial success (how many data points, log records or spans were refused, and why) when a fact cannot be stored, such as a token count over 10,000,000,000 or a negative count. A refused request is answered with the error body in JSON, or, to a protobuf request, with a protobuf google.rpc.Status (code: the google.rpc.Code of the HTTP status, such as 3 INVALID_ARGUMENT for 400 or 8 RESOURCE_EXHAUSTED for 413 and 429; message: the detail).",
          access: { kind: 'user', collectorKey: true },
          bodyContent: { 'application/x-protobuf': { schema: ProtobufBody }, 'application/json': { schema: JsonBody } },
          headers: [ContentEncodingHeader],
          responses: {
            200: OtlpJsonAnswer,
          },
          errors: [408, 429, 503],
          options: { bodyLimit: MAX_OTLP_BODY_BYTES, preParsing: [deps.gate.admit] },
        },
        async ({ principal }, request, reply) => {
          const body = request.body;
          const encoding = body instanceof OtlpBody ? encodingOf(body.type) : undefined;
          if (!(body instanceof OtlpBody) || !encoding) throw new HttpError(415, OTLP_TYPES);
          const bytes = await inflate(body);
          const answer = await store(signal, encoding, bytes, principal, request);
          if (encoding === 'json') return answer.json;
          reply.header('content-type', answer.type).send(answer.body);
          return reply;
        },
      );
  });

  async function inflate(body: OtlpBody): Promise<Buffer> {
    const coding = (body.encoding ?? 'identity').trim().toLowerCase();
    if (coding === 'identity' || coding === '') return body.bytes;
    if (coding !== 'gzip') throw new HttpError(415, `Content-Encoding ${coding} is not supported (use gzip or none)`);
    try {
      return await gunzipAsync(body.bytes, { maxOutputLength: MAX_OTLP_INFLATED_BYTES });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        throw tooLarge(`the body inflates past ${MAX_OTLP_INFLATED_BYTES} bytes`);
      throw badRequest('gzip body could not be decompressed');
    }
  }

  async function store(
    signal: OtlpSignal,
    encoding: 'protobuf' | 'json',
    bytes: Buffer,
    principal: Principal,
    request: FastifyRequest,
  ): Promise<ReturnType<typeof exportResponse>> {
    let decoded: ReturnType<typeof decodeOtlp>;
    try {
      decoded = decodeOtlp(signal, encoding, bytes);
    } catch (error) {
      if (error instanceof OtlpDecodeError) throw badRequest(error.message);
      throw error;
    }
    const now = (deps.now ?? Date.now)();
    const userTotals = await totalsOf(principal);
    const mapped = mapSignals(decoded.signals, userTotals, now);
    const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
    const records: WireRecord[] = [...mapped.facts].flatMap(([agent, facts]) =>
      facts.map((fact, i) => factRecord(fact, agent, `otlp.${signal}.${digest}.${agent}.${i}`)),
    );
    const unmapped = [...mapped.unmapped.values(), ...decoded.unreadable.values()].reduce((a, b) => a + b, 0);
    // The mapping refused what the wire format cannot hold (common/otel/map.ts); the store may still refuse a
    // record (an id another user sent).
    const reasons = mapped.refused.length ? [refusalMessage(mapped.refused)] : [];
    let storeRefused = 0;
    try {
      if (records.length > MAX_BATCH_RECORDS) throw tooLarge(`a request maps to at most ${MAX_BATCH_RECORDS} records; this one to more`);
      if (records.length) {
        const batch = await decodeItems(records, MAX_BATCH_RECORDS);
        deps.gate.charge(principal, batch.received, storedBytes(batch));
        const result = await deps.ingest.store(principal.orgId, principal.userId, batch);
        storeRefused = batch.rejected.length + result.refused.length;
        if (storeRefused) reasons.push(`${storeRefused} refused by the store: ${[...batch.rejected, ...result.refused][0]!.reason}`);
        deps.onStored?.(principal, request);
      }
    } catch (error) {
      // Not stored, so not counted: the agent's next export of these running totals counts them.
      userTotals.restore(mapped.undo);
      throw error;
    }
    await saveTotals(principal, userTotals);
    const rejected = mapped.refused.length + storeRefused;
    // Bounded here, not only in the answer: the log line carries it too.
    const errorMessage = boundMessage(reasons.join('; '));
    request.log.info(
      { user: principal.userId, signal, facts: records.length, rejected, unmapped, reason: errorMessage || undefined },
      'otlp request',
    );
    return exportResponse(signal, encoding, rejected, errorMessage);
  }
}
