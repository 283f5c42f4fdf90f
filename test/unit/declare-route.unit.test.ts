// declareRoute: one declaration gives the route its access flags, its parsed inputs and, on a server that
// checks answers (tests), a 500 for an answer outside its declared schema or answered otherwise than its
// declared freshness says.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sendAnswer } from '../../api/answers/answer.ts';
import { ResponseCache } from '../../api/answers/cache.ts';
import { checkAnswers, checkSentAnswer, declareRoute } from '../../api/openapi/declare.ts';
import { declaredRoutes, type Freshness, trackRoutes } from '../../api/openapi/registry.ts';

const Answer = z.strictObject({ n: z.number() });

async function app(answer: unknown, check: boolean) {
  const app = Fastify();
  trackRoutes(app);
  if (check) checkAnswers(app);
  declareRoute(
    app,
    {
      method: 'GET',
      path: '/things/:id',
      freshness: 'live',
      tag: 'Test',
      summary: 'A thing',
      access: { kind: 'none' },
      params: z.strictObject({ id: z.string() }),
      query: z.strictObject({ n: z.coerce.number().int() }),
      responses: { 200: Answer },
    },
    async ({ params, query }) => (answer === 'echo' ? { n: query.n, id: params.id } : answer),
  );
  await app.ready();
  return app;
}

describe('declareRoute', () => {
  it('parses the declared inputs and keeps the declaration for the document', async () => {
    const server = await app({ n: 1 }, true);
    expect((await server.inject({ url: '/things/a?n=2' })).json()).toEqual({ n: 1 });
    expect((await server.inject({ url: '/things/a?n=x' })).statusCode).toBe(500); // a ZodError; the server's error handler makes it 400
    expect(declaredRoutes(server).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /things/:id']);
    const route = server.hasRoute({ method: 'GET', url: '/things/:id' });
    expect(route).toBe(true);
  });

  it('refuses an answer outside the declared schema when answers are checked, and only then', async () => {
    const checked = await app('echo', true);
    const res = await checked.inject({ url: '/things/a?n=2' });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/GET \/things\/:id answered 200 outside its declared schema/);
    const unchecked = await app('echo', false);
    expect((await unchecked.inject({ url: '/things/a?n=2' })).json()).toEqual({ n: 2, id: 'a' });
  });

  it('leaves the query to a handler that checks it itself, and still documents it', async () => {
    const server = Fastify();
    trackRoutes(server);
    const query = z.strictObject({ n: z.string().regex(/^\d+$/) });
    declareRoute(
      server,
      {
        method: 'GET',
        path: '/own',
        freshness: 'live',
        tag: 'Test',
        summary: 'Own checks',
        access: { kind: 'none' },
        query,
        queryCheckedBy: 'handler',
        responses: { 200: z.strictObject({ parsed: z.boolean(), raw: z.string() }) },
      },
      async (input, request) => ({ parsed: input.query !== undefined, raw: JSON.stringify(request.query) }),
    );
    await server.ready();
    // A value the schema would refuse reaches the handler as sent.
    expect((await server.inject({ url: '/own?n=x' })).json()).toEqual({ parsed: false, raw: '{"n":"x"}' });
    // A parameter given twice does not: declareRoute refuses it by name for every route that lists its own.
    const twice = await server.inject({ url: '/own?n=1&n=2' });
    expect(twice.statusCode).toBe(400);
    expect(twice.body).toContain('\\"n\\" was given more than once');
    // Nor does a parameter it does not take.
    const unknown = await server.inject({ url: '/own?m=1' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('unknown query parameter \\"m\\"; this endpoint takes n');
    expect(declaredRoutes(server)[0]?.query).toBe(query);
  });

  it('checks an answer the handler sends itself only on a server that checks answers', () => {
    const doc = {
      method: 'GET',
      path: '/sent',
      freshness: 'live',
      tag: 'Test',
      summary: 'Sent',
      access: { kind: 'none' },
      responses: { 200: Answer },
    } as const;
    const checked = Fastify();
    checkAnswers(checked);
    expect(() => checkSentAnswer(checked, doc, 200, { n: 1 })).not.toThrow();
    expect(() => checkSentAnswer(checked, doc, 200, { n: 'one' })).toThrow(/GET \/sent answered 200 outside its declared schema/);
    expect(() => checkSentAnswer(Fastify(), doc, 200, { n: 'one' })).not.toThrow();
  });
});

describe('checkAnswers in plugin scopes', () => {
  it('checks the answers of routes declared in a scope registered after it', async () => {
    const server = Fastify();
    checkAnswers(server);
    await server.register(async (scope) => {
      declareRoute(
        scope,
        {
          method: 'GET',
          path: '/scoped',
          freshness: 'live',
          tag: 'Test',
          summary: 'Scoped',
          access: { kind: 'none' },
          responses: { 200: Answer },
        },
        async () => ({ n: 'one' }),
      );
    });
    const res = await server.inject({ url: '/scoped' });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/GET \/scoped answered 200 outside its declared schema/);
  });
});

describe('checkFirst', () => {
  it('answers before the inputs are parsed, and may send the answer itself', async () => {
    const server = Fastify();
    declareRoute(
      server,
      {
        method: 'POST',
        path: '/first',
        tag: 'Test',
        summary: 'First',
        access: { kind: 'none' },
        body: z.strictObject({ n: z.number() }),
        responses: { 200: Answer },
        checkFirst: (request, reply) => {
          if (request.headers['x-first'] === 'send') return reply.code(418).send('teapot');
          if (request.headers['x-first'] === 'throw') throw new Error('refused first');
        },
      },
      async ({ body }) => body,
    );
    const bad = { method: 'POST' as const, url: '/first', payload: { n: 'x' } };
    expect((await server.inject({ ...bad, headers: { 'x-first': 'send' } })).statusCode).toBe(418);
    expect((await server.inject({ ...bad, headers: { 'x-first': 'throw' } })).json().message).toBe('refused first');
    expect((await server.inject({ method: 'POST', url: '/first', payload: { n: 1 } })).json()).toEqual({ n: 1 });
  });
});

describe('freshness', () => {
  const read = (freshness: Freshness | undefined, throughCache: boolean, answer: unknown = { n: 1 }) => {
    const server = Fastify();
    checkAnswers(server);
    const cache = new ResponseCache();
    declareRoute(
      server,
      {
        method: 'GET',
        path: '/figures',
        ...(freshness ? { freshness } : {}),
        tag: 'Test',
        summary: 'Figures',
        access: { kind: 'none' },
        responses: { 200: Answer },
      },
      async (_input, request, reply) =>
        throughCache
          ? sendAnswer(cache, request, reply, { org: 'o', now: new Date(), reads: ['aggregates'] }, async () => answer)
          : { n: 1 },
    );
    return server;
  };

  it("checks an answer the cache builds against its route's declared schema, on a checking server", async () => {
    const res = await read('cached', true, { n: 'one' }).inject({ url: '/figures' });
    expect(res.statusCode).toBe(500);
    expect(res.json().message).toMatch(/GET \/figures answered 200 outside its declared schema/);
  });

  it('refuses a read route that does not say how fresh its answer is', () => {
    expect(() => read(undefined, false)).toThrow(/GET \/figures declares no freshness/);
  });

  it('holds a read route to what it declared: cached answers through the cache, the others without it', async () => {
    expect((await read('cached', true).inject({ url: '/figures' })).json()).toEqual({ n: 1 });
    expect((await read('live', false).inject({ url: '/figures' })).json()).toEqual({ n: 1 });
    const notKept = await read('cached', false).inject({ url: '/figures' });
    expect(notKept.statusCode).toBe(500);
    expect(notKept.json().message).toBe('GET /figures is declared cached but answered without the answer cache');
    const kept = await read('credential', true).inject({ url: '/figures' });
    expect(kept.statusCode).toBe(500);
    expect(kept.json().message).toBe('GET /figures is declared credential but answered through the answer cache');
  });
});
