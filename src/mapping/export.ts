import { Transform, type TransformCallback } from 'node:stream';
import { Stringifier } from 'csv-stringify';
import iconv from 'iconv-lite';
import { WisbridgeError } from '../errors.js';
import type { Mapping } from './mapping.js';

/** csv-stringify's synchronous formatter behind its stream (the same quoting, BOM and record delimiters). */
interface StringifierApi {
  info: { records: number };
  options: { record_delimiter: string };
  __transform(row: unknown, push: (chunk: string | Buffer) => void): Error | undefined;
  bom(push: (chunk: string | Buffer) => void): void;
}

/** Output is handed on in chunks of about this many characters, not one stream write per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The parts of an export file, each record rendered on its own: a file is `bom`, `header`, then the text of its
 * records in order, encoded with `encode`. Every row ends with the record delimiter (csv-stringify's `eof`, which
 * is never switched off here), so a record's text does not depend on its neighbours and can be rendered as soon
 * as the record arrives, long before the file is written.
 */
export interface ExportRenderer {
  /** The UTF-8 BOM when the dialect asks for it, else empty. */
  readonly bom: Buffer;
  /** The header row (with its record delimiter), or '' without one. */
  readonly header: string;
  /** The rows of one record. Throws what csv-stringify refuses. */
  render(record: unknown): string;
  encode(text: string): Buffer;
}

/**
 * Formula neutralization is done per column by the mapping (so numeric columns can opt out and keep their minus
 * sign); csv-stringify quotes every field holding a CR or LF (quoted_match) so rows round-trip.
 * Rows whose cells hold no delimiter, quote, escape, CR or LF need no quoting: they are joined here (csv-stringify
 * would write exactly that, and costs ~15 µs per row); any other row goes through csv-stringify's own formatter.
 */
export function createExportRenderer(mapping: Mapping): ExportRenderer {
  const plan = mapping.export;
  if (!plan) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an inbound mapping, not an export`);
  const d = { ...mapping.dialect, quote: mapping.dialect.quote || '"' }; // quote: false is refused for exports at load
  const api = (new Stringifier({
    delimiter: d.delimiter, quote: d.quote, escape: d.escape, quoted_match: /[\r\n]/,
    record_delimiter: d.record_delimiter === 'crlf' ? 'windows' : 'unix',
    bom: d.bom && d.encoding === 'utf-8',
  }) as unknown as { api: StringifierApi }).api;
  const encode = d.encoding === 'utf-8' ? (s: string) => Buffer.from(s, 'utf8') : (s: string) => iconv.encode(s, d.encoding === 'windows-1252' ? 'win1252' : 'latin1');
  const quoting = new RegExp(`[${[...new Set([...d.quote, ...d.escape, '\r', '\n'])].map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]`);
  const recordDelimiter = api.options.record_delimiter;
  /** True when a cell of the joined row holds the delimiter: the row then has more delimiters than cell gaps. */
  const extraDelimiter = (line: string, cells: number): boolean => {
    let n = 0;
    for (let i = line.indexOf(d.delimiter); i !== -1; i = line.indexOf(d.delimiter, i + d.delimiter.length)) if (++n >= cells) return true;
    return false;
  };
  let bom = Buffer.alloc(0);
  api.bom((chunk) => (bom = Buffer.from(chunk)));
  // csv-stringify emits the BOM again with its first record: it is taken above, strings are the rows.
  let text = '';
  const collect = (chunk: string | Buffer) => {
    if (typeof chunk === 'string') text += chunk;
  };
  // One test of the joined row instead of one per cell.
  const fixed = d.format === 'fixed';
  const renderRow = (row: string[]): void => {
    if (fixed) {
      // Cells come padded to their widths (export-plan.ts): a fixed-width line is never quoted.
      text += row.join('') + recordDelimiter;
      return;
    }
    const line = row.join(d.delimiter);
    if (quoting.test(line) || extraDelimiter(line, row.length)) {
      const error = api.__transform(row, collect);
      if (error) throw error;
      return;
    }
    api.info.records++;
    text += line + recordDelimiter;
  };
  const rowsOf = (rows: Iterable<string[]>): string => {
    text = '';
    for (const row of rows) renderRow(row);
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
