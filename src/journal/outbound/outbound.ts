import type { Acknowledgement, BeginExportInput, ExportFile, ExportTake, ExportRecord, ExportRecordInput, ExportStatus } from '../core/types.js';
import type { SqlPort } from '../core/sql.js';
import {
  abandonExport, addExportRecords, beginExport, cancellable, confirmRecords, exportedIds, markExportWritten, recordAcknowledgements, stageExport,
} from './export-writes.js';
import { allocateExportControls, exportControls, exportOfGroup, nextControlNumber, type ControlNumberKind, type ExportControls } from './control-numbers.js';
import { takeExport } from './export-lease.js';
import { exportAck, recordExportAck, x12Exports, type ExportAckInput, type X12ExportFilter } from './received-acks.js';
import { exportFiles, ids, outboundContext, type ExportOwnership, RECORD_SELECT, records, requireExport, toExport, toRecord, type RecordRow } from './outbound-rows.js';

/*
 * The outbound role: work lists handed to the WMS, their records and acknowledgements (the writes: export-writes.ts;
 * the rows and statements: outbound-rows.ts), cursors, file sequences and X12 control numbers (control-numbers.ts).
 */

/** An export's records in record order (the test hooks' exportRecords, testing.ts: no production code reads a whole export). */
export async function recordsOfExport(sql: SqlPort, exportId: number): Promise<ExportRecord[]> {
  return (await sql.all<RecordRow>(`${RECORD_SELECT} WHERE r.export_id = ? ORDER BY r.record_id`, [exportId])).map(toRecord);
}

async function getCursor(sql: SqlPort, key: string): Promise<string | null> {
  return (await sql.get<{ value: string }>('SELECT value FROM cursors WHERE key = ?', [key]))?.value ?? null;
}

async function setCursor(sql: SqlPort, now: () => string, key: string, value: string): Promise<void> {
  await sql.run(
    `INSERT INTO cursors (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, [key, value, now()]);
}

/** Persisted per-work-type counter for file names: 1, 2, 3... */
async function nextFileSequence(sql: SqlPort, workType: string): Promise<number> {
  // The table name qualifies the old value: PostgreSQL would find `value` ambiguous with excluded's.
  const row = await sql.get<{ value: number }>(
    `INSERT INTO file_sequences (work_type, value) VALUES (?, 1)
     ON CONFLICT (work_type) DO UPDATE SET value = file_sequences.value + 1 RETURNING value`, [workType]);
  return row!.value;
}

export function createOutbound(sql: SqlPort, now: () => string, own: ExportOwnership) {
  const c = outboundContext(sql, now, own);
  const { q } = c;
  return {
    beginExport: (input: BeginExportInput & { repeatable?: boolean }): Promise<number> => beginExport(c, input),
    addExportRecords: (exportId: number, added: readonly ExportRecordInput[], options: { repeatable?: boolean } = {}): Promise<void> =>
      addExportRecords(c, exportId, added, options.repeatable ?? false),
    markExportWritten: (exportId: number): Promise<void> => markExportWritten(c, exportId),
    abandonExport: (exportId: number): Promise<void> => abandonExport(c, exportId),
    stageExport: (exportId: number, stagedName: string): Promise<void> => stageExport(c, exportId, stagedName),
    takeExport: (exportId: number): Promise<ExportTake> => takeExport(own, sql, exportId),
    unwrittenExports: (workType?: string): Promise<ExportFile[]> => exportFiles(c, workType ?? null, 'recorded', 1_000_000),
    listExports: (options: { workType?: string; status?: ExportStatus; limit: number }): Promise<ExportFile[]> =>
      exportFiles(c, options.workType ?? null, options.status ?? null, options.limit),
    getExport: async (exportId: number): Promise<ExportFile> => toExport(await requireExport(sql, exportId)),
    /** An export's records after record id `afterId`, at most `limit`, in id order (to read a large one in parts). */
    exportRecordsAfter: (exportId: number, afterId: number, limit: number): Promise<ExportRecord[]> =>
      records(c, `${RECORD_SELECT} WHERE r.export_id = ? AND r.record_id > ? ORDER BY r.record_id LIMIT ?`, [exportId, afterId, limit]),
    /** Records in written files whose acknowledgement is due and not yet recorded. */
    pendingAcknowledgements: (workType: string): Promise<ExportRecord[]> => records(c, q.dueForAck, [workType]),
    /** The written exports of a work type with records due for acknowledgement, oldest first. */
    exportsDueForAcknowledgement: (workType: string): Promise<number[]> => ids(sql, q.exportsDueForAck, [workType]),
    /** pendingAcknowledgements of one export (a large backlog is read export by export, not all at once). */
    pendingAcknowledgementsOf: (exportId: number): Promise<ExportRecord[]> => records(c,
      `SELECT r.*, e.file_name FROM export_records r JOIN exports e ON e.id = r.export_id
       WHERE r.export_id = ? AND r.ack_status = 'pending' AND e.status = 'written' ORDER BY r.record_id`, [exportId]),
    /** The ids of an export's records waiting for an acknowledgement (its file written or not). */
    pendingIdsOf: async (exportId: number): Promise<Set<number>> =>
      new Set(await ids(sql, `SELECT record_id FROM export_records WHERE export_id = ? AND ack_status = 'pending'`, [exportId])),
    recordAcknowledgements: (exportId: number, acks: readonly Acknowledgement[]): Promise<boolean> => recordAcknowledgements(c, exportId, acks),
    awaitingConfirmation: (workType: string): Promise<ExportRecord[]> => records(c, q.awaiting, [workType]),
    confirmRecords: (workType: string, confirmedIds: readonly number[]) => confirmRecords(c, workType, confirmedIds),
    /** Which of these ids were handed over in a work file before (written or possibly written). */
    alreadyExported: (workType: string, wanted: readonly number[]): Promise<Set<number>> => exportedIds(c, sql, workType, wanted),
    /** Of these ids now cancelled, the exported ones not yet in a cancellation list. */
    cancelledNotYetExported: async (workType: string, cancelledIds: readonly number[]): Promise<ExportRecord[]> =>
      (await cancellable(c, sql, workType, cancelledIds)).map(toRecord),
    getCursor: (key: string): Promise<string | null> => getCursor(sql, key),
    setCursor: (key: string, value: string): Promise<void> => setCursor(sql, now, key, value),
    nextFileSequence: (workType: string): Promise<number> => nextFileSequence(sql, workType),
    nextControlNumber: (partner: string, kind: ControlNumberKind, count?: number): Promise<number> => nextControlNumber(sql, partner, kind, count),
    allocateExportControls: (exportId: number, partner: string, sets: number): Promise<ExportControls> => allocateExportControls(sql, exportId, partner, sets),
    exportControls: (exportId: number): Promise<ExportControls | undefined> => exportControls(sql, exportId),
    exportOfGroup: (partner: string, group: number) => exportOfGroup(sql, partner, group),
    recordExportAck: (ack: ExportAckInput): Promise<boolean> => recordExportAck(sql, now, ack),
    exportAck: (exportId: number) => exportAck(sql, exportId),
    x12Exports: (filter: X12ExportFilter) => x12Exports(sql, filter),
  };
}
