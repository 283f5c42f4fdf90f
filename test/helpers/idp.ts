// A real OpenID provider for the sign-in tests: oidc-provider (certified) on 127.0.0.1 in its default
// configuration (the e-mail and profile claims come from the UserInfo endpoint, OpenID Connect Core 5.4)
// with one client, accounts the test names, and its dev login and consent pages. Its token answers can be
// altered on demand (`tamper`): the ID token re-signed with the provider's own key but another audience
// or an expiry in the past (the client's claim checks refuse it), or its signature broken: `alg: none`,
// a corrupted signature, a key the provider never published, HS256 with the client secret (the
// signature check refuses it). `signInWithoutBrowser` walks the provider's pages with fetch.
import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
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
  tamper: Tamper;
  close(): Promise<void>;
}

export type Tamper = 'none' | 'wrong-audience' | 'expired' | 'alg-none' | 'bad-signature' | 'unknown-key' | 'hs256';

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

function resign(idToken: string, key: KeyObject, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload] = idToken.split('.');
  const claims = decode(payload!);
  change(claims);
  const signingInput = `${header}.${b64(claims)}`;
  return `${signingInput}.${sign('sha256', Buffer.from(signingInput), key).toString('base64url')}`;
}

/** The ID token with its signature broken in one of the ways an attacker tries; the claims stay as they were. */
function forge(idToken: string, how: Tamper, clientSecret: string, stranger: KeyObject): string {
  const [header, payload, signature] = idToken.split('.') as [string, string, string];
  if (how === 'alg-none') return `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`;
  if (how === 'bad-signature') {
    const bytes = Buffer.from(signature, 'base64url');
    bytes[bytes.length >> 1]! ^= 0xff;
    return `${header}.${payload}.${bytes.toString('base64url')}`;
  }
  if (how === 'unknown-key') {
    const input = `${b64({ ...decode(header), kid: 'a-key-the-provider-never-published' })}.${payload}`;
    return `${input}.${sign('sha256', Buffer.from(input), stranger).toString('base64url')}`;
  }
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${payload}`;
  return `${input}.${createHmac('sha256', clientSecret).update(input).digest('base64url')}`;
}

const clientId = 'agentmeter-test';
const clientSecret = 'a-client-secret-the-test-knows-0123456789';

export async function startIdp(redirectUri: string, accounts: Record<string, IdpAccount>): Promise<Idp> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
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
        if (body.id_token && (state.tamper === 'wrong-audience' || state.tamper === 'expired'))
          body.id_token = resign(body.id_token, privateKey, (claims) => {
            if (state.tamper === 'wrong-audience') claims['aud'] = 'some-other-application';
            else {
              claims['iat'] = Math.floor(Date.now() / 1000) - 7200;
              claims['exp'] = Math.floor(Date.now() / 1000) - 3600;
            }
          });
        else if (body.id_token) body.id_token = forge(body.id_token, state.tamper, clientSecret, stranger);
        const text = JSON.stringify(body);
        res.setHeader('content-length', Buffer.byteLength(text));
        return end(text);
      }) as typeof res.end;
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      { client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic' },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['a-cookie-signing-key-for-the-test-idp'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'groups'] },
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

/** Cookies per origin, as a browser would keep them for this walk (names and values only). */
type Jar = Map<string, Map<string, string>>;
const cookieHeader = (jar: Jar, url: URL) => [...(jar.get(url.origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
function keep(jar: Jar, url: URL, response: Response): void {
  const cookies = jar.get(url.origin) ?? new Map<string, string>();
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    const [name, value] = [pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim()];
    if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') cookies.delete(name);
    else cookies.set(name, value);
  }
  jar.set(url.origin, cookies);
}

/**
 * One sign-in as a browser would make it, without a browser: the server's login redirect, the provider's
 * dev login form (any password) and consent form, and the callback, cookies kept per origin. Answers the
 * callback's status and page, and the session cookie it set. `alterAuthorize` changes the authorization
 * URL before it is followed (a tampered state).
 */
export async function signInWithoutBrowser(
  base: string,
  orgId: string,
  login: string,
  alterAuthorize?: (url: URL) => void,
): Promise<{ status: number; text: string; sessionCookie: string | undefined; callbackUrl: string }> {
  const jar: Jar = new Map();
  let url = new URL(`${base}/auth/oidc/${orgId}/login`);
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers ?? {}), cookie: cookieHeader(jar, url) },
    });
    keep(jar, url, response);
    init = {};
    if (url.pathname === '/auth/oidc/callback') {
      const session = response.headers
        .getSetCookie()
        .find((c) => c.startsWith('agentmeter_session='))
        ?.split(';')[0];
      return { status: response.status, text: await response.text(), sessionCookie: session, callbackUrl: url.href };
    }
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (step === 0 && alterAuthorize) alterAuthorize(next);
      url = next;
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!action)
      throw new Error(`the provider answered ${response.status} without a form or a redirect at ${url.href}: ${page.slice(0, 300)}`);
    const form = new URLSearchParams();
    for (const [input] of page.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(input)?.[1];
      if (name) form.set(name, /value="([^"]*)"/.exec(input)?.[1] ?? '');
    }
    if (form.has('login')) {
      form.set('login', login);
      form.set('password', 'any password');
    }
    url = new URL(action, url);
    init = { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
  throw new Error('the sign-in did not reach the callback in 20 steps');
}
