import { ControlNumbers } from './control-numbers.js';
import { FUNCTIONAL_IDS, REASONS, type Reason, type Refusal } from './reasons.js';
import type { Segment } from './segment.js';
import { ISA_LENGTH, X12_ENVELOPE, type Envelope } from './syntax.js';

/** An element of a segment in error, for AK4/IK4. */
export interface ElementError {
  /** Element position (1-based) and, for a composite, the component's. */
  element: number;
  component?: number;
  /** AK403 / IK403: 1 mandatory missing, 6 invalid character, 7 invalid code value, 8 invalid date, … */
  code: string;
  /** The data element's reference number (AK402), when known. */
  reference?: string;
  /** A copy of the bad value (AK404). */
  copy?: string;
}

/** A segment in error, for AK3/IK3. */
export interface SegmentError {
  segmentId: string;
  /** The segment's position in its set, ST being 1. */
  index: number;
  /** AK304 / IK304: 8 when its elements are in error, 1 unrecognized segment, 2 unexpected, 3 mandatory missing, … */
  code: string;
  elements: ElementError[];
}

/** One transaction set as its envelope found it; accepted by its own envelope when `refusals` is empty. */
export interface SetResult {
  interchange: string;
  group: string;
  /** ST01 (`945`), ST02, ST03 when given. */
  id: string;
  control: string;
  convention: string | undefined;
  /** The set's place in its group, 1 for its first ST (it names a set beyond those listed, and one of two alike). */
  ordinal: number;
  /** The segments counted from the ST through the SE. */
  segments: number;
  refusals: Refusal[];
  /** Errors of the set's segments, added by whoever reads their data (they make the set refused: `set-data`). */
  segmentErrors: SegmentError[];
}

export interface GroupResult {
  interchange: string;
  /** GS01, GS02, GS03, GS06, GS08. */
  functionalId: string;
  sender: string;
  receiver: string;
  control: string;
  version: string;
  /**
   * The sets of the group to name in its acknowledgement: every refused one, and the accepted ones while there are
   * fewer than MAX_LISTED_SETS (beyond, accepted sets are only counted: `received`), so a group of a million sets
   * costs a bounded record.
   */
  sets: SetResult[];
  /** How many sets the group holds (what GE01 must count). */
  received: number;
  /** GE01 as a number; undefined when the GE is missing or its count is not a number. */
  declaredSets: number | undefined;
  refusals: Refusal[];
}

export interface InterchangeResult {
  /** 1 for the file's first interchange. */
  index: number;
  /** ISA05–ISA08, ISA09 (YYMMDD), ISA10 (HHMM), ISA12, ISA13, ISA14 (`1`: a TA1 is asked for), ISA15 (`P`/`T`). */
  senderQualifier: string;
  sender: string;
  receiverQualifier: string;
  receiver: string;
  date: string;
  time: string;
  version: string;
  control: string;
  acknowledgementRequested: boolean;
  usage: string;
  groups: GroupResult[];
  refusals: Refusal[];
}

/** What the validator reports, each when its trailer (or what replaced it) has been read. */
export type EnvelopeEvent =
  | { kind: 'set'; set: SetResult }
  | { kind: 'group'; group: GroupResult }
  | { kind: 'interchange'; interchange: InterchangeResult };

/** Accepted sets named one by one in a group's record (and its 997); beyond, they are counted (docs/x12.md). */
export const MAX_LISTED_SETS = 10_000;

const DIGITS_9 = /^\d{9}$/;
const DIGITS_1_9 = /^\d{1,9}$/;
const SET_CONTROL = /^[A-Za-z0-9]{4,9}$/;
const SET_ID = /^[0-9A-Z]{3}$/;

/** A count element holding exactly `count`. */
function countsTo(text: string, count: number): boolean {
  return /^\d{1,10}$/.test(text) && Number(text) === count;
}

function refuse(refusals: Refusal[], reason: Reason, detail: string): void {
  if (!refusals.some((r) => r.reason === reason)) refusals.push({ reason, detail });
}

/**
 * Checks the envelope rules (reasons.ts) over a stream of segments. A broken rule refuses the envelope that holds it
 * and what that encloses, nothing else: a set with a wrong SE01 is refused and its neighbours are not. A set's
 * own verdict comes with its SE, its group's with the GE, the interchange's with the IEA; a set is accepted when
 * none of the three refuses it (`isAccepted`). It holds one small record per set of the open interchange (for the
 * acknowledgements), never segments.
 */
export class EnvelopeValidator {
  private interchange: InterchangeResult | undefined;
  private group: GroupResult | undefined;
  private set: SetResult | undefined;
  private readonly interchangesSeen = new Set<string>();
  private groupsSeen = new ControlNumbers();
  /** ST02s of the open group (for set-duplicate), as ranges: consecutive ones cost nothing more. */
  private setsSeen = new ControlNumbers();
  /** The set whose verdict was just reported: its reader may still add data errors (addSegmentErrors) until the next segment. */
  private closed: SetResult | undefined;
  private listedAccepted = 0;

  constructor(private readonly envelope: Envelope = X12_ENVELOPE) {}

  push(segment: Segment, out: EnvelopeEvent[]): void {
    if (this.closed !== undefined) this.record();
    const { interchange, group, set } = this.envelope;
    switch (segment.id) {
      case interchange.header:
        if (this.interchange !== undefined) this.closeInterchange(undefined, out);
        this.openInterchange(segment);
        return;
      case group.header:
        if (this.group !== undefined) this.closeGroup(undefined, out);
        this.openGroup(segment);
        return;
      case set.header:
        if (this.set !== undefined) this.closeSet(undefined, out);
        if (this.group === undefined) this.stray(segment);
        else this.openSet(segment);
        return;
      case set.trailer:
        if (this.set === undefined) this.stray(segment);
        else this.closeSet(segment, out);
        return;
      case group.trailer:
        if (this.set !== undefined) this.closeSet(undefined, out);
        if (this.group === undefined) this.stray(segment);
        else this.closeGroup(segment, out);
        return;
      case interchange.trailer:
        this.closeInterchange(segment, out);
        return;
      default:
        if (this.set !== undefined) this.set.segments++;
        else this.stray(segment);
    }
  }

  /** The end of the file closes what is open, its trailers missing. */
  end(out: EnvelopeEvent[]): void {
    if (this.closed !== undefined) this.record();
    if (this.interchange !== undefined) this.closeInterchange(undefined, out);
  }

  private openInterchange(isa: Segment): void {
    const control = isa.element(13);
    const refusals: Refusal[] = [];
    if (isa.length !== ISA_LENGTH) refuse(refusals, 'isa-length', `the ISA segment is ${isa.length} characters`);
    if (!DIGITS_9.test(control)) refuse(refusals, 'interchange-control-invalid', `ISA13 "${control}" is not nine digits`);
    const key = `${isa.element(5)}\u0000${isa.element(6)}\u0000${control}`;
    if (this.interchangesSeen.has(key)) refuse(refusals, 'interchange-duplicate', `ISA13 ${control} of sender ${isa.element(6).trim()} came before in this file`);
    this.interchangesSeen.add(key);
    this.groupsSeen = new ControlNumbers();
    this.interchange = {
      index: isa.envelopes.interchangeIndex,
      senderQualifier: isa.element(5), sender: isa.element(6), receiverQualifier: isa.element(7), receiver: isa.element(8),
      date: isa.element(9), time: isa.element(10), version: isa.element(12), control,
      acknowledgementRequested: isa.element(14) === '1', usage: isa.element(15),
      groups: [], refusals,
    };
  }

  private closeInterchange(iea: Segment | undefined, out: EnvelopeEvent[]): void {
    if (this.group !== undefined) {
      if (this.set !== undefined) this.closeSet(undefined, out);
      this.closeGroup(undefined, out);
    }
    const open = this.interchange;
    if (open === undefined) return;
    if (iea === undefined) {
      refuse(open.refusals, 'interchange-trailer-missing', `interchange ${open.control} has no IEA`);
    } else {
      if (iea.element(2) !== open.control) refuse(open.refusals, 'interchange-control-mismatch', `IEA02 "${iea.element(2)}" is not ISA13 "${open.control}"`);
      if (!countsTo(iea.element(1), open.groups.length)) refuse(open.refusals, 'interchange-group-count', `IEA01 says ${iea.element(1)} groups, the interchange has ${open.groups.length}`);
    }
    this.interchange = undefined;
    out.push({ kind: 'interchange', interchange: open });
  }

  private openGroup(gs: Segment): void {
    const open = this.interchange as InterchangeResult;
    const control = gs.element(6);
    const refusals: Refusal[] = [];
    if (!DIGITS_1_9.test(control)) refuse(refusals, 'group-control-invalid', `GS06 "${control}" is not one to nine digits`);
    if (!this.groupsSeen.add(control)) refuse(refusals, 'group-duplicate', `GS06 ${control} came before in interchange ${open.control}`);
    this.setsSeen = new ControlNumbers();
    this.listedAccepted = 0;
    this.group = {
      interchange: open.control, functionalId: gs.element(1), sender: gs.element(2), receiver: gs.element(3), control,
      version: gs.element(8), sets: [], received: 0, declaredSets: undefined, refusals,
    };
  }

  private closeGroup(ge: Segment | undefined, out: EnvelopeEvent[]): void {
    if (this.closed !== undefined) this.record();
    const open = this.group as GroupResult;
    if (ge === undefined) {
      refuse(open.refusals, 'group-trailer-missing', `group ${open.control} has no GE`);
    } else {
      if (ge.element(2) !== open.control) refuse(open.refusals, 'group-control-mismatch', `GE02 "${ge.element(2)}" is not GS06 "${open.control}"`);
      if (countsTo(ge.element(1), Number(ge.element(1)))) open.declaredSets = Number(ge.element(1));
      if (!countsTo(ge.element(1), open.received)) refuse(open.refusals, 'group-set-count', `GE01 says ${ge.element(1)} sets, the group has ${open.received}`);
    }
    this.group = undefined;
    (this.interchange as InterchangeResult).groups.push(open);
    out.push({ kind: 'group', group: open });
  }

  private openSet(st: Segment): void {
    const group = this.group as GroupResult;
    const [id, control, convention] = [st.element(1), st.element(2), st.elementCount >= 3 ? st.element(3) : undefined];
    const refusals: Refusal[] = [];
    const functionalId = FUNCTIONAL_IDS[id];
    if (!SET_ID.test(id)) refuse(refusals, 'set-id-mismatch', `ST01 "${id}" is not a transaction set identifier`);
    else if (functionalId !== undefined && functionalId !== group.functionalId) {
      refuse(refusals, 'set-id-mismatch', `a ${id} belongs in a group of ${functionalId}, not ${group.functionalId}`);
    }
    if (convention !== undefined && convention !== '' && convention !== group.version) {
      refuse(refusals, 'set-convention-mismatch', `ST03 "${convention}" is not the group's version GS08 "${group.version}"`);
    }
    if (!SET_CONTROL.test(control)) refuse(refusals, 'set-control-invalid', `ST02 "${control}" is not four to nine characters`);
    else if (!this.setsSeen.add(control)) refuse(refusals, 'set-duplicate', `ST02 ${control} came before in group ${group.control}`);
    this.set = { interchange: group.interchange, group: group.control, id, control, convention, ordinal: group.received + 1, segments: 1, refusals, segmentErrors: [] };
  }

  private closeSet(se: Segment | undefined, out: EnvelopeEvent[]): void {
    const open = this.set as SetResult;
    if (se === undefined) {
      refuse(open.refusals, 'set-trailer-missing', `set ${open.control} has no SE`);
    } else {
      open.segments++;
      if (se.element(2) !== open.control) refuse(open.refusals, 'set-control-mismatch', `SE02 "${se.element(2)}" is not ST02 "${open.control}"`);
      if (!countsTo(se.element(1), open.segments)) refuse(open.refusals, 'set-segment-count', `SE01 says ${se.element(1)} segments, the set has ${open.segments}`);
    }
    this.set = undefined;
    (this.group as GroupResult).received++;
    this.closed = open;
    out.push({ kind: 'set', set: open });
  }

  /** Lists the set last reported in its group's record if it is refused, or while few accepted ones are listed. */
  private record(): void {
    const set = this.closed as SetResult;
    this.closed = undefined;
    if (set.refusals.length > 0) (this.group as GroupResult).sets.push(set);
    else if (this.listedAccepted < MAX_LISTED_SETS) {
      this.listedAccepted++;
      (this.group as GroupResult).sets.push(set);
    }
  }

  /** A segment outside the envelope level that may hold it refuses the innermost envelope open around it. */
  private stray(segment: Segment): void {
    const detail = `segment ${segment.id} at offset ${segment.offset} stands outside any ${this.group === undefined ? 'group' : 'transaction set'}`;
    if (this.group !== undefined) refuse(this.group.refusals, 'group-content', detail);
    else if (this.interchange !== undefined) refuse(this.interchange.refusals, 'interchange-content', detail);
  }
}

/** Whether a set is accepted: neither its own envelope, nor its group's, nor its interchange's refuses it. */
export function isAccepted(set: SetResult, group: GroupResult, interchange: InterchangeResult): boolean {
  return set.refusals.length === 0 && group.refusals.length === 0 && interchange.refusals.length === 0;
}

/** The rule a refusal broke, as the documentation states it. */
export function ruleOf(refusal: Refusal): string {
  return REASONS[refusal.reason].rule;
}
