// What a developer's machine downloads to enrol (docs/install-and-rollout.md, "Roll it out"): GET /install.sh, the POSIX sh
// installer with this server's URL, the version and the files' SHA-256 sums filled in, and the files it
// fetches, at a versioned path: GET /install/<version>/agentmeter.mjs (the laptop bundle, built by
// scripts/build-laptop.mjs) and GET /install/<version>/agentmeter-hook.sh. Public: a machine has only its
// key, which the installer writes to its configuration and never sends here.
//
// The URL in the script is where the machine's collector ships for good, so it is the --public-url the
// server was started with when there is one (the only reliable answer behind a TLS proxy), else the Host
// the machine asked with and the scheme it used (X-Forwarded-Proto when a proxy says https). Either way
// the script goes only to the one who asked, so a forged Host only misleads the forger.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, HttpError, notFound } from '../../common/errors.ts';
import { MIN_NODE } from '../../common/node-version.ts';
import { VERSION } from '../../common/version.ts';
import { declareRoute } from '../openapi/declare.ts';
import {
  FILE_CONTENT_TYPE,
  INSTALL_FILE_PATH,
  INSTALL_FILES,
  INSTALLER_PATH,
  type InstallFile,
  InstallFileParams,
  SCRIPT_CONTENT_TYPE,
} from './schema.ts';

/** The built laptop bundle and hook script of this checkout (scripts/build-laptop.mjs writes them). */
export const DEFAULT_LAPTOP_DIR = join(import.meta.dirname, '..', '..', 'dist', 'laptop');
const TEMPLATE = join(import.meta.dirname, 'install.sh');

interface Loaded {
  body: Buffer;
  sha256: string;
  mtimeMs: number;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** A Host header as a URL authority: a name or address and an optional port, nothing a shell could read. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** Pure: the base URL to put in the script. */
export function baseUrl(publicUrl: string | undefined, host: string | undefined, protocol: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  if (!host || !HOST.test(host))
    throw badRequest('The Host header is missing or not a host name; the installer needs it to name this server');
  return `${protocol === 'https' ? 'https' : 'http'}://${host}`;
}

/** Pure: the installer for this server. */
export function renderInstaller(
  template: string,
  values: Record<'SERVER' | 'VERSION' | 'MIN_NODE' | 'BUNDLE_SHA256' | 'HOOK_SHA256', string>,
): string {
  let text = template;
  for (const [name, value] of Object.entries(values)) {
    // Every value sits between single quotes in the script (or in a comment).
    if (/['\n\\]/.test(value)) throw new Error(`${name} cannot go into the installer: ${value}`);
    text = text.replaceAll(`@@${name}@@`, value);
  }
  if (/@@[A-Z_0-9]+@@/.test(text)) throw new Error('the installer template names a value that was not given');
  return text;
}

export interface InstallRoutesOptions {
  /** Where the built bundle and hook script are (default DEFAULT_LAPTOP_DIR). */
  dir?: string | undefined;
  /** The URL machines reach this server at (`serve --public-url`); else the request's Host. */
  publicUrl?: string | undefined;
}

export function registerInstallRoutes(app: FastifyInstance, options: InstallRoutesOptions = {}): void {
  const dir = options.dir ?? DEFAULT_LAPTOP_DIR;
  const cache = new Map<InstallFile, Loaded>();
  /** The file as built, re-read when a rebuild changed it (a developer's `npm run build:laptop`). */
  const load = (name: InstallFile, log: FastifyBaseLogger): Loaded => {
    const path = join(dir, name);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      // The path is the operator's to know (in the log), not every visitor's (the answer is public).
      log.warn({ missing: path }, 'laptop bundle not built');
      throw new HttpError(
        503,
        `The laptop bundle is not built on this server (${name} is missing): run npm run build in the agentmeter folder (npm ci and npm install build it), then try again`,
      );
    }
    const cached = cache.get(name);
    if (cached && cached.mtimeMs === mtimeMs) return cached;
    const body = readFileSync(path);
    const loaded = { body, sha256: sha256(body), mtimeMs };
    cache.set(name, loaded);
    return loaded;
  };
  const template = readFileSync(TEMPLATE, 'utf8');

  const send = (request: FastifyRequest, reply: FastifyReply, type: string, body: Buffer | string, digest: string) => {
    const etag = `"sha256-${digest}"`;
    void reply.header('etag', etag).header('cache-control', 'no-cache').header('content-type', type);
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    return reply.send(body);
  };

  declareRoute(
    app,
    {
      method: 'GET',
      path: INSTALLER_PATH,
      freshness: 'static',
      tag: 'Install',
      summary: "The installer of a developer's machine: curl -fsSL SERVER/install.sh | sh -s -- --key am_…",
      description:
        "POSIX sh with this server's URL (serve --public-url, else the Host asked with), the version and the SHA-256 sums of the files it downloads filled in. ETag is the script's SHA-256; If-None-Match answers 304. 503 when the laptop bundle is not built on the server.",
      access: { kind: 'none' },
      responses: { 200: { contentType: SCRIPT_CONTENT_TYPE, description: 'The installer', schema: { type: 'string' } } },
      // 400: a Host header that is not a host name (it goes into the script).
      errors: [400, 503],
    },
    async (_input, request, reply) => {
      const script = renderInstaller(template, {
        // request.host and request.protocol believe X-Forwarded-Host/-Proto only from a --trust-proxy address.
        SERVER: baseUrl(options.publicUrl, request.host, request.protocol),
        VERSION,
        MIN_NODE,
        BUNDLE_SHA256: load('agentmeter.mjs', request.log).sha256,
        HOOK_SHA256: load('agentmeter-hook.sh', request.log).sha256,
      });
      // The script names the host it was asked for: a cache must keep one per host and scheme.
      void reply.header('vary', 'host, x-forwarded-host, x-forwarded-proto');
      return send(request, reply, SCRIPT_CONTENT_TYPE, script, sha256(script));
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: INSTALL_FILE_PATH,
      freshness: 'static',
      tag: 'Install',
      summary: `A file the installer downloads: ${INSTALL_FILES.join(' or ')}`,
      description:
        "version is the server's (the one /install.sh names); another version or file is a 404 saying which there are. ETag is the file's SHA-256 (the installer checks the sum it was given); If-None-Match answers 304. 503 when the laptop bundle is not built on the server.",
      access: { kind: 'none' },
      params: InstallFileParams,
      responses: {
        200: {
          contentType: FILE_CONTENT_TYPE,
          description: 'The file as built, to be saved (never run by a browser)',
          schema: { type: 'string' },
        },
      },
      errors: [503],
    },
    async ({ params: { version, file } }, request, reply) => {
      if (version !== VERSION)
        throw notFound(`This server has agentmeter ${VERSION}, not ${version}: fetch ${INSTALLER_PATH} again for the current installer`);
      if (!(INSTALL_FILES as readonly string[]).includes(file)) throw notFound(`No file ${file}; there are ${INSTALL_FILES.join(' and ')}`);
      const loaded = load(file as InstallFile, request.log);
      return send(request, reply, FILE_CONTENT_TYPE, loaded.body, loaded.sha256);
    },
  );
}
