import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Drop, WriteResult } from '../drops/index.js';
import { isWisbridgeError } from '../errors.js';
import { failpointAsync } from '../failpoints.js';
import type { ExportFile, ExportRecord, ExportJournal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { CsvWriter, RFC4180 } from '../util/csv.js';
import type { ExportJournalWriter } from './journal-writer.js';
import { joinMessages } from '../util/messages.js';

/**
 * Writes a work file's bytes to the outbox, atomically (temporary name, size check, rename); `beforeRename` is the
 * export's fenced step once the bytes are whole under the temporary name.
 */
export function writeWorkFile(drop: Drop, name: string, chunks: Iterable<Buffer>, beforeRename?: (tempName: string) => Promise<void>): Promise<WriteResult> {
  return drop.writeAtomic('outbox', name, Readable.from(chunks, { objectMode: false }), { beforeRename });
}

/**
 * An export recorded in the journal whose file may or may not have reached the outbox (a crash, an error during the
 * write, an owner paused or cut off past its lease). It is taken over first (its owner's later writes are refused),
 * and only when its owner is not live: `held` otherwise, left alone. Then the temporary file its owner staged, if it
 * got that far, is removed: the owner's rename can no longer land, or it landed before. The rename is the commit
 * point: a file in the outbox was written whole, so the export is marked written; no file means the records were
 * never handed over and are free again.
 */
export async function reconcileUnwritten(
  journal: ExportJournal, drop: Drop, exportFile: ExportFile, logger: Logger,
): Promise<'written' | 'abandoned' | 'held'> {
  const take = await journal.takeExport(exportFile.exportId);
  if (!take.taken) {
    logger.info({ event: 'export.held', file: exportFile.fileName, owner: take.owner, status: take.status }, 'export: an unwritten file of a live instance is left to it');
    return 'held';
  }
  if (take.stagedName !== null) await drop.remove('outbox', take.stagedName);
  const found = await drop.stat('outbox', exportFile.fileName);
  if (found) {
    await drop.completeCompanions?.('outbox', exportFile.fileName);
    await journal.markExportWritten(exportFile.exportId);
    logger.warn({ event: 'export.taken-over', file: exportFile.fileName, from: take.from, outcome: 'written', records: exportFile.recordCount },
      'export: file found in the outbox after an interruption; marked written');
    return 'written';
  }
  await journal.abandonExport(exportFile.exportId);
  logger.warn({ event: 'export.taken-over', file: exportFile.fileName, from: take.from, outcome: 'abandoned', records: exportFile.recordCount },
    'export: file never reached the outbox; its records will be exported again');
  return 'abandoned';
}

/**
 * Names of the export files this process is recording or writing right now (a name is known before the journal
 * has an id for it): another job of the same work type starting meanwhile must not take them for leftovers of a
 * crash. Other processes' exports are told apart in the journal, by their owner's liveness (takeExport).
 */
export const exportsInFlight = new Set<string>();

/**
 * Writes a work file for an export recorded in the journal, then marks it written through `writer`; reconciles it
 * on failure. Its name is in exportsInFlight since its FileRecording named it; it leaves here. `fence` is asked
 * right before the write: it throws once the run may no longer write (its tick taken over), and the file is then
 * never written. Once the bytes are whole under their temporary name, the export is staged, fenced by its owner and
 * token: refused once another process took it over, and the file is then never renamed into the outbox.
 */
export async function writeRecorded(
  journal: ExportJournal, writer: ExportJournalWriter, drop: Drop, exportId: number, name: string, chunks: Iterable<Buffer>, logger: Logger,
  fence?: () => Promise<void>,
): Promise<WriteResult> {
  let written: WriteResult;
  await failpointAsync('export.after-record');
  try {
    try {
      await fence?.();
      written = await writeWorkFile(drop, name, chunks, async (tempName) => {
        await writer.stage(exportId, tempName);
        await failpointAsync('export.after-stage');
      });
    } catch (error) {
      // DROP_EXISTS: the name belongs to another file, ours was never renamed into place.
      if (isWisbridgeError(error, 'DROP_EXISTS')) await journal.abandonExport(exportId);
      else if (!isWisbridgeError(error, 'LEASE_LOST')) await reconcileUnwritten(journal, drop, await journal.getExport(exportId), logger).catch(() => undefined);
      throw error;
    }
    await failpointAsync('export.after-rename');
    await writer.markWritten(exportId);
    await failpointAsync('export.after-written');
  } finally {
    exportsInFlight.delete(name);
  }
  return written;
}

export const RESULT_COLUMNS = ['file', 'id', 'number', 'status', 'acknowledged_at', 'message'];

/** `<work-list name>.ack.csv`: the acknowledgement status of every record of a work list (rewritten as it changes). */
export function resultFileName(workFile: string): string {
  return `${workFile}.ack.csv`;
}

/** Acknowledgement files: comma, LF, a header (src/util/csv.ts writes and neutralizes every cell). */
const RESULT_CSV = new CsvWriter({ ...RFC4180, recordDelimiter: '\n' });
function resultRows(records: readonly ExportRecord[]): string {
  let text = '';
  for (const r of records) text += RESULT_CSV.cells([r.fileName, r.id, r.number ?? '', r.ackStatus, r.acknowledgedAt ?? '', joinMessages(r.messages)]);
  return text;
}

export function resultCsv(records: readonly ExportRecord[]): string {
  return RESULT_CSV.cells(RESULT_COLUMNS) + resultRows(records);
}

/**
 * Records read and rendered per part of a result file: a big file's all at once held the event loop
 * (docs/performance.md, "Settings chosen by measurement").
 */
const RESULT_PART = 2_000;

/** resultCsv of an export's records as the journal has them, read and rendered in parts, a turn of the event loop apart. */
export async function* resultCsvParts(journal: ExportJournal, exportId: number, part = RESULT_PART): AsyncGenerator<string> {
  yield RESULT_CSV.cells(RESULT_COLUMNS);
  for (let after = Number.MIN_SAFE_INTEGER; ;) {
    const records = await journal.exportRecordsAfter(exportId, after, part);
    if (records.length > 0) yield resultRows(records);
    if (records.length < part) return;
    after = records[records.length - 1]!.id;
    await nextTurn();
  }
}

/** `<work list>.ack.csv`, rewritten whole from the journal (overwrite: it is the bridge's own file). */
export async function writeResultFile(drop: Drop, journal: ExportJournal, exportFile: ExportFile): Promise<string> {
  const name = resultFileName(exportFile.fileName);
  await drop.writeAtomic('outbox', name, resultCsvParts(journal, exportFile.exportId), { overwrite: true });
  return name;
}
