// Where alerts go, guarded against server-side request forgery: a destination is an http(s) URL without
// credentials whose host resolves only to public addresses (private, loopback, link-local, CGNAT,
// multicast and reserved ranges, and IPv6 forms embedding them, are refused unless the server runs with
// --allow-private-webhooks: api/http/address-guard.ts, the guard OIDC uses too). The
// check runs when a budget is put and again at every send, after resolving the name; the request then
// connects to the very address that was checked (no second lookup a DNS answer could change in between),
// and a redirect is never followed (it counts as a failed attempt).
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isPublicAddress, urlHost } from '../http/address-guard.ts';

/** Pure: is this address one a webhook must not reach? The one guard OIDC uses too (api/http/address-guard.ts). */
export const isPrivateAddress = (address: string): boolean => !isPublicAddress(address);

/** Pure: what is wrong with a destination URL's form, or undefined. */
export function urlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be http or https';
  if (url.username || url.password) return 'must not carry a user name or password';
  return undefined;
}

export interface Resolved {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Resolves a destination and checks every address it has; throws a readable Error when refused. */
export async function resolveDestination(raw: string, allowPrivate: boolean): Promise<Resolved> {
  const problem = urlProblem(raw);
  if (problem) throw new Error(`the URL ${problem}`);
  const url = new URL(raw);
  const host = urlHost(url);
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new Error(`the host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (addresses.length === 0) throw new Error(`the host ${host} has no address`);
  if (!allowPrivate) {
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused)
      throw new Error(
        `the host ${host} resolves to ${refused.address}, a private, loopback or link-local address (the server refuses those unless run with --allow-private-webhooks)`,
      );
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

export interface SendResult {
  ok: boolean;
  /** Why it failed (no secret, no body), when it did. */
  error?: string;
}

/**
 * POSTs a JSON body to a resolved destination, connecting to the checked address; a 2xx answer is
 * success, anything else (a redirect included) a failure with its reason.
 */
export function postJson(to: Resolved, body: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<SendResult> {
  const request = to.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      to.url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
        // The connection goes to the address that was checked, whatever the name resolves to now.
        lookup: (_host, options, callback) => {
          if ((options as { all?: boolean }).all)
            (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: to.address, family: to.family }]);
          else callback(null, to.address, to.family);
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve({ ok: true });
        else if (status >= 300 && status < 400) resolve({ ok: false, error: `answered ${status} (a redirect, not followed)` });
        else resolve({ ok: false, error: `answered ${status}` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ ok: false, error: error.message }));
    req.end(body);
  });
}

/**
 * How a destination is shown to those who read budgets and alert settings: its scheme and host, and a fixed
 * mask for the rest. A webhook URL's path is often its secret (Slack's /services/T…/B…/<secret>, Discord's
 * /api/webhooks/<id>/<token>), and its query string often a token (?token=…), so neither is ever shown.
 */
export function shownUrl(url: string): string {
  return `${new URL(url).origin}/…`;
}

/** A destination as given in a request (budgets, anomaly and digest settings: the Destination schema). */
export interface GivenDestination {
  type: 'webhook' | 'slack';
  url: string;
  secret?: string | undefined;
}
/** A destination to keep, in clear: the full URL, and a webhook's secret (sealed when stored: sealed-destinations.ts). */
export interface KeptDestination {
  type: 'webhook' | 'slack';
  url: string;
  secret?: string;
}

/**
 * The destinations of a request as they are stored: each checked by the address guard (a refusal throws an
 * Error naming `at[j].url`), a URL put back as it was shown (masked) standing for the stored one it was
 * shown for, and a webhook URL already stored keeping its secret when given without one. `unopened` is why
 * the stored destinations could not be opened, if they could not: a URL given back as shown then says so.
 */
export async function keptDestinations(
  given: readonly GivenDestination[],
  before: readonly KeptDestination[],
  allowPrivate: boolean,
  at: string,
  unopened?: string,
): Promise<KeptDestination[]> {
  const out: KeptDestination[] = [];
  // Each stored destination stands for one given back as shown: two that show alike (two Slack channels
  // of one workspace, two webhooks of one host) stay two, given back as many times as stored. The one at
  // the same position is taken first, else the first not taken yet.
  const taken = new Set<number>();
  const showsAs = (o: KeptDestination, g: GivenDestination) => o.type === g.type && o.url !== g.url && shownUrl(o.url) === g.url;
  // Which of several that show alike a shorter list keeps cannot be told: its owner names them in full.
  for (const [j, g] of given.entries()) {
    const stored = before.filter((o) => showsAs(o, g)).length;
    const kept = given.filter((h) => h.type === g.type && h.url === g.url).length;
    if (stored > 1 && kept < stored)
      throw new Error(
        `${at}[${j}].url: ${stored} stored destinations show as ${g.url}, and ${kept} of them are given back as shown: which to keep cannot be told; give the full URL of each one to keep`,
      );
  }
  for (const [j, g] of given.entries()) {
    const match = before[j] && !taken.has(j) && showsAs(before[j], g) ? j : before.findIndex((o, i) => !taken.has(i) && showsAs(o, g));
    const shown = match >= 0 ? before[match] : undefined;
    if (shown) taken.add(match);
    const d = shown ? { ...g, url: shown.url } : g;
    // A URL as shown stands for a stored one only: sent as given, it would reach no receiver.
    if (!shown && urlProblem(g.url) === undefined && shownUrl(g.url) === g.url)
      throw new Error(
        unopened === undefined
          ? `${at}[${j}].url: is a URL as shown (${g.url}), standing for no destination stored; give the full URL`
          : `${at}[${j}].url: is a URL as shown (${g.url}), but the stored destinations cannot be opened (${unopened}); give the full URL`,
      );
    try {
      await resolveDestination(d.url, allowPrivate);
    } catch (error) {
      throw new Error(`${at}[${j}].url: ${(error as Error).message}`);
    }
    if (d.type === 'webhook') {
      const kept = d.secret ?? (shown ?? before.find((o) => o.type === 'webhook' && o.url === d.url))?.secret;
      out.push({ type: 'webhook', url: d.url, ...(kept ? { secret: kept } : {}) });
    } else out.push({ type: 'slack', url: d.url });
  }
  return out;
}
