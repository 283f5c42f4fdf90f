// A real OpenID provider for the sign-in tests: oidc-provider (certified) on 127.0.0.1 with one client,
// accounts the test names, and its dev login and consent pages. Its token answers can be altered on
// demand (`tamper`): the ID token re-signed with the provider's own key but another audience or an expiry
// in the past, so the client's checks, not a broken signature, are what refuses it.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface IdpAccount {
  email: string;
  emailVerified?: boolean;
  givenName?: string;
  groups?: string[];
}

export interface Idp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How the next token answers are altered. */
  tamper: 'none' | 'wrong-audience' | 'expired';
  close(): Promise<void>;
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function resign(idToken: string, key: KeyObject, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload] = idToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(claims);
  const signingInput = `${header}.${b64(claims)}`;
  return `${signingInput}.${sign('sha256', Buffer.from(signingInput), key).toString('base64url')}`;
}

export async function startIdp(redirectUri: string, accounts: Record<string, IdpAccount>): Promise<Idp> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const state: Pick<Idp, 'tamper'> = { tamper: 'none' };
  let handler: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (state.tamper !== 'none' && req.method === 'POST' && req.url?.startsWith('/token')) {
      const end = res.end.bind(res) as (chunk?: unknown) => typeof res;
      const chunks: Buffer[] = [];
      res.write = ((chunk: unknown) => {
        chunks.push(Buffer.from(chunk as Buffer));
        return true;
      }) as typeof res.write;
      res.end = ((chunk?: unknown) => {
        if (chunk) chunks.push(Buffer.from(chunk as Buffer));
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
        if (body.id_token)
          body.id_token = resign(body.id_token, privateKey, (claims) => {
            if (state.tamper === 'wrong-audience') claims['aud'] = 'some-other-application';
            else {
              claims['iat'] = Math.floor(Date.now() / 1000) - 7200;
              claims['exp'] = Math.floor(Date.now() / 1000) - 3600;
            }
          });
        const text = JSON.stringify(body);
        res.setHeader('content-length', Buffer.byteLength(text));
        return end(text);
      }) as typeof res.end;
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'agentmeter-test';
  const clientSecret = 'a-client-secret-the-test-knows-0123456789';
  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic' },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['a-cookie-signing-key-for-the-test-idp'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'groups'] },
    // The ID token carries the scopes' claims (the client reads the e-mail from it).
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, id: string) => {
      const account = accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: account.email,
          ...(account.emailVerified === undefined ? {} : { email_verified: account.emailVerified }),
          ...(account.givenName ? { given_name: account.givenName } : {}),
          ...(account.groups ? { groups: account.groups } : {}),
        }),
      };
    },
  });
  handler = provider.callback();
  return {
    issuer,
    clientId,
    clientSecret,
    get tamper() {
      return state.tamper;
    },
    set tamper(value) {
      state.tamper = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
