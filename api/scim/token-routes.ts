// The owners' routes that mint, list and revoke the directory's SCIM tokens (/api/v0/admin/scim/tokens).
import type { FastifyInstance } from 'fastify';
import { forbidden, notFound } from '../../common/errors.ts';
import { OWNERS } from '../auth/principal.ts';
import { durableRefusal } from '../keys/minting.ts';
import { declareRoute } from '../openapi/declare.ts';
import { CreatedScimToken, RevokedScimToken, SCIM_TOKEN_PATH, SCIM_TOKENS_PATH, ScimTokenList, TokenBody, TokenParams } from './schema.ts';
import type { ScimTokenStore } from './tokens.ts';

/** Owners mint, list and revoke their organization's SCIM tokens. */
export function registerTokenRoutes(app: FastifyInstance, tokens: ScimTokenStore): void {
  declareRoute(
    app,
    {
      method: 'POST',
      path: SCIM_TOKENS_PATH,
      tag: 'SCIM',
      summary: 'Mint a SCIM token for a directory (Okta, Microsoft Entra ID); the token is in this answer only',
      description:
        'The token (amscim_…) is accepted only on /scim/v2/* (docs/scim.md), and an API key is never accepted there. Stored as a SHA-256 hash. ' +
        'Needs your own personal API key: a JWT, a dashboard session or a key someone else minted gets 403.',
      action: 'Minting a SCIM token',
      access: { kind: 'user', roles: OWNERS },
      body: TokenBody,
      bodyOptional: true,
      responses: { 201: CreatedScimToken },
      errors: [403],
    },
    async ({ principal: actor, body }, request, reply) => {
      // The token lasts until revoked, whoever minted it: a cookie or a JWT that ends must not leave one behind.
      const refusal = durableRefusal(actor, 'Minting a SCIM token');
      if (refusal) throw forbidden(refusal);
      const { token, view } = await tokens.create(actor.orgId, body.name, actor.userId, actor.keyId ?? null);
      request.log.info({ actor: actor.userId, scimToken: view.id }, 'scim token created');
      reply.status(201).header('cache-control', 'no-store');
      return { token, scimToken: view };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: SCIM_TOKENS_PATH,
      freshness: 'credential',
      tag: 'SCIM',
      summary: "The organization's SCIM tokens (never the tokens themselves)",
      action: 'Listing SCIM tokens',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ScimTokenList },
    },
    async ({ principal: actor }): Promise<ScimTokenList> => ({ tokens: await tokens.list(actor.orgId) }),
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: SCIM_TOKEN_PATH,
      tag: 'SCIM',
      summary: 'Revoke a SCIM token; the directory using it is refused at once',
      action: 'Revoking a SCIM token',
      access: { kind: 'user', roles: OWNERS },
      params: TokenParams,
      responses: { 200: RevokedScimToken },
    },
    async ({ principal: actor, params: { tokenId } }, request): Promise<RevokedScimToken> => {
      if (!(await tokens.get(actor.orgId, tokenId))) throw notFound(`no SCIM token ${tokenId}`);
      const revoked = await tokens.revoke(actor.orgId, tokenId);
      request.log.info({ actor: actor.userId, scimToken: tokenId, revoked }, 'scim token revoked');
      return { scimToken: (await tokens.get(actor.orgId, tokenId))!, revoked };
    },
  );
}
