// The cookie that binds a sign-in's state to the browser that started it, and its comparison.
import { timingSafeEqual } from 'node:crypto';

export const OIDC_STATE_COOKIE = 'agentmeter_oidc_state';

/** The state cookie: Lax (it must come back on the provider's redirect, a cross-site navigation), 10 minutes, this path only. */
export const stateCookie = (value: string, maxAge: number, secure: boolean) =>
  [`${OIDC_STATE_COOKIE}=${value}`, 'Path=/auth/oidc', `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join(
    '; ',
  );

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** Equal texts, compared in constant time. */
export const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
