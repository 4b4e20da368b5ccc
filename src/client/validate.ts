import type { z } from 'zod';
import { WisbridgeError } from '../errors.js';

const MAX_VALUE_CHARS = 80;

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A short printable form of a value, for error messages. */
export function truncateValue(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined (missing)' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/**
 * Parses a response body with the contract's schema. A body that breaks the contract gives
 * CONTRACT_VIOLATION naming the endpoint, the first offending field path and its (truncated) value.
 * With `fast` (the schema's compiled `fastValidator`) a valid body is checked by it; a body it refuses is
 * parsed by the plain schema, so the error message stays the contract's.
 */
export function parseResponse<S extends z.ZodType>(
  endpoint: string, schema: S, json: unknown, fast?: { safeParse(value: unknown): z.ZodSafeParseResult<z.infer<S>> },
): z.infer<S> {
  if (fast) {
    const quick = fast.safeParse(json);
    if (quick.success) return quick.data;
  }
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue ? issue.path.map(String).join('.') : '';
  const value = issue ? valueAt(json, issue.path) : json;
  const more = result.error.issues.length > 1 ? ` (+${result.error.issues.length - 1} more issues)` : '';
  throw new WisbridgeError(
    'CONTRACT_VIOLATION',
    `${endpoint}: response field ${path === '' ? '(root)' : path} ${issue?.message ?? 'is invalid'}, got ${truncateValue(value)}${more}`,
    { details: { endpoint, path, value: truncateValue(value), issues: result.error.issues.length } },
  );
}

/** Request-side problems of one item, as short `path: message` strings. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
}
