// The dashboard's static files (built by Vite from web/ into web/dist), served from memory: the build is
// a few files of a few hundred KB, read once with their gzip forms made once. Hashed assets are cached by
// browsers for a year (their names change with their content); index.html is revalidated each time. Every
// client-side route of the dashboard answers index.html, so a shared link opens the right page.
// A strict Content-Security-Policy says that nothing loads from another origin and no inline script runs.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, notFound } from '../../common/errors.ts';
import { acceptsGzip } from '../answers/cache.ts';

export const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** The dashboard's client-side routes: the pages web/src/app.tsx renders (its nav and its path switch). */
export const CLIENT_ROUTES = [
  '/',
  '/overview',
  '/people',
  '/people/:userId',
  '/teams',
  '/adoption',
  '/readiness',
  '/sessions',
  '/budgets',
  '/organization',
  '/pipeline',
  '/machines',
  '/device',
  '/me',
  '/code',
  // The Code page's former path: the dashboard sends old links and bookmarks on to /code.
  '/impact',
];

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  etag: string;
  immutable: boolean;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Reads a built dashboard into memory: URL path → asset. */
export function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const file of walk(dir)) {
    const type = TYPES[extname(file)];
    if (!type) continue;
    const body = readFileSync(file);
    const url = `/${relative(dir, file).split(sep).join('/')}`;
    const compressible = !type.startsWith('image/png') && !type.startsWith('image/x-icon');
    assets.set(url, {
      body,
      gzip: compressible && body.length > 512 ? gzipSync(body, { level: 9 }) : undefined,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      immutable: url.startsWith('/assets/'),
    });
  }
  return assets;
}

/** Headers every dashboard response carries. */
export function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cross-origin-opener-policy', 'same-origin');
}

export function registerDashboard(app: FastifyInstance, options: { dir?: string | undefined } = {}): void {
  const dir = options.dir ?? DEFAULT_WEB_DIST;
  const index = join(dir, 'index.html');
  let loaded: { assets: Map<string, Asset>; mtime: number } | undefined;
  // Read on first use and again after a rebuild (index.html is written last and names the new files).
  const assets = (): Map<string, Asset> | undefined => {
    if (!existsSync(index)) return undefined;
    const mtime = statSync(index).mtimeMs;
    if (!loaded || loaded.mtime !== mtime) loaded = { assets: loadAssets(dir), mtime };
    return loaded.assets;
  };

  // The API's answers are JSON, never to be sniffed as something else, and leak no referrer.
  app.addHook('onSend', (_request, reply, payload, done) => {
    void reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    done(null, payload);
  });

  const send = (request: FastifyRequest, reply: FastifyReply, asset: Asset) => {
    void securityHeaders(reply)
      .type(asset.type)
      .header('etag', asset.etag)
      .header('vary', 'accept-encoding')
      .header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (request.headers['if-none-match'] === asset.etag) return reply.status(304).send();
    if (asset.gzip && acceptsGzip(request.headers['accept-encoding'])) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.body);
  };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const asset = assets()?.get('/index.html');
    if (!asset) {
      // The path is the operator's to know (in the log), not every visitor's (the answer is public).
      request.log.warn({ missing: index }, 'dashboard not built');
      throw new HttpError(
        503,
        'The dashboard is not built on this server: run "npm run build" in the agentmeter folder (npm ci and npm install build it), then reload',
      );
    }
    return send(request, reply, asset);
  };
  // Public: the pages and files hold no data; every figure comes from an authenticated API call.
  const open = { config: { public: true } };
  for (const route of CLIENT_ROUTES) app.get(route, open, page);

  const file = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    const asset = assets()?.get(path);
    if (!asset || path === '/index.html') throw notFound(`No file ${path}`);
    return send(request, reply, asset);
  };
  app.get('/assets/*', open, file);
  app.get('/favicon.svg', open, file);
}
