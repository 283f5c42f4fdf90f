// Every error is the documented body {title, detail, status, requestId}, and no input reaches a 500: the
// inputs that once did (an int64 cursor, impossible batch days, metadata nested thousands deep), Fastify's
// own errors (bad URL encoding, a path parameter over maxParamLength, unknown routes) and those of Node's
// HTTP parser (oversized headers: 431). A detail never repeats more than 100 characters of input.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundDetail, ErrorBodySchema } from '../../api/http/errors.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
let sessionId: string;

/** An object nested `depth` levels deep. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const patchTags = (metadataJson: string) => `{"sessionSettings":{"tags":[{"name":"t","metadata":${metadataJson}}]}}`;
const long = 'x'.repeat(300);

beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
  const key = org.users.member.key;
  const computer = await server.app.inject({
    method: 'POST',
    url: '/api/v0/computers',
    headers: bearer(key),
    payload: { name: 'laptop', hostname: 'dev-box', remoteUser: 'dev', hostId: '4b0d7c3e-2a8e-4d8c-9a41-0d0c0a3f1b11' },
  });
  expect(computer.statusCode).toBe(201);
  const session = await server.app.inject({
    method: 'POST',
    url: '/api/v0/sessions',
    headers: bearer(key),
    payload: { computerId: computer.json().computer.id },
  });
  expect(session.statusCode).toBe(201);
  sessionId = session.json().sessionId;
});
afterAll(() => server.close());

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  url: () => string;
  body?: () => string;
  status: number;
  /** The detail says this (a fragment). */
  says?: string;
}

const cases: Case[] = [
  {
    name: 'an int64-overflowing history cursor',
    method: 'GET',
    url: () => '/api/v0/organization/enterprise-controls/history?cursor=99999999999999999999',
    status: 400,
    says: 'cursor',
  },
  { name: 'a zero history cursor', method: 'GET', url: () => '/api/v0/organization/enterprise-controls/history?cursor=0', status: 400 },
  {
    name: 'a batch from 2026-02-30',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"2026-02-30","to":"2026-03-01"}',
    status: 400,
    says: 'real calendar day',
  },
  {
    name: 'a batch from 0000-00-00',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"0000-00-00","to":"2026-03-01"}',
    status: 400,
    says: 'real calendar day',
  },
  {
    name: 'a batch to 2026-13-01',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"2026-01-01","to":"2026-13-01"}',
    status: 400,
  },
  {
    name: 'a batch range of 401 days',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"2025-01-01","to":"2026-02-05"}',
    status: 400,
    says: 'at most 400 days',
  },
  {
    name: 'a batch from 0001-01-01 (a real day, a range of 2,000 years)',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"0001-01-01","to":"2026-03-01"}',
    status: 400,
    says: 'at most 400 days',
  },
  {
    name: 'a batch range backwards',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => '{"from":"2026-03-02","to":"2026-03-01"}',
    status: 400,
    says: 'after',
  },
  {
    name: 'tag metadata nested 4,200 deep',
    method: 'PATCH',
    url: () => `/api/v0/sessions/${sessionId}`,
    body: () => patchTags(nested(4200)),
    status: 400,
    says: 'deeper than 32 levels',
  },
  {
    name: 'tag metadata nested 100,000 deep in arrays',
    method: 'PATCH',
    url: () => `/api/v0/sessions/${sessionId}`,
    body: () => patchTags(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`),
    status: 400,
    says: 'deeper than 32 levels',
  },
  {
    name: 'tag metadata nested 33 deep',
    method: 'PATCH',
    url: () => `/api/v0/sessions/${sessionId}`,
    body: () => patchTags(nested(33)),
    status: 400,
  },
  {
    name: 'enterprise-control overrides nested 4,200 deep',
    method: 'PUT',
    url: () => '/api/v0/organization/enterprise-controls',
    body: () => `{"settings":{"mcpAutonomyOverrides":${nested(4200)}}}`,
    status: 400,
    says: 'deeper than 32 levels',
  },
  {
    name: 'a bad percent-encoding in the path',
    method: 'GET',
    url: () => '/api/v1/analytics/tokens%E0%A4%A',
    status: 400,
    says: 'percent-encoding',
  },
  {
    name: 'a bad percent-encoding in the query',
    method: 'GET',
    url: () => '/api/v1/analytics/tokens?startDate=%E0%A4%A&endDate=2026-02-01',
    status: 400,
  },
  {
    name: 'a path parameter over maxParamLength',
    method: 'GET',
    url: () => `/api/v0/sessions/${'a'.repeat(200)}`,
    status: 400,
    says: 'longer than 100 characters',
  },
  { name: 'a computer id over maxParamLength', method: 'GET', url: () => `/api/v0/computers/${'b'.repeat(101)}`, status: 400 },
  { name: 'an unknown route', method: 'GET', url: () => '/api/v0/nothing-here', status: 404, says: 'No route GET /api/v0/nothing-here' },
  { name: 'an unknown long route', method: 'POST', url: () => `/api/v0/${long}`, status: 404, says: 'No route POST' },
  {
    name: 'a long group_by with spaces',
    method: 'GET',
    url: () => `/api/v1/analytics/tokens?startDate=2026-02-01&endDate=2026-02-02&group_by=${encodeURIComponent('word '.repeat(60))}`,
    status: 400,
    says: 'group_by',
  },
  { name: 'bad JSON', method: 'POST', url: () => '/api/v0/admin/batch', body: () => '{"from":', status: 400 },
  {
    name: 'a long unknown body field',
    method: 'POST',
    url: () => '/api/v0/admin/batch',
    body: () => JSON.stringify({ [long]: 1 }),
    status: 400,
  },
];

describe('no input reaches a 500', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const res = await server.app.inject({
      method: c.method,
      url: c.url(),
      headers: { ...bearer(org.users.owner.key), ...(c.body ? { 'content-type': 'application/json' } : {}) },
      ...(c.body ? { payload: c.body() } : {}),
    });
    expect(res.statusCode).toBe(c.status);
    const body = ErrorBodySchema.parse(res.json());
    expect(body.status).toBe(c.status);
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-request-id']).toBe(body.requestId);
    if (c.says) expect(body.detail).toContain(c.says);
    // No piece of the request longer than 100 characters comes back.
    const sent = `${decodeURIComponent(c.url().replace('%E0%A4%A', ''))} ${c.body?.() ?? ''}`;
    for (let i = 0; i + 101 <= sent.length; i++) expect(body.detail).not.toContain(sent.slice(i, i + 101));
  });

  it('metadata nested 32 deep is kept', async () => {
    const res = await server.app.inject({
      method: 'PATCH',
      url: `/api/v0/sessions/${sessionId}`,
      headers: { ...bearer(org.users.owner.key), 'content-type': 'application/json' },
      payload: patchTags(nested(32)),
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.stringify(res.json().sessionSettings.tags[0].metadata)).toBe(nested(32));
  });

  it('a detail cuts any run over 100 characters', () => {
    expect(boundDetail(`No route GET /${'y'.repeat(150)}`)).toBe(`No route GET /${'y'.repeat(39)}… (151 characters)`);
    expect(boundDetail('short and sweet')).toBe('short and sweet');
    expect(boundDetail('a '.repeat(2000)).length).toBeLessThanOrEqual(1000);
  });
});

describe("Node's HTTP parser errors", () => {
  let port = 0;
  beforeAll(async () => {
    port = Number(new URL(await server.app.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  /** Writes raw bytes and reads the whole answer (the server closes the connection after it). */
  const raw = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      let answer = '';
      socket.on('data', (d) => {
        answer += d.toString('utf8');
      });
      socket.on('error', (e) => (answer ? resolve(answer) : reject(e)));
      socket.on('close', () => resolve(answer));
      socket.write(request);
    });
  const parse = (answer: string) => {
    const [head, body] = [answer.slice(0, answer.indexOf('\r\n\r\n')), answer.slice(answer.indexOf('\r\n\r\n') + 4)];
    return { head, body: ErrorBodySchema.parse(JSON.parse(body)) };
  };

  it('oversized headers: 431 with the documented body', async () => {
    const { head, body } = parse(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'z'.repeat(20_000)}\r\n\r\n`));
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large/);
    expect(body).toMatchObject({ status: 431, title: 'Request Header Fields Too Large' });
    expect(head.toLowerCase()).toContain(`x-request-id: ${body.requestId}`);
  });

  it('a malformed request line: 400 with the documented body', async () => {
    const { head, body } = parse(await raw('GARBAGE\r\n\r\n'));
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
  });
});
