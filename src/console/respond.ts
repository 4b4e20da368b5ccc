import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleJournal, Journal, OperatorJournal, ResultReads } from '../journal/index.js';
import type { Principal } from './auth.js';
import type { Role } from './roles.js';

// What every console address uses: the request as the handlers see it, answering with the security headers, forms
// and query parameters read safely, and the route tables' lookup.

const BODY_LIMIT = 16 * 1024;
export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // Other sites get no referrer; the console's own forms carry their Origin (no-referrer would make it "null").
  'referrer-policy': 'same-origin',
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
export type ConsoleSide = OperatorJournal & ResultReads & Pick<Journal, 'listInstances' | 'instance' | 'x12Exports'> & { readonly console: ConsoleJournal };

export function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS, ...headers }).end(body);
}

/**
 * The form of a POST, or undefined when its body is over the limit (a declared length is refused unread). What was
 * read is kept as bytes and decoded once: a character split between chunks stays whole.
 */
export function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error('the client went away before its form was read'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** A console address: an exact path or a pattern whose groups are the handler's parameters, and what answers it. */
export interface Route<C> {
  path: string | RegExp;
  /** The least role that may use it (docs/console.md, "Sign-in and roles"); pages are open to every role, actions need an operator. */
  needs?: Role;
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
