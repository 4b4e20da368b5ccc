import { Segment } from './segment.js';
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
  private interchangeIndex = 0;
  private interchange = '';
  private group: string | undefined;
  private set: string | undefined;
  private index = 0;
  private started = false;
  /** The most bytes ever held between two chunks. */
  largestHeld = 0;

  constructor(options: TokenizerOptions = {}) {
    this.file = options.file;
    this.maxSegmentBytes = options.maxSegmentBytes ?? MAX_SEGMENT_BYTES;
    this.syntaxes = options.syntaxes ?? SYNTAXES;
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
        this.emit(Buffer.concat([carry, chunk.subarray(0, t)]), 0, carry.length + t, this.carryOffset, out);
        pos = t + 1;
      } else {
        buf = Buffer.concat([carry, chunk]);
        base = this.carryOffset;
      }
    }
    this.consumed += chunk.length;
    this.scan(buf, pos, base, out);
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
    this.emit(carry, pos, end, this.carryOffset + pos, out);
  }

  private scan(buf: Buffer, start: number, base: number, out: Segment[]): void {
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
      this.emit(buf, pos, t, base + pos, out);
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

  private emit(buf: Buffer, start: number, end: number, offset: number, out: Segment[]): void {
    const delimiters = this.delimiters as Delimiters;
    let stop = end;
    // A CR before an LF terminator is the line break's, not the segment's.
    if (delimiters.segment === LF && stop > start && buf[stop - 1] === CR) stop--;
    const text = buf.toString('utf8', start, stop);
    const fields = delimiters.release === undefined ? text.split(this.elementChar) : splitReleased(text, delimiters);
    const id = fields[0];
    const envelope = (this.syntax as HeaderSyntax).envelope;
    if (id === envelope.interchange.header) {
      this.interchangeIndex++;
      this.interchange = fields[envelope.interchange.control] ?? '';
      this.group = undefined;
      this.set = undefined;
    } else if (id === envelope.group.header) {
      this.group = fields[envelope.group.control] ?? '';
      this.set = undefined;
    } else if (id === envelope.set.header) {
      this.set = fields[envelope.set.control] ?? '';
      this.index = 0;
    }
    if (this.set !== undefined) this.index++;
    out.push(new Segment(id, fields, delimiters, {
      file: this.file,
      interchangeIndex: this.interchangeIndex,
      interchange: this.interchange,
      group: this.group,
      set: this.set,
      index: this.set === undefined ? 0 : this.index,
      offset,
    }, end - start + 1));
    if (id === envelope.set.trailer) this.set = undefined;
    else if (id === envelope.group.trailer) this.group = undefined;
    else if (id === envelope.interchange.trailer) this.delimiters = undefined;
  }
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
