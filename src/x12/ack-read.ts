import type { InterchangeResult, SetResult } from './envelope.js';
import type { Segment } from './segment.js';
import { readX12 } from './stream.js';
import type { ByteSource } from './reader.js';
import type { TokenizerOptions } from './tokenizer.js';

/*
 * 997/999 acknowledgements a partner sent for what we wrote, read into a typed structure (docs/x12.md,
 * "Acknowledgements received"). The reading is the standard's: AK1 names the group acknowledged (GS01, GS06), AK2
 * a set (ST01, ST02), AK3/AK4 (IK3/IK4 in a 999) a segment and element in error, AK5/IK5 the set's verdict, AK9 the
 * group's. What the acknowledgement is matched to is the pipeline's business.
 */

/** An element the partner found in error (AK4 / IK4). */
export interface ReceivedElementError {
  /** AK401: the element's position in its segment, and the component's in a composite. */
  element: number;
  component?: number;
  /** AK402, the data element's reference number, when given. */
  reference?: string;
  /** AK403: 1 mandatory missing, 6 invalid character, 7 invalid code value, 8 invalid date, … */
  code: string;
  /** AK404, a copy of the bad value. */
  copy?: string;
}

/** A segment the partner found in error (AK3 / IK3). */
export interface ReceivedSegmentError {
  segmentId: string;
  /** AK302: the segment's position in its set, ST being 1. */
  position: number;
  /** AK303, the loop's identifier, when given. */
  loop?: string;
  /** AK304: 8 when its elements are in error, 1 unrecognized, 3 mandatory missing, … */
  code: string;
  elements: ReceivedElementError[];
}

/** One set the partner acknowledged: AK2 through AK5. */
export interface ReceivedSetAck {
  /** AK201 and AK202: ST01 and ST02 of the set acknowledged. */
  id: string;
  control: string;
  /** AK501: A accepted, E accepted with errors, R rejected (M, W, X: rejected too). */
  code: string;
  /** AK502…: why. */
  reasons: string[];
  errors: ReceivedSegmentError[];
  /** The segment numbers in the file (1 for its first segment) from the AK2 through the AK5. */
  lines: number[];
}

/** One 997 or 999: the group it acknowledges, its sets and the group's verdict. */
export interface ReceivedGroupAck {
  kind: '997' | '999';
  /** ST02 of the 997/999 itself. */
  ackControl: string;
  /** AK101 and AK102: GS01 and GS06 of the group acknowledged; AK103 its version (999). */
  functionalId: string;
  group: string;
  version?: string;
  sets: ReceivedSetAck[];
  /** AK901: A accepted, E accepted with errors, P partially accepted, R rejected (M, W, X: rejected too). */
  code: string;
  /** AK902 sets the group held, AK903 received, AK904 accepted. */
  declared: number | undefined;
  received: number | undefined;
  accepted: number | undefined;
  /** AK905…: the group's own errors. */
  reasons: string[];
  /** The segment numbers of the ST through the SE. */
  lines: number[];
  /** Envelope refusals of the 997/999 itself (its SE01 wrong…): such an acknowledgement is reported, not applied. */
  refusals: string[];
  /** ISA05/06 and GS02 of what carried it: who sent it. */
  senderQualifier: string;
  sender: string;
  applicationSender: string;
  interchange: string;
}

/** What a file of acknowledgements holds: each 997/999, and any other set (reported, never applied). */
export interface ReceivedAckFile {
  acks: ReceivedGroupAck[];
  others: Array<{ id: string; control: string; interchange: string; lines: number[] }>;
  /** Refusals of the interchanges and groups that carried them. */
  envelopeRefusals: string[];
}

export const ACK_SET_IDS: ReadonlySet<string> = new Set(['997', '999']);

/** Whether the file's first transaction set is a 997 or 999: a file of acknowledgements (read no further than its first ST). */
export async function startsWithAck(source: ByteSource, options: TokenizerOptions = {}): Promise<boolean> {
  for await (const event of readX12(source, options)) {
    if (event.kind === 'segment' && event.segment.id === 'ST') return ACK_SET_IDS.has(event.segment.element(1));
  }
  return false;
}

const num = (text: string): number | undefined => (/^\d{1,10}$/.test(text) ? Number(text) : undefined);

function elementError(segment: Segment): ReceivedElementError {
  const [element, component] = segment.components(1);
  const error: ReceivedElementError = { element: Number(element), code: segment.element(3) };
  if (component !== undefined && component !== '') error.component = Number(component);
  if (segment.element(2) !== '') error.reference = segment.element(2);
  if (segment.element(4) !== '') error.copy = segment.element(4);
  return error;
}

/** Reads every 997/999 of a file, with the segment numbers each set's acknowledgement stands on. */
export async function readReceivedAcks(source: ByteSource, options: TokenizerOptions = {}): Promise<ReceivedAckFile> {
  const file: ReceivedAckFile = { acks: [], others: [], envelopeRefusals: [] };
  let line = 0;
  let isa: Segment | undefined;
  let gs: Segment | undefined;
  let ack: ReceivedGroupAck | undefined;
  let other: ReceivedAckFile['others'][number] | undefined;
  let set: ReceivedSetAck | undefined;
  let segment: ReceivedSegmentError | undefined;
  const byControl = new Map<string, ReceivedGroupAck>();
  for await (const event of readX12(source, options)) {
    if (event.kind === 'set') {
      closeSet(event.set, byControl);
      continue;
    }
    if (event.kind === 'interchange') {
      interchangeRefusals(event.interchange, file);
      continue;
    }
    if (event.kind !== 'segment') continue;
    const s = event.segment;
    line++;
    ack?.lines.push(line);
    other?.lines.push(line);
    switch (s.id) {
      case 'ISA': isa = s; break;
      case 'GS': gs = s; break;
      case 'ST':
        [set, segment] = [undefined, undefined];
        if (ACK_SET_IDS.has(s.element(1))) {
          ack = {
            kind: s.element(1) as '997' | '999', ackControl: s.element(2), functionalId: '', group: '', sets: [], code: '', declared: undefined, received: undefined,
            accepted: undefined, reasons: [], lines: [line], refusals: [], senderQualifier: isa?.element(5) ?? '', sender: isa?.element(6) ?? '',
            applicationSender: gs?.element(2) ?? '', interchange: isa?.element(13) ?? '',
          };
          file.acks.push(ack);
          byControl.set(`${ack.interchange}\u0000${gs?.element(6) ?? ''}\u0000${s.element(2)}`, ack);
          other = undefined;
        } else {
          other = { id: s.element(1), control: s.element(2), interchange: isa?.element(13) ?? '', lines: [line] };
          file.others.push(other);
          ack = undefined;
        }
        break;
      case 'SE':
        [ack, other, set, segment] = [undefined, undefined, undefined, undefined];
        break;
      default:
        if (ack) ({ set, segment } = ackSegment(ack, s, line, set, segment));
    }
  }
  return file;
}

/** One segment of a 997/999's body: what it adds to the acknowledgement, and the set and segment now open. */
function ackSegment(ack: ReceivedGroupAck, s: Segment, line: number, set: ReceivedSetAck | undefined, segment: ReceivedSegmentError | undefined) {
  if (/^(AK|IK)[345]$/.test(s.id)) set?.lines.push(line);
  switch (s.id) {
    case 'AK1':
      [ack.functionalId, ack.group] = [s.element(1), s.element(2)];
      if (s.element(3) !== '') ack.version = s.element(3);
      break;
    case 'AK2':
      set = { id: s.element(1), control: s.element(2), code: '', reasons: [], errors: [], lines: [line] };
      ack.sets.push(set);
      segment = undefined;
      break;
    case 'AK3': case 'IK3':
      segment = { segmentId: s.element(1), position: Number(s.element(2)), code: s.element(4), elements: [] };
      if (s.element(3) !== '') segment.loop = s.element(3);
      set?.errors.push(segment);
      break;
    case 'AK4': case 'IK4':
      segment?.elements.push(elementError(s));
      break;
    case 'AK5': case 'IK5':
      if (set) [set.code, set.reasons] = [s.element(1), s.fields.slice(2).filter((c) => c !== '')];
      break;
    case 'AK9':
      [ack.code, ack.declared, ack.received, ack.accepted] = [s.element(1), num(s.element(2)), num(s.element(3)), num(s.element(4))];
      ack.reasons = s.fields.slice(5).filter((c) => c !== '');
      return { set: undefined, segment: undefined };
  }
  return { set, segment };
}

/** The envelope's own verdict on a 997/999 (its SE, ST02…). */
function closeSet(result: SetResult, byControl: Map<string, ReceivedGroupAck>): void {
  if (result.refusals.length === 0) return;
  byControl.get(`${result.interchange}\u0000${result.group}\u0000${result.control}`)?.refusals.push(...result.refusals.map((r) => r.detail));
}

/** An interchange or group refused by its envelope refuses the 997/999s it carries. */
function interchangeRefusals(interchange: InterchangeResult, file: ReceivedAckFile): void {
  const refusals = interchange.refusals.map((r) => `interchange ${interchange.control}: ${r.detail}`);
  for (const group of interchange.groups) refusals.push(...group.refusals.map((r) => `interchange ${interchange.control}, group ${group.control}: ${r.detail}`));
  if (refusals.length === 0) return;
  file.envelopeRefusals.push(...refusals);
  for (const ack of file.acks) if (ack.interchange === interchange.control && ack.refusals.length === 0) ack.refusals.push(...refusals);
}

/** The state a group's acknowledgement puts its interchange in. */
export type AckState = 'accepted' | 'accepted-with-errors' | 'rejected';

/** AK901: A accepted; E and P accepted with errors (P: some sets rejected); R, M, W, X rejected. */
export function groupState(code: string): AckState {
  return code === 'A' ? 'accepted' : code === 'E' || code === 'P' ? 'accepted-with-errors' : 'rejected';
}

/** AK501: A accepted, E accepted with errors, anything else rejected. */
export function setState(code: string): AckState {
  return code === 'A' ? 'accepted' : code === 'E' ? 'accepted-with-errors' : 'rejected';
}
