import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleJournal, Journal, OperatorJournal, ResultReads } from '../journal/index.js';
import type { Principal } from './auth.js';

// What every console address uses: the request as the handlers see it, answering with the security headers, forms
// and query parameters read safely, and the route tables' lookup.

const BODY_LIMIT = 16 * 1024;
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  who: Principal;
  journal: ConsoleSide;
}

/** What the console reads and does: operator views and actions, result rows, its own pages and audit trail. */
export type ConsoleSide = OperatorJournal & ResultReads & Pick<Journal, 'listInstances' | 'instance'> & { readonly console: ConsoleJournal };

export function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS, ...headers }).end(body);
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > BODY_LIMIT) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

/** A console address: an exact path or a pattern whose groups are the handler's parameters, and what answers it. */
export interface Route<C> {
  path: string | RegExp;
  handle(c: C, params: readonly string[]): Promise<void> | void;
}

export function route<C>(routes: readonly Route<C>[], path: string): { route: Route<C>; params: string[] } | undefined {
  for (const candidate of routes) {
    if (typeof candidate.path === 'string') {
      if (candidate.path === path) return { route: candidate, params: [] };
      continue;
    }
    const match = candidate.path.exec(path);
    if (match) return { route: candidate, params: match.slice(1) };
  }
  return undefined;
}

export function intParam(url: URL, name: string): number | undefined {
  const v = url.searchParams.get(name);
  return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
}

export function enumParam<T extends string>(url: URL, name: string, values: readonly T[]): T | undefined {
  const v = url.searchParams.get(name);
  return values.includes(v as T) ? (v as T) : undefined;
}
