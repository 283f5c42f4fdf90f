// Ships a batch to the server: gzip NDJSON over HTTP, with exponential backoff and full jitter while the
// server is unreachable or busy. Delivery is at least once: the caller removes spool files only after the
// server's acknowledgement, and the server ignores ids it already has.
import { gzipSync } from 'node:zlib';
import { errorDetail } from '../common/http.ts';
import { VERSION } from '../common/version.ts';
import { INGEST_PATH, IngestResponse, type WireRecord } from '../common/wire.ts';

/** Tells the server which collector version ships, for the dashboard's pipeline page. */
export const COLLECTOR_USER_AGENT = `agentmeter-collector/${VERSION}`;
/** The machine id (random, the prefix of every event id it ships), so the server can name the collector's machine. */
export const MACHINE_HEADER = 'x-agentmeter-machine';

export class ShipError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The server is busy (429, or 503 with Retry-After) and said to wait this long before trying again. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** The server asked to be tried again later: the batch is not at fault, and is sent again whole. */
  get busy(): boolean {
    return this.retryAfterMs !== undefined;
  }

  /** The server refused the credential (401) or what it may do (403): no retry can succeed, a person must act. */
  get refused(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** What to tell the person when the server refuses the key: the status, and what to do about it. */
export function refusalMessage(status: 401 | 403, detail: string): string {
  return status === 401
    ? `the server refused the API key (401: ${detail}): check --key / AGENTMETER_API_KEY (mistyped, revoked, or for another server); nothing was retried`
    : `the server refused this API key the right to send events (403: ${detail}): use a key of your own user; nothing was retried`;
}

export function encodeBatch(records: readonly WireRecord[]): Buffer {
  let text = '';
  for (const record of records) text += `${JSON.stringify(record)}\n`;
  return gzipSync(text, { level: 1 });
}

/** Longest the collector waits when a busy server asks for more (a wrong clock must not park it for days). */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Pure: a Retry-After header (seconds, or an HTTP date) as milliseconds from `now`, at most
 * MAX_RETRY_AFTER_MS; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** Longest one request may take: a half-open connection must not stall the collector for good. */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * `deadline` is the longest the request may take in ms, or a signal that ends it (tests fire it on an
 * event instead of waiting for a clock).
 */
export async function postBatch(
  server: string,
  apiKey: string,
  body: Buffer,
  signal?: AbortSignal,
  deadline: number | AbortSignal = REQUEST_TIMEOUT_MS,
  machine?: string,
): Promise<IngestResponse> {
  const timeout = typeof deadline === 'number' ? AbortSignal.timeout(deadline) : deadline;
  let response: Response;
  try {
    response = await fetch(new URL(INGEST_PATH, server), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/x-ndjson',
        'content-encoding': 'gzip',
        'user-agent': COLLECTOR_USER_AGENT,
        ...(machine ? { [MACHINE_HEADER]: machine } : {}),
      },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    throw new ShipError(`server unreachable: ${(error as Error).message}`, true);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new ShipError(`server answer cut short: ${(error as Error).message}`, true, response.status);
  }
  if (!response.ok) {
    const detail = errorDetail(text);
    // 401/403 need a person (a revoked key); 413 would repeat forever (the collector sends it again in
    // halves, collector/narrow.ts): none of them is retried blindly.
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    if (response.status === 401 || response.status === 403)
      throw new ShipError(refusalMessage(response.status, detail), false, response.status);
    // Busy: a 429, or a 503 that says when to come back (a 503 without it may be the batch's fault).
    const wait = response.status === 429 || response.status === 503 ? retryAfterMs(response.headers.get('retry-after')) : undefined;
    const busy = wait ?? (response.status === 429 ? 1000 : undefined);
    throw new ShipError(`server answered ${response.status}: ${detail}`, retryable, response.status, busy);
  }
  const parsed = IngestResponse.safeParse(JSON.parse(text));
  if (!parsed.success) throw new ShipError('server answered with an unexpected body', true, response.status);
  return parsed.data;
}
