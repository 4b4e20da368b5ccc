import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../errors.js';
import type { ConsoleAuth } from './auth.js';
import { page, type Html } from './html.js';
import { searchPage } from './pages-search.js';
import type { ConsoleSource } from './source.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
const SEARCH_LIMIT = 100;

/**
 * The console's read-only pages that look across files — search (`/console/search?q=`) — in front of the main
 * handler: a request that is not signed in, or for another page, goes on to it (it answers 401 or the login page).
 */
export function withInsights(source: ConsoleSource, auth: ConsoleAuth | undefined, next: Handler): Handler {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname.replace(/\/+$/, '');
    if (!auth || path !== '/console/search' || (req.method !== 'GET' && req.method !== 'HEAD')) return next(req, res);
    const who = auth.check(req);
    if (!who) return next(req, res);
    const show = (title: string, body: Html) => res.writeHead(200, HEADERS).end(page({ title, body, who: who.name, signOut: who.id.startsWith('session:') }));
    (async () => {
      const journal = await source.runtime.journal();
      const text = (url.searchParams.get('q') ?? '').trim().slice(0, 64);
      show('Search', searchPage(text, text.length >= 2 ? await journal.console.search(text, { limit: SEARCH_LIMIT }) : undefined));
    })().catch((error: unknown) => {
      source.runtime.logger.error({ err: describeError(error), path }, 'console request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error (see the bridge log)\n');
      else res.end();
    });
    return true;
  };
}
