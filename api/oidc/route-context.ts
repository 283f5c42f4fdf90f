// What the OIDC routes share: the provider store, the discovered providers, the server's clock and
// addresses, and how their pages are described in the OpenAPI document.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { SignInStore } from '../signin/store.ts';
import type { ProviderDiscovery } from './discovery.ts';
import type { OidcStore } from './store.ts';

export interface OidcDeps {
  db: Db;
  accounts: AccountStore;
  sessions: SignInStore;
  /** serve --allow-private-oidc: the provider may be http and on a private or loopback address. */
  allowPrivate: boolean;
  /** The URL browsers reach this server at (serve --public-url); else the request's own. */
  publicUrl?: string | undefined;
  now?: () => Date;
}

export interface OidcRouteContext {
  deps: OidcDeps;
  store: OidcStore;
  discovery: ProviderDiscovery;
  clock: () => Date;
  /** Whether the browser reached this server over https (the cookies are then Secure). */
  secure: (request: FastifyRequest) => boolean;
  /** This server's URL as browsers reach it, without a trailing slash. */
  base: (request: FastifyRequest) => string;
}

export const TAG = 'Sign-in with the identity provider';
export const htmlPage = (description: string) => ({ contentType: 'text/html; charset=utf-8', description, schema: { type: 'string' } });
