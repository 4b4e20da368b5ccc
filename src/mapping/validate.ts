import type { z } from 'zod';
import { endpoints, fastValidator } from '../contract/index.js';
import type { InboundDocument } from './definition-schema.js';
import { cellMessage, DocumentBuilder, type DocState, type RowError } from './documents.js';
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
export function locateIssues(doc: DocState, root: BoundNode, fileName: string, issues: readonly z.core.$ZodIssue[]): RowError[] {
  const builder = new DocumentBuilder(root, fileName);
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
    if (field && field.label) {
      const raw = field.raw(origin!.row);
      return { line, column: field.label, raw, message: cellMessage(fileName, line, field.label, raw, `is refused by the contract at ${where}: ${issue.message}`) };
    }
    return { line, message: `${fileName}, line ${line}: ${where}: ${issue.message}` };
  });
}
