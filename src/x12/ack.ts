import type { GroupResult, InterchangeResult, SegmentError, SetResult } from './envelope.js';
import { REASONS, type Refusal } from './reasons.js';
import { X12Writer, type SegmentData, type SetData, type WriterSeparators } from './writer.js';

/** `997` answers 004010 groups; `999` (its 005010 counterpart, with IK3/IK4/IK5) answers groups of 005010 on. */
export type AckKind = '997' | '999';

/** The implementation convention of the 999 (ST03 and its group's GS08). */
export const CONVENTION_999 = '005010X231A1';
/** The acknowledgement codes of a segment in error and of its elements' errors. */
export const SEGMENT_HAS_ELEMENT_ERRORS = '8';
/** The 997/999 allow up to five error codes in AK5/IK5 and AK9. */
const MAX_CODES = 5;

export function ackKindFor(group: GroupResult): AckKind {
  return group.version.startsWith('005010') ? '999' : '997';
}

/** Marks a set refused for errors in its segments (AK3/AK4 name them). */
export function addSegmentErrors(set: SetResult, errors: readonly SegmentError[]): void {
  if (errors.length === 0) return;
  set.segmentErrors.push(...errors);
  if (!set.refusals.some((r) => r.reason === 'set-data')) set.refusals.push({ reason: 'set-data', detail: `${set.segmentErrors.length} segments in error` });
}

function codesOf(refusals: readonly Refusal[]): string[] {
  const codes: string[] = [];
  for (const { reason } of refusals) {
    const code = REASONS[reason].code;
    if (code !== undefined && !codes.includes(code)) codes.push(code);
  }
  return codes.slice(0, MAX_CODES);
}

function setSegments(set: SetResult, kind: AckKind): SegmentData[] {
  const [k3, k4, k5] = kind === '999' ? ['IK3', 'IK4', 'IK5'] : ['AK3', 'AK4', 'AK5'];
  const segments: SegmentData[] = [kind === '999' && set.convention !== undefined ? ['AK2', set.id, set.control, set.convention] : ['AK2', set.id, set.control]];
  for (const error of set.segmentErrors) {
    segments.push([k3, error.segmentId, String(error.index), '', error.code]);
    for (const element of error.elements) {
      const position = element.component === undefined ? String(element.element) : [String(element.element), String(element.component)];
      segments.push(element.copy === undefined ? [k4, position, element.reference ?? '', element.code] : [k4, position, element.reference ?? '', element.code, element.copy]);
    }
  }
  segments.push([k5, set.refusals.length === 0 ? 'A' : 'R', ...codesOf(set.refusals)]);
  return segments;
}

/** The counts and verdict of a group's AK9: A all sets accepted, P some, R none or the group itself refused. */
export function groupVerdict(group: GroupResult): { status: 'A' | 'P' | 'R'; received: number; accepted: number } {
  const received = group.received;
  const accepted = group.refusals.length > 0 ? 0 : received - group.sets.filter((s) => s.refusals.length > 0).length;
  const status = accepted === 0 && (received > 0 || group.refusals.length > 0) ? 'R' : accepted === received ? 'A' : 'P';
  return { status, received, accepted };
}

/**
 * The 997 (or 999) answering one group: AK1 the group, per set AK2, AK3/AK4 per segment and element in error and
 * AK5 its verdict with the codes of reasons.ts, then AK9 the group's verdict and counts.
 */
export function functionalAck(group: GroupResult, control: number | string, kind: AckKind = ackKindFor(group)): SetData {
  const { status, received, accepted } = groupVerdict(group);
  const segments: SegmentData[] = [kind === '999' ? ['AK1', group.functionalId, group.control, group.version] : ['AK1', group.functionalId, group.control]];
  for (const set of group.sets) segments.push(...setSegments(set, kind));
  segments.push(['AK9', status, String(group.declaredSets ?? received), String(received), String(accepted), ...codesOf(group.refusals)]);
  return { id: kind, control, convention: kind === '999' ? CONVENTION_999 : undefined, segments };
}

/** The TA1 answering an interchange's envelope: A with note 000, or R with the first refusal's code. */
export function interchangeAck(interchange: InterchangeResult): SegmentData {
  const code = codesOf(interchange.refusals)[0];
  return ['TA1', interchange.control, interchange.date, interchange.time, code === undefined ? 'A' : 'R', code ?? '000'];
}

export interface AckControls {
  /** ISA13 of the reply. */
  interchange: number | string;
  /** GS06 of the reply's one functional group (FA). */
  group: number | string;
  /** ST02 of its first 997/999; the next ones count on from it. */
  firstSet?: number;
}

/**
 * The reply to one received interchange, addressed back to its sender: a refused interchange gets a TA1 and nothing
 * else (none of its groups is acknowledged); an accepted one a group of one 997/999 per group received, preceded by
 * a TA1 when the sender asked for one (ISA14 = 1). The caller allocates the control numbers.
 */
export function acknowledgementInterchange(received: InterchangeResult, separators: WriterSeparators, controls: AckControls, at: Date): string {
  const writer = new X12Writer(separators);
  let text = writer.interchangeStart({
    senderQualifier: received.receiverQualifier, sender: received.receiver.trim(),
    receiverQualifier: received.senderQualifier, receiver: received.sender.trim(),
    at, control: controls.interchange, version: received.version,
  });
  const refused = received.refusals.length > 0;
  if (refused || received.acknowledgementRequested) text += writer.segment(interchangeAck(received));
  if (!refused && received.groups.length > 0) {
    const first = received.groups[0];
    const kind = ackKindFor(first);
    text += writer.groupStart({
      functionalId: 'FA', sender: first.receiver, receiver: first.sender, at, control: controls.group,
      version: kind === '999' ? CONVENTION_999 : first.version,
    });
    let setControl = controls.firstSet ?? 1;
    for (const group of received.groups) text += writer.set(functionalAck(group, setControl++, kind));
    text += writer.groupEnd();
  }
  return text + writer.interchangeEnd();
}
