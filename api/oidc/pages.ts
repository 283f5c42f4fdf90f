// The small HTML pages of the OIDC sign-in: a refusal a person can read (why, and what to do), and the
// page that takes a signed-in browser on to the dashboard. A page, not a redirect, after the callback:
// the callback is the end of a navigation that began at the provider (another site), and a browser does
// not send a SameSite=Strict cookie on such a navigation's redirect; a refresh the page itself asks for is
// a navigation from this site, which does.
import type { FastifyReply } from 'fastify';

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const shell = (title: string, body: string, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${head}
<title>${html(title)} · agentmeter</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}h1{font-size:1.4rem}</style>
</head><body><main>${body}</main></body></html>
`;

/** A refusal: what happened and what to do next. */
export function refusalPage(title: string, detail: string, next = 'Go back to the sign-in page and try again.'): string {
  return shell(title, `<h1>${html(title)}</h1><p id="reason">${html(detail)}</p><p>${html(next)}</p><p><a href="/">Sign-in page</a></p>`);
}

/** Signed in: on to the dashboard. */
export function signedInPage(email: string): string {
  return shell(
    'Signed in',
    `<h1>Signed in</h1><p>Signed in as ${html(email)}. <a href="/" id="continue">Continue to the dashboard</a>.</p>`,
    '<meta http-equiv="refresh" content="0;url=/">',
  );
}

/**
 * Asked before a sign-in another site started (login CSRF): which organization and provider, and a link
 * that starts it from this site. Whoever runs a provider could otherwise have any browser that follows
 * their link signed in to their own account here, and what that person then does in the dashboard
 * (approving a machine's sign-in, say) would be done in that account.
 */
export function confirmSignInPage(orgName: string, providerHost: string, loginPath: string): string {
  return shell(
    'Sign in',
    `<h1>Sign in to ${html(orgName)}</h1><p>Another site sent you here to sign in to the agentmeter organization <strong>${html(orgName)}</strong> with the identity provider at ${html(providerHost)}.</p><p>Continue only if you meant to sign in to this organization.</p><p><a href="${html(loginPath)}" id="continue">Continue to ${html(providerHost)}</a></p><p><a href="/">Sign-in page</a></p>`,
  );
}

/** Answers with one of these pages: never cached, under its own content security policy. */
export const sendPage = (reply: FastifyReply, status: number, page: string) =>
  reply
    .status(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('cache-control', 'no-store')
    .send(page);
