// What the OpenAPI document says about one route: who may call it, the zod schemas its handler validates
// with (params, query, body) and the ones that describe its answers. Routes declare it themselves
// (declare.ts); document.ts turns the declarations into OpenAPI 3.1. trackRoutes records what Fastify
// actually registered, declarations included, so a test can fail for a route that has none.
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { CSRF_HEADER } from '../auth/authenticator.ts';
import type { Role } from '../auth/principal.ts';

/** The dashboard header, spelled as documents spell headers (names are case-insensitive). */
export const DASHBOARD_HEADER = CSRF_HEADER.split('-')
  .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
  .join('-');

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How fresh a read route's answer is. Every GET route says it (declareRoute refuses one that does not),
 * and a test server checks that the route answers the way it says:
 * - cached: through the answer cache (api/answers/answer.ts), kept until a change of what it reads
 *   (api/answers/changes.ts says what each change makes stale);
 * - live: built at every request from state that moves without a change the cache hears of: a queue
 *   the computers work through, how long ago something was seen, a run or a delivery under way;
 * - credential: who the caller is, who may do what, and which credentials exist: a revocation or a role
 *   change shows at the very next request, and no answer about them is kept in memory;
 * - setting: a setting, read in order to change it (a few rows, read back right after a write);
 * - static: built from the code and the server's options, not from stored data.
 */
export type Freshness = 'cached' | 'live' | 'credential' | 'setting' | 'static';

/**
 * Who may call the route:
 * - user: an API key or a JWT (Authorization: Bearer), or the dashboard's session cookie, with `roles`
 *   when only some roles may, and `collectorKey` when a collector key may too (the route's
 *   `config.collectorKey`; every other user route answers a collector key 403);
 * - computer: a computer agent's own token (amc_…);
 * - metrics: the metrics token of `serve --metrics-token`;
 * - signin: anyone, with an API key or JWT in the JSON body (the dashboard's sign-in), 401 when it is not
 *   valid and 403 without the dashboard header;
 * - session: anyone; the dashboard's session cookie when the browser sends one;
 * - codehost: a code host's webhook delivery, signed with the secret the organization's owner set for
 *   that host (the route checks it; api/pull-requests/verify.ts);
 * - none: anyone.
 */
export type Access =
  | { kind: 'user'; roles?: readonly Role[]; collectorKey?: true }
  | { kind: 'computer' }
  | { kind: 'metrics' }
  | { kind: 'signin' }
  | { kind: 'session' }
  | { kind: 'codehost'; host: 'github' | 'gitlab' }
  | { kind: 'none' };

/** A response other than JSON described by a zod schema (plain text, HTML), or none (204). */
export interface RawResponse {
  /** Absent for an answer without a body. */
  contentType?: string;
  description: string;
  /** A JSON Schema for the body, when it is not a zod schema (e.g. `{type: 'string'}`). */
  schema?: Record<string, unknown>;
}

export interface RouteDoc {
  method: Method;
  /** The path as registered in Fastify (`/api/v0/sessions/:sessionId`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** What the 403 names when the role is wrong ("Reading batch runs requires …"); default: the summary. */
  action?: string;
  access: Access;
  params?: z.ZodType;
  /**
   * The query's schema. Whatever checks it, a parameter not in it is a 400 (declareRoute); none is taken
   * without one, any with a z.looseObject (a standard says to ignore the unknown ones).
   */
  query?: z.ZodType;
  /**
   * 'handler': the handler checks the query's values itself, because its checks are more than `query`
   * can say (rules across parameters or against today's date, refusals that must come before a bad
   * query, a cache answering before any check): declareRoute refuses only the parameters `query` does not
   * name and leaves request.query to it.
   */
  queryCheckedBy?: 'handler';
  /** The JSON body; `bodyOptional` when the handler takes a missing body as `{}`. */
  body?: z.ZodType;
  bodyOptional?: boolean;
  /** Request bodies in other media types (replacing the JSON body when given). */
  bodyContent?: Record<string, { schema: Record<string, unknown> | z.ZodType; description?: string }>;
  /** Headers the route reads (besides Authorization). */
  headers?: { name: string; description: string; schema: Record<string, unknown> }[];
  /** Success answers by status. */
  responses: Record<number, z.ZodType | RawResponse>;
  /** A GET route's freshness (required for GET: declareRoute refuses a read route without it). */
  freshness?: Freshness;
  /**
   * Error statuses besides those the access and inputs imply (401 for credentials, 403 for roles, 400
   * for inputs, 413/415 for bodies, 404 for path ids, 500 always).
   */
  errors?: number[];
}

export interface RegisteredRoute {
  method: string;
  path: string;
  /** The route's `config.collectorKey`: a collector key may call it. */
  collectorKey: boolean;
  /** Its declaration (declare.ts), if it has one. */
  doc: RouteDoc | undefined;
}

const tracked = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Records every route registered on `app` from now on (call it before any route is added). */
export function trackRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  tracked.set(app, routes);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      routes.push({ method, path: route.url, collectorKey: route.config?.collectorKey === true, doc: route.config?.doc });
  });
}

/** The routes Fastify registered on `app` since trackRoutes (HEAD routes that Fastify adds for GET left out). */
export function registeredRoutes(app: FastifyInstance): RegisteredRoute[] {
  return (tracked.get(app) ?? []).filter((r) => r.method !== 'HEAD');
}

/** The declarations of the routes registered on `app`, in the order they were registered. */
export function declaredRoutes(app: FastifyInstance): RouteDoc[] {
  return registeredRoutes(app).flatMap((r) => (r.doc ? [r.doc] : []));
}
