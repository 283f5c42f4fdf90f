// Builds the OpenAPI 3.1 document from the routes' declarations: request schemas are the zod schemas the handlers
// validate with (converted for their input side), answers the zod schemas of the responses (output
// side). Errors are the one documented body, {title, detail, status, requestId}, under the statuses each
// route can give: 400 for inputs, 401 for credentials, 403 for roles, 404 for path ids, 413/415 for
// bodies, 500 always; 429 only where a route lists it (ingest's per-user limit).
import { z } from 'zod';
import { SESSION_COOKIE } from '../auth/authenticator.ts';
import { ErrorBodySchema } from '../http/errors.ts';
import { DASHBOARD_HEADER, type RawResponse, type RouteDoc } from './registry.ts';

type Json = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad Request: a parameter or the body is invalid (detail says which and why)',
  401: 'Unauthorized: the credential is missing or invalid',
  403: "Forbidden: the credential's role may not do this",
  404: 'Not Found: no such resource in this organization (other organizations’ ids answer 404 too)',
  408: 'Request Timeout: the body did not arrive fast enough (the connection is closed; send it again)',
  409: 'Conflict: the resource is in a state that forbids this',
  413: 'Payload Too Large: the body is over the route’s limit',
  415: 'Unsupported Media Type: the Content-Type or Content-Encoding is not accepted',
  429: 'Too Many Requests: this credential has as many requests in progress as it may (Retry-After says when to try again)',
  500: 'Internal Server Error: the requestId finds it in the server log',
  503: 'Service Unavailable: something this answer is made from is missing on the server, or the server is busy (detail says which; a busy server sends Retry-After)',
};

/** A zod schema as JSON Schema 2020-12, without the `$schema` key (the document's dialect covers it). */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  return rest;
}

const isZod = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

/** `/a/:id/b` → `/a/{id}/b` */
export const openapiPath = (fastifyPath: string) => fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function parameters(route: RouteDoc): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const object = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || (object.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  for (const header of route.headers ?? [])
    out.push({ name: header.name, in: 'header', description: header.description, schema: header.schema });
  return out;
}

function requestBody(route: RouteDoc): Json | undefined {
  if (route.bodyContent) {
    return {
      required: true,
      content: Object.fromEntries(
        Object.entries(route.bodyContent).map(([type, c]) => [
          type,
          { schema: isZod(c.schema) ? jsonSchema(c.schema, 'input') : c.schema, ...(c.description ? { description: c.description } : {}) },
        ]),
      ),
    };
  }
  if (!route.body) return undefined;
  return { required: !route.bodyOptional, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } };
}

/** The error statuses of a route: implied by its access and inputs, plus the ones it lists. */
export function errorStatuses(route: RouteDoc): number[] {
  const statuses = new Set<number>(route.errors ?? []);
  if (route.params || route.query || route.body || route.bodyContent) statuses.add(400);
  if (route.access.kind !== 'none' && route.access.kind !== 'session') statuses.add(401);
  // A user route without collectorKey refuses a collector key (403) whatever its roles.
  if ((route.access.kind === 'user' && (route.access.roles || !route.access.collectorKey)) || route.access.kind === 'signin')
    statuses.add(403);
  if (route.params) statuses.add(404);
  if (route.body || route.bodyContent) {
    statuses.add(413);
    statuses.add(415);
  }
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

function security(route: RouteDoc): Json[] {
  switch (route.access.kind) {
    case 'user':
      return [{ apiKey: [] }, { jwt: [] }, { sessionCookie: [] }];
    case 'computer':
      return [{ computerToken: [] }];
    case 'metrics':
      return [{ metricsToken: [] }];
    // Anonymous (the empty requirement): the credential is in the body.
    case 'signin':
      return [{}];
    // The cookie when the browser has one, anonymous otherwise.
    case 'session':
      return [{ sessionCookie: [] }, {}];
    case 'codehost':
      return [{ [route.access.host === 'github' ? 'githubSignature' : 'gitlabToken']: [] }];
    case 'none':
      return [];
  }
}

function operation(route: RouteDoc): Json {
  const responses: Json = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    if (isZod(answer)) {
      responses[status] = { description: 'OK', content: { 'application/json': { schema: jsonSchema(answer, 'output') } } };
    } else {
      const raw = answer as RawResponse;
      responses[status] = raw.contentType
        ? { description: raw.description, content: { [raw.contentType]: { schema: raw.schema ?? {} } } }
        : { description: raw.description };
    }
  }
  // An error answer the route describes itself (a 400 listing every bad line) keeps its own schema.
  for (const status of errorStatuses(route))
    if (!(String(status) in responses)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  const params = parameters(route);
  const body = requestBody(route);
  const roles = route.access.kind === 'user' && route.access.roles ? `Roles: ${route.access.roles.join(', ')}.` : undefined;
  const scope =
    route.access.kind === 'user'
      ? route.access.collectorKey
        ? "Collector keys: accepted, for their own user's data only."
        : 'Collector keys: 403.'
      : undefined;
  const kept = route.freshness === 'cached' ? KEPT : undefined;
  const description = [route.description, roles, scope, kept].filter(Boolean).join(' ');
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(description ? { description } : {}),
    security: security(route),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** What a script reading a cached route may rely on (api/answers/changes.ts says what makes it stale). */
const KEPT =
  'Kept in the answer cache: the same URL answers the same bytes until what the answer reads changes (a batch run, new records, a change of teams, prices, budgets, limits or users).';

/** A stable, unique id: the method and the path's words (`get_api_v0_sessions_sessionId`). */
export const operationId = (route: Pick<RouteDoc, 'method' | 'path'>) =>
  `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/_$/, '')}`;

export interface DocumentOptions {
  version: string;
  routes: readonly RouteDoc[];
}

/** The whole document. Pure: the same declarations give the same document. */
export function buildDocument(options: DocumentOptions): Json {
  const paths: Record<string, Json> = {};
  for (const route of options.routes) {
    const path = openapiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  const errorSchema = jsonSchema(ErrorBodySchema, 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentmeter',
      version: options.version,
      description:
        'Self-hosted usage analytics for AI coding agents. Every error is {title, detail, status, requestId}; the requestId is on the server log lines of the request.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(options.routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { Error: errorSchema },
      responses: Object.fromEntries(
        Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [
          `Error${status}`,
          { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An agentmeter API key (am_…): Authorization: Bearer am_…' },
        jwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An HS256 JWT signed with the server’s --jwt-secret; claims sub (user id), org_id and role',
        },
        computerToken: { type: 'http', scheme: 'bearer', description: "A computer agent's token (amc_…), for its own computer's routes" },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The dashboard's session (HttpOnly, SameSite=Strict), set by POST /api/v0/auth/session; used only when no Authorization header is sent. A request with it that changes something (not GET) must send "${DASHBOARD_HEADER}: 1" and, when it names an Origin, come from this host, else 403.`,
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The token given to serve --metrics-token (or AGENTMETER_METRICS_TOKEN)',
        },
        githubSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Hub-Signature-256',
          description: "GitHub's signature of the body: sha256= and the hex HMAC-SHA256 under the secret an owner set",
        },
        gitlabToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Gitlab-Token',
          description: 'The secret token an owner set for the GitLab webhook',
        },
      },
    },
  };
}
