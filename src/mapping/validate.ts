import type { z } from 'zod';
import { endpoints, fastValidator } from '../contract/index.js';
import type { InboundDocument } from './definition-schema.js';
import { cellMessage, DocumentBuilder, type DocState, type Places, type RowError } from './documents.js';
import type { BoundNode } from './compile.js';

interface Target { schema: { safeParse(value: unknown): z.ZodSafeParseResult<unknown> }; bodyKey?: 'shipments' | 'adjustments' }

/** The contract's item schema per write, compiled once (fastValidator: the same results and errors, faster). */
export function contractTarget(document: InboundDocument): Target {
  const e = endpoints[document] as { item: z.ZodType; bodyKey?: 'shipments' | 'adjustments' };
  return { schema: fastValidator(e.item), bodyKey: e.bodyKey };
}

const pathText = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');

/**
 * Turns contract issues into row errors. The document is rebuilt with origin tracing (only on this failure
 * path) so each issue can name the line, column and raw value it came from.
 */
export function locateIssues(doc: DocState, root: BoundNode, fileName: string, issues: readonly z.core.$ZodIssue[], places?: Places): RowError[] {
  const builder = new DocumentBuilder(root, fileName, places);
  const at = builder.places;
  const traced = builder.start(doc.key, true);
  for (let i = 0; i < doc.rows.length; i += 2) builder.add(traced, doc.rows[i + 1] as readonly string[], doc.rows[i] as number);
  const firstLine = (doc.rows[0] as number | undefined) ?? 0;
  return issues.map((issue) => {
    let obj: unknown = traced.item;
    let origin = traced.trace!.get(traced.item);
    let rest = 0;
    for (let i = 0; i < issue.path.length; i++) {
      obj = obj !== null && typeof obj === 'object' ? (obj as Record<PropertyKey, unknown>)[issue.path[i] as string] : undefined;
      const o = obj !== null && typeof obj === 'object' ? traced.trace!.get(obj) : undefined;
      if (o) {
        origin = o;
        rest = i + 1;
      }
    }
    const where = pathText(issue.path) || 'request';
    const line = origin?.line ?? firstLine;
    const fieldPath = issue.path.slice(rest).join('.');
    const field = origin && fieldPath ? origin.node.fields.find((f) => f.path.join('.') === fieldPath) : undefined;
    const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
    if (field && field.label) {
      const raw = field.raw(origin!.row);
      const message = missing && raw.trim() === ''
        ? `${at.cell(line, origin!.row, field.label)}: the cell is empty, but ${where} is required`
        : cellMessage(at, line, origin!.row, field.label, raw, `is refused: ${plainIssue(issue, where)}`);
      return { line, column: field.label, raw, message };
    }
    if (missing) return { line, message: `${at.line(line, origin?.row)}: ${where} is required, but ${field ? 'its value is empty' : 'no field of the mapping fills it'}` };
    return { line, message: `${at.line(line, origin?.row)}: ${plainIssue(issue, where)}` };
  });
}

const KINDS: Record<string, string> = { int: 'a whole number', number: 'a number', string: 'text', boolean: 'yes or no', array: 'a list', object: 'an object' };

/**
 * A contract issue in plain words ("quantity must be at least 1", not zod's "Too small: expected number to be
 * >=1"); the contract's own messages (refinements, "must be a 3-letter currency code") are kept, after `where`.
 */
export function plainIssue(issue: z.core.$ZodIssue, where: string): string {
  if (issue.code === 'custom') return where === 'request' || issue.message.startsWith(where) ? issue.message : `${where}: ${issue.message}`;
  return `${where} ${plainWords(issue)}`;
}

function plainWords(issue: z.core.$ZodIssue): string {
  const i = issue as z.core.$ZodIssue & { origin?: string; minimum?: number | bigint; maximum?: number | bigint; inclusive?: boolean; expected?: string; format?: string; values?: unknown[] };
  switch (i.code) {
    case 'invalid_type':
      return / received undefined$/.test(i.message) ? 'is required' : `must be ${KINDS[i.expected ?? ''] ?? i.expected}`;
    case 'too_small': {
      const n = Number(i.minimum);
      if (i.origin === 'string') return n === 1 ? 'must not be empty' : `needs at least ${n} characters`;
      if (i.origin === 'array' || i.origin === 'set') return n === 1 ? 'needs at least one entry (no row fed this list)' : `needs at least ${n} entries`;
      return i.inclusive ? `must be at least ${n}` : `must be more than ${n}`;
    }
    case 'too_big': {
      const n = Number(i.maximum);
      if (i.origin === 'string') return `may have at most ${n} characters`;
      if (i.origin === 'array' || i.origin === 'set') return `may have at most ${n} entries`;
      return i.inclusive ? `must be at most ${n}` : `must be less than ${n}`;
    }
    case 'invalid_format':
      if (i.format === 'date') return 'must be a date (yyyy-MM-dd; set type: date and its format on the field)';
      if (i.format === 'datetime') return 'must be a date and time with an offset (set type: datetime on the field)';
      return i.message.startsWith('Invalid') ? 'has the wrong format' : i.message;
    case 'invalid_value':
      return `must be one of ${(i.values ?? []).map(String).join(', ')} (a map transform can translate the WMS's values)`;
    default:
      return i.message;
  }
}
