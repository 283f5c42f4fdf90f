// The docs page: Swagger UI (swagger-ui-dist, a dev dependency) served from node_modules, on this origin
// only, under a Content-Security-Policy that allows no inline script and nothing from elsewhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { VIEWER_PACKAGE, viewerDir } from '../../api/openapi/routes.ts';
import { type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

const get = (url: string) => server.app.inject({ method: 'GET', url });

describe('GET /docs', () => {
  it(`needs ${VIEWER_PACKAGE} installed`, () => {
    expect(viewerDir(), `npm install --save-dev ${VIEWER_PACKAGE}`).toBeDefined();
  });

  it('serves a page whose every script and style comes from this origin, under a strict CSP', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    // No inline script: every <script> has a src, and every src and href is a path on this server.
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/src="\//);
      expect(body!.trim()).toBe('');
    }
    const urls = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    for (const url of urls) {
      expect(url).toMatch(/^\/docs\//);
      const asset = await get(url);
      expect(asset.statusCode, url).toBe(200);
      expect(asset.headers['content-security-policy']).toBe(csp);
    }
  });

  it("serves the viewer's files as the package ships them", async () => {
    const dir = viewerDir()!;
    for (const [file, type] of [
      ['swagger-ui-bundle.js', /^text\/javascript/],
      ['swagger-ui.css', /^text\/css/],
    ] as const) {
      const res = await get(`/docs/${file}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.rawPayload.equals(readFileSync(join(dir, file)))).toBe(true);
    }
  });

  it('starts the viewer on /openapi.json, with no call to the online validator', async () => {
    const res = await get('/docs/init.js');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("url: '/openapi.json'");
    expect(res.body).toContain('validatorUrl: null');
  });

  it('serves nothing else of the package or the disk', async () => {
    for (const url of ['/docs/package.json', '/docs/index.html', '/docs/..%2Fpackage.json', '/docs/%2E%2E%2F%2E%2E%2Fpackage.json']) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
    // Names of Object.prototype's members are not assets either (issue #20: they were 503s with a stack trace).
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const res = await get(`/docs/${name}`);
      expect(res.statusCode, name).toBe(404);
      expect(ErrorBodySchema.parse(res.json()).status).toBe(404);
    }
  });
});
