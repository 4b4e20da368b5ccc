import { ackExpectedWithinMs, type PartnerProfile } from '../config/partners.js';
import type { ExportAckState, Journal, X12ExportFilter, X12ExportState } from '../journal/index.js';

/*
 * The acknowledgement state of each X12 interchange the bridge wrote (docs/x12.md, "Acknowledgements received"):
 * what `status` and the console's exports page show, and what the overdue tick alerts.
 */

/** awaiting: no 997/999 yet; overdue: none within the partner's `ack_expected_within`; else the partner's verdict. */
export type InterchangeAckState = 'awaiting' | 'overdue' | ExportAckState;

export interface X12InterchangeView {
  exportId: number;
  file: string;
  workType: string;
  partner: string;
  /** ISA13 and GS06 as written, and the number of sets. */
  interchange: string;
  group: number;
  sets: number;
  writtenAt: string;
  state: InterchangeAckState;
  /** When an acknowledgement is due (the partner's `ack_expected_within` after the write), when the profile sets one. */
  dueBy?: string;
  ack?: { kind: string; code: string; text: string; receivedAt: string; fileId: number };
  /** The sets the partner rejected, and those it accepted with errors, each with why. */
  rejected: Array<{ set: string; why: string }>;
  withErrors: Array<{ set: string; why: string }>;
}

type Partners = Readonly<Record<string, PartnerProfile>>;

function dueBy(e: Pick<X12ExportState, 'partner' | 'writtenAt'>, partners: Partners): number | undefined {
  const profile = partners[e.partner];
  const within = profile && ackExpectedWithinMs(profile);
  return within === undefined ? undefined : Date.parse(e.writtenAt) + within;
}

export function interchangeView(e: X12ExportState, partners: Partners, now: number): X12InterchangeView {
  const due = dueBy(e, partners);
  const state: InterchangeAckState = e.ack ? e.ack.state : due !== undefined && now > due ? 'overdue' : 'awaiting';
  const sets = e.ack?.sets ?? [];
  return {
    exportId: e.exportId, file: e.fileName, workType: e.workType, partner: e.partner, interchange: String(e.interchange).padStart(9, '0'), group: e.group, sets: e.sets,
    writtenAt: e.writtenAt, state, ...(due === undefined ? {} : { dueBy: new Date(due).toISOString() }),
    ...(e.ack ? { ack: { kind: e.ack.kind, code: e.ack.code, text: e.ack.text, receivedAt: e.ack.receivedAt, fileId: e.ack.fileId } } : {}),
    rejected: sets.filter((s) => s.state === 'rejected').map((s) => ({ set: s.control, why: s.text })),
    withErrors: sets.filter((s) => s.state === 'accepted-with-errors').map((s) => ({ set: s.control, why: s.text })),
  };
}

/** The written X12 interchanges the filter selects, newest first, each with its acknowledgement state at `now`. */
export async function x12Interchanges(journal: Pick<Journal, 'x12Exports'>, partners: Partners, now: number, filter: X12ExportFilter): Promise<X12InterchangeView[]> {
  return (await journal.x12Exports(filter)).map((e) => interchangeView(e, partners, now));
}

/** The interchanges no acknowledgement came for within their partner's `ack_expected_within`, at most `limit` per partner. */
export async function overdueInterchanges(journal: Pick<Journal, 'x12Exports'>, partners: Partners, now: number, limit = 1000): Promise<X12InterchangeView[]> {
  const overdue: X12InterchangeView[] = [];
  for (const [name, profile] of Object.entries(partners)) {
    const within = ackExpectedWithinMs(profile);
    if (within === undefined) continue;
    overdue.push(...await x12Interchanges(journal, partners, now, { partner: name, awaitingSince: new Date(now - within).toISOString(), limit }));
  }
  return overdue;
}

/** One line of an interchange's state for people: `rejected: set 0002 (AK5 R: …)`. */
export function describeInterchangeState(view: X12InterchangeView): string {
  if (view.state === 'awaiting') return view.dueBy ? `awaiting (due by ${view.dueBy.slice(0, 16).replace('T', ' ')})` : 'awaiting';
  if (view.state === 'overdue') return `overdue: no acknowledgement since ${view.dueBy?.slice(0, 16).replace('T', ' ') ?? '-'}`;
  const sets = [...view.rejected.map((r) => `set ${r.set} rejected (${r.why})`), ...view.withErrors.map((r) => `set ${r.set} with errors (${r.why})`)];
  return [`${view.state.replaceAll('-', ' ')}: ${view.ack?.text ?? ''}`, ...sets].join('; ');
}
