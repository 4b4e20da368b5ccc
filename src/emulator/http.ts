import type { IncomingMessage, ServerResponse } from 'node:http';
import { LIMITS } from '../contract/index.js';

/** An error that ends a request with a JSON error body (the shape is `errorBody` of the contract). */
export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly issues?: { path: string; message: string }[], readonly headers?: Record<string, string>) {
    super(message);
  }
}

/** A precondition failure of one item; per-item endpoints report it, fail-fast endpoints turn it into a 400. */
export class ItemError extends Error {}

/** A body already rendered as JSON text (list pages, rendered by SQLite), sent as is. */
export class JsonText {
  constructor(readonly text: string) {}
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  const body = { error: { status: error.status, code: error.code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) } };
  sendJson(res, error.status, body, error.headers);
}

/** Reads and parses a JSON body; too large or malformed gives a 400 (never a 5xx). */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMITS.maxBodyBytes) {
      throw new HttpError(400, 'body_too_large', `the request body exceeds ${LIMITS.maxBodyBytes} bytes`, undefined, { connection: 'close' });
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'invalid_json', 'the request body is empty; a JSON object is expected');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'invalid_json', `the request body is not valid JSON: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`);
  }
  if (tooDeep(value, MAX_DEPTH)) throw new HttpError(400, 'too_deep', `the request body nests deeper than ${MAX_DEPTH} levels`);
  return value;
}

/** Deep nesting would overflow the stack of recursive validation: refuse it up front (iteratively). */
const MAX_DEPTH = 32;
function tooDeep(root: unknown, max: number): boolean {
  // Two parallel stacks: no [value, depth] pair allocated per object.
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const d = depths.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d >= max) return true;
    // for…in walks an array's indexes and an object's keys alike.
    for (const k in v) {
      const child = (v as Record<string, unknown>)[k];
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/** zod issues → `{path, message}` with dotted paths (`shipments.0.id`). */
export function toIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[], prefix: (string | number)[] = []): { path: string; message: string }[] {
  return issues.slice(0, 50).map((i) => ({ path: [...prefix, ...i.path].map(String).join('.'), message: i.message }));
}

export const issueText = (i: { path: string; message: string }) => (i.path ? `${i.path}: ${i.message}` : i.message);

const nowIso = () => new Date().toISOString();
export { nowIso };
/** Stored timestamps are `…Z`; responses carry an explicit offset `+00:00`. */
export const outTime = (t: string | null): string | null => (t === null ? null : t.replace(/Z$/, '+00:00'));
