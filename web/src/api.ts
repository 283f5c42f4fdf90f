// Every request goes to this origin with the session cookie (HttpOnly: the page never sees it). Requests
// that change something carry the dashboard header the server asks of cookie-authenticated changes.
import type { Me } from './api-types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const DASHBOARD_HEADER = 'x-agentmeter-dashboard';

export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers[DASHBOARD_HEADER] = '1';
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  if (response.status === 204) return undefined as T;
  const body = (await response.json().catch(() => undefined)) as { detail?: string } | undefined;
  if (!response.ok) {
    if (response.status === 401) window.dispatchEvent(new Event('agentmeter:signed-out'));
    throw new ApiError(response.status, body?.detail ?? `The server answered ${response.status}`);
  }
  return body as T;
}

export const isAdmin = (me: Me) => me.role === 'owner' || me.role === 'manager';

/** Every page of a cursor-paged analytics endpoint (the /users walk). */
export async function allPages<Page extends { data: unknown[]; meta: { has_more: boolean; next_cursor: string | null } }>(
  path: string,
  params: URLSearchParams,
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams(params);
    if (cursor) q.set('cursor', cursor);
    const page: Page = await api<Page>(`${path}?${q}`);
    pages.push(page);
    cursor = page.meta.has_more ? page.meta.next_cursor : null;
  } while (cursor);
  return pages;
}
