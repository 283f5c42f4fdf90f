// GET /healthz: liveness for a load balancer or an orchestrator, public (a probe holds no key). It answers
// only when the database does, so a server whose database is gone is restarted rather than kept in
// rotation. Its own feature, apart from /metrics: that one is off by default, behind its own token, and
// for a scraper; this one is always on, for anyone.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { declareRoute } from '../openapi/declare.ts';
import { HEALTHZ_PATH, Liveness } from './schema.ts';
import { pingDatabase } from './store.ts';

export function registerLivenessRoutes(app: FastifyInstance, deps: { db: Db }): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: HEALTHZ_PATH,
      freshness: 'live',
      tag: 'Operations',
      summary: 'Liveness: the server answers and its database responds',
      access: { kind: 'none' },
      responses: { 200: Liveness },
    },
    async (): Promise<Liveness> => {
      await pingDatabase(deps.db);
      return { status: 'ok' };
    },
  );
}
