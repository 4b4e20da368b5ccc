import { pageOfBody, type ListEndpointId, type PageDecoder } from '../client/index.js';
import { interchangeVersionOf, writerSeparatorsOf, type PartnerProfile } from '../config/partners.js';
import { failpoint } from '../failpoints.js';
import type { ExportControls, ExportRecordInput } from '../journal/index.js';
import { isWisbridgeError } from '../errors.js';
import { X12Writer, writeInterchange, type SegmentData } from '../x12/index.js';
import { exportsInFlight, writeRecorded } from './files.js';
import { inlineJournalWriter } from './journal-writer.js';
import { journalRecord } from './journal-record.js';
import { FileRecording, type FileJournalSpec } from './recording.js';
import { formatFileName } from './work-types.js';
import type { FileContext, WrittenFile } from './work.js';
import type { X12WorkList } from './x12-sets.js';

/** The partner an X12 work list goes to: its profile's name (the control numbers' key) and the profile. */
export interface X12Partner {
  name: string;
  profile: PartnerProfile;
}

type Listed = Record<string, unknown> & { id: number };

/** A listed record left out of the work list: what in it cannot be written. */
export interface UnwritableRecord {
  id: number;
  number: string;
  reason: string;
}

/** A work list to write: its records as the journal keeps them, and each one's transaction set. */
interface Pending {
  records: ExportRecordInput[];
  sets: SegmentData[][];
}

/**
 * The text of one work list's interchange: one group (GS01 of the work list's kind) of one set per record, our ids as
 * sender, the partner's as receiver, with the control numbers recorded with the export.
 */
export function interchangeText(partner: X12Partner, workList: X12WorkList, controls: ExportControls, sets: readonly SegmentData[][], at: Date): string {
  const p = partner.profile;
  return writeInterchange(writerSeparatorsOf(p), {
    senderQualifier: p.us.qualifier, sender: p.us.id, receiverQualifier: p.them.qualifier, receiver: p.them.id, at,
    control: controls.interchange, version: interchangeVersionOf(p.version), usage: p.usage,
  }, [{
    header: {
      functionalId: workList.functionalId, sender: p.our_application_code ?? p.us.id, receiver: p.application_code ?? p.them.id,
      at, control: controls.group, version: p.version,
    },
    sets: sets.map((segments, i) => ({ id: workList.set, control: controls.firstSet + i, segments })),
  }]);
}

/**
 * Writes one work list as an interchange: recorded in the journal with its records, its control numbers allocated and
 * recorded with it, then written, verified in place and marked written (writeRecorded). A crash before the file is in
 * place leaves the export unwritten: the next run abandons it and lists its records again into a new export with new
 * numbers; the numbers it had stay recorded with it, never handed out again.
 */
async function writeWorkList(ctx: FileContext, partner: X12Partner, workList: X12WorkList, pending: Pending): Promise<WrittenFile | undefined> {
  const { job, journal, drop, logger } = ctx;
  const spec: FileJournalSpec = { workType: job.work_type, kind: 'work', policy: job.acknowledge };
  const name = formatFileName(job.file_name, job, ctx.now(), await journal.nextFileSequence(job.name));
  const writer = inlineJournalWriter(journal);
  const recording = new FileRecording(name, Promise.resolve(writer), journal, spec, logger);
  recording.part(pending.records);
  const recorded = await recording.done();
  if (!recorded) return undefined;
  const { exportId, left } = recorded;
  const sets = left.size === 0 ? pending.sets : pending.sets.filter((_, i) => !left.has(pending.records[i]!.id));
  let text: string;
  try {
    const controls = await journal.allocateExportControls(exportId, partner.name, sets.length);
    failpoint('export.after-control-numbers');
    text = interchangeText(partner, workList, controls, sets, ctx.now());
  } catch (error) {
    // Not written: its records are free again (an abandoned export's numbers stay its own).
    await journal.abandonExport(exportId).catch(() => undefined);
    exportsInFlight.delete(name);
    throw error;
  }
  const written = await writeRecorded(journal, writer, drop, exportId, name, [Buffer.from(text, 'utf8')], logger, ctx.fence);
  logger.info({ file: name, kind: 'work', records: sets.length, bytes: written.size }, 'export: file written');
  return { name, kind: 'work', records: sets.length, bytes: written.size };
}

/** Why a record's set cannot be written with the partner's separators (X12 has no release character), if it cannot. */
function unwritable(writer: X12Writer, segments: readonly SegmentData[]): string | undefined {
  try {
    for (const segment of segments) writer.segment(segment);
    return undefined;
  } catch (error) {
    if (isWisbridgeError(error) && error.code === 'X12_WRITE') return error.message;
    throw error;
  }
}

/**
 * exportPending's X12 form: the pending records listed, those handed over before skipped, the rest written as work
 * lists of at most max_records_per_file records, one interchange each. No work writes no file (an interchange
 * without a set says nothing). A record whose data cannot be written (a value holding one of the partner's
 * separators) is left out, reported and not acknowledged: it stays pending at the service, the others go on.
 */
export async function exportPendingX12(
  ctx: FileContext, partner: X12Partner, workList: X12WorkList, list: ListEndpointId, filters: Record<string, unknown>,
): Promise<{ listed: number; skipped: number; files: WrittenFile[]; unwritable: UnwritableRecord[] }> {
  const { job, journal, logger } = ctx;
  const writer = new X12Writer(writerSeparatorsOf(partner.profile));
  const left: UnwritableRecord[] = [];
  const decode: PageDecoder<Listed[]> = async (body) => {
    const { records, hasMore } = pageOfBody(list, body);
    const listed = records as Listed[];
    return { hasMore, ids: listed.map((r) => r.id), data: listed };
  };
  const files: WrittenFile[] = [];
  let pending: Pending = { records: [], sets: [] };
  let listed = 0;
  let skipped = 0;
  const flush = async () => {
    const full = pending;
    pending = { records: [], sets: [] };
    const file = await writeWorkList(ctx, partner, workList, full);
    if (file) files.push(file);
  };
  const options = { concurrency: ctx.concurrency, signal: ctx.signal };
  // eslint-disable-next-line no-restricted-syntax -- the work type's list is known at run time; its spec builds filters that list accepts
  for await (const page of ctx.client.decodedPages(list, filters as never, decode, options)) {
    const fresh = page.data.filter((_, i) => !page.repeated.has(i));
    listed += fresh.length;
    const before = await journal.alreadyExported(job.work_type, fresh.map((r) => r.id));
    skipped += before.size;
    for (const record of fresh) {
      if (before.has(record.id)) continue;
      const segments = workList.segments(record);
      const reason = unwritable(writer, segments);
      if (reason !== undefined) {
        const number = String(record.number ?? '');
        left.push({ id: record.id, number, reason });
        logger.warn({ event: 'export.record-unwritable', record: record.id, number, reason }, 'export: a record cannot be written as X12: left out, it stays pending');
        continue;
      }
      pending.records.push(journalRecord(record));
      pending.sets.push(segments);
      if (pending.records.length >= job.max_records_per_file) await flush();
    }
  }
  if (pending.records.length > 0) await flush();
  return { listed, skipped, files, unwritable: left };
}
