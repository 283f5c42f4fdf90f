// The ID token's signature, checked with jose against the provider's published keys (its JWKS, fetched
// through the address guard), and the claims of the person: the ID token's, completed from the UserInfo
// endpoint when it lacks them (OpenID Connect Core 5.4: in the code flow a provider may give the `email`
// and `profile` scopes' claims only there). openid-client checks the ID token's issuer, audience, expiry
// and nonce, but not its signature when it comes straight from the token endpoint: that is done here.
import { createRemoteJWKSet, customFetch, type FetchImplementation, jwtVerify } from 'jose';

/**
 * The algorithms an ID token may be signed with: asymmetric ones only. `none` proves nothing, and HS256
 * would be signed with the client secret, which this server holds too (so a leaked secret would forge
 * sign-ins); no provider in use needs it.
 */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/**
 * The algorithms accepted from a provider: those it says it signs ID tokens with
 * (`id_token_signing_alg_values_supported`) that are in ID_TOKEN_ALGORITHMS; RS256 when it says nothing
 * (the default of OpenID Connect Registration). Pure.
 */
export function acceptedAlgorithms(advertised: readonly string[] | undefined): string[] {
  if (!advertised?.length) return ['RS256'];
  return advertised.filter((alg) => ID_TOKEN_ALGORITHMS.includes(alg));
}

export interface IdTokenVerifier {
  /** Throws (with jose's reason) unless `idToken` is signed by one of the provider's keys with an accepted algorithm. */
  verify(idToken: string): Promise<void>;
}

/** A verifier for one provider; its JWKS is fetched when first needed and again when a token names an unknown key. */
export function idTokenVerifier(
  metadata: { issuer: string; jwks_uri?: string | undefined; id_token_signing_alg_values_supported?: string[] | undefined },
  clientId: string,
  fetcher: FetchImplementation,
): IdTokenVerifier {
  const algorithms = acceptedAlgorithms(metadata.id_token_signing_alg_values_supported);
  const keys = metadata.jwks_uri ? createRemoteJWKSet(new URL(metadata.jwks_uri), { [customFetch]: fetcher }) : undefined;
  return {
    async verify(idToken) {
      if (!keys) throw new Error('the provider publishes no jwks_uri, so its ID tokens cannot be checked');
      if (algorithms.length === 0)
        throw new Error(
          `the provider signs ID tokens only with ${metadata.id_token_signing_alg_values_supported?.join(', ')}; agentmeter accepts ${ID_TOKEN_ALGORITHMS.join(', ')}`,
        );
      await jwtVerify(idToken, keys, { issuer: metadata.issuer, audience: clientId, algorithms });
    },
  };
}

/** The person's claims: the ID token's own, and for each of `wanted` it lacks, UserInfo's. Pure. */
export function personClaims(
  idToken: Record<string, unknown>,
  userInfo: Record<string, unknown> | undefined,
  wanted: readonly string[],
): Record<string, unknown> {
  const claims = { ...idToken };
  if (!userInfo) return claims;
  for (const name of wanted) if (claims[name] === undefined && userInfo[name] !== undefined) claims[name] = userInfo[name];
  // email_verified speaks of the e-mail it came with.
  if (idToken['email'] === undefined && userInfo['email'] !== undefined) claims['email_verified'] = userInfo['email_verified'];
  return claims;
}

/** Whether the ID token lacks a claim the sign-in needs, so UserInfo must be read. Pure. */
export const needsUserInfo = (idToken: Record<string, unknown>, wanted: readonly string[]) =>
  wanted.some((name) => idToken[name] === undefined);
