// GET /install.sh and /install/<version>/<file>: the installer names the server as the machine reached
// it (or --public-url), carries the sums of the files served, and the files answer with their sum as
// ETag; an unknown version or file and a missing build are the documented error body.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, renderInstaller } from '../../api/install/routes.ts';
import { MIN_NODE } from '../../common/node-version.ts';
import { VERSION } from '../../common/version.ts';
import { LAPTOP_BUNDLE, LAPTOP_HOOK } from '../../scripts/build-laptop.mjs';
import { type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
let server: TestServer;

beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url, headers });
const value = (script: string, name: string) => new RegExp(`^${name}='([^']*)'$`, 'm').exec(script)?.[1];

describe('GET /install.sh', () => {
  it("names the server as asked, the version, the minimum Node.js and the served files' sums", async () => {
    const res = await get('/install.sh', { host: 'agentmeter.internal:8080' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/x-shellscript; charset=utf-8');
    expect(res.body.startsWith('#!/bin/sh\n')).toBe(true);
    expect(value(res.body, 'SERVER')).toBe('http://agentmeter.internal:8080');
    expect(value(res.body, 'VERSION')).toBe(VERSION);
    expect(value(res.body, 'MIN_NODE')).toBe(MIN_NODE);
    expect(value(res.body, 'BUNDLE_SHA256')).toBe(sha(readFileSync(LAPTOP_BUNDLE)));
    expect(value(res.body, 'HOOK_SHA256')).toBe(sha(readFileSync(LAPTOP_HOOK)));
    expect(res.body).not.toMatch(/@@[A-Z_0-9]+@@/);
    expect(res.headers['etag']).toBe(`"sha256-${sha(res.body)}"`);
    expect((await get('/install.sh', { host: 'agentmeter.internal:8080', 'if-none-match': String(res.headers['etag']) })).statusCode).toBe(
      304,
    );
  });

  it('takes the scheme and host from a --trust-proxy proxy only, and refuses a Host a shell could misread', async () => {
    // Without --trust-proxy, forwarded headers are anyone's word and are ignored.
    const direct = await get('/install.sh', {
      host: 'agentmeter.example.com',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example',
    });
    expect(value(direct.body, 'SERVER')).toBe('http://agentmeter.example.com');
    // Behind a trusted proxy that rewrites Host (nginx's default), the browser's host and scheme are used.
    const proxiedServer = await testServer({ trustProxy: '127.0.0.1' });
    try {
      const proxied = await proxiedServer.app.inject({
        method: 'GET',
        url: '/install.sh',
        remoteAddress: '127.0.0.1',
        headers: { host: '127.0.0.1:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'agentmeter.example.com' },
      });
      expect(value(proxied.body, 'SERVER')).toBe('https://agentmeter.example.com');
    } finally {
      await proxiedServer.close();
    }
    const bad = await get('/install.sh', { host: "evil'$(id)" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(bad.json().detail).toContain('Host');
  });

  it('uses --public-url when the server has one', async () => {
    const behindProxy = await testServer({ publicUrl: 'https://agentmeter.example.com/' });
    try {
      const res = await behindProxy.app.inject({ method: 'GET', url: '/install.sh', headers: { host: '10.0.0.5:8080' } });
      expect(value(res.body, 'SERVER')).toBe('https://agentmeter.example.com');
    } finally {
      await behindProxy.close();
    }
  });

  it('is 503 with the documented body when the laptop bundle is not built', async () => {
    const missingDir = join(tempDir(), 'none');
    const unbuilt = await testServer({ laptopDist: missingDir });
    try {
      for (const url of ['/install.sh', `/install/${VERSION}/agentmeter.mjs`]) {
        const res = await unbuilt.app.inject({ method: 'GET', url, headers: { host: 'localhost' } });
        expect(res.statusCode, url).toBe(503);
        expect(res.json().detail).toContain('npm run build');
        // An anonymous visitor does not learn where the server is installed (issue #20).
        expect(res.body, url).not.toContain(missingDir);
        expect(res.body, url).not.toMatch(/\/(tmp|home|root|work|opt|srv)\//);
      }
    } finally {
      await unbuilt.close();
    }
  });
});

describe('GET /install/<version>/<file>', () => {
  it('serves the bundle and the hook as built, with their sum as ETag', async () => {
    for (const [name, path] of [
      ['agentmeter.mjs', LAPTOP_BUNDLE],
      ['agentmeter-hook.sh', LAPTOP_HOOK],
    ] as const) {
      const res = await get(`/install/${VERSION}/${name}`);
      expect(res.statusCode, name).toBe(200);
      expect(res.rawPayload.equals(readFileSync(path)), name).toBe(true);
      expect(res.headers['etag']).toBe(`"sha256-${sha(readFileSync(path))}"`);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers an unknown version or file with a 404 that says what there is', async () => {
    const old = await get('/install/0.0.1/agentmeter.mjs');
    expect(old.statusCode).toBe(404);
    expect(old.json()).toMatchObject({ status: 404, title: 'Not Found' });
    expect(old.json().detail).toContain(`agentmeter ${VERSION}, not 0.0.1`);
    const other = await get(`/install/${VERSION}/package.json`);
    expect(other.statusCode).toBe(404);
    expect(other.json().detail).toContain('agentmeter.mjs and agentmeter-hook.sh');
    expect((await get(`/install/${VERSION}/..%2Fpackage.json`)).statusCode).toBe(404);
  });
});

describe('the installer template (pure)', () => {
  it('fills every value, and refuses one that would break out of its quotes', () => {
    const values = { SERVER: 'http://h', VERSION: '1', MIN_NODE: '20.19.0', BUNDLE_SHA256: 'a', HOOK_SHA256: 'b' };
    expect(renderInstaller("S='@@SERVER@@' V='@@VERSION@@'", values)).toBe("S='http://h' V='1'");
    expect(() => renderInstaller("S='@@SERVER@@'", { ...values, SERVER: "http://h'; rm -rf ~; '" })).toThrow(/cannot go into/);
    expect(() => renderInstaller("S='@@OTHER@@'", values)).toThrow(/not given/);
  });

  it('derives the base URL: --public-url, else the request scheme and host (forwarded ones only from a --trust-proxy address)', () => {
    expect(baseUrl('https://a.example/', 'b', 'http')).toBe('https://a.example');
    expect(baseUrl(undefined, '[::1]:8080', 'http')).toBe('http://[::1]:8080');
    expect(baseUrl(undefined, 'h', 'https')).toBe('https://h');
    expect(baseUrl(undefined, 'h', 'gopher')).toBe('http://h');
    expect(() => baseUrl(undefined, 'h h', 'http')).toThrow(/Host/);
    expect(() => baseUrl(undefined, undefined, 'http')).toThrow(/Host/);
  });
});
