import type { WisbridgeError } from '../errors.js';
import { envelopeErrors, type GroupResult, type InterchangeResult, type Refusal, type SetResult } from '../x12/index.js';
import type { RowError } from './documents.js';

/**
 * Refusals added after the envelope was read by the acknowledgement (the set's data errors): rows are judged by the
 * envelope's and the router's. A set the router refused (`set-unsupported`: read by another mapping, or by none) gives
 * no row, only a refusal naming why, as its acknowledgement refuses it.
 */
const NOT_ENVELOPE = new Set<string>(['set-data']);

function refused(refusals: readonly Refusal[]): boolean {
  return refusals.some((r) => !NOT_ENVELOPE.has(r.reason));
}

/** The verdict as the envelope gave it, without what was added after. */
function envelopeOnly(interchange: InterchangeResult): InterchangeResult {
  const only = (refusals: Refusal[]) => refusals.filter((r) => !NOT_ENVELOPE.has(r.reason));
  return {
    ...interchange, refusals: only(interchange.refusals),
    groups: interchange.groups.map((g) => ({ ...g, refusals: only(g.refusals), sets: g.sets.map((s) => ({ ...s, refusals: only(s.refusals) })) })),
  };
}

/** A refusal of the segments an envelope holds, as X12Rows hands it on. */
export interface X12Reject {
  kind: 'reject';
  lines: number[];
  errors: RowError[];
}

/** A set's verdict: its own record and its group's (none for an ST outside any group), and whether it is accepted. */
export interface SetVerdict {
  result: SetResult | undefined;
  group: GroupResult | undefined;
  accepted: boolean;
}

/**
 * An interchange whose verdict was read before mapping, followed as its segments are read again: its groups come in
 * order, and a group lists every refused set and the first accepted ones by ordinal, so a set it does not list is
 * accepted by its own envelope.
 */
export class KnownInterchange {
  private groups = 0;
  private group: GroupResult | undefined;
  private setsInGroup = 0;
  private listedAt = 0;
  private errors: WisbridgeError<'X12_ENVELOPE'>[] | undefined;

  constructor(readonly result: InterchangeResult, private readonly file: string) {}

  startGroup(): void {
    this.group = this.result.groups[this.groups++];
    this.setsInGroup = 0;
    this.listedAt = 0;
  }

  endGroup(): void {
    this.group = undefined;
  }

  startSet(id: string, control: string): SetVerdict {
    const group = this.group;
    if (group === undefined) return { result: undefined, group: undefined, accepted: false };
    const ordinal = ++this.setsInGroup;
    const listed = group.sets;
    while (this.listedAt < listed.length && listed[this.listedAt].ordinal < ordinal) this.listedAt++;
    const result = listed[this.listedAt]?.ordinal === ordinal
      ? listed[this.listedAt]
      : { interchange: this.result.control, group: group.control, id, control, convention: undefined, ordinal, segments: 0, refusals: [], segmentErrors: [] };
    return { result, group, accepted: !refused(result.refusals) && !refused(group.refusals) && !refused(this.result.refusals) };
  }

  /** One X12_ENVELOPE error per refusal the envelope gave. */
  envelopeErrors(): WisbridgeError<'X12_ENVELOPE'>[] {
    return (this.errors ??= envelopeErrors(envelopeOnly(this.result), this.file));
  }
}

/** A refused set's one item: a refusal naming the rules its envelopes broke. */
export function setRefusal(errors: readonly WisbridgeError<'X12_ENVELOPE'>[], place: string, lines: number[], result: SetResult | undefined): X12Reject {
  const own = errors.filter((e) => e.details!.set === undefined ? e.details!.group === undefined || e.details!.group === result?.group : e.details!.set === result?.control && e.details!.group === result?.group);
  const messages = own.length > 0 ? own.map((e) => e.message) : [`${place}: refused by its envelope`];
  return { kind: 'reject', lines, errors: messages.map((message) => ({ line: lines[0], message })) };
}

/** The refusal of an interchange's or group's own segments (ISA, GS, GE, IEA, strays), when their envelope is refused. */
export function envelopeRefusal(errors: readonly WisbridgeError<'X12_ENVELOPE'>[], lines: number[]): X12Reject | undefined {
  const above = errors.filter((e) => e.details!.set === undefined);
  if (above.length === 0 || lines.length === 0) return undefined;
  return { kind: 'reject', lines, errors: above.map((e) => ({ line: lines[0], message: e.message })) };
}
