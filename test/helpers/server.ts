// An in-process server on a real temporary DuckDB file, with accounts seeded through the real store.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Role } from '../../api/auth/principal.ts';
import type { AlertOptions } from '../../api/budgets/alerts.ts';
import { buildServer, type Services } from '../../api/server.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from './tmp.ts';

export const JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

export interface TestServer {
  app: FastifyInstance;
  db: Db;
  services: Services;
  /** Creates an org with one user per role; returns their keys. */
  seedOrg(name?: string): Promise<{ orgId: string; users: Record<Role, { id: string; key: string }> }>;
  close(): Promise<void>;
}

export async function testServer(
  options: {
    now?: () => Date;
    decodeWorkers?: number;
    metricsToken?: string;
    jwtMaxLifetimeSeconds?: number;
    laptopDist?: string;
    publicUrl?: string;
    trustProxy?: string;
    alerts?: AlertOptions;
    /** The database file (default: a new one in a temporary folder); a second server on it is a restart. */
    dbPath?: string;
  } = {},
): Promise<TestServer> {
  const db = await openDb(options.dbPath ?? join(tempDir(), 'test.duckdb'));
  const log = createLogger({ name: 'test', level: 'silent' });
  const { app, services } = await buildServer({
    db,
    log,
    jwtSecret: JWT_SECRET,
    decodeWorkers: options.decodeWorkers,
    metricsToken: options.metricsToken,
    jwtMaxLifetimeSeconds: options.jwtMaxLifetimeSeconds,
    trustProxy: options.trustProxy,
    laptopDist: options.laptopDist,
    publicUrl: options.publicUrl,
    alerts: options.alerts,
    // Every answer of a declared route is checked against its declared schema (a mismatch is a 500).
    checkAnswers: true,
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    app,
    db,
    services,
    async seedOrg(name = 'Org') {
      const org = await services.accounts.createOrg(name);
      const users = {} as Record<Role, { id: string; key: string }>;
      for (const role of ['owner', 'manager', 'member', 'guest'] as const) {
        const user = await services.accounts.createUser({
          orgId: org.id,
          email: `${role}@${name.toLowerCase().replace(/\W/g, '')}.example.com`,
          role,
        });
        users[role] = { id: user.id, key: (await services.accounts.createKey(user)).key };
      }
      return { orgId: org.id, users };
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** A registered path with every parameter filled by an id that exists nowhere (a 404 past the checks before it). */
export const pathWithUnknownIds = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, 'no-such-$1');
export const ndjson = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
export const gzipNdjson = (records: unknown[]) => gzipSync(ndjson(records));

/** Posts `records` to the ingest route with `key`, gzip NDJSON as a collector sends them: the answer. */
export const postRecords = (server: Pick<TestServer, 'app'>, key: string, records: unknown[]) =>
  server.app.inject({
    method: 'POST',
    url: '/api/v1/ingest/events',
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });

/** The body of the answer to a GET of `url` with `key`, which must be a 200. */
export async function getOk(server: Pick<TestServer, 'app'>, key: string, url: string) {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The body of the answer to a PUT of `payload` (JSON) to `url` with `key`, which must be a 200. */
export async function putOk(server: Pick<TestServer, 'app'>, key: string, url: string, payload: object) {
  const res = await server.app.inject({ method: 'PUT', url, headers: bearer(key), payload });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
