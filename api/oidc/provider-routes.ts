// The owners' routes that set, read and remove the organization's OpenID Connect provider.
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../common/errors.ts';
import { OWNERS } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { refusal } from './guard.ts';
import { type OidcRouteContext, TAG } from './route-context.ts';
import { OIDC_CALLBACK_PATH, OIDC_CONFIG_PATH, ProviderAnswer, ProviderBody } from './schema.ts';
import { loginPath, providerView } from './store.ts';

export function registerProviderRoutes(app: FastifyInstance, ctx: OidcRouteContext): void {
  declareRoute(
    app,
    {
      method: 'PUT',
      path: OIDC_CONFIG_PATH,
      tag: TAG,
      summary: "Set the organization's OpenID Connect provider (docs/oidc.md)",
      description:
        "The issuer must be https and resolve to public addresses unless the server runs with --allow-private-oidc (400 otherwise). The client secret is stored sealed and never answered. `urls` names the sign-in start and the callback to register at the provider, at this server's --public-url (else the address the request reached).",
      action: 'Configuring sign-in with an identity provider',
      access: { kind: 'user', roles: OWNERS },
      body: ProviderBody,
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor, body }, request): Promise<ProviderAnswer> => {
      const why = await refusal(new URL(body.issuer), ctx.deps.allowPrivate, true);
      if (why) throw badRequest(why);
      const saved = await ctx.store.set(actor.orgId, {
        issuer: body.issuer,
        clientId: body.clientId,
        clientSecret: body.clientSecret,
        groupsClaim: body.groupsClaim ?? null,
        provision: body.provision,
      });
      request.log.info({ actor: actor.userId, issuer: saved.issuer, provision: saved.provision }, 'oidc provider configured');
      return {
        provider: providerView(saved),
        urls: { login: `${ctx.base(request)}${loginPath(saved.orgId)}`, callback: `${ctx.base(request)}${OIDC_CALLBACK_PATH}` },
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_CONFIG_PATH,
      freshness: 'setting',
      tag: TAG,
      summary: "The organization's OpenID Connect provider, without its secret (provider: null when none)",
      action: "Reading the organization's identity provider",
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor }): Promise<ProviderAnswer> => {
      const provider = await ctx.store.get(actor.orgId);
      return { provider: provider ? providerView(provider) : null };
    },
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: OIDC_CONFIG_PATH,
      tag: TAG,
      summary: 'Stop signing in with the identity provider (sessions already given last until they end)',
      action: 'Removing sign-in with an identity provider',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: ProviderAnswer },
    },
    async ({ principal: actor }, request): Promise<ProviderAnswer> => {
      const removed = await ctx.store.remove(actor.orgId);
      ctx.discovery.forget(actor.orgId);
      request.log.info({ actor: actor.userId, removed }, 'oidc provider removed');
      return { provider: null };
    },
  );
}
