// GET /openapi.json (the document, built once per server from the routes' declarations) and the docs page at /docs:
// Swagger UI from the swagger-ui-dist package, served from node_modules, so nothing comes from another
// origin. The page holds no inline script (its start-up is /docs/init.js); Swagger UI sets inline styles,
// so style-src alone allows 'unsafe-inline' (swagger-api/swagger-ui#10655).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpError } from '../../common/errors.ts';
import { CLIENT_ROUTES } from '../dashboard/routes.ts';
import { declareRoute } from './declare.ts';
import { buildDocument } from './document.ts';
import { declaredRoutes } from './registry.ts';

export const VIEWER_PACKAGE = 'swagger-ui-dist';

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The viewer's files we serve, and their types (nothing else of the package is reachable). A Map, not an
 * object: `/docs/__proto__` or `/docs/constructor` must find nothing, not Object.prototype's members.
 */
const ASSETS: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
]);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentmeter API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io for a badge.
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });
});
`;

/** The viewer package's folder, or undefined when it is not installed. */
export function viewerDir(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${VIEWER_PACKAGE}/package.json`));
  } catch {
    return undefined;
  }
}

/** The version in package.json: the document's info.version. */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const exactly = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/**
 * Routes that are not part of the API and so not in the document, matched on the Fastify path: the docs
 * page and its assets, and the dashboard's static files: its client-side pages (CLIENT_ROUTES, so a new
 * page is left out on its own), its hashed assets and its icon.
 */
export const NOT_IN_DOCUMENT: readonly RegExp[] = [
  /^\/docs(\/.*)?$/,
  // The SCIM 2.0 service describes itself to directories (/scim/v2/ServiceProviderConfig, /Schemas) and
  // answers SCIM bodies, not this document's; docs/scim.md describes it.
  /^\/scim\/v2(\/.*)?$/,
  ...CLIENT_ROUTES.map(exactly),
  /^\/assets\/\*$/,
  exactly('/favicon.svg'),
  /^\/\*$/,
];

export function registerOpenApiRoutes(app: FastifyInstance): void {
  let document: string | undefined;
  declareRoute(
    app,
    {
      method: 'GET',
      path: '/openapi.json',
      freshness: 'static',
      tag: 'Operations',
      summary: 'This document',
      access: { kind: 'none' },
      responses: { 200: { contentType: 'application/json', description: 'OpenAPI 3.1', schema: { type: 'object' } } },
    },
    async (_input, _request, reply) => {
      // Built at the first request, when every route has been registered.
      document ??= JSON.stringify(buildDocument({ version: VERSION, routes: declaredRoutes(app) }));
      return reply.type('application/json; charset=utf-8').send(document);
    },
  );

  const dir = viewerDir();
  const page = (reply: FastifyReply, type: string, body: string | Buffer) =>
    reply
      .type(type)
      .header('content-security-policy', DOCS_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(body);
  const missing = () => new HttpError(503, `The docs viewer (${VIEWER_PACKAGE}) is not installed; /openapi.json has the document`);

  app.get('/docs', { config: { public: true } }, async (_request, reply) => {
    if (!dir) throw missing();
    return page(reply, 'text/html; charset=utf-8', PAGE);
  });
  app.get('/docs/init.js', { config: { public: true } }, async (_request, reply) => page(reply, 'text/javascript; charset=utf-8', INIT));
  // Read at each request from the installed package (a few hundred KB, rarely asked): no copy to go stale.
  app.get<{ Params: { file: string } }>('/docs/:file', { config: { public: true } }, async (request, reply) => {
    const type = ASSETS.get(request.params.file);
    if (!type) throw new HttpError(404, `No docs asset ${request.params.file}`);
    if (!dir || !existsSync(join(dir, request.params.file))) throw missing();
    return page(reply, type, readFileSync(join(dir, request.params.file)));
  });
}
