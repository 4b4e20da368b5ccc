import type { Segment } from './segment.js';
import { SegmentTokenizer, type TokenizerOptions } from './tokenizer.js';

/** What the reader takes: a Node Readable, or any (async) iterable of byte chunks. */
export type ByteSource = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/**
 * The segments of an X12 file, read as its chunks arrive: it holds one chunk's segments and the unfinished segment
 * at its end, never the file (`largestHeld`).
 */
export class SegmentReader implements AsyncIterable<Segment> {
  private readonly tokenizer: SegmentTokenizer;

  constructor(private readonly source: ByteSource, options: TokenizerOptions = {}) {
    this.tokenizer = new SegmentTokenizer(options);
  }

  /** The most bytes the reader kept from one chunk to the next. */
  get largestHeld(): number {
    return this.tokenizer.largestHeld;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Segment, void, undefined> {
    for await (const batch of this.batches()) for (let i = 0; i < batch.length; i++) yield batch[i];
  }

  /**
   * The segments one chunk completes, as one array (reused: read it before asking for the next). Iterating segment by
   * segment costs an await each, a cost of the order of reading the segment (docs/performance.md, *X12 readers*).
   */
  async *batches(): AsyncGenerator<readonly Segment[], void, undefined> {
    const out: Segment[] = [];
    for await (const chunk of this.source) {
      this.tokenizer.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), out);
      if (out.length > 0) yield out;
      out.length = 0;
    }
    this.tokenizer.end(out);
    if (out.length > 0) yield out;
  }
}

/** Every segment of a text or buffer held whole (tests, acknowledgements read back). */
export function segmentsOf(input: string | Uint8Array, options: TokenizerOptions = {}): Segment[] {
  const tokenizer = new SegmentTokenizer(options);
  const out: Segment[] = [];
  tokenizer.push(typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input.buffer, input.byteOffset, input.byteLength), out);
  tokenizer.end(out);
  return out;
}
