// Credentials: JWT expiry and lifetime, and authentication before the body is read (an unauthenticated
// upload is refused without being buffered), on every route but /healthz.
import { connect, type Socket } from 'node:net';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { bearer, JWT_SECRET, ndjson, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer();
  org = await server.seedOrg('Acme');
});
afterAll(() => server.close());

const whoami = (token: string) => server.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(token) });

describe('JWTs', () => {
  const key = new TextEncoder().encode(JWT_SECRET);
  const claims = () => ({ sub: org.users.member.id, org_id: org.orgId, role: 'member' });
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts a token that expires within the maximum lifetime', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('23h').sign(key);
    expect((await whoami(token)).statusCode).toBe(200);
  });

  it('refuses a token without exp, with the documented body', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(key);
    const res = await whoami(token);
    expect(res.statusCode).toBe(401);
    const body = ErrorBodySchema.parse(res.json());
    expect(body).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(body.detail).toContain('exp');
  });

  it('refuses a token living longer than 24 hours (exp - iat)', async () => {
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('25h').sign(key);
    const res = await whoami(token);
    expect(res.statusCode).toBe(401);
    expect(ErrorBodySchema.parse(res.json()).detail).toContain('lifetime');
  });

  it('without iat, measures the lifetime from now; a future iat does not stretch it', async () => {
    const noIat = (exp: number) => new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(key);
    expect((await whoami(await noIat(now() + 3600))).statusCode).toBe(200);
    expect((await whoami(await noIat(now() + 30 * 3600))).statusCode).toBe(401);
    const future = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now() + 365 * 86_400)
      .setExpirationTime(now() + 365 * 86_400 + 3600)
      .sign(key);
    expect((await whoami(future)).statusCode).toBe(401);
  });

  it('refuses an expired token', async () => {
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(now() - 7200)
      .setExpirationTime(now() - 3600)
      .sign(key);
    expect((await whoami(token)).statusCode).toBe(401);
  });

  it('takes the maximum from the server options', async () => {
    const strict = await testServer({ jwtMaxLifetimeSeconds: 600 });
    try {
      const seeded = await strict.seedOrg('Strict');
      const c = { sub: seeded.users.member.id, org_id: seeded.orgId, role: 'member' };
      const call = async (ttl: string) => {
        const token = await new SignJWT(c).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(ttl).sign(key);
        return (await strict.app.inject({ method: 'GET', url: '/api/v0/admin/whoami', headers: bearer(token) })).statusCode;
      };
      expect(await call('5m')).toBe(200);
      expect(await call('11m')).toBe(401);
    } finally {
      await strict.close();
    }
  });
});

describe('authentication comes before the body', () => {
  it('every route but /healthz answers 401 without a credential; unknown routes 404', async () => {
    const routes = server.app.printRoutes({ commonPrefix: false });
    expect(routes).toContain('healthz');
    for (const [method, url] of [
      ['POST', '/api/v1/ingest/events'],
      ['POST', '/api/v0/admin/batch'],
      ['GET', '/api/v1/analytics/tokens'],
      ['PATCH', '/api/v0/sessions/ses_x'],
      ['PUT', '/api/v0/organization/enterprise-controls'],
      ['POST', '/api/v0/computers/cmp_x/agent/hello'],
      ['POST', '/api/organization/maturity-level-reports'],
    ] as const) {
      const res = await server.app.inject({ method, url, payload: method === 'GET' ? undefined : { any: 'thing' } });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      ErrorBodySchema.parse(res.json());
    }
    expect((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await server.app.inject({ method: 'GET', url: '/api/v0/nothing-here' })).statusCode).toBe(404);
  });

  it('an unknown computer token is refused before the body too', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v0/computers/cmp_x/agent/hello',
      headers: bearer('amc_not-a-real-token'),
      payload: { checks: [] },
    });
    expect(res.statusCode).toBe(401);
  });

  it('an unauthenticated 30 MB upload gets its 401 after 1 MB was sent: the body was never needed, and the connection is closed', async () => {
    const address = await server.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const serverSockets: Socket[] = [];
    server.app.server.on('connection', (s: Socket) => serverSockets.push(s));
    const total = 30 * 1024 * 1024;
    const chunk = Buffer.from(ndjson([{ kind: 'event', id: 'x'.repeat(1000) }]).padEnd(64 * 1024, ' '));
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    let received = '';
    const responses: string[] = [];
    // Resolves with each complete response on the connection (headers and a body of Content-Length).
    let onResponse: (() => void) | undefined;
    socket.on('data', (data) => {
      received += data.toString('latin1');
      for (;;) {
        const head = received.indexOf('\r\n\r\n');
        if (head < 0) break;
        const length = Number(/content-length: (\d+)/i.exec(received.slice(0, head))?.[1] ?? 0);
        if (received.length < head + 4 + length) break;
        responses.push(received.slice(0, head + 4 + length));
        received = received.slice(head + 4 + length);
        onResponse?.();
      }
    });
    const nextResponse = (count: number) =>
      new Promise<string>((resolve) => {
        const check = () => {
          if (responses.length >= count) resolve(responses[count - 1]!);
        };
        onResponse = check;
        check();
      });
    const write = (data: Buffer | string) => new Promise<void>((resolve, reject) => socket.write(data, (e) => (e ? reject(e) : resolve())));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    await write(
      `POST /api/v1/ingest/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${total}\r\n\r\n`,
    );
    let sent = 0;
    for (; sent < 1024 * 1024; sent += chunk.length) await write(chunk);
    // The server answers now, with 29 MB still to come: it never waited for (or parsed) the body.
    const refused = await nextResponse(1);
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    const body = ErrorBodySchema.parse(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)));
    expect(body.status).toBe(401);
    expect(serverSockets).toHaveLength(1);
    expect(serverSockets[0]!.bytesRead).toBeLessThanOrEqual(sent + 1024);
    // A refused credential keeps no connection (issue 20): the rest of the body is never read.
    expect(refused.toLowerCase()).toContain('connection: close');
    socket.on('error', () => undefined);
    if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    expect(serverSockets[0]!.bytesRead).toBeLessThan(total);
  });
  it('an unauthenticated upload declared over the route limit: 401 and the connection closed, the body never read', async () => {
    const address = server.app.server.listening
      ? `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`
      : await server.app.listen({ host: '127.0.0.1', port: 0 });
    const serverSide = new Promise<Socket>((resolve) => server.app.server.once('connection', resolve));
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(address).port) });
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    const closed = new Promise<void>((resolve) => {
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    const declared = 1024 * 1024 * 1024;
    socket.write(
      `POST /api/v1/ingest/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(256 * 1024, 0x20));
    // The server ends the connection without waiting for the gigabyte (a 401 first, which a reset may cut).
    await closed;
    if (answer) expect(answer).toMatch(/^HTTP\/1\.1 401 [\s\S]*connection: close/i);
    expect((await serverSide).bytesRead).toBeLessThan(4 * 1024 * 1024);
  });
});
