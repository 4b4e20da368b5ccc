import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';

export interface Fingerprint {
  checksum: string;
  size: number;
  /** Set when the bytes are not valid UTF-8 although the mapping expects UTF-8: the byte offset of the problem. */
  invalidUtf8At?: number;
  /** Only blanks (or nothing): there is no header row. */
  blank: boolean;
  /** Physical lines (line feeds, plus an unterminated last line): the total of the progress shown while mapping. */
  lines: number;
}

/** First pass over a file: sha256 and size while streaming, and a strict UTF-8 check when the mapping reads UTF-8. */
export async function fingerprint(source: Readable, checkUtf8: boolean): Promise<Fingerprint> {
  const hash = createHash('sha256');
  const decoder = checkUtf8 ? new TextDecoder('utf-8', { fatal: true }) : undefined;
  let size = 0;
  let invalidUtf8At: number | undefined;
  let blank = true;
  let lines = 0;
  let last = 10;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    hash.update(chunk);
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1];
    if (blank && /\S/.test(chunk.toString('latin1'))) blank = false;
    if (decoder && invalidUtf8At === undefined) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        invalidUtf8At = size;
      }
    }
    size += chunk.length;
  }
  if (decoder && invalidUtf8At === undefined) {
    try {
      decoder.decode();
    } catch {
      invalidUtf8At = size;
    }
  }
  return { checksum: hash.digest('hex'), size, invalidUtf8At, blank, lines: lines + (last === 10 ? 0 : 1) };
}

/** Counts the bytes flowing through (progress of the mapping pass). */
export class ByteCounter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}
