// The one place where errors become the documented body {title, detail, status, requestId}; the same
// requestId is on the request's log lines. This covers errors thrown by routes, Fastify's own errors
// (bad JSON, a bad URL encoding, a path parameter over maxParamLength, unknown routes) and the errors
// Node's HTTP parser meets before Fastify sees a request (headers too large: 431; malformed: 400).
// A detail never echoes a long input: any run over MAX_ECHO characters is cut (boundDetail).

import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { HttpError } from '../../common/errors.ts';
import { newRequestId } from '../../common/ids.ts';
import type { Logger } from '../../common/logger.ts';
import { describeZodError } from '../../common/wire.ts';

export interface ErrorBody {
  title: string;
  detail: string;
  status: number;
  requestId: string;
}

export const ErrorBodySchema = z.strictObject({ title: z.string(), detail: z.string(), status: z.number(), requestId: z.string() });

/** The longest piece of input a detail may repeat, and the longest detail. */
export const MAX_ECHO = 100;
const MAX_DETAIL = 1000;
const LONG_RUN = new RegExp(`\\S{${MAX_ECHO + 1},}`, 'g');

const shorten = (text: string) => `${text.slice(0, 40)}… (${text.length} characters)`;

/**
 * A detail safe to send: each of the request's own strings longer than MAX_ECHO that the detail repeats
 * (a query value with spaces, a body field), then every remaining run of non-space characters longer than
 * MAX_ECHO (a URL, an id), keeps its first 40 characters and says how long it was; the whole is at most
 * MAX_DETAIL.
 */
export function boundDetail(detail: string, inputs: Iterable<string> = []): string {
  let cut = detail;
  for (const input of inputs) if (input.length > MAX_ECHO && cut.includes(input)) cut = cut.replaceAll(input, shorten(input));
  cut = cut.replace(LONG_RUN, shorten);
  return cut.length > MAX_DETAIL ? `${cut.slice(0, MAX_DETAIL - 1)}…` : cut;
}

/** The request's strings longer than MAX_ECHO: URL, query and path values, headers, body keys and values. */
function* longInputs(request: FastifyRequest): Generator<string> {
  const stack: unknown[] = [request.url, request.query, request.params, request.headers, request.body];
  // Bounded: an error path must not walk a 16 MB body for long.
  for (let seen = 0; stack.length > 0 && seen < 10_000; seen++) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.length > MAX_ECHO) yield node;
    } else if (node !== null && typeof node === 'object' && !ArrayBuffer.isView(node)) {
      // Bytes (a body read as a buffer) hold no string, and listing their entries would cost one per byte.
      for (const [key, value] of Object.entries(node)) stack.push(key, value);
    }
  }
}

/** Whether the request declared a body that has not been received whole (the answer comes before it). */
function bodyStillArriving(request: FastifyRequest): boolean {
  if (request.raw.complete !== false) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function errorBody(status: number, detail: string, requestId: string): ErrorBody {
  return { title: new HttpError(status, '').title, detail: boundDetail(detail), status, requestId };
}

/** Fastify's errors raised before routing (Fastify's frameworkErrors option): a bad URL, a path parameter too long. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const detail =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'a path parameter is longer than 100 characters'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'the URL is not valid: a percent-encoding does not decode to UTF-8'
        : 'the request could not be routed';
  request.log.info({ status: 400, code: error.code }, 'request refused');
  void reply
    .status(400)
    .header('x-request-id', String(request.id))
    .send(errorBody(400, detail, String(request.id)));
}

/**
 * Node's clientError (Fastify's clientErrorHandler option): the request never reached Fastify, so the
 * answer is written on the socket, then the connection is closed (its framing may be lost).
 */
export function clientErrorHandler(log: Logger) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const detail =
      status === 431
        ? 'the request headers are larger than the server accepts (16 KB in all)'
        : status === 408
          ? 'the request was not received in time'
          : 'the request is not valid HTTP/1.1';
    const requestId = newRequestId();
    log.info({ status, code: error.code, reqId: requestId }, 'request refused by the HTTP parser');
    if (socket.writable) {
      const body = JSON.stringify(errorBody(status, detail, requestId));
      socket.write(
        `HTTP/1.1 ${status} ${new HttpError(status, '').title}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError | z.ZodError | Error, request, reply) => {
    let status = 500;
    let detail = 'An internal error occurred; the request id identifies it in the server log.';
    if (error instanceof HttpError) {
      status = error.status;
      detail = error.message;
    } else if (error instanceof z.ZodError) {
      status = 400;
      detail = describeZodError(error);
    } else if ('statusCode' in error && typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own client errors: body too large, bad JSON, unsupported media type.
      status = error.statusCode;
      detail = error.message;
    }
    if (status < 500) detail = boundDetail(detail, longInputs(request));
    // A deliberate "come back later" (429, or a 503 when the server is busy) says when.
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    // A refused credential gets no kept-alive connection to hold on to (by dribbling a body, say), and
    // neither does a request refused before its body arrived whole (an ingest 429/503): the rest of it
    // is not read.
    if (status === 401 || status === 403 || bodyStillArriving(request)) void reply.header('connection', 'close');
    if (status >= 500 && typeof retryAfter !== 'number') request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, detail }, 'request refused');
    void reply.status(status).send(errorBody(status, detail, String(request.id)));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(404, `No route ${request.method} ${request.url.split('?')[0]}`, String(request.id)));
  });
}
