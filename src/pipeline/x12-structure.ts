import type { Readable } from 'node:stream';
import type { FileRecord, ItemStatus, ResultReads, X12EnvelopeEntry } from '../journal/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import {
  ackKindFor, addSegmentErrors, groupVerdict, isAccepted, placeIn, REASONS,
  type ElementError, type GroupResult, type InterchangeResult, type Refusal, type SegmentError, type SetResult,
} from '../x12/index.js';
import { jobOfFile } from './lifecycle.js';
import type { ResultRowWatch } from './result-file.js';
import type { SetLines, X12Reading } from './x12-route.js';

/*
 * An X12 file's envelopes as the journal keeps them for the console (journal `x12_envelopes`): one entry per
 * interchange, group and listed set in file order, recorded when the file is claimed and again once its rows are
 * decided (then with each set's rows and its data errors). What is listed is what the envelope validator holds: every
 * refused set and the first MAX_LISTED_SETS accepted ones of a group (the others are counted in their group), so a
 * file of a million well-formed sets costs a bounded record. Recorded in the journal rather than read again from the
 * file: the console shows it after the file moved to archive/ or error/, on another host of a fleet than the drop's.
 */

/** A broken rule as shown: its reason, the acknowledgement code it is answered with, and what was found. */
export interface RefusalView {
  reason: string;
  code?: string;
  detail: string;
}

export interface FileEnvelopes {
  interchanges: number;
  groups: number;
  /** Sets received (every one, listed or only counted). */
  sets: number;
  /** Sets listed one by one, and how many of them are refused (their own verdict, their group's or interchange's). */
  listed: number;
  refused: number;
  /** Whether the rows are decided: each set's rows and data errors are known. */
  rowsRead: boolean;
}

export interface InterchangeEnvelope {
  index: number;
  control: string;
  senderQualifier: string;
  sender: string;
  receiverQualifier: string;
  receiver: string;
  /** The sender's partner profile, when one is configured. */
  partner?: string;
  date: string;
  time: string;
  version: string;
  usage: string;
  /** ISA14: a TA1 is asked for. */
  acknowledgementRequested: boolean;
  /** Its sender wants acknowledgements: the index of its reply in the file's acknowledgement (files.x12_ack). */
  reply?: number;
  /** What answers its groups: a 997, or a 999 when its first group is 005010. */
  replyKind: '997' | '999';
  groups: number;
  refusals: RefusalView[];
}

export interface GroupEnvelope {
  interchange: string;
  /** Its place in the interchange (0 the first), and its interchange's reply: its 997/999 is the reply's set of this place. */
  index: number;
  reply?: number;
  functionalId: string;
  control: string;
  version: string;
  sender: string;
  receiver: string;
  /** Sets received, GE01 (when a number), sets accepted, sets listed. */
  received: number;
  declared?: number;
  accepted: number;
  listed: number;
  /** AK9-01: A all sets accepted, P some, R none or the group refused. */
  verdict: 'A' | 'P' | 'R';
  refusals: RefusalView[];
}

/** A set's rows once decided: the journal's seqs of its first and last row, and how many rows ended in each status. */
export interface SetRows {
  first: number;
  last: number;
  statuses: Partial<Record<ItemStatus, number>>;
}

export interface SetEnvelope {
  interchange: string;
  group: string;
  id: string;
  control: string;
  segments: number;
  lines?: SetLines;
  accepted: boolean;
  /** Its own refusals; `refusedBy` when its group or interchange refused it. */
  refusals: RefusalView[];
  refusedBy?: 'group' | 'interchange';
  rows?: SetRows;
}

export type EnvelopeDetail =
  | { level: 'file'; detail: FileEnvelopes }
  | { level: 'interchange'; detail: InterchangeEnvelope }
  | { level: 'group'; detail: GroupEnvelope }
  | { level: 'set'; detail: SetEnvelope };

function refusalsOf(refusals: readonly Refusal[]): RefusalView[] {
  return refusals.map(({ reason, detail }) => {
    const code = REASONS[reason].code;
    return code === undefined ? { reason, detail } : { reason, code, detail };
  });
}

/** The entries of a file's envelopes in file order, ord 0 its totals; `rows` once the rows are decided (SetRowsTally). */
export function envelopeEntries(reading: X12Reading, rows?: ReadonlyMap<SetResult, SetRows>): X12EnvelopeEntry[] {
  const entries: X12EnvelopeEntry[] = [];
  const totals: FileEnvelopes = { interchanges: reading.interchanges.length, groups: 0, sets: 0, listed: 0, refused: 0, rowsRead: rows !== undefined };
  const add = (entry: Exclude<EnvelopeDetail, { level: 'file' }>) => entries.push({ ord: entries.length + 1, level: entry.level, detail: JSON.stringify(entry.detail) });
  let replies = 0;
  for (const { result, partner } of reading.interchanges) {
    // Replies are written for the interchanges whose sender wants them, in file order (x12-ack.ts).
    const reply = partner?.profile.acknowledgements === false ? undefined : replies++;
    add({ level: 'interchange', detail: interchangeEnvelope(result, partner?.name, reply) });
    for (const [index, group] of result.groups.entries()) {
      totals.groups++;
      totals.sets += group.received;
      add({ level: 'group', detail: groupEnvelope(group, index, reply) });
      for (const set of group.sets) {
        const detail = setEnvelope(set, group, result, reading.setLines.get(set), rows?.get(set));
        totals.listed++;
        if (!detail.accepted) totals.refused++;
        add({ level: 'set', detail });
      }
    }
  }
  return [{ ord: 0, level: 'file', detail: JSON.stringify(totals) }, ...entries];
}

function interchangeEnvelope(i: InterchangeResult, partner: string | undefined, reply: number | undefined): InterchangeEnvelope {
  return {
    index: i.index, control: i.control, senderQualifier: i.senderQualifier, sender: i.sender.trim(), receiverQualifier: i.receiverQualifier,
    receiver: i.receiver.trim(), ...(partner === undefined ? {} : { partner }), date: i.date, time: i.time, version: i.version, usage: i.usage,
    acknowledgementRequested: i.acknowledgementRequested, ...(reply === undefined ? {} : { reply }), replyKind: i.groups[0] ? ackKindFor(i.groups[0]) : '997',
    groups: i.groups.length, refusals: refusalsOf(i.refusals),
  };
}

function groupEnvelope(g: GroupResult, index: number, reply: number | undefined): GroupEnvelope {
  const { status, received, accepted } = groupVerdict(g);
  return {
    interchange: g.interchange, index, ...(reply === undefined ? {} : { reply }), functionalId: g.functionalId, control: g.control, version: g.version, sender: g.sender, receiver: g.receiver,
    received, ...(g.declaredSets === undefined ? {} : { declared: g.declaredSets }), accepted, listed: g.sets.length, verdict: status,
    refusals: refusalsOf(g.refusals),
  };
}

function setEnvelope(s: SetResult, g: GroupResult, i: InterchangeResult, lines: SetLines | undefined, rows: SetRows | undefined): SetEnvelope {
  const refusedBy = i.refusals.length > 0 ? 'interchange' : g.refusals.length > 0 ? 'group' : undefined;
  return {
    interchange: s.interchange, group: s.group, id: s.id, control: s.control, segments: s.segments, ...(lines ? { lines } : {}),
    accepted: isAccepted(s, g, i), refusals: refusalsOf(s.refusals), ...(refusedBy ? { refusedBy } : {}), ...(rows ? { rows } : {}),
  };
}

/** An entry as the journal gave it back. */
export function readEnvelope(entry: X12EnvelopeEntry): EnvelopeDetail {
  return { level: entry.level, detail: JSON.parse(entry.detail) } as EnvelopeDetail;
}

/** AK403/IK403 of an element error reported as text: 8 a date, 6 anything else that is not what the element holds. */
function elementCode(message: string): string {
  return /\bdate\b/i.test(message) ? '8' : '6';
}

/** A listed set and its lines, in line order. */
interface Span {
  set: SetResult;
  first: number;
  last: number;
  rows?: SetRows;
}

/**
 * Each listed set's rows (the seqs of its first and last, and their statuses) and its data errors, tallied from the
 * rows of the file's result file as they are written (ResultRowWatch: the spool's rows of a first run, or the
 * journal's when it writes them), in line order; `finish` adds the data errors to their sets as AK3/AK4: each error
 * message that names a segment and element of a set (`…, set 0003, segment 7 (W12), element 03: "3,250" is not a
 * number`) is added to the set (`addSegmentErrors`), which refuses it (`set-data`). Tallied while writing rather than
 * read back from the journal after it: a million rows read again cost more than the result file itself
 * (docs/performance.md, X12 against CSV).
 */
export class SetRowsTally implements ResultRowWatch {
  private spans: Span[] = [];
  private readonly byPlace = new Map<string, SetResult>();
  private errors = new Map<SetResult, Map<number, SegmentError>>();
  private at = 0;

  constructor(private readonly reading: X12Reading) {
    this.reset();
  }

  /** Forgets what was tallied: the rows are about to be written again (a spool given up, the journal's rows instead). */
  reset(): void {
    this.spans = [];
    this.byPlace.clear();
    for (const { result } of this.reading.interchanges) {
      for (const group of result.groups) {
        for (const set of group.sets) {
          this.byPlace.set(`${result.control}\u0000${set.control}`, set);
          const lines = this.reading.setLines.get(set);
          if (lines) this.spans.push({ set, ...lines });
        }
      }
    }
    this.spans.sort((a, b) => a.first - b.first);
    this.errors = new Map();
    this.at = 0;
  }

  row(line: number, seq: number, status: ItemStatus, messages: readonly string[]): void {
    const { spans } = this;
    while (this.at < spans.length && spans[this.at].last < line) this.at++;
    const span = spans[this.at];
    if (span && span.first <= line) {
      // A row of several lines counts once: its seq is new when it lies past the rows seen (they come in line order).
      const rows = span.rows;
      if (!rows) span.rows = { first: seq, last: seq, statuses: { [status]: 1 } };
      else if (seq > rows.last || seq < rows.first) {
        if (seq > rows.last) rows.last = seq;
        else rows.first = seq;
        rows.statuses[status] = (rows.statuses[status] ?? 0) + 1;
      } else return;
    }
    if (status === 'error') for (const message of messages) noteError(this.errors, this.byPlace, message);
  }

  /** The sets' rows; their data errors added to them (once: a second call adds nothing). */
  finish(): Map<SetResult, SetRows> {
    for (const [set, segments] of this.errors) addSegmentErrors(set, [...segments.values()].sort((a, b) => a.index - b.index));
    this.errors = new Map();
    return new Map(this.spans.filter((s) => s.rows !== undefined).map((s) => [s.set, s.rows!]));
  }
}

function noteError(errors: Map<SetResult, Map<number, SegmentError>>, byPlace: ReadonlyMap<string, SetResult>, message: string): void {
  const place = placeIn(message);
  if (place?.element === undefined) return;
  const set = byPlace.get(`${place.interchange}\u0000${place.set}`);
  if (!set) return;
  let segments = errors.get(set);
  if (!segments) errors.set(set, (segments = new Map()));
  let segment = segments.get(place.index);
  if (!segment) segments.set(place.index, (segment = { segmentId: place.segmentId, index: place.index, code: '8', elements: [] }));
  const copy = /: "([^"]{1,80})"/.exec(message)?.[1];
  const error: ElementError = { element: place.element, component: place.component, code: elementCode(message), ...(copy === undefined ? {} : { copy }) };
  if (!segment.elements.some((e) => e.element === error.element && e.component === error.component)) segment.elements.push(error);
}

/** A file's acknowledgement as recorded before it was written (files.x12_ack): its name and each reply's control numbers. */
export interface RecordedAck {
  name: string;
  /** One per interchange whose sender wants acknowledgements, in file order: ISA13, GS06 (0: a TA1 alone), the first ST02. */
  replies: Array<{ interchange: number | string; group: number | string; firstSet?: number }>;
}

export function recordedAck(file: Pick<FileRecord, 'x12Ack'>): RecordedAck | undefined {
  return file.x12Ack === null ? undefined : (JSON.parse(file.x12Ack) as RecordedAck);
}

/** The acknowledgement of a file as it stands in its job's outbox; undefined when it has none or it is not there any more. */
export async function openAckFile(runtime: RuntimeParts<'drop' | 'loaded', ResultReads>, fileId: number): Promise<{ name: string; stream: Readable } | undefined> {
  const file = await (await runtime.journal()).getFile(fileId);
  const ack = recordedAck(file);
  if (!ack) return undefined;
  const drop = await runtime.drop(jobOfFile(runtime.loaded.config, file).drop);
  if (!(await drop.stat('outbox', ack.name))) return undefined;
  return { name: ack.name, stream: await drop.openRead('outbox', ack.name) };
}
