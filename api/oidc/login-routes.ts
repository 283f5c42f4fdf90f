// The public start of a sign-in: whether an organization signs in with a provider (the sign-in page asks,
// to offer the button), and the redirect to the provider with PKCE (S256), state and nonce, the state
// bound to this browser by a short-lived cookie. A start another site's page navigated to (the browser's
// Sec-Fetch-Site says so) is asked about first (confirmSignInPage): the provider is the organization's
// owners' choice, so a start no one here asked for could sign a browser in to someone else's account.
import type { FastifyInstance, FastifyReply } from 'fastify';
import * as client from 'openid-client';
import { urlHost } from '../auth/authenticator.ts';
import { declareRoute } from '../openapi/declare.ts';
import { stateCookie } from './cookies.ts';
import { OidcGuardError } from './guard.ts';
import { confirmSignInPage, refusalPage, sendPage } from './pages.ts';
import { htmlPage, type OidcRouteContext, TAG } from './route-context.ts';
import { OIDC_CALLBACK_PATH, OIDC_LOGIN_PATH, OIDC_OPTIONS_PATH, OrgParams, SignInOptions } from './schema.ts';
import { loginPath } from './store.ts';

/**
 * Whether another site's page sent the browser here (Fetch Metadata). A link on this server's own pages is
 * same-origin, a typed address or a bookmark none; a request without the header (not a browser, or one
 * older than 2023) goes on as before.
 */
export const startedElsewhere = (site: string | string[] | undefined) => site === 'cross-site' || site === 'same-site';

export function registerLoginRoutes(app: FastifyInstance, ctx: OidcRouteContext): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_OPTIONS_PATH,
      freshness: 'setting',
      tag: TAG,
      summary: 'Whether an organization signs in with an identity provider (the sign-in page asks, to offer the button)',
      access: { kind: 'none' },
      params: OrgParams,
      responses: { 200: SignInOptions },
    },
    async ({ params: { orgId } }, _request, reply): Promise<SignInOptions> => {
      void reply.header('cache-control', 'no-store');
      const issuer = await ctx.store.issuer(orgId);
      if (issuer === undefined) return { orgId, oidc: false };
      const org = await ctx.deps.accounts.getOrg(orgId);
      return { orgId, oidc: true, loginPath: loginPath(orgId), orgName: org?.name ?? orgId, providerHost: urlHost(issuer) ?? issuer };
    },
  );

  const noProvider = (reply: FastifyReply) =>
    sendPage(
      reply,
      404,
      refusalPage(
        'No identity provider',
        'This organization does not sign in with an identity provider.',
        'Sign in with your API key instead.',
      ),
    );

  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_LOGIN_PATH,
      freshness: 'credential',
      tag: TAG,
      summary: "Start signing in: a redirect (302) to the organization's provider, with PKCE, state and nonce",
      description:
        'Sets a short-lived HttpOnly cookie binding the state to this browser. When another site navigated the browser here (Sec-Fetch-Site cross-site or same-site), a page (200) names the organization and provider and links here to continue, and nothing is started. 404 (an HTML page) when the organization has no provider; 502 when the provider cannot be reached.',
      access: { kind: 'none' },
      params: OrgParams,
      responses: {
        200: htmlPage('Another site started this sign-in: the organization and provider, and a link to continue'),
        302: { description: "Redirect to the provider's authorization endpoint" },
        404: htmlPage('The organization has no identity provider'),
        502: htmlPage('The provider cannot be reached'),
      },
      // A person follows this link in a browser: an id that is no organization's finds no provider, the
      // same page as an unknown organization, not the JSON 400 the declared params would give.
      checkFirst: (request, reply) => {
        if (!OrgParams.safeParse(request.params).success) return noProvider(reply);
      },
    },
    async ({ params }, request, reply) => {
      const provider = await ctx.store.get(params.orgId);
      if (!provider) return noProvider(reply);
      if (startedElsewhere(request.headers['sec-fetch-site'])) {
        const org = await ctx.deps.accounts.getOrg(provider.orgId);
        request.log.info({ org: provider.orgId }, 'oidc sign-in started by another site: asked first');
        return sendPage(
          reply,
          200,
          confirmSignInPage(org?.name ?? provider.orgId, urlHost(provider.issuer) ?? provider.issuer, loginPath(provider.orgId)),
        );
      }
      let config: client.Configuration;
      try {
        config = await ctx.discovery.configFor(provider);
      } catch (error) {
        request.log.warn({ org: provider.orgId, issuer: provider.issuer, error: String(error) }, 'oidc discovery failed');
        const reason =
          error instanceof OidcGuardError
            ? error.message
            : `the provider's discovery document could not be read (${(error as Error).message})`;
        return sendPage(reply, 502, refusalPage('The identity provider cannot be reached', reason, 'Tell an owner of the organization.'));
      }
      const codeVerifier = client.randomPKCECodeVerifier();
      const nonce = client.randomNonce();
      const redirectUri = `${ctx.base(request)}${OIDC_CALLBACK_PATH}`;
      const state = await ctx.store.begin({ orgId: provider.orgId, codeVerifier, nonce, redirectUri }, ctx.clock().getTime());
      const target = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      request.log.info({ org: provider.orgId }, 'oidc sign-in started');
      return reply
        .header('set-cookie', stateCookie(state, 600, ctx.secure(request)))
        .header('cache-control', 'no-store')
        .redirect(target.href, 302);
    },
  );
}
