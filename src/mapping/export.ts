import { Transform, type TransformCallback } from 'node:stream';
import iconv from 'iconv-lite';
import { WisbridgeError } from '../errors.js';
import { CsvWriter } from '../util/csv.js';
import type { Mapping } from './mapping.js';

/** Output is handed on in chunks of about this many characters, not one stream write per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The parts of an export file, each record rendered on its own: a file is `bom`, `header`, then the text of its
 * records in order, encoded with `encode`. Every row ends with the record delimiter, so a record's text does not
 * depend on its neighbours and can be rendered as soon as the record arrives, long before the file is written.
 */
export interface ExportRenderer {
  /** The UTF-8 BOM when the dialect asks for it, else empty. */
  readonly bom: Buffer;
  /** The header row (with its record delimiter), or '' without one. */
  readonly header: string;
  /** The rows of one record. */
  render(record: unknown): string;
  encode(text: string): Buffer;
}

/**
 * Formula neutralization is done per column by the mapping (so numeric columns can opt out and keep their minus
 * sign); the bridge's one CSV writer (src/util/csv.ts) quotes what needs it, every field holding a CR or LF
 * included, so rows round-trip.
 */
export function createExportRenderer(mapping: Mapping): ExportRenderer {
  const plan = mapping.export;
  if (!plan) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an inbound mapping, not an export`);
  const d = { ...mapping.dialect, quote: mapping.dialect.quote || '"' }; // quote: false is refused for exports at load
  const csv = new CsvWriter({ delimiter: d.delimiter, quote: d.quote, escape: d.escape, recordDelimiter: d.record_delimiter === 'crlf' ? '\r\n' : '\n' });
  const encode = d.encoding === 'utf-8' ? (s: string) => Buffer.from(s, 'utf8') : (s: string) => iconv.encode(s, d.encoding === 'windows-1252' ? 'win1252' : 'latin1');
  const bom = d.bom && d.encoding === 'utf-8' ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0);
  const recordDelimiter = d.record_delimiter === 'crlf' ? '\r\n' : '\n';
  // Fixed-width cells come padded to their widths (export-plan.ts): a fixed-width line is never quoted.
  const renderRow = d.format === 'fixed' ? (row: string[]) => row.join('') + recordDelimiter : (row: string[]) => csv.row(row);
  const rowsOf = (rows: Iterable<string[]>): string => {
    let text = '';
    for (const row of rows) text += renderRow(row);
    return text;
  };
  const header = plan.header ? rowsOf([plan.header]) : '';
  return { bom, header, render: (record) => rowsOf(plan.rows(record)), encode };
}

/** Rendered text in, encoded chunks of about CHUNK_CHARS out (one buffer per chunk, not per record). */
export function* encodeChunks(renderer: ExportRenderer, texts: Iterable<string>): Generator<Buffer> {
  if (renderer.bom.length > 0) yield renderer.bom;
  let pending = renderer.header;
  for (const t of texts) {
    pending += t;
    if (pending.length >= CHUNK_CHARS) {
      yield renderer.encode(pending);
      pending = '';
    }
  }
  if (pending.length > 0) yield renderer.encode(pending);
}

/** Records in (API list records, object mode), CSV bytes out, in the mapping's dialect and encoding. */
export function createExportWriter(mapping: Mapping): Transform {
  const renderer = createExportRenderer(mapping);
  let pending = renderer.header;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    if (renderer.bom.length > 0) out.push(renderer.bom);
  };
  const drain = () => {
    start();
    if (pending.length > 0) out.push(renderer.encode(pending));
    pending = '';
  };
  const out = new Transform({
    writableObjectMode: true,
    transform(record: unknown, _enc, cb: TransformCallback) {
      try {
        pending += renderer.render(record);
      } catch (error) {
        return cb(error as Error);
      }
      if (pending.length >= CHUNK_CHARS) drain();
      cb();
    },
    flush(cb) {
      drain();
      cb();
    },
  });
  return out;
}
