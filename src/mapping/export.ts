import { Transform, type TransformCallback } from 'node:stream';
import { Stringifier } from 'csv-stringify';
import iconv from 'iconv-lite';
import { WisbridgeError } from '../errors.js';
import type { Mapping } from './mapping.js';

/**
 * Records in (API list records, object mode), CSV bytes out, in the mapping's dialect and encoding.
 * Formula neutralization is done per column by the mapping (so numeric columns can opt out and keep their
 * minus sign); csv-stringify quotes every field holding a CR or LF (quoted_match) so rows round-trip.
 */
export function createExportWriter(mapping: Mapping): Transform {
  const plan = mapping.export;
  if (!plan) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an inbound mapping, not an export`);
  const d = mapping.dialect;
  const stringifier = new Stringifier({
    delimiter: d.delimiter, quote: d.quote, escape: d.escape, quoted_match: /[\r\n]/,
    record_delimiter: d.record_delimiter === 'crlf' ? 'windows' : 'unix',
    bom: d.bom && d.encoding === 'utf-8',
  });
  const encode = d.encoding === 'utf-8' ? (b: Buffer) => b : (b: Buffer) => iconv.encode(b.toString('utf8'), d.encoding === 'windows-1252' ? 'win1252' : 'latin1');
  let failed: Error | undefined;
  const out = new Transform({
    writableObjectMode: true,
    transform(record: unknown, _enc, cb: TransformCallback) {
      if (failed) return cb(failed);
      for (const row of plan.rows(record)) stringifier.write(row);
      cb();
    },
    flush(cb) {
      stringifier.once('end', () => cb(failed));
      stringifier.end();
    },
  });
  stringifier.on('data', (chunk: Buffer) => out.push(encode(chunk)));
  stringifier.on('error', (error) => {
    failed = error;
    out.destroy(error);
  });
  if (plan.header) stringifier.write(plan.header);
  return out;
}
