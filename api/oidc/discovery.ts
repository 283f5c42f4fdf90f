// Each organization's provider as openid-client knows it: discovered once per provider setting (a new
// `orgs oidc` discovers again), through the guarded fetch, with the provider's ID-token verifier.
import type { FetchImplementation } from 'jose';
import * as client from 'openid-client';
import { guardedFetch, OidcGuardError, refusal } from './guard.ts';
import { type IdTokenVerifier, idTokenVerifier } from './id-token.ts';
import type { Provider } from './store.ts';

export interface DiscoveredProvider {
  version: string;
  config: client.Configuration;
  idTokens: IdTokenVerifier;
}

export class ProviderDiscovery {
  private readonly configs = new Map<string, DiscoveredProvider>();

  /** allowPrivate: serve --allow-private-oidc (the provider may be http and on a private address). */
  constructor(private readonly allowPrivate: boolean) {}

  async configFor(provider: Provider): Promise<client.Configuration> {
    return (await this.discovered(provider)).config;
  }

  async discovered(provider: Provider): Promise<DiscoveredProvider> {
    const version = `${provider.issuer}\n${provider.clientId}\n${provider.updatedAt}`;
    const cached = this.configs.get(provider.orgId);
    if (cached?.version === version) return cached;
    // Said plainly before openid-client's own refusal of http (the guarded fetch checks every later request).
    const why = await refusal(new URL(provider.issuer), this.allowPrivate);
    if (why) throw new OidcGuardError(why);
    const guarded = guardedFetch(this.allowPrivate);
    const fetcher = guarded as client.CustomFetch;
    const config = await client.discovery(
      new URL(provider.issuer),
      provider.clientId,
      undefined,
      client.ClientSecretBasic(provider.clientSecret),
      {
        [client.customFetch]: fetcher,
        ...(this.allowPrivate ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
    config[client.customFetch] = fetcher;
    const entry = {
      version,
      config,
      idTokens: idTokenVerifier(config.serverMetadata(), provider.clientId, guarded as FetchImplementation),
    };
    this.configs.set(provider.orgId, entry);
    return entry;
  }

  /** Forgets an organization's provider (it was removed). */
  forget(orgId: string): void {
    this.configs.delete(orgId);
  }
}
