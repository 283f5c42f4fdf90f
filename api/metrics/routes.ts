// GET /metrics (the server's metrics.ts registry in the Prometheus text format) and the hooks that feed
// it from every request. Off unless the server has a metrics token, and open to that token only.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, unauthorized } from '../../common/errors.ts';
import { INGEST_PATH } from '../../common/wire.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { ServerMetrics } from './metrics.ts';
import { METRICS_PATH, MetricsText } from './schema.ts';

/** Equal in constant time (for equal lengths; a length mismatch answers at once and says only that). */
function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics and the hooks that feed the metrics. Without a token the route answers 404 like any
 * unknown path (the hooks still count, at no cost worth a switch). API keys never grant it: only the
 * metrics token does.
 */
export function registerMetricsRoutes(app: FastifyInstance, metrics: ServerMetrics, token: string | undefined): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    metrics.request(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // The ingest answer is small JSON (counts and the rejected list): read on its way out, so the ingest
  // route needs no knowledge of metrics.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.routeOptions.url === INGEST_PATH && request.method === 'POST') {
      let body: unknown;
      try {
        body = typeof payload === 'string' ? JSON.parse(payload) : undefined;
      } catch {
        body = undefined;
      }
      metrics.ingestAnswered(reply.statusCode, body);
    }
    done(null, payload);
  });

  declareRoute(
    app,
    {
      method: 'GET',
      path: METRICS_PATH,
      freshness: 'live',
      tag: 'Operations',
      summary: 'Server metrics in the Prometheus text format',
      description: 'Off (404) unless the server runs with --metrics-token or AGENTMETER_METRICS_TOKEN; API keys never grant it.',
      access: { kind: 'metrics' },
      responses: { 200: MetricsText },
      errors: [404],
    },
    async (_input, request, reply) => {
      if (!token) throw new HttpError(404, `No route GET ${METRICS_PATH} (metrics are off: serve --metrics-token turns them on)`);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match || !sameToken(match[1]!, token)) {
        throw unauthorized('The metrics endpoint takes its own token: "Authorization: Bearer <metrics token>"');
      }
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
}
