// The callback's exchange with the provider: the authorization code (with the PKCE verifier, state and
// nonce) for tokens, the ID token's signature against the provider's JWKS, and UserInfo when the ID
// token lacks the e-mail or the groups claim. Gives the person's claims, or throws why the answer was
// not accepted.
import * as client from 'openid-client';
import type { DiscoveredProvider } from './discovery.ts';
import { needsUserInfo, personClaims } from './id-token.ts';
import type { PendingLogin, Provider } from './store.ts';

export async function exchangeCode(
  { config, idTokens }: DiscoveredProvider,
  provider: Provider,
  pending: PendingLogin,
  state: string,
  /** The callback's own URL as the request gave it (its query is the provider's answer). */
  requestUrl: string,
): Promise<Record<string, unknown>> {
  const current = new URL(pending.redirectUri);
  current.search = new URL(requestUrl, 'http://callback').search;
  const tokens = await client.authorizationCodeGrant(config, current, {
    pkceCodeVerifier: pending.codeVerifier,
    expectedState: state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  // Signed by the provider's own key, with an algorithm it publishes (jose, against its JWKS).
  await idTokens.verify(tokens.id_token!);
  const idToken = tokens.claims()! as Record<string, unknown>;
  // The e-mail (and the groups claim) may come only from UserInfo (OpenID Connect Core 5.4).
  const needed = ['email', ...(provider.groupsClaim ? [provider.groupsClaim] : [])];
  const userInfo =
    needsUserInfo(idToken, needed) && tokens.access_token && config.serverMetadata().userinfo_endpoint
      ? ((await client.fetchUserInfo(config, tokens.access_token, String(idToken['sub']))) as Record<string, unknown>)
      : undefined;
  // The names a new member is created with come along when UserInfo is read anyway.
  return personClaims(idToken, userInfo, [...needed, 'given_name', 'family_name']);
}

/** An error's message with those of its causes (openid-client wraps the check that failed, e.g. the "aud" one). */
export function reasonOf(error: unknown): string {
  const messages: string[] = [];
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++)
    if (!messages.includes(e.message)) messages.push(e.message);
  return messages.join(': ') || String(error);
}
