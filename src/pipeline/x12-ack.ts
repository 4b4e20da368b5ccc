import { writerSeparatorsOf } from '../config/partners.js';
import type { FileRecord, Journal } from '../journal/index.js';
import { acknowledgementInterchange, type AckControls, type Delimiters, type InterchangeResult, type WriterSeparators } from '../x12/index.js';
import type { FileContext, FileJournal } from './file-endings.js';
import { senderKey, type ReceivedInterchange, type X12Reading } from './x12-route.js';

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
 * file leaves the inbox, once the sets' data errors are added (readSetRows, x12-structure.ts). Returns its name, or
 * undefined when no sender wants one.
 */
export async function writeAck(ctx: FileContext, journal: AckJournal, file: FileRecord, reading: X12Reading): Promise<string | undefined> {
  const wanted = reading.interchanges.filter((i) => i.partner?.profile.acknowledgements !== false);
  if (wanted.length === 0 || file.resultName === null) return undefined;
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

/** Control numbers for each reply from the journal, recorded on the file with the acknowledgement's name before it is written. */
async function allocate(journal: AckJournal, file: FileRecord, wanted: readonly ReceivedInterchange[]): Promise<RecordedAck> {
  const replies: AckControls[] = [];
  for (const received of wanted) {
    const partner = senderKey(received);
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
