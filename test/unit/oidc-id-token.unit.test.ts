// The pure parts of the ID-token checks (api/oidc/id-token.ts): which algorithms a provider's ID tokens
// may use, and how UserInfo completes the claims the ID token lacks.
import { describe, expect, it } from 'vitest';
import { acceptedAlgorithms, idTokenVerifier, needsUserInfo, personClaims } from '../../api/oidc/id-token.ts';

describe('acceptedAlgorithms', () => {
  it('keeps the asymmetric algorithms the provider publishes; RS256 when it publishes none', () => {
    expect(acceptedAlgorithms(undefined)).toEqual(['RS256']);
    expect(acceptedAlgorithms([])).toEqual(['RS256']);
    expect(acceptedAlgorithms(['none', 'HS256', 'RS256', 'ES256'])).toEqual(['RS256', 'ES256']);
    expect(acceptedAlgorithms(['HS256', 'none'])).toEqual([]);
  });

  it('a provider that signs only with HS256 or none signs no one in, saying why', async () => {
    const fetcher = () => Promise.reject(new Error('no request expected'));
    const verifier = idTokenVerifier(
      {
        issuer: 'https://idp.example.com',
        jwks_uri: 'https://idp.example.com/jwks',
        id_token_signing_alg_values_supported: ['HS256', 'none'],
      },
      'client',
      fetcher,
    );
    await expect(verifier.verify('a.b.c')).rejects.toThrow(/signs ID tokens only with HS256, none/);
    const noKeys = idTokenVerifier({ issuer: 'https://idp.example.com' }, 'client', fetcher);
    await expect(noKeys.verify('a.b.c')).rejects.toThrow(/no jwks_uri/);
  });
});

describe('personClaims', () => {
  it('takes from UserInfo only what the ID token lacks, and email_verified with the e-mail it speaks of', () => {
    const idToken = { sub: 'u1', email_verified: true };
    const userInfo = { sub: 'u1', email: 'ana@example.com', email_verified: false, groups: ['Data'], name: 'Ana' };
    expect(needsUserInfo(idToken, ['email'])).toBe(true);
    expect(personClaims(idToken, userInfo, ['email', 'groups'])).toEqual({
      sub: 'u1',
      email: 'ana@example.com',
      email_verified: false,
      groups: ['Data'],
    });
    const complete = { sub: 'u1', email: 'bo@example.com', email_verified: true, groups: ['Ops'] };
    expect(needsUserInfo(complete, ['email', 'groups'])).toBe(false);
    expect(personClaims(complete, userInfo, ['email', 'groups'])).toEqual(complete);
  });
});
