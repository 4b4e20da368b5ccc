import type { Delimiters } from './syntax.js';

/** The envelopes a segment stands in: one object shared by the segments from one envelope segment to the next. */
export interface SegmentEnvelopes {
  /** The file's name, when the reader was given it. */
  file: string | undefined;
  /** 1 for the file's first interchange, 2 for the next (a mailbox holds several). */
  interchangeIndex: number;
  /** The interchange control number (ISA13) as written. */
  interchange: string;
  /** The group control number (GS06), from GS through GE; undefined outside a group. */
  group: string | undefined;
  /** The transaction set control number (ST02), from ST through SE; undefined outside a set. */
  set: string | undefined;
}

/** Where a segment sits: in the file, and in its envelopes. */
export interface SegmentPosition extends SegmentEnvelopes {
  /** The segment's position in its set, ST being 1 (what SE01 counts and AK302 names); 0 outside a set. */
  index: number;
  /** The byte offset of the segment's first character in the file. */
  offset: number;
}

/**
 * One segment: its id and elements as read, with the delimiters of its interchange. `fields[0]` is the id and
 * `fields[n]` element n, so element numbers are the standard's (W12's element 03 is `element(3)`). Elements and
 * components are split on demand: a mapping reads the elements of a few segments of a set, the id of all of them, and
 * splitting every segment would double the reader's cost.
 */
export class Segment {
  #fields: readonly string[] | undefined;
  #text: string | undefined;

  constructor(
    readonly id: string,
    /** The elements, or the segment's text, split on the element separator when first asked. */
    fields: readonly string[] | string,
    readonly delimiters: Delimiters,
    readonly envelopes: SegmentEnvelopes,
    /** Its position in its set, ST being 1 (what SE01 counts and AK302 names); 0 outside a set. */
    readonly index: number,
    /** The byte offset of its first character in the file. */
    readonly offset: number,
    /** Characters from the id through the terminator (the ISA must have 106). */
    readonly length: number,
  ) {
    if (typeof fields === 'string') this.#text = fields;
    else this.#fields = fields;
  }

  /**
   * Where it sits, as one object (made when asked: a reader makes millions of segments, and the few that need their
   * place are those in error and the envelopes').
   */
  get position(): SegmentPosition {
    const { file, interchangeIndex, interchange, group, set } = this.envelopes;
    return { file, interchangeIndex, interchange, group, set, index: this.index, offset: this.offset };
  }

  get fields(): readonly string[] {
    return (this.#fields ??= (this.#text as string).split(String.fromCharCode(this.delimiters.element)));
  }

  /** How many elements the segment has (trailing empty ones included when written). */
  get elementCount(): number {
    return this.fields.length - 1;
  }

  /**
   * Element n (1-based), `''` when absent. Read from the text without splitting it while no one asked for all the
   * fields: a mapping reads a few elements of a segment, and a split makes a string of each (docs/performance.md,
   * X12 against CSV).
   */
  element(n: number): string {
    const text = this.#text;
    if (text === undefined || this.#fields !== undefined) return this.fields[n] ?? '';
    return elementIn(text, CHARACTERS[this.delimiters.element], n);
  }

  /**
   * Elements (and components) into `into` at their slots, `wanted` in ascending element order: one walk along the text
   * for all of them, where element() walks from the start for each.
   */
  readElements(wanted: ReadonlyArray<{ readonly element: number; readonly component: number; readonly slot: number }>, into: string[]): void {
    const text = this.#text;
    if (text === undefined || this.#fields !== undefined) {
      for (const e of wanted) into[e.slot] = e.component === 0 ? this.element(e.element) : this.component(e.element, e.component);
      return;
    }
    const separator = CHARACTERS[this.delimiters.element];
    let k = 0;
    let start = 0;
    let end = text.indexOf(separator);
    for (const e of wanted) {
      while (k < e.element && start >= 0) {
        start = end < 0 ? -1 : end + 1;
        if (start >= 0) end = text.indexOf(separator, start);
        k++;
      }
      const value = start < 0 ? '' : end < 0 ? text.slice(start) : text.slice(start, end);
      into[e.slot] = e.component === 0 ? value : value.split(CHARACTERS[this.delimiters.component])[e.component - 1] ?? '';
    }
  }

  /** The components of element n (1-based); one for a simple element. */
  components(n: number): string[] {
    return this.element(n).split(String.fromCharCode(this.delimiters.component));
  }

  /** Component c (1-based) of element n, `''` when absent. */
  component(n: number, c: number): string {
    return this.components(n)[c - 1] ?? '';
  }

  /** Where this segment (or one of its elements) is, for a message: see `describePlace`. */
  place(element?: number, component?: number): string {
    return describePlace({ ...this.position, segmentId: this.id, element, component });
  }
}

/** Element n of a segment's text (`separator` between elements, no release character), '' when absent. */
export function elementIn(text: string, separator: string, n: number): string {
  let start = 0;
  for (let k = 0; k < n; k++) {
    const at = text.indexOf(separator, start);
    if (at < 0) return '';
    start = at + 1;
  }
  const end = text.indexOf(separator, start);
  return end < 0 ? text.slice(start) : text.slice(start, end);
}

/** The one-byte characters by code: a separator as the string indexOf looks for. */
const CHARACTERS = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code));

/** What a place names: the envelopes, and optionally the segment, element and component. */
export interface Place {
  file?: string;
  interchange?: string;
  set?: string;
  index?: number;
  segmentId?: string;
  element?: number;
  component?: number;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/**
 * The place of an error as the result file and logs name it:
 * `NWL_4711.edi, interchange 000004711, set 0002, segment 14 (W12), element 03`. Parts that do not apply are left out
 * (a segment outside any set is named by its id only).
 */
export function describePlace(place: Place): string {
  const parts: string[] = [];
  if (place.file !== undefined) parts.push(place.file);
  if (place.interchange !== undefined) parts.push(`interchange ${place.interchange}`);
  if (place.set !== undefined) parts.push(`set ${place.set}`);
  if (place.segmentId !== undefined) {
    parts.push(place.index !== undefined && place.index > 0 && place.set !== undefined ? `segment ${place.index} (${place.segmentId})` : `segment ${place.segmentId}`);
  }
  if (place.element !== undefined) parts.push(`element ${pad2(place.element)}`);
  if (place.component !== undefined) parts.push(`component ${pad2(place.component)}`);
  return parts.join(', ');
}

const PLACE = /interchange (\d+), set ([A-Za-z0-9]+), segment (\d+) \(([A-Z][A-Z0-9]{1,2})\)(?:, element (\d{2}))?(?:, component (\d{2}))?/;

/**
 * The place a message names (describePlace's text, read back): what an acknowledgement's AK3/AK4 need of an error
 * reported as text. Undefined when the message names no segment of a set.
 */
export function placeIn(message: string): Required<Pick<Place, 'interchange' | 'set' | 'index' | 'segmentId'>> & Pick<Place, 'element' | 'component'> | undefined {
  const m = PLACE.exec(message);
  if (!m) return undefined;
  return {
    interchange: m[1], set: m[2], index: Number(m[3]), segmentId: m[4],
    element: m[5] === undefined ? undefined : Number(m[5]), component: m[6] === undefined ? undefined : Number(m[6]),
  };
}
