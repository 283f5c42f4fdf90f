// Who calls /scim/v2: the SCIM token of the Authorization header, looked up before the route runs and
// kept for the request (scimCaller). Only a SCIM token is accepted there: an API key, a JWT or a
// dashboard cookie is refused.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { OrgId } from '../../common/ids.ts';
import { SCIM_CONTENT_TYPE, ScimError } from './schema.ts';
import { SCIM_TOKEN_PREFIX, type ScimTokenStore } from './tokens.ts';

export const SCIM_BASE = '/scim/v2';
const TOUCH_INTERVAL_MS = 60_000;

/** What a SCIM route knows of its caller: the organization the token belongs to. */
export interface ScimCaller {
  orgId: OrgId;
  tokenId: string;
}

const callers = new WeakMap<FastifyRequest, ScimCaller>();
export const scimCaller = (request: FastifyRequest): ScimCaller => {
  const caller = callers.get(request);
  if (!caller) throw new ScimError(401, 'SCIM token missing');
  return caller;
};

/** The base URL of this server's SCIM service, as the directory reached it (meta.location). */
export const scimBase = (request: FastifyRequest) => `${request.protocol}://${request.host}${SCIM_BASE}`;

/** Every request of the `scim` instance carries a SCIM token, or is refused 401 before its route runs. */
export function authenticateScim(scim: FastifyInstance, tokens: ScimTokenStore): void {
  const touched = new Map<string, number>();
  scim.addHook('onRequest', async (request, reply) => {
    void reply.type(SCIM_CONTENT_TYPE);
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new ScimError(401, 'send "Authorization: Bearer <SCIM token>" (agentmeter scim token create)');
    const token = match[1]!;
    const found = await tokens.lookup(token);
    if (!found)
      throw new ScimError(
        401,
        token.startsWith(SCIM_TOKEN_PREFIX)
          ? 'SCIM token unknown or revoked'
          : 'only a SCIM token (amscim_…) is accepted here; an API key or JWT is not a SCIM token',
      );
    callers.set(request, found);
    // last_used_at at most once a minute per token: a directory's sync must not turn reads into writes.
    if (Date.now() - (touched.get(found.tokenId) ?? 0) >= TOUCH_INTERVAL_MS) {
      touched.set(found.tokenId, Date.now());
      tokens.touch(found.tokenId).catch((error) => request.log.warn({ error: String(error) }, 'could not record SCIM token use'));
    }
  });
}
