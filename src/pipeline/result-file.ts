import { Readable } from 'node:stream';
import type { Journal, LineOutcome } from '../journal/index.js';

/**
 * The result file a WMS imports: one row per input line, plain CSV (comma, CRLF, UTF-8 without BOM, a header),
 * formula-safe. The mapping schema has no result section yet, so the name and columns are fixed (docs/pipeline.md).
 */
export const RESULT_COLUMNS = [
  'line', 'document', 'status', 'id', 'acknowledged_at', 'shipped_at', 'move_id', 'count_number', 'returned', 'message', 'check',
] as const;

/** `KORR_20261120.csv` → `KORR_20261120.result.csv`. */
export function resultFileName(name: string): string {
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.result.csv`;
}

export function errorFileName(name: string): string {
  return `${name}.error.txt`;
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Quotes when needed; a leading = + - @ TAB CR makes a spreadsheet run a formula: prefixed with ' (numbers left alone). */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (text.length === 0) return text;
  const first = text.charCodeAt(0);
  // = + - @ TAB CR
  if ((first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13) && !NUMBER.test(text)) text = `'${text}`;
  if (NEEDS_QUOTES.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

export function csvRow(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += (i === 0 ? '' : ',') + csvField(values[i]);
  return line + '\r\n';
}

const PROMOTED = new Set(['id', 'acknowledged_at', 'shipped_at', 'move_id', 'number', 'errors']);
const NO_RESULT: [unknown, unknown, unknown, unknown, unknown, string] = [null, null, null, null, null, ''];

/** Fields of the service's answer (or of a verification) for one item, split into the fixed columns and the rest. */
export function returnedColumns(result: unknown): [unknown, unknown, unknown, unknown, unknown, string] {
  if (result === null || typeof result !== 'object') return NO_RESULT;
  const r = result as Record<string, unknown>;
  let rest = '';
  for (const k in r) {
    const v = r[k];
    if (v === null || v === undefined || PROMOTED.has(k)) continue;
    rest += `${rest ? '; ' : ''}${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
  }
  return [r.id, r.acknowledged_at, r.shipped_at, r.move_id, r.number, rest];
}

export interface ResultRowOverride {
  status: string;
  message: string;
}

function row(o: LineOutcome, override: ResultRowOverride | undefined, counts: Record<string, number> | undefined): string {
  const status = override?.status ?? (o.status === 'pending' || o.status === 'sent' ? 'uncertain' : o.status);
  if (counts) counts[status] = (counts[status] ?? 0) + 1;
  const messages = override ? [override.message] : o.messages;
  const hint = override ? '' : o.hint ?? (o.status === 'pending' || o.status === 'sent' ? 'the bridge stopped before this row was settled' : '');
  const [id, acknowledgedAt, shippedAt, moveId, countNumber, rest] = returnedColumns(o.result);
  return csvRow([o.line, o.docKey ?? '', status, id, acknowledgedAt, shippedAt, moveId, countNumber, rest, messages.length === 0 ? '' : messages.join(' | '), hint]);
}

/** The result file of a journal file, generated while streaming (constant memory); `counts` receives rows per status. */
export function resultStream(journal: Journal, fileId: number, override?: ResultRowOverride, counts?: Record<string, number>): Readable {
  function* lines(): Generator<string> {
    yield csvRow(RESULT_COLUMNS);
    let chunk = '';
    for (const o of journal.iterateLineOutcomes(fileId)) {
      chunk += row(o, override, counts);
      if (chunk.length >= 64 * 1024) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }
  return Readable.from(lines(), { objectMode: false });
}
