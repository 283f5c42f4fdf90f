// The Fastify instance every feature registers on: pino request logs without codes or tokens, request ids,
// the body cap, request timeouts, the documented error body, and the headers every answer carries
// (request id, cache policy, and `connection: close` once the server is closing).

import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { newRequestId } from '../../common/ids.ts';
import { checkAnswers } from '../openapi/declare.ts';
import { trackRoutes } from '../openapi/registry.ts';
import type { ServerOptions } from '../options.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './errors.ts';
import { requestSerializer } from './request-log.ts';

/** Requests that change nothing: their authenticated answers are `private`; every other is `no-store`. */
const READ_METHODS = new Set(['GET', 'HEAD']);
/** Longest a client may take to send one whole request (the ingest body has its own, shorter, deadline). */
export const REQUEST_TIMEOUT_MS = 60_000;
export const CONNECTIONS_CHECK_MS = 5_000;

export function createApp(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    // Typed as Fastify's base logger so the instance is the plain FastifyInstance the routes take.
    // Its request lines never hold an OAuth code, a state or a token from a query (request-log.ts).
    loggerInstance: options.log.child({}, { serializers: { req: requestSerializer } }) as FastifyBaseLogger,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    trustProxy: options.trustProxy ?? false,
    // JSON bodies are parsed on the event loop: 1 MiB is a few milliseconds of it. Routes that take more
    // say so (docs/ingest-limits.md lists them); ingest bodies are never parsed on the loop.
    bodyLimit: 1024 * 1024,
    requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    // Given to Node's constructor as well: Node 20 reads requestTimeout there, not when set afterwards.
    http: {
      requestTimeout: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: options.connectionsCheckMs ?? CONNECTIONS_CHECK_MS,
    },
    // Errors met before a route runs answer with the documented body too (api/http/errors.ts).
    frameworkErrors,
    clientErrorHandler: clientErrorHandler(options.log),
  });
  installErrorHandling(app);
  if (options.checkAnswers) checkAnswers(app);
  // Before any route: the OpenAPI test compares what is registered with the document.
  trackRoutes(app);
  return app;
}

/** The headers every answer carries; registered after the metrics and OpenAPI routes, as they always were. */
export function installAnswerHeaders(app: FastifyInstance): void {
  // Once close() has begun, every answer ends its connection: a kept-alive client would otherwise hold the
  // shutdown for the whole grace period after its last answer (Fastify closes only connections idle then).
  let draining = false;
  app.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  // A callback hook, not an async one: it runs on every response, and needs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', String(request.id));
    if (draining) void reply.header('connection', 'close');
    // An answer to a credential is no shared cache's to keep (private); one to a change (POST, PUT, PATCH,
    // DELETE), which is where keys and tokens are handed out, nobody's to store (no-store). Public routes
    // and routes that chose their own policy (sign-in, the dashboard's files) keep theirs.
    if (request.routeOptions.url !== undefined && request.routeOptions.config.public !== true && !reply.hasHeader('cache-control'))
      void reply.header('cache-control', READ_METHODS.has(request.method) ? 'private' : 'no-store');
    done(null, payload);
  });
}
