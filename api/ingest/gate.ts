// Who may send records now, before a request's body is read and after it is decoded: the per-user volume
// quota (records and bytes of records a window, 429), the requests in progress per user and per
// organization (429) and on the server (503), and the rate a body must arrive at (408, the connection
// closed). One gate serves every route that stores records (the ingest route and the OTLP route), so a
// user's records count against one quota whichever way they come. Limits: api/ingest/limits.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../../common/errors.ts';
import type { Principal } from '../auth/principal.ts';
import { errorBody } from '../http/errors.ts';
import { DEFAULT_INGEST_LIMITS, IngestAdmission, type IngestLimits, VolumeQuota } from './limits.ts';

/**
 * A 408 with the documented body, written on the connection while the body is still arriving, which is
 * then closed: what was sent of the body is not read.
 */
function answerTimeout(request: FastifyRequest, reply: FastifyReply, detail: string): void {
  const raw = reply.raw;
  const socket = request.raw.socket;
  if (raw.headersSent || !socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(408, `the request ${detail}; send the batch again`, String(request.id)));
  raw.writeHead(408, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': String(request.id),
    connection: 'close',
  });
  raw.end(body, () => socket.destroy());
}

/**
 * What a request counts against: its user, whichever key, JWT or session it came with (a user can mint
 * collector keys at will, so counting per key would not bound them).
 */
const admissionKey = (principal: Principal) => `${principal.orgId}/${principal.userId}`;

export class IngestGate {
  readonly limits: IngestLimits;
  private readonly admission: IngestAdmission;
  private readonly quota: VolumeQuota;

  constructor(limits: Partial<IngestLimits> = {}) {
    this.limits = { ...DEFAULT_INGEST_LIMITS, ...limits };
    this.admission = new IngestAdmission(this.limits);
    this.quota = new VolumeQuota(this.limits);
  }

  /**
   * Before the body is read (authentication ran in onRequest and put the principal on the request):
   * admits the request or refuses it with 429/503, then watches its body arrive. A body slower than
   * minBodyBytesPerWindow in any bodyRateWindowMs, or not whole within bodyDeadlineMs, is answered 408
   * and its connection closed, which frees its place at once. The watch reads the socket's byte count
   * once a window: nothing is done per chunk.
   */
  readonly admit = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = request.principal;
    if (!principal) throw unauthorized('API key missing or invalid');
    const key = admissionKey(principal);
    this.quota.check(key);
    const release = this.admission.acquire(principal.orgId, key);
    const socket = request.raw.socket;
    let seen = socket.bytesRead;
    const stop = () => {
      clearTimeout(deadline);
      clearInterval(watch);
    };
    const tooSlow = (detail: string) => {
      stop();
      request.log.warn({ user: principal.userId, org: principal.orgId, received: socket.bytesRead - seen }, `ingest ${detail}: 408`);
      answerTimeout(request, reply, detail);
      release();
    };
    const deadline = setTimeout(
      () => tooSlow(`body not received within ${this.limits.bodyDeadlineMs / 1000} s`),
      this.limits.bodyDeadlineMs,
    );
    const watch = setInterval(() => {
      if (request.raw.complete) return stop();
      const now = socket.bytesRead;
      if (now - seen < this.limits.minBodyBytesPerWindow)
        return tooSlow(
          `body arriving too slowly: ${now - seen} bytes in the last ${this.limits.bodyRateWindowMs / 1000} s (at least ${this.limits.minBodyBytesPerWindow})`,
        );
      seen = now;
    }, this.limits.bodyRateWindowMs);
    deadline.unref();
    watch.unref();
    request.raw.once('end', stop);
    // The answer is sent or the connection is gone: the admission ends either way.
    reply.raw.once('close', () => {
      stop();
      release();
    });
  };

  /** Counts a decoded request's records and their bytes (what is stored) against its user's quota. */
  charge(principal: Principal, records: number, bytes: number): void {
    this.quota.charge(admissionKey(principal), records, bytes);
  }
}
