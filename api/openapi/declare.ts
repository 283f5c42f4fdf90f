// A route is declared once: its method and path, who may call it, the zod schemas of its inputs and
// answers, and its handler. declareRoute gives Fastify the route with what follows from that
// declaration (public or not, open to collector keys or not, the role check, a query parameter it does
// not take refused, the parsed inputs), and keeps the declaration on the route's config, where the
// OpenAPI document (document.ts) reads it: what the server enforces and what it documents come from
// the same object.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { z } from 'zod';
import { unauthorized } from '../../common/errors.ts';
import { Pieces } from '../answers/pieces.ts';
import { type Principal, requireRole } from '../auth/principal.ts';
import { queryNames, refuseRepeatedQuery, refuseUnknownQuery } from '../http/query.ts';
import type { RouteDoc } from './registry.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's declaration, when it was registered with declareRoute (the OpenAPI document reads it). */
    doc?: RouteDoc;
  }
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler is given: the inputs its declaration names, parsed, and the principal when it needs a person. */
export interface RouteInput<S extends RouteDoc> {
  principal: S['access'] extends { kind: 'user' } ? Principal : Principal | undefined;
  params: Parsed<S['params']>;
  /** Undefined when the handler checks the query itself (queryCheckedBy: 'handler'): it reads request.query. */
  query: S extends { queryCheckedBy: 'handler' } ? undefined : Parsed<S['query']>;
  body: Parsed<S['body']>;
}

export type RouteHandler<S extends RouteDoc> = (input: RouteInput<S>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Fastify options besides the ones the declaration decides (method, url, the config's access flags). */
export type RouteOptions = Omit<RouteShorthandOptions, 'config'>;

/** A decoration, not a set of instances: the plugin scopes registered after it (ingest's, the roster's) inherit it. */
const CHECKS_ANSWERS = 'checksDeclaredAnswers';
const checksAnswers = (app: FastifyInstance) => app.hasDecorator(CHECKS_ANSWERS);

/**
 * Every answer a declared route returns is checked against the schema it declares for that status (a
 * mismatch is a 500 naming the route and the difference). Test servers turn it on, before any route, so
 * every test that calls a route checks its contract; production does not pay for it.
 */
export function checkAnswers(app: FastifyInstance): void {
  if (!checksAnswers(app)) app.decorate(CHECKS_ANSWERS, true);
}

/** The routes any credential-less caller may reach: those that check their own credential, or none. */
const isPublic = (access: RouteDoc['access']) => access.kind !== 'user' && access.kind !== 'computer';

/**
 * A check that must answer before the inputs are parsed (a credential's kind, a header the route requires):
 * it runs after the role check and may throw, or send the answer itself.
 */
export type CheckFirst = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown;

export function declareRoute<const S extends RouteDoc>(
  app: FastifyInstance,
  spec: S & { options?: RouteOptions; checkFirst?: CheckFirst },
  handler: RouteHandler<S>,
): void {
  const { options, checkFirst, ...doc } = spec;
  // Every read route says how fresh its answer is (registry.ts, Freshness): one cache, and a reason for each route outside it.
  if (doc.method === 'GET' && !doc.freshness)
    throw new Error(`GET ${doc.path} declares no freshness (cached, live, credential, setting or static)`);
  const access = doc.access;
  // Known once, at declaration: each request only compares its parameters' names with these.
  const knownQuery = queryNames(doc.query);
  app.route({
    ...options,
    method: doc.method,
    url: doc.path,
    config: { public: isPublic(access), collectorKey: access.kind === 'user' && access.collectorKey === true, doc },
    handler: async (request, reply) => {
      const principal = request.principal;
      if (access.kind === 'user') {
        // The onRequest hook authenticated (or answered 401) before this runs; a missing principal is a bug.
        if (!principal) throw unauthorized('API key missing or invalid');
        if (access.roles) requireRole(principal, access.roles, doc.action ?? doc.summary);
      }
      if (checkFirst) {
        await checkFirst(request, reply);
        if (reply.sent) return reply;
      }
      // Every route, those that check their query themselves included: a parameter it does not take, or one
      // given twice, is a 400.
      if (knownQuery) {
        refuseUnknownQuery(request.query, knownQuery);
        refuseRepeatedQuery(request.query);
      }
      const input = {
        principal,
        params: doc.params?.parse(request.params),
        query: doc.queryCheckedBy === 'handler' ? undefined : doc.query?.parse(request.query ?? {}),
        body: doc.body?.parse(doc.bodyOptional ? (request.body ?? {}) : request.body),
      } as RouteInput<S>;
      const answer = await handler(input, request, reply);
      if (checksAnswers(app)) {
        if (answer !== reply) checkAnswer(doc, reply.statusCode, answer);
        if (doc.freshness) checkFreshness(doc, reply);
      }
      return answer;
    },
  });
}

/** The replies the answer cache sent (answeringFromCache): checkFreshness tells a cached route's apart. */
const throughTheCache = new WeakSet<FastifyReply>();

/**
 * Called by the answer cache (api/answers/answer.ts) for each request it answers: a route declared other
 * than cached (a credential, live state) never answers through it, on any server; the reply is noted for
 * checkFreshness.
 */
export function answeringFromCache(request: FastifyRequest, reply: FastifyReply): void {
  const declared = request.routeOptions.config.doc;
  if (declared && declared.freshness !== 'cached')
    throw new Error(`${declared.method} ${declared.path} is declared ${declared.freshness} but answered through the answer cache`);
  throughTheCache.add(reply);
}

/** checkAnswers' check of an answer the cache built for the request's route, against its declared 200. */
export function checkCachedAnswer(request: FastifyRequest, answer: unknown): void {
  const declared = request.routeOptions.config.doc;
  if (declared) checkSentAnswer(request.server, declared, 200, answer);
}

/**
 * checkAnswers' check for an answer that is serialized before declareRoute sees it (the answer cache's,
 * through checkCachedAnswer): called with the answer itself; nothing on a server that does not check.
 */
export function checkSentAnswer(app: FastifyInstance, doc: RouteDoc, status: number, answer: unknown): void {
  if (checksAnswers(app)) checkAnswer(doc, status, answer instanceof Pieces ? JSON.parse(answer.raw().toString()) : answer);
}

/** A read route declared cached answered through the answer cache (answeringFromCache refuses the opposite). */
function checkFreshness(doc: RouteDoc, reply: FastifyReply): void {
  if (reply.statusCode === 200 && doc.freshness === 'cached' && !throughTheCache.has(reply))
    throw new Error(`${doc.method} ${doc.path} is declared cached but answered without the answer cache`);
}

function checkAnswer(doc: RouteDoc, status: number, answer: unknown): void {
  const schema = doc.responses[status];
  if (!schema || !('safeParse' in schema)) return;
  const result = (schema as z.ZodType).safeParse(answer);
  if (!result.success)
    throw new Error(`${doc.method} ${doc.path} answered ${status} outside its declared schema: ${JSON.stringify(result.error.issues)}`);
}
