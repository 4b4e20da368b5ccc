import type { IncomingMessage } from 'node:http';

// Where a request came from and how it reached the bridge. Behind a reverse proxy the socket only knows the proxy:
// `console.trust_proxy` makes the console believe the proxy's X-Forwarded-Host and X-Forwarded-Proto (and nothing
// else: a client reaching the listener directly could send them too, so they are ignored unless told).

const firstOf = (header: string | string[] | undefined): string | undefined => {
  const value = Array.isArray(header) ? header[0] : header;
  const first = value?.split(',')[0].trim();
  return first || undefined;
};

/** The host (name and port) the browser addressed. */
function ownHost(req: IncomingMessage, trustProxy: boolean): string | undefined {
  return ((trustProxy ? firstOf(req.headers['x-forwarded-host']) : undefined) ?? req.headers.host)?.toLowerCase();
}

/** Whether the browser reached the console over HTTPS (only a trusted proxy can say so: the listener speaks HTTP). */
export function overHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  return trustProxy && firstOf(req.headers['x-forwarded-proto'])?.toLowerCase() === 'https';
}

/**
 * The foreign origin a POST came from, or undefined when it is the console's own or unknown: the `Origin` header,
 * else the `Referer`'s origin. A request with neither is left to the form token; `Origin: null` (a sandboxed frame,
 * a page that hides its origin) is foreign.
 */
export function foreignOrigin(req: IncomingMessage, trustProxy: boolean): string | undefined {
  const claimed = req.headers.origin ?? req.headers.referer;
  if (claimed === undefined) return undefined;
  let host: string | undefined;
  try {
    host = new URL(claimed).host;
  } catch {
    return claimed.slice(0, 100);
  }
  return host !== '' && host === ownHost(req, trustProxy) ? undefined : claimed.slice(0, 100);
}
