// The identity admin commands (`scim token …`, `orgs oidc`) the two ways every admin command works: on
// the database file (--db/--org, server stopped) or through a running server with an owner's key
// (--server/--key). Kept apart from admin-backend.ts so the account commands load none of this.
import { z } from 'zod';
import type { Db } from '../common/db/duckdb.ts';
import { UserError } from '../common/errors.ts';
import { callServer } from './server-call.ts';

const TokenView = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TokenView = z.infer<typeof TokenView>;

export interface IdentityBackend {
  createScimToken(input: { org?: string; name?: string }): Promise<{ token: string; scimToken: TokenView }>;
  listScimTokens(input: { org?: string }): Promise<TokenView[]>;
  revokeScimToken(input: { org?: string; tokenId: string }): Promise<boolean>;
  close(): Promise<void>;
}

class LocalIdentity implements IdentityBackend {
  private constructor(private readonly db: Db) {}

  static async open(path: string): Promise<LocalIdentity> {
    const { openDb } = await import('../common/db/duckdb.ts');
    return new LocalIdentity(await openDb(path));
  }

  private async org(org: string | undefined): Promise<string> {
    if (!org) throw new UserError('--org is required with --db');
    const { AccountStore } = await import('../api/store/accounts.ts');
    if (!(await new AccountStore(this.db).getOrg(org))) throw new UserError(`no organization ${org} in ${this.db.path}`);
    return org;
  }

  private async tokens() {
    const { ScimTokenStore } = await import('../api/scim/tokens.ts');
    return new ScimTokenStore(this.db);
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
