// Hash routes: `#/search?owner=alex&q=…`. Every view's state that a link
// should carry (owner, memory id, source) is in the hash, so a view can be
// bookmarked, reloaded and opened from another view.
import { useEffect, useState } from 'preact/hooks';

export const VIEWS = ['overview', 'search', 'graph', 'source', 'reads', 'audit', 'queues'] as const;
export type ViewName = (typeof VIEWS)[number];

export interface Route {
  view: ViewName;
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const view = (VIEWS as readonly string[]).includes(path) ? (path as ViewName) : 'overview';
  return { view, params: new URLSearchParams(query) };
}

/** A link to a view; empty and undefined parameters are left out. */
export function href(view: ViewName, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return `#/${view}${s ? `?${s}` : ''}`;
}

export function navigate(view: ViewName, params: Record<string, string | undefined> = {}): void {
  location.hash = href(view, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}
