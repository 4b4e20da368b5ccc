import { X12Writer, type InterchangeHeader, type SegmentData, type SetData, type WriterSeparators } from './writer.js';

/** `*` `>` `~`, a CR/LF after every terminator (the common style). */
export const STAR_CRLF: WriterSeparators = { element: '*', component: '>', segment: '~', lineBreak: '\r\n' };
/** `|` `>` `~` with no line breaks (the other style partners send). */
export const PIPE: WriterSeparators = { element: '|', component: '>', segment: '~' };

export const AT = new Date(Date.UTC(2026, 11, 1, 23, 5));

export function header(control: number, overrides: Partial<InterchangeHeader> = {}): InterchangeHeader {
  return { senderQualifier: 'ZZ', sender: 'NWLWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control, ...overrides };
}

/** The body of one 945 (Warehouse Shipping Advice) with `lines` W12 lines. */
export function shippingAdvice(order: string, lines: number): SegmentData[] {
  const body: SegmentData[] = [['W06', 'F', order, '20261201', `SHP${order}`], ['N1', 'ST', 'ACME STORE 12', '9', '0614141000005']];
  for (let i = 1; i <= lines; i++) body.push(['LX', String(i)], ['W12', 'CC', '10', '10', '', 'EA', '', 'VN', `SKU-${i}`]);
  body.push(['W03', String(lines * 10), '12.5', 'LB']);
  return body;
}

export function set945(control: number, lines = 2): SetData {
  return { id: '945', control, segments: shippingAdvice(`SO${control}`, lines) };
}

/** An interchange of `groups` SW groups of `sets` 945s each (group n has GS06 n, set n of a group ST02 000n). */
export function interchange945(separators: WriterSeparators, control: number, groups = 1, sets = 2): string {
  const writer = new X12Writer(separators);
  let text = writer.interchangeStart(header(control));
  for (let g = 1; g <= groups; g++) {
    text += writer.groupStart({ functionalId: 'SW', sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control: g, version: '004010' });
    for (let s = 1; s <= sets; s++) text += writer.set(set945(s));
    text += writer.groupEnd();
  }
  return text + writer.interchangeEnd();
}

/**
 * One interchange of `sets` 945s made on the fly, in chunks of `chunkBytes` cut anywhere (mid-segment too): a large
 * file that is never held whole, for the memory test and the benchmark.
 */
export function* large945Chunks(sets: number, chunkBytes = 64 * 1024, lines = 10): Generator<Buffer> {
  const writer = new X12Writer(STAR_CRLF);
  let pending = writer.interchangeStart(header(4711));
  pending += writer.groupStart({ functionalId: 'SW', sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control: 1, version: '004010' });
  for (let s = 1; s <= sets; s++) {
    pending += writer.set(set945(s, lines));
    while (pending.length >= chunkBytes) {
      yield Buffer.from(pending.slice(0, chunkBytes), 'latin1');
      pending = pending.slice(chunkBytes);
    }
  }
  pending += writer.groupEnd() + writer.interchangeEnd();
  for (let i = 0; i < pending.length; i += chunkBytes) yield Buffer.from(pending.slice(i, i + chunkBytes), 'latin1');
}

/** The text cut into chunks of the given sizes, cycling through them (a chunk boundary anywhere). */
export function* chunked(text: string | Buffer, sizes: readonly number[]): Generator<Buffer> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length]);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}
