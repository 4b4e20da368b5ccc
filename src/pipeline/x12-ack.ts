import { writerSeparatorsOf } from '../config/partners.js';
import type { FileRecord, Journal } from '../journal/index.js';
import {
  acknowledgementInterchange, addSegmentErrors, placeIn,
  type AckControls, type Delimiters, type ElementError, type InterchangeResult, type SegmentError, type WriterSeparators,
} from '../x12/index.js';
import type { FileContext, FileJournal } from './file-endings.js';
import type { ReceivedInterchange, X12Reading } from './x12-route.js';

/** The journal an acknowledgement takes: its control numbers, allocated per partner, and its record on the file. */
export type AckJournal = FileJournal & Pick<Journal, 'nextControlNumber'>;

/** What is recorded of a file's acknowledgement before it is written: its name and each reply's control numbers. */
interface RecordedAck {
  name: string;
  replies: AckControls[];
}

/** `NAME.result.csv` → `NAME.ack.edi`: the acknowledgement follows the name recorded for the file's result. */
export function ackFileName(resultName: string): string {
  return resultName.replace(/\.result\.csv$/, '') + '.ack.edi';
}

function separatorsOf(received: ReceivedInterchange): WriterSeparators {
  if (received.partner) return writerSeparatorsOf(received.partner.profile);
  const d: Delimiters = received.delimiters;
  const c = (n: number | undefined) => (n === undefined ? undefined : String.fromCharCode(n));
  return { element: c(d.element)!, component: c(d.component)!, segment: c(d.segment)!, repetition: c(d.repetition), lineBreak: '\n' };
}

/** AK403/IK403 of an element error reported as text: 8 a date, 6 anything else that is not what the element holds. */
function elementCode(message: string): string {
  return /\bdate\b/i.test(message) ? '8' : '6';
}

/**
 * The data errors the mapping reported for the file's rows, as AK3/AK4 of their sets: each error message that names a
 * segment and element of a set (`…, set 0003, segment 7 (W12), element 03: "3,250" is not a number`).
 */
async function addDataErrors(journal: FileJournal, fileId: number, interchanges: readonly ReceivedInterchange[]): Promise<void> {
  const bySet = new Map<string, Map<number, SegmentError>>();
  for await (const outcome of journal.iterateLineOutcomes(fileId)) {
    if (outcome.status !== 'error') continue;
    for (const message of outcome.messages) {
      const place = placeIn(message);
      if (place?.element === undefined) continue;
      const key = `${place.interchange}\u0000${place.set}`;
      let segments = bySet.get(key);
      if (!segments) bySet.set(key, (segments = new Map()));
      let segment = segments.get(place.index);
      if (!segment) segments.set(place.index, (segment = { segmentId: place.segmentId, index: place.index, code: '8', elements: [] }));
      const copy = /: "([^"]{1,80})"/.exec(message)?.[1];
      const error: ElementError = { element: place.element, component: place.component, code: elementCode(message), ...(copy === undefined ? {} : { copy }) };
      if (!segment.elements.some((e) => e.element === error.element && e.component === error.component)) segment.elements.push(error);
    }
  }
  if (bySet.size === 0) return;
  for (const { result } of interchanges) {
    for (const group of result.groups) {
      for (const set of group.sets) {
        const errors = bySet.get(`${result.control}\u0000${set.control}`);
        if (errors) addSegmentErrors(set, [...errors.values()].sort((a, b) => a.index - b.index));
      }
    }
  }
}

/** Drops a copy (AK404) that holds one of the reply's separators: X12 cannot escape it. */
function withoutSeparators(result: InterchangeResult, separators: WriterSeparators): void {
  const seps = [separators.element, separators.component, separators.segment, separators.repetition].filter((s) => s !== undefined);
  for (const group of result.groups) {
    for (const set of group.sets) {
      for (const segment of set.segmentErrors) for (const e of segment.elements) if (e.copy !== undefined && seps.some((s) => e.copy!.includes(s))) delete e.copy;
    }
  }
}

/**
 * The file's acknowledgement: per received interchange whose sender wants one, a reply (TA1 for a refused interchange,
 * else a 997/999 per group), all in one file in the result folder, named after the file's recorded result name and
 * dated with the file's claim, so a run after a crash writes the same bytes under the same name. Written before the
 * file leaves the inbox. Returns its name, or undefined when no sender wants one.
 */
export async function writeAck(ctx: FileContext, journal: AckJournal, file: FileRecord, reading: X12Reading): Promise<string | undefined> {
  const wanted = reading.interchanges.filter((i) => i.partner?.profile.acknowledgements !== false);
  if (wanted.length === 0 || file.resultName === null) return undefined;
  // A file done has no row in error: its million line outcomes need not be read to find none.
  if (ctx.report.outcome !== 'done') await addDataErrors(journal, file.fileId, wanted);
  const recorded = file.x12Ack === null ? await allocate(journal, file, wanted) : (JSON.parse(file.x12Ack) as RecordedAck);
  const at = new Date(file.claimedAt);
  let text = '';
  wanted.forEach((received, i) => {
    const separators = separatorsOf(received);
    withoutSeparators(received.result, separators);
    text += acknowledgementInterchange(received.result, separators, recorded.replies[i], at);
  });
  await ctx.lease?.ready();
  await ctx.drop.writeAtomic(ctx.resultFolder, recorded.name, text, { overwrite: true });
  ctx.report.ackFile = recorded.name;
  return recorded.name;
}

/** The partner a reply's control numbers count for: its profile's name, else the ISA id it was sent from. */
function partnerKey(received: ReceivedInterchange): string {
  return received.partner?.name ?? `${received.result.senderQualifier.trim()}/${received.result.sender.trim()}`;
}

/** Control numbers for each reply from the journal, recorded on the file with the acknowledgement's name before it is written. */
async function allocate(journal: AckJournal, file: FileRecord, wanted: readonly ReceivedInterchange[]): Promise<RecordedAck> {
  const replies: AckControls[] = [];
  for (const received of wanted) {
    const partner = partnerKey(received);
    const interchange = await journal.nextControlNumber(partner, 'interchange');
    // A refused interchange is answered by a TA1 alone: no group, no set.
    const groups = received.result.refusals.length > 0 ? 0 : received.result.groups.length;
    if (groups === 0) {
      replies.push({ interchange, group: 0 });
      continue;
    }
    replies.push({ interchange, group: await journal.nextControlNumber(partner, 'group'), firstSet: await journal.nextControlNumber(partner, 'set', groups) });
  }
  const ack: RecordedAck = { name: ackFileName(file.resultName!), replies };
  await journal.recordX12Ack(file.fileId, JSON.stringify(ack));
  return ack;
}
