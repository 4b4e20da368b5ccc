import { Transform, type TransformCallback } from 'node:stream';
import { Stringifier } from 'csv-stringify';
import iconv from 'iconv-lite';
import { WisbridgeError } from '../errors.js';
import type { Mapping } from './mapping.js';

/** csv-stringify's synchronous formatter behind its stream (the same quoting, BOM, header and record delimiters). */
interface StringifierApi {
  info: { records: number };
  options: { record_delimiter: string; eof: boolean; header: boolean };
  __transform(row: unknown, push: (chunk: string | Buffer) => void): Error | undefined;
  bom(push: (chunk: string | Buffer) => void): void;
}

/** Output is handed on in chunks of about this many characters, not one stream write per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Records in (API list records, object mode), CSV bytes out, in the mapping's dialect and encoding.
 * Formula neutralization is done per column by the mapping (so numeric columns can opt out and keep their
 * minus sign); csv-stringify quotes every field holding a CR or LF (quoted_match) so rows round-trip.
 * Rows whose cells hold no delimiter, quote, escape, CR or LF need no quoting: they are joined here (csv-stringify
 * would write exactly that, and costs ~15 µs per row); any other row goes through csv-stringify's own formatter.
 * Output is collected into large chunks instead of one stream write per row.
 */
export function createExportWriter(mapping: Mapping): Transform {
  const plan = mapping.export;
  if (!plan) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an inbound mapping, not an export`);
  const d = mapping.dialect;
  const api = (new Stringifier({
    delimiter: d.delimiter, quote: d.quote, escape: d.escape, quoted_match: /[\r\n]/,
    record_delimiter: d.record_delimiter === 'crlf' ? 'windows' : 'unix',
    bom: d.bom && d.encoding === 'utf-8',
  }) as unknown as { api: StringifierApi }).api;
  const encode = d.encoding === 'utf-8' ? (s: string) => Buffer.from(s, 'utf8') : (s: string) => iconv.encode(s, d.encoding === 'windows-1252' ? 'win1252' : 'latin1');
  const special = new RegExp(`[${[...new Set([...d.delimiter, ...d.quote, ...d.escape, '\r', '\n'])].map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]`);
  const recordDelimiter = api.options.record_delimiter;
  const writeRow = (row: string[]): Error | undefined => {
    for (const cell of row) if (special.test(cell)) return api.__transform(row, collect);
    if (api.info.records === 0) api.bom(collect);
    if (api.options.eof) pending += row.join(d.delimiter) + recordDelimiter;
    else pending += (api.options.header || api.info.records > 0 ? recordDelimiter : '') + row.join(d.delimiter);
    api.info.records++;
    return undefined;
  };
  let pending = '';
  const out = new Transform({
    writableObjectMode: true,
    transform(record: unknown, _enc, cb: TransformCallback) {
      for (const row of plan.rows(record)) {
        const error = writeRow(row);
        if (error) return cb(error);
      }
      if (pending.length >= CHUNK_CHARS) drain();
      cb();
    },
    flush(cb) {
      if (api.info.records === 0) api.bom(collect);
      drain();
      cb();
    },
  });
  function collect(chunk: string | Buffer): void {
    if (typeof chunk === 'string') {
      pending += chunk;
      return;
    }
    drain(); // the BOM: bytes as they are, never re-encoded
    out.push(chunk);
  }
  function drain(): void {
    if (pending.length === 0) return;
    out.push(encode(pending));
    pending = '';
  }
  if (plan.header) {
    const error = writeRow(plan.header);
    if (error) throw error;
  }
  return out;
}
