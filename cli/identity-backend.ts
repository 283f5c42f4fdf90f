// The identity admin commands (`scim token …`, `orgs oidc`) the two ways every admin command works: on
// the database file (--db/--org, server stopped) or through a running server with an owner's key
// (--server/--key). Kept apart from admin-backend.ts so the account commands load none of this.
import { z } from 'zod';
import { ScimTokenSchema } from '../api/scim/schema.ts';
import type { Db } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';
import { callServer } from './server-call.ts';

// Read loosely: a newer server may answer with more fields.
const TokenView = z.object(ScimTokenSchema.shape);
export type TokenView = z.infer<typeof TokenView>;

const ProviderView = z.object({
  issuer: z.string(),
  clientId: z.string(),
  groupsClaim: z.string().nullable(),
  provision: z.enum(['member', 'none']),
  updatedAt: z.string(),
  loginPath: z.string(),
});
export type ProviderView = z.infer<typeof ProviderView>;

export interface OidcInput {
  org?: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  groupsClaim?: string | undefined;
  provision: 'member' | 'none';
  /** With --db: the URL browsers reach the server at (serve --public-url), for the URLs printed. */
  publicUrl?: string | undefined;
  /** With --db: let an http or private issuer be stored (the server then needs serve --allow-private-oidc). */
  allowPrivateOidc?: boolean | undefined;
}

/** What setting the provider answers: the provider, and where sign-in starts and comes back. */
export interface OidcSet {
  provider: ProviderView;
  urls: { login: string; callback: string };
}

export interface IdentityBackend {
  setOidc(input: OidcInput): Promise<OidcSet>;
  createScimToken(input: { org?: string; name?: string }): Promise<{ token: string; scimToken: TokenView }>;
  listScimTokens(input: { org?: string }): Promise<TokenView[]>;
  revokeScimToken(input: { org?: string; tokenId: string }): Promise<boolean>;
  close(): Promise<void>;
}

class LocalIdentity implements IdentityBackend {
  private constructor(private readonly db: Db) {}

  static async open(path: string): Promise<LocalIdentity> {
    const { openExistingDb } = await import('../common/db/duckdb.ts');
    return new LocalIdentity(await openExistingDb(path));
  }

  private async org(org: string | undefined): Promise<string> {
    if (!org) throw new UserError('--org is required with --db');
    const { AccountStore } = await import('../api/accounts/store.ts');
    if (!(await new AccountStore(this.db).getOrg(org))) throw new UserError(`no organization ${org} in ${this.db.path}`);
    return org;
  }

  private async tokens() {
    const { ScimTokenStore } = await import('../api/scim/tokens.ts');
    return new ScimTokenStore(this.db);
  }

  async setOidc(input: OidcInput): Promise<OidcSet> {
    const orgId = await this.org(input.org);
    if (!input.publicUrl)
      throw new UserError(
        '--public-url is required with --db: the URL browsers reach the server at (as serve --public-url), so the callback URL to register at the provider can be printed',
      );
    const { refusal } = await import('../api/oidc/guard.ts');
    const why = await refusal(new URL(input.issuer), input.allowPrivateOidc ?? false, true);
    if (why) throw new UserError(`${why}${input.allowPrivateOidc ? '' : ' (and give --allow-private-oidc here to store it)'}`);
    const { ProviderBody, OIDC_CALLBACK_PATH } = await import('../api/oidc/schema.ts');
    const { OidcStore, providerView } = await import('../api/oidc/store.ts');
    const body = ProviderBody.parse({
      issuer: input.issuer,
      clientId: input.clientId,
      clientSecret: input.clientSecret,
      groupsClaim: input.groupsClaim ?? null,
      provision: input.provision,
    });
    const saved = await new OidcStore(this.db).set(orgId, { ...body, groupsClaim: body.groupsClaim ?? null });
    const base = input.publicUrl.replace(/\/+$/, '');
    const provider = providerView(saved);
    return { provider, urls: { login: `${base}${provider.loginPath}`, callback: `${base}${OIDC_CALLBACK_PATH}` } };
  }

  async createScimToken(input: { org?: string; name?: string }) {
    const orgId = await this.org(input.org);
    const { token, view } = await (await this.tokens()).create(orgId, input.name, null);
    return { token, scimToken: view };
  }

  async listScimTokens(input: { org?: string }) {
    return (await this.tokens()).list(await this.org(input.org));
  }

  async revokeScimToken(input: { org?: string; tokenId: string }) {
    const orgId = await this.org(input.org);
    const tokens = await this.tokens();
    if (!(await tokens.get(orgId, input.tokenId))) throw new UserError(`no SCIM token ${input.tokenId} in ${orgId}`);
    return tokens.revoke(orgId, input.tokenId);
  }

  close() {
    return this.db.close();
  }
}

class RemoteIdentity implements IdentityBackend {
  constructor(
    private readonly server: string,
    private readonly apiKey: string,
  ) {}

  private call<T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    return callServer(this.server, this.apiKey, method, path, schema, body);
  }

  /** --org, when given, must be the key's organization. */
  private async checkOrg(org: string | undefined): Promise<void> {
    const me = await this.call('GET', '/api/v0/admin/whoami', z.object({ orgId: z.string() }));
    if (org && org !== me.orgId) throw new UserError(`--org ${org} is not the organization of this key (${me.orgId})`);
  }

  async setOidc(input: OidcInput): Promise<OidcSet> {
    await this.checkOrg(input.org);
    // The server checks the issuer with its own --allow-private-oidc, and answers its own --public-url.
    const { org: _org, publicUrl: _url, allowPrivateOidc: _allow, ...body } = input;
    return this.call(
      'PUT',
      '/api/v0/organization/oidc',
      z.object({ provider: ProviderView, urls: z.object({ login: z.string(), callback: z.string() }) }),
      body,
    );
  }

  async createScimToken(input: { org?: string; name?: string }) {
    await this.checkOrg(input.org);
    return this.call(
      'POST',
      '/api/v0/admin/scim/tokens',
      z.object({ token: z.string(), scimToken: TokenView }),
      input.name ? { name: input.name } : {},
    );
  }

  async listScimTokens(input: { org?: string }) {
    await this.checkOrg(input.org);
    return (await this.call('GET', '/api/v0/admin/scim/tokens', z.object({ tokens: z.array(TokenView) }))).tokens;
  }

  async revokeScimToken(input: { org?: string; tokenId: string }) {
    await this.checkOrg(input.org);
    return (await this.call('DELETE', `/api/v0/admin/scim/tokens/${encodeURIComponent(input.tokenId)}`, z.object({ revoked: z.boolean() })))
      .revoked;
  }

  async close() {}
}

export async function identityBackend(args: { db?: string | undefined; server?: string | undefined; key?: string | undefined }) {
  if (args.db) return LocalIdentity.open(args.db);
  if (args.server && args.key) return new RemoteIdentity(args.server, args.key);
  throw new UserError('give --db FILE --org ORG (server stopped) or --server URL --key OWNER_KEY (server running)');
}
