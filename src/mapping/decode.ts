import { Transform, type TransformCallback } from 'node:stream';
import iconv from 'iconv-lite';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Decodes single-byte encodings to UTF-8 for csv-parse. A UTF-8 byte order mark wins over the declared
 * encoding (as in the WHATWG encoding standard): such a file passes through as UTF-8.
 */
export function createDecoder(encoding: 'windows-1252' | 'iso-8859-1'): Transform {
  const decoder = iconv.getDecoder(encoding === 'windows-1252' ? 'win1252' : 'latin1');
  let head: Buffer | undefined = Buffer.alloc(0);
  let utf8 = false;
  const emit = (t: Transform, chunk: Buffer) => {
    if (utf8) t.push(chunk);
    else {
      const s = decoder.write(chunk);
      if (s) t.push(s, 'utf8');
    }
  };
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      if (head) {
        head = Buffer.concat([head, chunk]);
        if (head.length < 3) return cb();
        utf8 = head.subarray(0, 3).equals(BOM);
        const rest = head;
        head = undefined;
        emit(this, rest);
        return cb();
      }
      emit(this, chunk);
      cb();
    },
    flush(cb) {
      if (head && head.length) emit(this, head);
      if (!utf8) {
        const tail = decoder.end();
        if (tail) this.push(tail, 'utf8');
      }
      cb();
    },
  });
}
