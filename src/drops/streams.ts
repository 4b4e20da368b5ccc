import { Readable, Transform, type TransformCallback } from 'node:stream';
import type { WriteSource } from './drop.js';

/** Any accepted write source as a Readable of Buffers; strings are UTF-8. */
export function toReadable(source: WriteSource): Readable {
  if (typeof source === 'string') return Readable.from([Buffer.from(source, 'utf8')]);
  if (Buffer.isBuffer(source)) return Readable.from([source]);
  if (source instanceof Readable) return source;
  return Readable.from(source);
}

/** A pass-through that counts the bytes flowing through it: the expected size of an upload. */
export class ByteCounter extends Transform {
  bytes = 0;

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.bytes += buffer.length;
    callback(null, buffer);
  }
}
