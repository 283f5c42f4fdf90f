// The organizations' OIDC providers and the sign-ins under way (migration 026). The client secret goes in
// sealed and comes out only for the token request (common/sealing.ts); a pending sign-in is used once.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../common/db/duckdb.ts';
import { seal, secretKey, unseal } from '../../common/sealing.ts';
import { hashKey } from '../keys/secret.ts';
import type { PROVISION, ProviderView } from './schema.ts';

export interface Provider {
  orgId: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  groupsClaim: string | null;
  provision: (typeof PROVISION)[number];
  updatedAt: string;
}

export interface PendingLogin {
  orgId: string;
  codeVerifier: string;
  nonce: string;
  redirectUri: string;
}

/** How long a browser may take at the provider before the sign-in must start again. */
export const LOGIN_TTL_MS = 10 * 60 * 1000;

const SQL = {
  upsert: `INSERT INTO oidc_providers (org_id, issuer, client_id, client_secret_sealed, groups_claim, provision, updated_at)
    VALUES ($org, $issuer, $client, $secret, $groups, $provision, now())
    ON CONFLICT (org_id) DO UPDATE SET issuer = excluded.issuer, client_id = excluded.client_id,
      client_secret_sealed = excluded.client_secret_sealed, groups_claim = excluded.groups_claim,
      provision = excluded.provision, updated_at = excluded.updated_at`,
  get: `SELECT org_id, issuer, client_id, client_secret_sealed, groups_claim, provision,
    strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS updated_at FROM oidc_providers WHERE org_id = $org`,
  remove: 'DELETE FROM oidc_providers WHERE org_id = $org',
  insertLogin: `INSERT INTO oidc_logins VALUES ($hash, $org, $verifier, $nonce, $redirect, make_timestamp(CAST($expires AS BIGINT) * 1000))`,
  purgeLogins: 'DELETE FROM oidc_logins WHERE expires_at <= now()::TIMESTAMP',
  takeLogin: `DELETE FROM oidc_logins WHERE state_hash = $hash AND expires_at > now()::TIMESTAMP
    RETURNING org_id, code_verifier, nonce, redirect_uri`,
} as const;

interface Row {
  org_id: string;
  issuer: string;
  client_id: string;
  client_secret_sealed: string;
  groups_claim: string | null;
  provision: Provider['provision'];
  updated_at: string;
}

export const loginPath = (orgId: string) => `/auth/oidc/${orgId}/login`;

export const providerView = (p: Provider): ProviderView => ({
  issuer: p.issuer,
  clientId: p.clientId,
  groupsClaim: p.groupsClaim,
  provision: p.provision,
  updatedAt: p.updatedAt,
  loginPath: loginPath(p.orgId),
});

export class OidcStore {
  constructor(private readonly db: Db) {}

  async set(orgId: string, input: Omit<Provider, 'orgId' | 'updatedAt'>): Promise<Provider> {
    const key = secretKey(this.db.path, true)!;
    await this.db.run(SQL.upsert, {
      org: orgId,
      issuer: input.issuer,
      client: input.clientId,
      secret: seal(key, input.clientSecret),
      groups: input.groupsClaim,
      provision: input.provision,
    });
    return (await this.get(orgId))!;
  }

  /** The provider with its secret unsealed; undefined when the organization has none. */
  async get(orgId: string): Promise<Provider | undefined> {
    const [row] = await this.db.all<Row & Record<string, unknown>>(SQL.get, { org: orgId });
    if (!row) return undefined;
    const key = secretKey(this.db.path, false);
    if (!key) throw new Error(`the OIDC key file of ${this.db.path} is missing: configure the provider again (agentmeter orgs oidc)`);
    return {
      orgId: row.org_id,
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecret: unseal(key, row.client_secret_sealed),
      groupsClaim: row.groups_claim,
      provision: row.provision,
      updatedAt: row.updated_at,
    };
  }

  /** The organization's provider's issuer, if it has one (no secret is read). */
  async issuer(orgId: string): Promise<string | undefined> {
    const [row] = await this.db.all<Row & Record<string, unknown>>(SQL.get, { org: orgId });
    return row?.issuer;
  }

  /** Whether the organization has a provider (no secret is read). */
  async has(orgId: string): Promise<boolean> {
    return (await this.db.all(SQL.get, { org: orgId })).length > 0;
  }

  async remove(orgId: string): Promise<boolean> {
    return (await this.db.run(SQL.remove, { org: orgId })) > 0;
  }

  /** Records a sign-in under way; returns its state (the only copy is the browser's and the provider's). */
  async begin(login: PendingLogin, now: number): Promise<string> {
    const state = randomBytes(32).toString('base64url');
    await this.db.run(SQL.purgeLogins);
    await this.db.run(SQL.insertLogin, {
      hash: hashKey(state),
      org: login.orgId,
      verifier: login.codeVerifier,
      nonce: login.nonce,
      redirect: login.redirectUri,
      expires: now + LOGIN_TTL_MS,
    });
    return state;
  }

  /** The sign-in of `state`, removed so it is used once; undefined when unknown, used or expired. */
  async take(state: string): Promise<PendingLogin | undefined> {
    const [row] = await this.db.all<{ org_id: string; code_verifier: string; nonce: string; redirect_uri: string }>(SQL.takeLogin, {
      hash: hashKey(state),
    });
    return row ? { orgId: row.org_id, codeVerifier: row.code_verifier, nonce: row.nonce, redirectUri: row.redirect_uri } : undefined;
  }
}
