// The provider's redirect back (GET /auth/oidc/callback): the state must be the one this browser's cookie
// holds and not yet used; the code is exchanged and the ID token checked (exchange.ts); the person is
// admitted (admission.ts), their teams set from the groups claim when the organization names one; then
// the same HttpOnly SameSite=Strict session cookie as the key sign-in (api/signin/).
import type { FastifyInstance } from 'fastify';
import type { OrgId, UserId } from '../../common/ids.ts';
import type { Principal } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import { sessionCookieHeader } from '../signin/routes.ts';
import { SESSION_TTL_MS } from '../signin/schema.ts';
import { admit } from './admission.ts';
import { cookieValue, OIDC_STATE_COOKIE, sameText, stateCookie } from './cookies.ts';
import { exchangeCode, reasonOf } from './exchange.ts';
import { refusalPage, sendPage, signedInPage } from './pages.ts';
import { htmlPage, type OidcRouteContext, TAG } from './route-context.ts';
import { CallbackQuery, OIDC_CALLBACK_PATH } from './schema.ts';
import { groupNames, setTeamsFromClaim } from './teams.ts';

export function registerCallbackRoute(app: FastifyInstance, ctx: OidcRouteContext): void {
  const { deps, store } = ctx;
  declareRoute(
    app,
    {
      method: 'GET',
      path: OIDC_CALLBACK_PATH,
      freshness: 'credential',
      tag: TAG,
      summary: "The provider's redirect back: checks state, PKCE and the ID token, then sets the dashboard's session cookie",
      description:
        'A page that continues to the dashboard, or a page saying why the sign-in was refused: 400 (state missing, altered, expired or used), 401 (ID token refused: issuer, audience, expiry, signature, nonce), 403 (no verified e-mail, not a user and provisioning off, deactivated).',
      access: { kind: 'none' },
      // Loose: a provider may add parameters a client must ignore (RFC 6749 §4.1.2), so none is refused.
      query: CallbackQuery,
      queryCheckedBy: 'handler',
      responses: {
        200: htmlPage('Signed in: continues to the dashboard'),
        400: htmlPage('The state is missing, altered, expired or used'),
        401: htmlPage('The ID token was refused'),
        403: htmlPage('The person may not sign in'),
      },
    },
    async (_input, request, reply) => {
      // Whatever happens, the state cookie has done its work.
      void reply.header('set-cookie', stateCookie('', 0, ctx.secure(request)));
      const refuse = (status: number, title: string, detail: string, next?: string) => {
        request.log.info({ status, reason: title }, 'oidc sign-in refused');
        return sendPage(reply, status, refusalPage(title, detail, next));
      };
      const { state } = CallbackQuery.parse(request.query ?? {});
      const expected = cookieValue(request.headers.cookie, OIDC_STATE_COOKIE);
      if (!state || !expected || !sameText(state, expected))
        return refuse(
          400,
          'Sign-in not completed',
          'This answer from the identity provider does not belong to a sign-in started in this browser (its state is missing or altered).',
        );
      const pending = await store.take(state);
      if (!pending) return refuse(400, 'Sign-in not completed', 'This sign-in expired or was already used.');
      const provider = await store.get(pending.orgId);
      if (!provider) return refuse(400, 'Sign-in not completed', 'The organization no longer signs in with an identity provider.');

      let claims: Record<string, unknown>;
      try {
        claims = await exchangeCode(await ctx.discovery.discovered(provider), provider, pending, state, request.url);
      } catch (error) {
        request.log.warn({ org: provider.orgId, error: String(error) }, 'oidc token refused');
        return refuse(401, 'Sign-in refused', `The identity provider's answer was not accepted: ${reasonOf(error)}`);
      }

      const admission = await admit(deps.accounts, provider, claims);
      if ('refused' in admission) {
        const { status, title, detail, next } = admission.refused;
        return refuse(status, title, detail, next);
      }
      const { user } = admission;
      const orgId = provider.orgId as OrgId;
      if (admission.added) request.log.info({ org: orgId, user: user.id }, 'oidc sign-in added a member');

      if (provider.groupsClaim) {
        const names = groupNames(claims[provider.groupsClaim]);
        if (names) {
          const teams = await setTeamsFromClaim(deps.db, orgId, user.id, names, ctx.clock().toISOString().slice(0, 10));
          request.log.info({ org: orgId, user: user.id, teams }, 'oidc groups claim set the teams');
        }
      }

      const principal: Principal = { orgId, userId: user.id as UserId, email: user.email, role: user.role, credential: 'delegated' };
      const now = Date.now();
      const expiresAt = now + SESSION_TTL_MS;
      const token = await deps.sessions.create(principal, expiresAt);
      request.log.info({ org: orgId, user: user.id, role: user.role }, 'dashboard sign-in with the identity provider');
      // Appended beside the state cookie's removal (Fastify keeps every set-cookie).
      void reply.header('set-cookie', sessionCookieHeader(token, Math.floor(SESSION_TTL_MS / 1000), ctx.secure(request)));
      return sendPage(reply, 200, signedInPage(user.email));
    },
  );
}
