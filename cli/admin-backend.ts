// Admin commands work two ways: on the database file directly (--db, server stopped) or through a
// running server with an owner or manager key (--server/--key), since DuckDB allows one writing process.
import { z } from 'zod';
import { AccountStore } from '../api/accounts/store.ts';
import { Address } from '../api/aliases/schema.ts';
import { AliasStore } from '../api/aliases/store.ts';
import { Role } from '../api/auth/principal.ts';
import { KEY_KINDS, KEY_SCOPES, type KeyScope } from '../api/keys/schema.ts';
import { type KeyView, keyView } from '../api/keys/store.ts';
import { confirmRename, type PendingRename, renamedUserId } from '../api/scim/renames.ts';
import { LastOwnerError, logRemoval, removeUser } from '../api/users/remove.ts';
import type { UserListing } from '../api/users/schema.ts';
import { listUsers } from '../api/users/store.ts';
import type { Db } from '../common/db/duckdb.ts';
import { HttpError, UserError } from '../common/errors.ts';
import type { OrgId } from '../common/ids.ts';
import { callServer } from './server-call.ts';

export type { KeyView };

export interface AdminBackend {
  addUser(input: { org?: string; email: string; role: Role; keyName?: string }): Promise<{ userId: string; orgId: string; apiKey: string }>;
  createKey(input: { org?: string; user: string; name?: string; scope?: KeyScope }): Promise<{ apiKey: string; key: KeyView }>;
  listKeys(input: { org?: string; user: string }): Promise<KeyView[]>;
  revokeKey(input: { org?: string; keyId: string }): Promise<boolean>;
  listUsers(input: { org?: string }): Promise<UserListing[]>;
  removeUser(input: { org?: string; user: string; erase: boolean }): Promise<RemovalView>;
  /** Applies the directory's rename of an owner held for an owner's confirmation (docs/scim.md). */
  confirmRename(input: { org?: string; user: string }): Promise<PendingRename>;
  /** Gives a user another address, or takes one away: their addresses after (docs/metrics.md §5). */
  alias(input: { org?: string; user: string; email: string; remove: boolean }): Promise<string[]>;
  close(): Promise<void>;
}

/** What a removal did, as the server answers it. */
export const RemovalView = z.object({
  userId: z.string(),
  keysRevoked: z.number(),
  computersRevoked: z.number(),
  erased: z
    .object({ events: z.number(), usage: z.number(), assistantMessages: z.number(), sessions: z.number(), sessionMessages: z.number() })
    .nullable(),
  daysRebuilt: z.number(),
});
export type RemovalView = z.infer<typeof RemovalView>;

const UserListingSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: Role,
  createdAt: z.string(),
  lastSignInAt: z.string().nullable(),
  activeKeys: z.number(),
});

export class LocalBackend implements AdminBackend {
  private constructor(
    private readonly db: Db,
    private readonly accounts: AccountStore,
  ) {}

  static async open(path: string): Promise<LocalBackend> {
    // DuckDB loads only for --db: through a server (--server/--key) it is never needed.
    const { openExistingDb } = await import('../common/db/duckdb.ts');
    const db = await openExistingDb(path);
    return new LocalBackend(db, new AccountStore(db));
  }

  private async org(org: string | undefined): Promise<OrgId> {
    if (!org) throw new UserError('--org is required with --db');
    const found = await this.accounts.getOrg(org);
    if (!found) throw new UserError(`no organization ${org} in ${this.db.path}`);
    return found.id;
  }

  /** A user given by id (usr_…) or e-mail. */
  private async user(orgId: OrgId, user: string) {
    const found = user.includes('@') ? await this.accounts.findUserByEmail(orgId, user) : await this.accounts.getUser(orgId, user);
    if (!found) throw new UserError(`no user ${user} in organization ${orgId}`);
    return found;
  }

  async addUser(input: { org?: string; email: string; role: Role; keyName?: string }) {
    const orgId = await this.org(input.org);
    if (await this.accounts.findUserByEmail(orgId, input.email)) throw new UserError(`${input.email} is already a user of ${orgId}`);
    const user = await this.accounts.createUser({ orgId, email: input.email, role: input.role });
    const { key } = await this.accounts.createKey(user, input.keyName);
    return { userId: user.id, orgId, apiKey: key };
  }

  async createKey(input: { org?: string; user: string; name?: string; scope?: KeyScope }) {
    const user = await this.user(await this.org(input.org), input.user);
    const { key, info } = await this.accounts.createKey(user, input.name, 'operator', { scope: input.scope ?? 'personal' });
    return { apiKey: key, key: keyView(info) };
  }

  async listKeys(input: { org?: string; user: string }) {
    const orgId = await this.org(input.org);
    const user = await this.user(orgId, input.user);
    return (await this.accounts.listKeys(orgId, user.id)).map(keyView);
  }

  async revokeKey(input: { org?: string; keyId: string }) {
    const orgId = await this.org(input.org);
    if (!(await this.accounts.getKey(orgId, input.keyId))) throw new UserError(`no API key ${input.keyId} in ${orgId}`);
    return this.accounts.revokeKey(orgId, input.keyId);
  }

  async listUsers(input: { org?: string }) {
    return listUsers(this.db, await this.org(input.org));
  }

  /** With the database file, the operator acts as an owner. */
  async alias(input: { org?: string; user: string; email: string; remove: boolean }): Promise<string[]> {
    const orgId = await this.org(input.org);
    const user = await this.user(orgId, input.user);
    const email = Address.safeParse(input.email);
    if (!email.success) throw new UserError(`${input.email} is not an e-mail address`);
    const store = new AliasStore(this.db);
    if (input.remove) {
      if (!(await store.remove(orgId, user.id, email.data))) throw new UserError(`${email.data} is not an alias of ${user.email}`);
    } else if ((await store.add(orgId, user.id, email.data, 'owner')) === 'taken')
      throw new UserError(`${email.data} is another user's address in ${orgId}`);
    return (await store.list(orgId, user.id)).map((a) => a.email);
  }

  /** With the database file, the operator acts as an owner; the last owner still stays. */
  async removeUser(input: { org?: string; user: string; erase: boolean }): Promise<RemovalView> {
    const orgId = await this.org(input.org);
    const user = await this.user(orgId, input.user);
    const report = await removeUser(this.db, user, input.erase).catch((error: unknown) => {
      throw error instanceof LastOwnerError ? new UserError(error.message) : error;
    });
    const { createLogger } = await import('../common/logger.ts');
    const { runBatch } = await import('../pipeline/batch.ts');
    const log = createLogger({ name: 'agentmeter-admin' });
    const rebuilt = report.erasureDays.length
      ? await runBatch(this.db, { trigger: 'erase', log, days: { orgId, days: report.erasureDays } })
      : undefined;
    logRemoval(log, orgId, report, rebuilt?.days ?? 0);
    const { erasureDays: _days, ...rest } = report;
    return { ...rest, daysRebuilt: rebuilt?.days ?? 0 };
  }

  async confirmRename(input: { org?: string; user: string }): Promise<PendingRename> {
    const orgId = await this.org(input.org);
    const id = await renamedUserId(this.db, orgId, input.user);
    if (!id) throw new UserError(`no user ${input.user} in organization ${orgId}`);
    return confirmRename(this.db, orgId, id).catch((error: unknown) => {
      throw error instanceof HttpError ? new UserError(error.message) : error;
    });
  }

  close() {
    return this.db.close();
  }
}

const RemoteKey = z.object({
  id: z.string(),
  userId: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  kind: z.enum(KEY_KINDS),
  scope: z.enum(KEY_SCOPES),
  machineId: z.string().nullable(),
});

export class RemoteBackend implements AdminBackend {
  constructor(
    private readonly server: string,
    private readonly apiKey: string,
  ) {}

  private call<T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown): Promise<T> {
    return callServer(this.server, this.apiKey, method, path, schema, body);
  }

  private async whoami() {
    return this.call('GET', '/api/v0/admin/whoami', z.object({ userId: z.string(), orgId: z.string() }));
  }

  private async checkOrg(org: string | undefined): Promise<string> {
    const me = await this.whoami();
    if (org && org !== me.orgId) throw new UserError(`--org ${org} is not the organization of this key (${me.orgId})`);
    return me.orgId;
  }

  async addUser(input: { org?: string; email: string; role: Role; keyName?: string }) {
    const orgId = await this.checkOrg(input.org);
    const answer = await this.call('POST', '/api/v0/admin/users', z.object({ user: z.object({ id: z.string() }), apiKey: z.string() }), {
      email: input.email,
      role: input.role,
      ...(input.keyName ? { keyName: input.keyName } : {}),
    });
    return { userId: answer.user.id, orgId, apiKey: answer.apiKey };
  }

  async createKey(input: { org?: string; user: string; name?: string; scope?: KeyScope }) {
    await this.checkOrg(input.org);
    const answer = await this.call(
      'POST',
      `/api/v0/admin/users/${encodeURIComponent(input.user)}/keys`,
      z.object({ apiKey: z.string(), key: RemoteKey }),
      { ...(input.name ? { name: input.name } : {}), ...(input.scope ? { scope: input.scope } : {}) },
    );
    return { apiKey: answer.apiKey, key: answer.key };
  }

  async listKeys(input: { org?: string; user: string }) {
    await this.checkOrg(input.org);
    return (await this.call('GET', `/api/v0/admin/users/${encodeURIComponent(input.user)}/keys`, z.object({ keys: z.array(RemoteKey) })))
      .keys;
  }

  async revokeKey(input: { org?: string; keyId: string }) {
    await this.checkOrg(input.org);
    return (await this.call('DELETE', `/api/v0/admin/keys/${encodeURIComponent(input.keyId)}`, z.object({ revoked: z.boolean() }))).revoked;
  }

  async listUsers(input: { org?: string }) {
    await this.checkOrg(input.org);
    return (await this.call('GET', '/api/v0/admin/users', z.object({ users: z.array(UserListingSchema) }))).users;
  }

  async removeUser(input: { org?: string; user: string; erase: boolean }) {
    await this.checkOrg(input.org);
    return this.call('DELETE', `/api/v0/admin/users/${encodeURIComponent(input.user)}${input.erase ? '?erase=true' : ''}`, RemovalView);
  }

  async confirmRename(input: { org?: string; user: string }) {
    await this.checkOrg(input.org);
    return (
      await this.call(
        'POST',
        `/api/v0/admin/users/${encodeURIComponent(input.user)}/confirm-rename`,
        z.object({ rename: z.object({ userId: z.string(), from: z.string(), to: z.string(), requestedAt: z.string() }) }),
      )
    ).rename;
  }

  async alias(input: { org?: string; user: string; email: string; remove: boolean }) {
    await this.checkOrg(input.org);
    const path = `/api/v0/admin/users/${encodeURIComponent(input.user)}/aliases`;
    const List = z.object({ data: z.array(z.object({ email: z.string() })) });
    const answer = input.remove
      ? await this.call('DELETE', `${path}/${encodeURIComponent(input.email)}`, List)
      : await this.call('POST', path, List, { email: input.email });
    return answer.data.map((a) => a.email);
  }

  async close() {}
}

export async function adminBackend(args: {
  db?: string | undefined;
  server?: string | undefined;
  key?: string | undefined;
}): Promise<AdminBackend> {
  if (args.db) return LocalBackend.open(args.db);
  if (args.server && args.key) return new RemoteBackend(args.server, args.key);
  throw new UserError('give --db FILE (server stopped) or --server URL --key OWNER_KEY (server running)');
}
