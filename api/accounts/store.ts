// An installation's accounts: its organizations (here), their users (api/users/store.ts) and their API
// keys (api/keys/store.ts). AccountStore is the one handle the server, the CLI and the sample pass around;
// it keeps the organizations' SQL and hands users' and keys' calls to their features' stores.
import type { Db } from '../../common/db/duckdb.ts';
import { newOrgId, type OrgId } from '../../common/ids.ts';
import type { KeyScope } from '../../common/key-scopes.ts';
import type { Role } from '../../common/roles.ts';
import type { Principal } from '../auth/principal.ts';
import type { Minter } from '../keys/minting.ts';
import { type ApiKeyInfo, KeyStore } from '../keys/store.ts';
import { type User, UserStore } from '../users/store.ts';

export interface Org {
  id: OrgId;
  name: string;
  created_at: string;
}

const SQL = {
  insertOrg: 'INSERT INTO orgs (id, name) VALUES ($id, $name)',
  orgById: 'SELECT id, name, CAST(created_at AS VARCHAR) AS created_at FROM orgs WHERE id = $id',
  listOrgs: 'SELECT id, name, CAST(created_at AS VARCHAR) AS created_at FROM orgs ORDER BY created_at, id',
} as const;

export class AccountStore {
  private readonly users: UserStore;
  private readonly keys: KeyStore;

  constructor(private readonly db: Db) {
    this.users = new UserStore(db);
    this.keys = new KeyStore(db);
  }

  async createOrg(name: string): Promise<Org> {
    const id = newOrgId();
    await this.db.run(SQL.insertOrg, { id, name });
    return (await this.getOrg(id))!;
  }

  async getOrg(id: string): Promise<Org | undefined> {
    return (await this.db.all<Org & Record<string, unknown>>(SQL.orgById, { id }))[0];
  }

  listOrgs(): Promise<Org[]> {
    return this.db.all<Org & Record<string, unknown>>(SQL.listOrgs);
  }

  /** Told of each user added (the server says it as a change: answers listing an organization's users drop). */
  onUserAdded: ((orgId: OrgId) => void) | undefined;

  async createUser(input: { orgId: OrgId; email: string; role: Role; firstName?: string; lastName?: string }): Promise<User> {
    const user = await this.users.createUser(input);
    this.onUserAdded?.(input.orgId);
    return user;
  }

  getUser(orgId: string, id: string): Promise<User | undefined> {
    return this.users.getUser(orgId, id);
  }

  /** Whether the directory (SCIM) deactivated the user (their JWT and OIDC sign-in are refused). */
  deactivated(orgId: string, id: string): Promise<boolean> {
    return this.users.deactivated(orgId, id);
  }

  findUserByEmail(orgId: string, email: string): Promise<User | undefined> {
    return this.users.findUserByEmail(orgId, email);
  }

  /** See KeyStore.createKey: the key in clear text, the only time it is seen. */
  createKey(
    user: Pick<User, 'id' | 'org_id'>,
    name?: string,
    minter: Minter = 'operator',
    options: { invitation?: boolean; scope?: KeyScope; mintedWith?: string | undefined } = {},
  ): Promise<{ key: string; info: ApiKeyInfo }> {
    return this.keys.createKey(user, name, minter, options);
  }

  exchangeInvitation(
    user: Pick<User, 'id' | 'org_id'>,
    invitationKeyId: string,
    name?: string,
  ): Promise<{ key: string; info: ApiKeyInfo } | undefined> {
    return this.keys.exchangeInvitation(user, invitationKeyId, name);
  }

  listKeys(orgId: string, userId: string): Promise<ApiKeyInfo[]> {
    return this.keys.listKeys(orgId, userId);
  }

  getKey(orgId: string, keyId: string): Promise<ApiKeyInfo | undefined> {
    return this.keys.getKey(orgId, keyId);
  }

  revokeKey(orgId: string, keyId: string): Promise<boolean> {
    return this.keys.revokeKey(orgId, keyId);
  }

  listCollectorKeys(orgId: string, userId: string | null): Promise<ApiKeyInfo[]> {
    return this.keys.listCollectorKeys(orgId, userId);
  }

  bindMachine(keyId: string, machineId: string): Promise<boolean> {
    return this.keys.bindMachine(keyId, machineId);
  }

  principalForKey(key: string): Promise<Principal | undefined> {
    return this.keys.principalForKey(key);
  }

  /** A key was used: its last use (its user's sign-in is a dashboard session's, api/signin/store.ts). */
  async touchKey(keyId: string): Promise<void> {
    await this.keys.touchKey(keyId);
  }
}
