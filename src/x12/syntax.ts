import { WisbridgeError } from '../errors.js';

/**
 * The syntax layer: what tells one EDI syntax from another, kept apart from the segment stream (tokenizer.ts) so a
 * second syntax (UN/EDIFACT: UNA/UNB, a release character) plugs in as another HeaderSyntax without touching it.
 */

/** The separators of one interchange, as bytes (every EDI separator is one ASCII character). */
export interface Delimiters {
  element: number;
  component: number;
  segment: number;
  /** X12 from version 00402 on (ISA11), EDIFACT's `*`; repetitions are left inside the element's text. */
  repetition?: number;
  /** EDIFACT's `?`: the next character is data, not a separator. X12 has none. */
  release?: number;
}

/** One level of the envelope: its header and trailer segment ids, and where their control fields sit (1-based). */
export interface EnvelopeLevel {
  header: string;
  trailer: string;
  /** The control number's element in the header (ISA13, GS06, ST02). */
  control: number;
  /** The trailer carries the count in its element 1 and the control number in its element 2 (IEA, GE, SE; UNZ, UNE, UNT). */
  trailerCount: 1;
  trailerControl: 2;
}

export interface Envelope {
  interchange: EnvelopeLevel;
  group: EnvelopeLevel;
  set: EnvelopeLevel;
}

/** A syntax that starts an interchange with a header from which the delimiters are read. */
export interface HeaderSyntax {
  name: string;
  envelope: Envelope;
  /** Whether the bytes at `at` start this syntax's interchange header (enough bytes for the check are given: HEADER_PEEK). */
  startsHeader(bytes: Buffer, at: number): boolean;
  /**
   * The delimiters of the interchange whose header starts at `at`, or undefined when `bytes` ends before they can be
   * read. Throws X12_SYNTAX when the header cannot hold them.
   */
  readDelimiters(bytes: Buffer, at: number, offset: number, file: string | undefined): Delimiters | undefined;
}

/** Bytes needed at a segment's start to tell whether it is an interchange header: `ISA` and its element separator. */
export const HEADER_PEEK = 4;
/** The ISA is fixed-width: 106 characters with its terminator (ISA16, the component separator, is the 105th). */
export const ISA_LENGTH = 106;
/** Elements of the ISA: the separator before each. */
const ISA_ELEMENTS = 16;
/** How far to look for the ISA's 16 elements when its fields are not padded to width, before calling it broken. */
const ISA_SCAN_LIMIT = 256;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const [I, S, A] = [0x49, 0x53, 0x41];

export const X12_ENVELOPE: Envelope = {
  interchange: { header: 'ISA', trailer: 'IEA', control: 13, trailerCount: 1, trailerControl: 2 },
  group: { header: 'GS', trailer: 'GE', control: 6, trailerCount: 1, trailerControl: 2 },
  set: { header: 'ST', trailer: 'SE', control: 2, trailerCount: 1, trailerControl: 2 },
};

/** A byte that can separate: printable ASCII, neither a letter nor a digit nor a space. */
function isSeparatorByte(byte: number): boolean {
  return byte > 0x20 && byte < 0x7f && !isAlphanumeric(byte);
}

function isAlphanumeric(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

/** Terminators may also be control characters (CR, LF, or the traditional 0x1c–0x1f). */
function isTerminatorByte(byte: number): boolean {
  return isSeparatorByte(byte) || (byte < 0x20 && byte !== 0x09 && byte !== 0x20);
}

export const X12: HeaderSyntax = {
  name: 'X12',
  envelope: X12_ENVELOPE,
  startsHeader(bytes, at) {
    return bytes[at] === I && bytes[at + 1] === S && bytes[at + 2] === A && isSeparatorByte(bytes[at + 3]);
  },
  readDelimiters(bytes, at, offset, file) {
    const element = bytes[at + 3];
    // Counting the separators instead of reading fixed columns finds the terminator of an ISA whose fields are not
    // padded to width too: the reader goes on, and the envelope validator refuses that interchange for its length.
    let seen = 0;
    let i = at + 3;
    const end = Math.min(bytes.length, at + ISA_SCAN_LIMIT);
    for (; i < end && seen < ISA_ELEMENTS; i++) if (bytes[i] === element) seen++;
    if (seen < ISA_ELEMENTS) {
      if (end === bytes.length && end < at + ISA_SCAN_LIMIT) return undefined;
      throw syntaxError(file, offset, `the ISA segment has fewer than ${ISA_ELEMENTS} elements within ${ISA_SCAN_LIMIT} bytes`);
    }
    // i is just past the 16th separator: ISA16 (one character), then the terminator.
    if (i + 1 >= bytes.length) return undefined;
    const component = bytes[i];
    const segment = bytes[i + 1];
    if (!isSeparatorByte(component) || !isTerminatorByte(segment) || new Set([element, component, segment]).size !== 3) {
      throw syntaxError(file, offset, 'the ISA segment names no usable component separator (ISA16) and segment terminator after it');
    }
    const delimiters: Delimiters = { element, component, segment };
    // ISA11 is the repetition separator from 00402 on, the standards identifier `U` before.
    const isa11 = isa11Byte(bytes, at, element);
    if (isa11 !== undefined && isSeparatorByte(isa11) && isa11 !== component && isa11 !== segment) delimiters.repetition = isa11;
    return delimiters;
  },
};

function isa11Byte(bytes: Buffer, at: number, element: number): number | undefined {
  let seen = 0;
  for (let i = at + 3; i < bytes.length; i++) {
    if (bytes[i] !== element) continue;
    if (++seen === 11) return bytes[i + 2] === element ? bytes[i + 1] : undefined;
  }
  return undefined;
}

/** The syntaxes the reader recognizes, tried in turn at every interchange start. */
export const SYNTAXES: readonly HeaderSyntax[] = [X12];

/** How many bytes `isX12` wants to decide: a BOM and the ISA's first four characters. */
export const X12_SNIFF_BYTES = UTF8_BOM.length + HEADER_PEEK;

/** Whether a file's first bytes are X12: `ISA` and a separator, after an optional UTF-8 BOM; its name does not matter. */
export function isX12(head: Uint8Array): boolean {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const at = hasBom(bytes) ? UTF8_BOM.length : 0;
  return bytes.length >= at + HEADER_PEEK && X12.startsHeader(bytes, at);
}

export function hasBom(bytes: Buffer): boolean {
  return bytes.length >= UTF8_BOM.length && bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2];
}

export const BOM_LENGTH = UTF8_BOM.length;

export function syntaxError(file: string | undefined, offset: number, what: string): WisbridgeError<'X12_SYNTAX'> {
  const where = file === undefined ? `offset ${offset}` : `${file}, offset ${offset}`;
  return new WisbridgeError('X12_SYNTAX', `${where}: ${what}`, { details: file === undefined ? { offset } : { file, offset } });
}
