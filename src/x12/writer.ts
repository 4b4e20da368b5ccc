import { WisbridgeError } from '../errors.js';

/** The separators an interchange is written with; `lineBreak` (e.g. `\n`) follows each terminator for readers' sake. */
export interface WriterSeparators {
  element: string;
  component: string;
  segment: string;
  /** ISA11 from version 00402 on; `U` is written before it. */
  repetition?: string;
  lineBreak?: string;
}

/** An element: its text, or its components. */
export type ElementData = string | readonly string[];
/** A segment: its id, then its elements in order (element 01 first). */
export type SegmentData = readonly [id: string, ...elements: ElementData[]];

export interface InterchangeHeader {
  senderQualifier: string;
  sender: string;
  receiverQualifier: string;
  receiver: string;
  /** ISA09/ISA10, written in UTC. */
  at: Date;
  /** ISA13, allocated by the caller: up to nine digits, zero-padded. */
  control: number | string;
  /** ISA12; `00401` by default. */
  version?: string;
  acknowledgementRequested?: boolean;
  usage?: 'P' | 'T';
  authorizationQualifier?: string;
  authorization?: string;
  securityQualifier?: string;
  security?: string;
}

export interface GroupHeader {
  functionalId: string;
  sender: string;
  receiver: string;
  /** GS04/GS05, written in UTC. */
  at: Date;
  /** GS06, allocated by the caller: one to nine digits. */
  control: number | string;
  /** GS08, e.g. `004010`. */
  version: string;
  agency?: string;
}

export interface SetData {
  id: string;
  /** ST02, allocated by the caller: a number is zero-padded to four digits. */
  control: number | string;
  /** ST03 (005010 on). */
  convention?: string;
  /** The segments between the ST and the SE. */
  segments: readonly SegmentData[];
}

const yymmdd = (d: Date) => d.toISOString().slice(2, 10).replaceAll('-', '');
const ccyymmdd = (d: Date) => d.toISOString().slice(0, 10).replaceAll('-', '');
const hhmm = (d: Date) => d.toISOString().slice(11, 16).replace(':', '');

function refuse(segment: string, element: number, what: string): WisbridgeError<'X12_WRITE'> {
  return new WisbridgeError('X12_WRITE', `${segment}${String(element).padStart(2, '0')}: ${what}`, { details: { segment, element } });
}

/**
 * Writes interchanges piece by piece (so an export can stream them): the caller supplies the control numbers, the
 * writer counts SE01, GE01 and IEA01 and pads the ISA's fixed-width fields. A value holding a separator is refused
 * (X12 has no release character).
 */
export class X12Writer {
  private readonly forbidden: string[];
  private readonly end: string;
  private interchange: { control: string; groups: number } | undefined;
  private group: { control: string; sets: number } | undefined;

  constructor(private readonly separators: WriterSeparators) {
    const { element, component, segment, repetition } = separators;
    const all = [element, component, segment, ...(repetition === undefined ? [] : [repetition])];
    if (all.some((s) => s.length !== 1) || new Set(all).size !== all.length) {
      throw new WisbridgeError('X12_WRITE', 'the separators must be distinct single characters', { details: { segment: 'ISA', element: 16 } });
    }
    this.forbidden = [...all, '\r', '\n'];
    this.end = segment + (separators.lineBreak ?? '');
  }

  interchangeStart(h: InterchangeHeader): string {
    if (this.interchange !== undefined) throw new Error('X12Writer: an interchange is open');
    const version = h.version ?? '00401';
    if (version >= '00402' && this.separators.repetition === undefined) {
      throw refuse('ISA', 11, `version ${version} names a repetition separator in ISA11: give one`);
    }
    const control = digits('ISA', 13, h.control, 9, 9);
    const fields: Array<[string, number]> = [
      [h.authorizationQualifier ?? '00', 2], [h.authorization ?? '', 10], [h.securityQualifier ?? '00', 2], [h.security ?? '', 10],
      [h.senderQualifier, 2], [h.sender, 15], [h.receiverQualifier, 2], [h.receiver, 15], [yymmdd(h.at), 6], [hhmm(h.at), 4],
      [version >= '00402' ? (this.separators.repetition as string) : 'U', 1], [version, 5], [control, 9],
      [h.acknowledgementRequested ? '1' : '0', 1], [h.usage ?? 'P', 1],
    ];
    const padded = fields.map(([value, width], i) => {
      if (value.length > width) throw refuse('ISA', i + 1, `"${value}" is longer than the field's ${width} characters`);
      if (i !== 10) this.check('ISA', i + 1, value);
      return value.padEnd(width, ' ');
    });
    this.interchange = { control, groups: 0 };
    return ['ISA', ...padded, this.separators.component].join(this.separators.element) + this.end;
  }

  groupStart(h: GroupHeader): string {
    const open = this.interchange;
    if (open === undefined || this.group !== undefined) throw new Error('X12Writer: a group starts inside an interchange, after the previous GE');
    const control = digits('GS', 6, h.control, 1, 9);
    open.groups++;
    this.group = { control, sets: 0 };
    return this.segment(['GS', h.functionalId, h.sender, h.receiver, ccyymmdd(h.at), hhmm(h.at), control, h.agency ?? 'X', h.version]);
  }

  set(data: SetData): string {
    const open = this.group;
    if (open === undefined) throw new Error('X12Writer: a set is written inside a group');
    const control = typeof data.control === 'number' ? String(data.control).padStart(4, '0') : data.control;
    open.sets++;
    const header: SegmentData = data.convention === undefined ? ['ST', data.id, control] : ['ST', data.id, control, data.convention];
    let text = this.segment(header);
    for (const segment of data.segments) text += this.segment(segment);
    return text + this.segment(['SE', String(data.segments.length + 2), control]);
  }

  groupEnd(): string {
    const open = this.group;
    if (open === undefined) throw new Error('X12Writer: no group is open');
    this.group = undefined;
    return this.segment(['GE', String(open.sets), open.control]);
  }

  interchangeEnd(): string {
    const open = this.interchange;
    if (open === undefined || this.group !== undefined) throw new Error('X12Writer: the IEA closes an interchange after its last GE');
    this.interchange = undefined;
    return this.segment(['IEA', String(open.groups), open.control]);
  }

  /** One segment, its trailing empty elements dropped as the standard asks. */
  segment(data: SegmentData): string {
    const [id, ...elements] = data;
    this.check(id, 0, id);
    const texts = elements.map((element, i) => {
      if (typeof element === 'string') {
        this.check(id, i + 1, element);
        return element;
      }
      for (const component of element) this.check(id, i + 1, component);
      return element.join(this.separators.component).replace(new RegExp(`${escapeRegExp(this.separators.component)}+$`), '');
    });
    while (texts.length > 0 && texts[texts.length - 1] === '') texts.pop();
    return [id, ...texts].join(this.separators.element) + this.end;
  }

  private check(segment: string, element: number, value: string): void {
    for (const separator of this.forbidden) {
      if (value.includes(separator)) throw refuse(segment, element, `"${value}" holds the separator ${JSON.stringify(separator)}`);
    }
  }
}

function digits(segment: string, element: number, value: number | string, min: number, max: number): string {
  const text = typeof value === 'number' ? String(value).padStart(min, '0') : value;
  if (!/^\d+$/.test(text) || text.length < min || text.length > max) {
    throw refuse(segment, element, `control number "${text}" is not ${min === max ? max : `${min} to ${max}`} digits`);
  }
  return text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A whole interchange: its groups and their sets. */
export function writeInterchange(
  separators: WriterSeparators,
  header: InterchangeHeader,
  groups: ReadonlyArray<{ header: GroupHeader; sets: readonly SetData[] }>,
): string {
  const writer = new X12Writer(separators);
  let text = writer.interchangeStart(header);
  for (const group of groups) {
    text += writer.groupStart(group.header);
    for (const set of group.sets) text += writer.set(set);
    text += writer.groupEnd();
  }
  return text + writer.interchangeEnd();
}
