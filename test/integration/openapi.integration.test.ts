// The OpenAPI document: valid OpenAPI 3.1 (checked by an independent validator), generated from the
// routes' own declarations (declareRoute), and complete: every route the server registers is in it (a
// route registered without a declaration fails here), and every operation in it is a registered route.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../api/auth/authenticator.ts';
import { CLIENT_ROUTES } from '../../api/dashboard/routes.ts';
import { buildDocument, openapiPath } from '../../api/openapi/document.ts';
import { declaredRoutes, registeredRoutes } from '../../api/openapi/registry.ts';
import { NOT_IN_DOCUMENT } from '../../api/openapi/routes.ts';
import { MONTH_PATTERN_SOURCE, undatedFields, unpatternedMonths } from '../helpers/openapi-dates.ts';
import { type TestServer, testServer } from '../helpers/server.ts';

type Doc = { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown>; security: unknown[] }>> };
let server: TestServer;
let doc: Doc;

beforeAll(async () => {
  server = await testServer();
  const res = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json() as Doc;
});
afterAll(() => server.close());

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator refuses a broken document (so the check above can fail)', async () => {
    const broken = structuredClone(doc) as unknown as Record<string, unknown>;
    (broken['paths'] as Record<string, unknown>)['/healthz'] = { get: { responses: 'none' } };
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it('leaves out the dashboard pages by its own list of them, and no API route', () => {
    const pages = registeredRoutes(server.app).filter((r) => CLIENT_ROUTES.includes(r.path));
    expect(pages.map((r) => r.path).sort()).toEqual([...CLIENT_ROUTES].sort());
    const excluded = registeredRoutes(server.app).filter((r) => NOT_IN_DOCUMENT.some((re) => re.test(r.path)));
    expect(excluded.filter((r) => r.path.startsWith('/api/') || r.path === '/healthz' || r.path === '/metrics')).toEqual([]);
  });

  it('documents every route the server registered, and nothing it did not', () => {
    const registered = registeredRoutes(server.app)
      .filter((r) => !NOT_IN_DOCUMENT.some((re) => re.test(r.path)))
      .map((r) => `${r.method} ${openapiPath(r.path)}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(registered.length).toBeGreaterThanOrEqual(40);
    expect(
      registered.filter((r) => !documented.includes(r)),
      'routes registered without declareRoute (api/openapi/declare.ts)',
    ).toEqual([]);
    expect(
      documented.filter((d) => !registered.includes(d)),
      'documented operations with no route',
    ).toEqual([]);
  });

  it('documents which routes a collector key may call, as the routes are configured', () => {
    const configured = registeredRoutes(server.app)
      .filter((r) => r.collectorKey)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = declaredRoutes(server.app)
      .filter((r) => r.access.kind === 'user' && r.access.collectorKey)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(documented).toEqual(configured);
    expect(configured).toEqual(
      expect.arrayContaining(['GET /api/v0/auth/me', 'POST /api/v1/ingest/events', 'GET /api/v0/organization/usage/limits/users']),
    );
  });

  it('gives each operation the error body under its error statuses and a security requirement', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([m, op]) => ({ id: `${m} ${path}`, ...op })));
    // The only API operations anyone may call are the dashboard's sign-in session ones, and a machine's
    // device sign-in, which needs no security at all (it has no credential yet: that is what it asks for).
    const anonymous = (op: { security: unknown[] }) => op.security.some((s) => Object.keys(s as object).length === 0);
    expect(ops.filter((op) => op.id.includes('/api/') && anonymous(op)).map((op) => op.id)).toEqual([
      'post /api/v0/auth/session',
      'get /api/v0/auth/session',
      'delete /api/v0/auth/session',
    ]);
    const DEVICE = ['post /api/v0/auth/device', 'post /api/v0/auth/device/token'];
    expect(ops.filter((op) => op.id.includes('/api/') && op.security.length === 0).map((op) => op.id)).toEqual(DEVICE);
    for (const op of ops) {
      expect(op.responses['500'], op.id).toEqual({ $ref: '#/components/responses/Error500' });
      if (op.id.includes('/api/') && !DEVICE.includes(op.id)) {
        // GET and DELETE of the sign-in session never refuse a credential: there is none to refuse.
        if (!op.id.endsWith(' /api/v0/auth/session') || op.id.startsWith('post')) expect(op.responses['401'], op.id).toBeDefined();
        expect(op.security.length, op.id).toBeGreaterThan(0);
      }
    }
    const ids = ops.map((op) => (op as unknown as { operationId: string }).operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const analytics = doc.paths['/api/v1/analytics/tokens']!['get']!;
    expect(Object.keys(analytics.responses).sort()).toEqual(['200', '400', '401', '403', '500']);
    const ingest = doc.paths['/api/v1/ingest/events']!['post']!;
    expect(Object.keys(ingest.responses).sort()).toEqual(['200', '400', '401', '408', '413', '415', '429', '500', '503']);
    const session = doc.paths['/api/v0/sessions/{sessionId}']!['get']!;
    expect(Object.keys(session.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '500']);
    const signIn = doc.paths['/api/v0/auth/session']!['post']!;
    expect(Object.keys(signIn.responses).sort()).toEqual(['201', '400', '401', '403', '413', '415', '500']);
    expect(signIn.security).toEqual([{}]);
    expect(doc.paths['/api/v0/auth/me']!['get']!.security).toContainEqual({ sessionCookie: [] });
    const schemes = (doc as unknown as { components: { securitySchemes: Record<string, unknown> } }).components.securitySchemes;
    expect(schemes['sessionCookie']).toMatchObject({ type: 'apiKey', in: 'cookie', name: SESSION_COOKIE });
    const remove = doc.paths['/api/v0/admin/users/{userId}']!['delete'] as unknown as { parameters: { name: string; in: string }[] };
    expect(remove.parameters.map((p) => `${p.in} ${p.name}`)).toEqual(['path userId', 'query erase']);
  });

  it('says the format of every date and time: date for a UTC day, date-time for an instant', () => {
    // Clients generated from the document (and scripts reading it) type these as dates only when it says so.
    expect(undatedFields(doc as never)).toEqual([]);
    const analytics = (
      doc.paths['/api/v1/analytics/tokens']!['get'] as unknown as { parameters: { name: string; schema: { format?: string } }[] }
    ).parameters;
    expect(analytics.filter((p) => p.name.endsWith('Date')).map((p) => [p.name, p.schema.format])).toEqual([
      ['startDate', 'date'],
      ['endDate', 'date'],
    ]);
  });

  it('finds a date or time without its format wherever it is (so the check above can fail)', () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const day = { type: 'string', pattern: String.raw`^\d{4}-\d{2}-\d{2}$` };
    broken.paths['/api/v0/planted/{day}'] = {
      post: {
        parameters: [
          { name: 'day', in: 'path', required: true, schema: day },
          { name: 'sinceDate', in: 'query', schema: { type: 'string' } },
          { name: 'when', in: 'query', description: 'ISO-8601 UTC', schema: { type: 'string' } },
        ],
        requestBody: {
          content: { 'application/json': { schema: { type: 'object', properties: { startsAt: { type: 'string', format: 'date' } } } } },
        },
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    rows: {
                      type: 'array',
                      items: { type: 'object', properties: { end_date: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
                    },
                    seen_at: { type: ['string', 'null'] },
                    createdAt: { type: 'integer', description: 'epoch ms: a number, not concerned' },
                  },
                },
              },
            },
          },
        },
      },
    };
    expect(undatedFields(broken).filter((line) => line.includes('/planted/'))).toEqual([
      'POST /api/v0/planted/{day} path day: format missing, expected date',
      'POST /api/v0/planted/{day} query sinceDate: format missing, expected date',
      'POST /api/v0/planted/{day} query when: format missing, expected date-time',
      'POST /api/v0/planted/{day} body application/json.startsAt: format date, expected date-time',
      'POST /api/v0/planted/{day} 200 application/json.rows[].end_date|anyOf0: format missing, expected date',
      'POST /api/v0/planted/{day} 200 application/json.seen_at: format missing, expected date-time',
    ]);
  });

  it('gives every UTC month (YYYY-MM) the month pattern: JSON Schema has no month format', () => {
    expect(unpatternedMonths(doc as never)).toEqual([]);
    type Operation = { parameters?: { name: string; schema: { pattern?: string } }[]; responses: Record<string, unknown> };
    const alerts = doc.paths['/api/v0/organization/alerts']!['get'] as unknown as Operation;
    expect(alerts.parameters?.find((p) => p.name === 'month')?.schema.pattern).toBe(MONTH_PATTERN_SOURCE);
    // The answers' months too: a client reads the same shape it sends.
    const me = doc.paths['/api/v0/me/status']!['get'] as unknown as Operation;
    expect(JSON.stringify(me.responses['200'])).toContain(JSON.stringify(MONTH_PATTERN_SOURCE));
  });

  it('finds a month without its pattern wherever it is (so the check above can fail)', () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>> };
    broken.paths['/api/v0/planted-months'] = {
      get: {
        parameters: [
          { name: 'month', in: 'query', schema: { type: 'string', pattern: String.raw`^\d{4}-\d{2}$` } },
          { name: 'startMonth', in: 'query', schema: { type: 'string' } },
          { name: 'period', in: 'query', description: 'a UTC month, YYYY-MM', schema: { type: 'string' } },
          { name: 'day', in: 'query', description: 'YYYY-MM-DD', schema: { type: 'string', format: 'date' } },
          { name: 'ok_month', in: 'query', schema: { type: 'string', pattern: MONTH_PATTERN_SOURCE } },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    rows: {
                      type: 'array',
                      items: { type: 'object', properties: { budget_month: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
                    },
                    month_credits: { type: 'number' },
                  },
                },
              },
            },
          },
        },
      },
    };
    const missing = `expected ${MONTH_PATTERN_SOURCE}`;
    expect(unpatternedMonths(broken).filter((line) => line.includes('/planted-months'))).toEqual([
      String.raw`GET /api/v0/planted-months query month: pattern ^\d{4}-\d{2}$, ${missing}`,
      `GET /api/v0/planted-months query startMonth: pattern missing, ${missing}`,
      `GET /api/v0/planted-months query period: pattern missing, ${missing}`,
      `GET /api/v0/planted-months 200 application/json.rows[].budget_month|anyOf0: pattern missing, ${missing}`,
    ]);
  });

  it("documents /users' cursor as the user id the server takes (any other is a 400)", async () => {
    // It said a string of 1 to 64 characters: a client checking its input against the document sent
    // "abc" or an e-mail and met a 400 the document did not foretell.
    const { USER_ID_PATTERN } = await import('../../common/ids.ts');
    const params = (
      doc.paths['/api/v1/analytics/users']!['get'] as unknown as { parameters: { name: string; schema: { pattern?: string } }[] }
    ).parameters;
    expect(params.find((p) => p.name === 'cursor')?.schema.pattern).toBe(USER_ID_PATTERN.source);
  });

  it('takes request schemas from the zod schemas the routes validate with', async () => {
    const { ANALYTICS_QUERY } = await import('../../api/analytics/schema.ts');
    const { CreateSessionBody } = await import('../../api/sessions/schema.ts');
    const usersParams = (doc.paths['/api/v1/analytics/users']!['get'] as unknown as { parameters: { name: string }[] }).parameters;
    expect(usersParams.map((p) => p.name)).toEqual(Object.keys(ANALYTICS_QUERY.users.shape));
    const create = doc.paths['/api/v0/sessions']!['post'] as unknown as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    };
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(Object.keys(CreateSessionBody.shape));
    // The same declarations give the same document.
    const version = (doc as unknown as { info: { version: string } }).info.version;
    expect(JSON.stringify(buildDocument({ version, routes: declaredRoutes(server.app) }))).toBe(JSON.stringify(doc));
  });
});
