// The guard on every request the server makes to an organization's identity provider (discovery, JWKS,
// token endpoint). The issuer is chosen by an owner, so a server-side request to it must not reach what
// only the server can reach: the provider must be https, and every address its name resolves to must be a
// public one (api/http/address-guard.ts, the guard webhooks use too: no loopback, private, link-local,
// CGNAT, multicast or unspecified range, IPv4 or IPv6, nor an IPv6 form embedding such an IPv4 address).
// `serve --allow-private-oidc` lifts both rules, for a provider inside the company network or a test's
// provider on 127.0.0.1. The check resolves the name just before each request; a DNS answer that changes
// between the check and the connection is not covered (documented in docs/oidc.md).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress, urlHost } from '../http/address-guard.ts';

/**
 * Why the server will not send a request to `url` (undefined: it may). `configuring`: an owner is setting
 * the provider, and a name that does not resolve yet is let through (the sign-in checks it again).
 */
export async function refusal(url: URL, allowPrivate: boolean, configuring = false): Promise<string | undefined> {
  if (allowPrivate) return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : `${url.protocol} is not http(s)`;
  if (url.protocol !== 'https:')
    return `the identity provider must be reached over https (${url.origin}); a provider inside the company network or on this machine needs the server started with --allow-private-oidc`;
  const host = urlHost(url);
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) return configuring ? undefined : `${url.hostname} does not resolve`;
  const blocked = addresses.find((a) => !isPublicAddress(a));
  if (blocked)
    return `${url.hostname} resolves to ${blocked}, a private or local address; the server refuses it unless started with --allow-private-oidc`;
  return undefined;
}

export class OidcGuardError extends Error {}

/** A fetch that refuses what `refusal` refuses and never follows a redirect on its own. */
export function guardedFetch(allowPrivate: boolean) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const why = await refusal(url, allowPrivate);
    if (why) throw new OidcGuardError(why);
    return fetch(input, { ...init, redirect: 'manual', signal: init?.signal ?? AbortSignal.timeout(10_000) });
  };
}
