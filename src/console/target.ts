import type { IncomingMessage } from 'node:http';

/**
 * What a request addresses, with one meaning for the sign-in throttle and the router alike: a path that URL parsing
 * would rewrite (`.` or `..` segments, plain or percent-encoded, a backslash, `//`, an absolute URL, a fragment) is
 * refused, so no spelling reaches a route while escaping the checks made on its canonical form.
 */
export type Target =
  | { kind: 'refused' }
  | { kind: 'other'; url: URL }
  /** `path`: the pathname without trailing slashes (`/console` for the console's root). */
  | { kind: 'console'; url: URL; path: string };

export function targetOf(req: IncomingMessage): Target {
  const raw = req.url ?? '/';
  const query = raw.indexOf('?');
  const rawPath = query < 0 ? raw : raw.slice(0, query);
  let url: URL;
  try {
    url = new URL(raw, 'http://console');
  } catch {
    return { kind: 'refused' };
  }
  if (url.pathname !== rawPath) return { kind: 'refused' };
  const path = url.pathname.replace(/\/+$/, '') || '/';
  return path === '/console' || path.startsWith('/console/') ? { kind: 'console', url, path } : { kind: 'other', url };
}
