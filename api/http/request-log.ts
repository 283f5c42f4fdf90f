// What the per-request log lines ("incoming request") say of a request. Fastify's own serializer writes
// the whole URL; an OpenID provider's redirect back carries the authorization code and the state in its
// query, and other answers could carry a token there too, so those parameters' values are written as
// "[redacted]", and so is a device sign-in's user code in its path: a log reader must never be able to
// finish someone's sign-in.
import type { FastifyRequest } from 'fastify';
import { DEVICE_REQUEST_PATH } from '../device/schema.ts';

/** Query parameters whose values are credentials (an OAuth code or state, a token, a key). */
const SECRET_PARAMETERS = new Set([
  'code',
  'state',
  'id_token',
  'access_token',
  'refresh_token',
  'token',
  'session_state',
  'key',
  'secret',
  'password',
]);

/**
 * Paths whose last segment is a credential: a device sign-in's user code, which the approval page's API
 * names in its path; a log reader holding a pending one could approve it with their own account.
 */
const SECRET_SEGMENTS = [DEVICE_REQUEST_PATH.slice(0, DEVICE_REQUEST_PATH.lastIndexOf('/') + 1)];

/** The path with a credential segment replaced. Pure. */
function loggedPath(path: string): string {
  for (const prefix of SECRET_SEGMENTS) {
    if (!path.startsWith(prefix)) continue;
    const end = path.indexOf('/', prefix.length);
    return `${prefix}[redacted]${end < 0 ? '' : path.slice(end)}`;
  }
  return path;
}

/** The URL with credential path segments and the values of credential parameters replaced. Pure. */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return loggedPath(url);
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodeURIComponentSafe(eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
      return SECRET_PARAMETERS.has(name) ? `${eq < 0 ? pair : pair.slice(0, eq)}=[redacted]` : pair;
    });
  return `${loggedPath(url.slice(0, q))}?${params.join('&')}`;
}

const decodeURIComponentSafe = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The `req` serializer of the server's logger: Fastify's fields, the URL through loggedUrl. */
export function requestSerializer(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url ?? ''),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
