import { isAscii } from 'node:buffer';
import { elementIn, Segment, type SegmentEnvelopes } from './segment.js';
import { BOM_LENGTH, HEADER_PEEK, SYNTAXES, hasBom, syntaxError, type Delimiters, type HeaderSyntax } from './syntax.js';

/** A segment longer than this (no terminator in sight) stops the file: it bounds what the reader holds. */
export const MAX_SEGMENT_BYTES = 64 * 1024;

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

export interface TokenizerOptions {
  file?: string;
  /** Longest segment accepted (bytes); MAX_SEGMENT_BYTES by default. */
  maxSegmentBytes?: number;
  /** The syntaxes recognized at an interchange start; X12 by default. */
  syntaxes?: readonly HeaderSyntax[];
  /**
   * Only the envelope is wanted (a pass that checks the envelopes): a segment other than an envelope's header or
   * trailer is given as what the envelope validator reads of it — inside a set one shared placeholder
   * (`IN_SET_SEGMENT`, counted, nothing of it read), outside a set its id and place.
   */
  envelopeOnly?: boolean;
}

/**
 * Bytes → segments, chunk by chunk. Holds between chunks only the unfinished segment at the end of the last one
 * (`largestHeld` tells the most it ever held); the delimiters come from each interchange's header, so a mailbox
 * of interchanges with different separators reads as one stream. CR and LF after a terminator are skipped.
 */
export class SegmentTokenizer {
  private readonly file: string | undefined;
  private readonly maxSegmentBytes: number;
  private readonly syntaxes: readonly HeaderSyntax[];
  /** Bytes of the unfinished segment; `carryIsBody`: its start is known not to be a header, only its terminator is missing. */
  private carry: Buffer | undefined;
  private carryIsBody = false;
  private carryOffset = 0;
  /** File offset of the next chunk's first byte. */
  private consumed = 0;
  private syntax: HeaderSyntax | undefined;
  private delimiters: Delimiters | undefined;
  private elementChar = '';
  /** The envelopes the next segment stands in: replaced (not changed) at each envelope segment, shared by those between. */
  private envelopes: SegmentEnvelopes;
  private index = 0;
  /** The first bytes of the envelope segments' ids (envelopeOnly: a segment starting otherwise is inside its set). */
  private readonly envelopeStarts = new Uint8Array(256);
  /** The ids seen (idOf), by their characters. */
  private readonly ids = new Map<number, string>();
  private started = false;
  private readonly envelopeOnly: boolean;
  /** The most bytes ever held between two chunks. */
  largestHeld = 0;

  constructor(options: TokenizerOptions = {}) {
    this.file = options.file;
    this.envelopeOnly = options.envelopeOnly === true;
    this.maxSegmentBytes = options.maxSegmentBytes ?? MAX_SEGMENT_BYTES;
    this.syntaxes = options.syntaxes ?? SYNTAXES;
    this.envelopes = { file: this.file, interchangeIndex: 0, interchange: '', group: undefined, set: undefined };
  }

  /** The envelopes from the segment being read on (a new object: the segments read before keep theirs). */
  private enclose(interchangeIndex: number, interchange: string, group: string | undefined, set: string | undefined): void {
    this.envelopes = { file: this.file, interchangeIndex, interchange, group, set };
  }

  /** Splits a chunk, appending the segments it completes to `out`. */
  push(chunk: Buffer, out: Segment[]): void {
    let buf = chunk;
    let pos = 0;
    let base = this.consumed;
    if (!this.started) {
      this.started = true;
      if (hasBom(chunk)) pos = BOM_LENGTH;
    }
    const carry = this.carry;
    if (carry !== undefined) {
      this.carry = undefined;
      if (this.carryIsBody) {
        const t = this.terminatorIn(chunk, 0, carry);
        if (t < 0) {
          this.hold(Buffer.concat([carry, chunk]), 0, this.carryOffset, true);
          this.consumed += chunk.length;
          return;
        }
        this.emit(Buffer.concat([carry, chunk.subarray(0, t)]), undefined, 0, carry.length + t, this.carryOffset, out);
        pos = t + 1;
      } else {
        buf = Buffer.concat([carry, chunk]);
        base = this.carryOffset;
      }
    }
    this.consumed += chunk.length;
    // An ASCII chunk is decoded once and each segment's text sliced from it (as the CSV reader slices its lines): a
    // decode per segment cost a call into the runtime each. The envelope pass reads no segment's text.
    const text = !this.envelopeOnly && isAscii(buf) ? buf.toString('latin1') : undefined;
    this.scan(buf, text, pos, base, out);
  }

  /** The end of the input: the unfinished segment, if any, is the last (a file may lack its final terminator). */
  end(out: Segment[]): void {
    const carry = this.carry;
    this.carry = undefined;
    if (carry === undefined) return;
    const pos = this.skipBreaks(carry, 0);
    if (pos >= carry.length) return;
    if (this.delimiters === undefined || this.headerAt(carry, pos) !== undefined) {
      throw syntaxError(this.file, this.carryOffset + pos, 'the file ends inside an ISA segment, or with bytes that are not one');
    }
    let end = carry.length;
    while (end > pos && (carry[end - 1] === CR || carry[end - 1] === LF)) end--;
    this.emit(carry, undefined, pos, end, this.carryOffset + pos, out);
  }

  /** `text`: the buffer decoded, when it is ASCII (its characters are its bytes). */
  private scan(buf: Buffer, text: string | undefined, start: number, base: number, out: Segment[]): void {
    let pos = start;
    const length = buf.length;
    for (;;) {
      pos = this.skipBreaks(buf, pos);
      if (pos >= length) return;
      if (length - pos < HEADER_PEEK) return this.hold(buf, pos, base + pos, false);
      const header = this.headerAt(buf, pos);
      if (header !== undefined) {
        const delimiters = header.readDelimiters(buf, pos, base + pos, this.file);
        if (delimiters === undefined) return this.hold(buf, pos, base + pos, false);
        this.enter(header, delimiters);
      } else if (this.delimiters === undefined) {
        throw syntaxError(this.file, base + pos, 'these bytes are not an interchange header (ISA): an X12 file holds interchanges only');
      }
      const t = this.terminatorIn(buf, pos, undefined);
      if (t < 0) return this.hold(buf, pos, base + pos, true);
      this.emit(buf, text, pos, t, base + pos, out);
      pos = t + 1;
    }
  }

  private headerAt(buf: Buffer, pos: number): HeaderSyntax | undefined {
    for (const syntax of this.syntaxes) if (syntax.startsHeader(buf, pos)) return syntax;
    return undefined;
  }

  private enter(syntax: HeaderSyntax, delimiters: Delimiters): void {
    this.syntax = syntax;
    this.delimiters = delimiters;
    this.elementChar = String.fromCharCode(delimiters.element);
    const { interchange, group, set } = syntax.envelope;
    this.envelopeStarts.fill(0);
    for (const id of [interchange.header, interchange.trailer, group.header, group.trailer, set.header, set.trailer]) this.envelopeStarts[id.charCodeAt(0)] = 1;
  }

  /** CR/LF after a terminator; between interchanges any white space. */
  private skipBreaks(buf: Buffer, start: number): number {
    let pos = start;
    const between = this.delimiters === undefined;
    while (pos < buf.length) {
      const byte = buf[pos];
      if (byte === CR || byte === LF || (between && (byte === SPACE || byte === TAB))) pos++;
      else break;
    }
    return pos;
  }

  /** Keeps the unfinished segment (copied: the chunk it came from is not held) until the next chunk. */
  private hold(buf: Buffer, pos: number, offset: number, isBody: boolean): void {
    const size = buf.length - pos;
    if (size > this.maxSegmentBytes) {
      throw syntaxError(this.file, offset, `no segment terminator within ${this.maxSegmentBytes} bytes`);
    }
    this.carry = Buffer.from(buf.subarray(pos));
    this.carryIsBody = isBody;
    this.carryOffset = offset;
    if (size > this.largestHeld) this.largestHeld = size;
  }

  /** The next terminator at or after `from`, skipping released ones; `before` holds the bytes preceding `buf`. */
  private terminatorIn(buf: Buffer, from: number, before: Buffer | undefined): number {
    const { segment, release } = this.delimiters as Delimiters;
    let t = buf.indexOf(segment, from);
    if (release === undefined) return t;
    while (t >= 0 && releasedAt(buf, t, from, before, release)) t = buf.indexOf(segment, t + 1);
    return t;
  }

  private emit(buf: Buffer, decoded: string | undefined, start: number, end: number, offset: number, out: Segment[]): void {
    const delimiters = this.delimiters as Delimiters;
    let stop = end;
    // A CR before an LF terminator is the line break's, not the segment's.
    if (delimiters.segment === LF && stop > start && buf[stop - 1] === CR) stop--;
    if (this.envelopeOnly && this.emitBody(buf, start, stop, end, offset, out)) return;
    const text = decoded === undefined ? buf.toString('utf8', start, stop) : decoded.slice(start, stop);
    // Without a release character the elements are split when first read (Segment.fields): most never are.
    const fields = delimiters.release === undefined ? text : splitReleased(text, delimiters);
    const e = typeof fields === 'string' ? text.indexOf(this.elementChar) : -1;
    const id = typeof fields === 'string' ? (e < 0 ? text : this.idOf(text, e)) : fields[0];
    const envelope = (this.syntax as HeaderSyntax).envelope;
    if (id === envelope.interchange.header) {
      this.enclose(this.envelopes.interchangeIndex + 1, elementOf(fields, this.elementChar, envelope.interchange.control), undefined, undefined);
    } else if (id === envelope.group.header) {
      this.enclose(this.envelopes.interchangeIndex, this.envelopes.interchange, elementOf(fields, this.elementChar, envelope.group.control), undefined);
    } else if (id === envelope.set.header) {
      const { interchangeIndex, interchange, group } = this.envelopes;
      this.enclose(interchangeIndex, interchange, group, elementOf(fields, this.elementChar, envelope.set.control));
      this.index = 0;
    }
    this.add(out, id, fields, delimiters, offset, end - start + 1);
    const { interchangeIndex, interchange, group } = this.envelopes;
    if (id === envelope.set.trailer) this.enclose(interchangeIndex, interchange, group, undefined);
    else if (id === envelope.group.trailer) this.enclose(interchangeIndex, interchange, undefined, undefined);
    else if (id === envelope.interchange.trailer) this.delimiters = undefined;
  }

  /**
   * A segment's id (the text before `end`), one string for each id seen: every W19 of a file shares one, so comparing
   * ids and looking them up (the mapping's segment types) meet the same string, whose hash is kept, and no string is
   * made a segment.
   */
  private idOf(text: string, end: number): string {
    if (end > 3) return text.slice(0, end);
    // ASCII ids of up to three characters as a small integer (no number is made for the key).
    let key = end;
    for (let i = 0; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c > 127) return text.slice(0, end);
      key = (key << 7) | c;
    }
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = text.slice(0, end)));
    return id;
  }

  /** A segment where the reader stands: its number in its set counted. */
  private add(out: Segment[], id: string, fields: readonly string[] | string, delimiters: Delimiters, offset: number, length: number): void {
    const inSet = this.envelopes.set !== undefined;
    if (inSet) this.index++;
    out.push(new Segment(id, fields, delimiters, this.envelopes, inSet ? this.index : 0, offset, length));
  }

  /** envelopeOnly: a segment that is no envelope's header or trailer, given as the validator reads it; false for one that is. */
  private emitBody(buf: Buffer, start: number, stop: number, end: number, offset: number, out: Segment[]): boolean {
    const delimiters = this.delimiters as Delimiters;
    // Most segments of a set start with a letter no envelope segment starts with: nothing more to look at.
    const inSet = this.envelopes.set !== undefined;
    if (inSet && this.envelopeStarts[buf[start]] === 0) {
      this.index++;
      out.push(IN_SET_SEGMENT);
      return true;
    }
    const e = buf.indexOf(delimiters.element, start);
    const idEnd = e < 0 || e > stop ? stop : e;
    const { interchange, group, set } = (this.syntax as HeaderSyntax).envelope;
    if (isId(buf, start, idEnd, interchange.header) || isId(buf, start, idEnd, interchange.trailer) || isId(buf, start, idEnd, group.header)
      || isId(buf, start, idEnd, group.trailer) || isId(buf, start, idEnd, set.header) || isId(buf, start, idEnd, set.trailer)) return false;
    if (inSet) {
      this.index++;
      out.push(IN_SET_SEGMENT);
      return true;
    }
    const id = buf.toString('latin1', start, idEnd);
    this.add(out, id, [id], delimiters, offset, end - start + 1);
    return true;
  }
}

/** What an envelopeOnly tokenizer gives for every segment inside a set that is not its SE: the validator counts it. */
export const IN_SET_SEGMENT = new Segment('', [''], { element: 0x2a, component: 0x3e, segment: 0x7e }, {
  file: undefined, interchangeIndex: 0, interchange: '', group: undefined, set: undefined,
}, 0, 0, 0);

/** Whether the bytes from start to end spell the segment id (ASCII). */
function isId(buf: Buffer, start: number, end: number, id: string): boolean {
  if (end - start !== id.length) return false;
  for (let i = 0; i < id.length; i++) if (buf[start + i] !== id.charCodeAt(i)) return false;
  return true;
}

/** Element n of a segment's text or fields, '' when absent. */
function elementOf(fields: string | readonly string[], separator: string, n: number): string {
  return typeof fields === 'string' ? elementIn(fields, separator, n) : fields[n] ?? '';
}

/** Whether the terminator at `t` follows an odd run of release characters (then it is data). */
function releasedAt(buf: Buffer, t: number, from: number, before: Buffer | undefined, release: number): boolean {
  let run = 0;
  let i = t - 1;
  while (i >= from && buf[i] === release) { run++; i--; }
  if (i < from && before !== undefined) {
    let j = before.length - 1;
    while (j >= 0 && before[j] === release) { run++; j--; }
  }
  return run % 2 === 1;
}

/** Splits on the element separator where it is not released, and drops the release characters. */
function splitReleased(text: string, delimiters: Delimiters): string[] {
  const release = String.fromCharCode(delimiters.release as number);
  const element = String.fromCharCode(delimiters.element);
  const fields: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === release && i + 1 < text.length) current += text[++i];
    else if (ch === element) { fields.push(current); current = ''; }
    else current += ch;
  }
  fields.push(current);
  return fields;
}
