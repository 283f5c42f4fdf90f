// A small client-side router: the path picks the page, the query holds the range, filters and page, so
// a link can be shared. Navigation is history.pushState; the server answers index.html on every route.
import { useEffect, useState } from 'preact/hooks';

const CHANGE = 'agentmeter:navigate';

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname, query: new URLSearchParams(location.search) });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return loc;
}

/** The same path with some query parameters changed (null removes one). */
export function withQuery(path: string, query: URLSearchParams, patch: Record<string, string | null>): string {
  const next = new URLSearchParams(query);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) next.delete(k);
    else next.set(k, v);
  }
  const s = next.toString();
  return s ? `${path}?${s}` : path;
}

/** Keeps the range (and the team picked) when moving between pages. */
export function carryRange(path: string, query: URLSearchParams): string {
  const q = new URLSearchParams();
  for (const k of ['from', 'to', 'team']) {
    const v = query.get(k);
    if (v) q.set(k, v);
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
