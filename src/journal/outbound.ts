import type { Db } from './db.js';
import { messagesJson, parseMessages, stateError } from './rows.js';
import type {
  Acknowledgement, AckPolicy, AckStatus, BeginExportInput, ExportFile, ExportKind, ExportRecord, ExportRecordInput, ExportStatus,
} from './types.js';

interface ExportRow {
  id: number;
  work_type: string;
  file_name: string;
  kind: ExportKind;
  policy: AckPolicy;
  status: ExportStatus;
  record_count: number;
  created_at: string;
  written_at: string | null;
  completed_at: string | null;
}

interface RecordRow {
  export_id: number;
  file_name: string;
  work_type: string;
  record_id: number;
  number: string | null;
  updated_at: string | null;
  ack_status: AckStatus;
  acknowledged_at: string | null;
  messages: string | null;
}

function toExport(row: ExportRow): ExportFile {
  return {
    exportId: row.id, workType: row.work_type, fileName: row.file_name, kind: row.kind, policy: row.policy,
    status: row.status, recordCount: row.record_count, createdAt: row.created_at, writtenAt: row.written_at,
    completedAt: row.completed_at,
  };
}

function toRecord(row: RecordRow): ExportRecord {
  return {
    exportId: row.export_id, fileName: row.file_name, workType: row.work_type, id: row.record_id, number: row.number,
    updatedAt: row.updated_at, ackStatus: row.ack_status, acknowledgedAt: row.acknowledged_at,
    messages: parseMessages(row.messages),
  };
}

/** Records per multi-row INSERT of beginExport (7 parameters each, far below SQLite's limit). */
const RECORD_CHUNK = 50;
const recordValues = (n: number) =>
  `INSERT INTO export_records (export_id, record_id, work_type, kind, number, updated_at, ack_status) VALUES `
  + Array.from({ length: n }, () => `(?, ?, ?, ?, ?, ?, ?)`).join(', ');

/** exportedIds reads the id range min..max when it spans at most this many ids per id asked about. */
const DENSE_RANGE = 8;

/**
 * Whether an export's file is in place is a fact of the export row alone (status `recorded` until the rename):
 * its records are inserted with the status they take once it is written, so marking a file of 25,000 records
 * written is one row, not 25,000. A record of a `recorded` export reads as `unwritten` (this SQL expression, over
 * `export_records r JOIN exports e`; the operator's backlog counts them from the export rows).
 */
const RECORD_ACK_STATUS = `CASE WHEN e.status = 'recorded' AND r.ack_status <> 'abandoned' THEN 'unwritten' ELSE r.ack_status END`;
const RECORD_SELECT = `SELECT r.export_id, r.record_id, r.work_type, r.kind, r.number, r.updated_at,
    ${RECORD_ACK_STATUS} AS ack_status, r.acknowledged_at, r.messages, e.file_name
  FROM export_records r JOIN exports e ON e.id = r.export_id`;
const WRITTEN_STATUS: Record<AckPolicy, AckStatus> = {
  'on-export': 'pending', 'on-confirmation': 'awaiting-confirmation', never: 'not-required',
};

export function createOutbound(db: Db, now: () => string) {
  const q = {
    insertExport: db.prepare(
      `INSERT INTO exports (work_type, file_name, kind, policy, status, record_count, created_at)
       VALUES (?, ?, ?, ?, 'recorded', ?, ?)`),
    insertRecord: db.prepare(recordValues(1)),
    insertRecords: db.prepare(recordValues(RECORD_CHUNK)),
    exported: db.prepare(
      `SELECT DISTINCT record_id FROM export_records WHERE work_type = ? AND kind = 'work' AND ack_status != 'abandoned'
         AND record_id IN (SELECT value FROM json_each(?))`).pluck(),
    exportedInRange: db.prepare(
      `SELECT record_id FROM export_records WHERE work_type = ? AND kind = 'work' AND record_id BETWEEN ? AND ?
         AND ack_status != 'abandoned'`).pluck(),
    cancellable: db.prepare(
      `${RECORD_SELECT} WHERE r.work_type = @workType AND r.kind = 'work' AND e.status IN ('written', 'completed') AND r.ack_status <> 'abandoned'
         AND r.record_id IN (SELECT value FROM json_each(@ids))
         AND NOT EXISTS (SELECT 1 FROM export_records c WHERE c.work_type = @workType AND c.kind = 'cancellation'
                         AND c.record_id = r.record_id AND c.ack_status != 'abandoned')
       ORDER BY r.record_id, r.export_id`),
    export: db.prepare('SELECT * FROM exports WHERE id = ?'),
    setExportStatus: db.prepare(
      `UPDATE exports SET status = @status, written_at = coalesce(written_at, @at),
         completed_at = CASE WHEN @status IN ('completed', 'abandoned') THEN @at END WHERE id = @id`),
    setAllRecords: db.prepare('UPDATE export_records SET ack_status = ? WHERE export_id = ?'),
    addToCount: db.prepare('UPDATE exports SET record_count = record_count + ? WHERE id = ?'),
    ack: db.prepare(
      `UPDATE export_records SET ack_status = ?, acknowledged_at = ?, messages = ?
       WHERE export_id = ? AND record_id = ? AND ack_status = 'pending'`),
    // Through the partial index, whose entries end with the primary key (export_id, record_id): a seek, not a scan
    // of the export's records (acknowledgements are recorded 1,000 at a time; a file has up to max_records_per_file).
    anyOpenInExport: db.prepare(
      `SELECT 1 FROM export_records INDEXED BY export_records_open
       WHERE ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND work_type = ?
         AND ack_status IN ('pending', 'awaiting-confirmation') AND export_id = ? LIMIT 1`).pluck(),
    // The partial index is used only when the query repeats its WHERE term verbatim.
    dueForAck: db.prepare(
      `SELECT r.*, e.file_name FROM export_records r INDEXED BY export_records_open JOIN exports e ON e.id = r.export_id
       WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND r.work_type = ? AND r.ack_status = 'pending'
         AND e.status = 'written' ORDER BY r.export_id, r.record_id`),
    dueForAckIn: db.prepare(
      `SELECT r.*, e.file_name FROM export_records r JOIN exports e ON e.id = r.export_id
       WHERE r.export_id = ? AND r.ack_status = 'pending' AND e.status = 'written' ORDER BY r.record_id`),
    pendingIdsIn: db.prepare(`SELECT record_id FROM export_records WHERE export_id = ? AND ack_status = 'pending'`).pluck(),
    exportsDueForAck: db.prepare(
      `SELECT DISTINCT r.export_id FROM export_records r INDEXED BY export_records_open JOIN exports e ON e.id = r.export_id
       WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND r.work_type = ? AND r.ack_status = 'pending'
         AND e.status = 'written' ORDER BY r.export_id`).pluck(),
    awaiting: db.prepare(
      `SELECT r.*, e.file_name FROM export_records r INDEXED BY export_records_open JOIN exports e ON e.id = r.export_id
       WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND r.work_type = ?
         AND r.ack_status = 'awaiting-confirmation' AND e.status = 'written' ORDER BY r.export_id, r.record_id`),
    confirm: db.prepare(
      `UPDATE export_records SET ack_status = 'pending' WHERE work_type = ? AND record_id = ? AND kind = 'work'
         AND ack_status = 'awaiting-confirmation' AND export_id IN (SELECT id FROM exports WHERE status = 'written')`),
    recordsOf: db.prepare(`${RECORD_SELECT} WHERE r.export_id = ? ORDER BY r.record_id`),
    recordsAfter: db.prepare(`${RECORD_SELECT} WHERE r.export_id = ? AND r.record_id > ? ORDER BY r.record_id LIMIT ?`),
    listExports: db.prepare(
      `SELECT * FROM exports WHERE (@workType IS NULL OR work_type = @workType) AND (@status IS NULL OR status = @status) ORDER BY id DESC LIMIT @limit`),
    getCursor: db.prepare('SELECT value FROM cursors WHERE key = ?').pluck(),
    setCursor: db.prepare(
      `INSERT INTO cursors (key, value, updated_at) VALUES (@key, @value, @at)
       ON CONFLICT (key) DO UPDATE SET value = @value, updated_at = @at`),
    nextSequence: db.prepare(
      `INSERT INTO file_sequences (work_type, value) VALUES (?, 1)
       ON CONFLICT (work_type) DO UPDATE SET value = value + 1 RETURNING value`).pluck(),
  };

  function requireExport(exportId: number): ExportRow {
    const row = q.export.get(exportId) as ExportRow | undefined;
    if (!row) throw stateError(`export ${exportId} is not in the journal`);
    return row;
  }

  function exportedIds(workType: string, ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    let min = Infinity;
    let max = -Infinity;
    for (const id of ids) {
      if (id < min) min = id;
      if (id > max) max = id;
    }
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max - min > ids.length * DENSE_RANGE) {
      return new Set(q.exported.all(workType, JSON.stringify(ids)) as number[]);
    }
    // Listed pages hold ids close together: one index range instead of one lookup per id (~30× less CPU).
    const wanted = new Set(ids);
    return new Set((q.exportedInRange.all(workType, min, max) as number[]).filter((id) => wanted.has(id)));
  }

  /** Checks records for an export (kind, taken ids) and inserts them; the export row exists already. */
  function insertRecords(exportId: number, input: BeginExportInput & { repeatable?: boolean }, kind: ExportKind, ackStatus: AckStatus): void {
    const ids = input.records.map((r) => r.id);
    if (new Set(ids).size !== ids.length) throw stateError(`export ${input.fileName} lists a record twice`);
    if (kind === 'work' && !input.repeatable) {
      const before = exportedIds(input.workType, ids);
      if (before.size > 0) {
        throw stateError(`records already exported for ${input.workType}: ${[...before].join(', ')}`, { ids: [...before] });
      }
    } else if (kind === 'cancellation') {
      const open = new Set((q.cancellable.all({ workType: input.workType, ids: JSON.stringify(ids) }) as RecordRow[]).map((r) => r.record_id));
      const wrong = ids.filter((id) => !open.has(id));
      if (wrong.length > 0) throw stateError(`records not exported or already cancelled: ${wrong.join(', ')}`, { ids: wrong });
    }
    // One statement call per RECORD_CHUNK records instead of per record.
    const records = input.records;
    const full = records.length - (records.length % RECORD_CHUNK);
    const params: unknown[] = new Array(RECORD_CHUNK * 7);
    for (let start = 0; start < full; start += RECORD_CHUNK) {
      for (let i = 0; i < RECORD_CHUNK; i++) {
        const r = records[start + i]!;
        const k = i * 7;
        params[k] = exportId; params[k + 1] = r.id; params[k + 2] = input.workType; params[k + 3] = kind;
        params[k + 4] = r.number; params[k + 5] = r.updatedAt ?? null; params[k + 6] = ackStatus;
      }
      q.insertRecords.run(params);
    }
    for (let i = full; i < records.length; i++) {
      const r = records[i]!;
      q.insertRecord.run(exportId, r.id, input.workType, kind, r.number, r.updatedAt ?? null, ackStatus);
    }
  }

  const beginTx = db.transaction((input: BeginExportInput & { repeatable?: boolean }): number => {
    const kind = input.kind ?? 'work';
    const policy: AckPolicy = kind === 'cancellation' ? 'never' : input.policy ?? 'on-export';
    const exportId = Number(q.insertExport.run(input.workType, input.fileName, kind, policy, input.records.length, now()).lastInsertRowid);
    insertRecords(exportId, input, kind, WRITTEN_STATUS[policy]);
    return exportId;
  });

  const appendTx = db.transaction((exportId: number, records: readonly ExportRecordInput[], repeatable: boolean) => {
    const row = requireExport(exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: records can only be added before it is written`);
    insertRecords(exportId, { workType: row.work_type, fileName: row.file_name, records, repeatable }, row.kind, WRITTEN_STATUS[row.policy]);
    q.addToCount.run(records.length, exportId);
  });

  const writtenTx = db.transaction((exportId: number) => {
    const row = requireExport(exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}, not recorded`);
    // The records have their status since they were recorded (RECORD_SELECT): only the export row changes.
    q.setExportStatus.run({ id: exportId, status: row.policy === 'never' || row.record_count === 0 ? 'completed' : 'written', at: now() });
  });

  const abandonTx = db.transaction((exportId: number) => {
    const row = requireExport(exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: only an unwritten export can be abandoned`);
    q.setAllRecords.run('abandoned', exportId);
    q.setExportStatus.run({ id: exportId, status: 'abandoned', at: now() });
  });

  const ackTx = db.transaction((exportId: number, acks: readonly Acknowledgement[]) => {
    const row = requireExport(exportId);
    if (row.status !== 'written') throw stateError(`export ${exportId} (${row.file_name}) is ${row.status}: its records are not waiting for an acknowledgement`);
    const at = now();
    for (const a of acks) {
      const acknowledgedAt = a.status === 'acknowledged' ? a.acknowledgedAt ?? at : null;
      if (q.ack.run(a.status, acknowledgedAt, messagesJson(a.messages), exportId, a.id).changes !== 1) {
        throw stateError(`record ${a.id} of export ${exportId} (${row.file_name}) is not waiting for an acknowledgement`);
      }
    }
    const complete = q.anyOpenInExport.get(row.work_type, exportId) === undefined;
    if (complete) q.setExportStatus.run({ id: exportId, status: 'completed', at: at });
    return complete;
  });

  const confirmTx = db.transaction((workType: string, ids: readonly number[]) => {
    const confirmed: number[] = [];
    const unknown: number[] = [];
    for (const id of ids) (q.confirm.run(workType, id).changes > 0 ? confirmed : unknown).push(id);
    return { confirmed, unknown };
  });

  const setCursorTx = db.transaction((key: string, value: string) => q.setCursor.run({ key, value, at: now() }));
  const sequenceTx = db.transaction((workType: string) => q.nextSequence.get(workType) as number);

  return {
    /** Records an export file and its records before the file is written (state `recorded`). */
    beginExport: (input: BeginExportInput & { repeatable?: boolean }): number => beginTx.immediate(input),
    beginCancellationExport: (input: Omit<BeginExportInput, 'kind' | 'policy'>): number =>
      beginTx.immediate({ ...input, kind: 'cancellation' }),
    /**
     * More records for a recorded export (one of many small transactions instead of one large one, so the caller
     * can serve other work in between). Checked like beginExport's; a crash in between leaves a recorded export
     * with part of its records, which is abandoned like any other whose file never reached the outbox.
     */
    addExportRecords: (exportId: number, records: readonly ExportRecordInput[], options: { repeatable?: boolean } = {}): void =>
      appendTx.immediate(exportId, records, options.repeatable ?? false),
    /** The file is atomically in place: its records now wait for acknowledgement (or confirmation, per policy). */
    markExportWritten: (exportId: number): void => writtenTx.immediate(exportId),
    markCancellationExported: (exportId: number): void => writtenTx.immediate(exportId),
    /** A recorded export whose file never reached the outbox (crash before the rename): its records are free again. */
    abandonExport: (exportId: number): void => abandonTx.immediate(exportId),
    unwrittenExports: (workType?: string): ExportFile[] =>
      (q.listExports.all({ workType: workType ?? null, status: 'recorded', limit: 1_000_000 }) as ExportRow[]).map(toExport),
    listExports: (options: { workType?: string; status?: ExportStatus; limit: number }): ExportFile[] =>
      (q.listExports.all({ workType: options.workType ?? null, status: options.status ?? null, limit: options.limit }) as ExportRow[]).map(toExport),
    getExport: (exportId: number): ExportFile => toExport(requireExport(exportId)),
    exportRecords: (exportId: number): ExportRecord[] => (q.recordsOf.all(exportId) as RecordRow[]).map(toRecord),
    /** An export's records after record id `afterId`, at most `limit`, in id order (to read a large one in parts). */
    exportRecordsAfter: (exportId: number, afterId: number, limit: number): ExportRecord[] =>
      (q.recordsAfter.all(exportId, afterId, limit) as RecordRow[]).map(toRecord),
    /** Records in written files whose acknowledgement is due and not yet recorded. */
    pendingAcknowledgements: (workType: string): ExportRecord[] =>
      (q.dueForAck.all(workType) as RecordRow[]).map(toRecord),
    /** The written exports of a work type with records due for acknowledgement, oldest first. */
    exportsDueForAcknowledgement: (workType: string): number[] => q.exportsDueForAck.all(workType) as number[],
    /** pendingAcknowledgements of one export (a large backlog is read export by export, not all at once). */
    pendingAcknowledgementsOf: (exportId: number): ExportRecord[] => (q.dueForAckIn.all(exportId) as RecordRow[]).map(toRecord),
    /** The ids of an export's records waiting for an acknowledgement (its file written or not). */
    pendingIdsOf: (exportId: number): Set<number> => new Set(q.pendingIdsIn.all(exportId) as number[]),
    /** Stores acknowledgement outcomes; returns true when the export has no open record left. */
    recordAcknowledgements: (exportId: number, acks: readonly Acknowledgement[]): boolean => ackTx.immediate(exportId, acks),
    awaitingConfirmation: (workType: string): ExportRecord[] =>
      (q.awaiting.all(workType) as RecordRow[]).map(toRecord),
    /** The WMS confirmed records: they become due for acknowledgement. */
    confirmRecords: (workType: string, ids: readonly number[]): { confirmed: number[]; unknown: number[] } =>
      confirmTx.immediate(workType, ids),
    /** Which of these ids were handed over in a work file before (written or possibly written). */
    alreadyExported: exportedIds,
    /** Of these ids now cancelled, the exported ones not yet in a cancellation list. */
    cancelledNotYetExported: (workType: string, cancelledIds: readonly number[]): ExportRecord[] =>
      (q.cancellable.all({ workType, ids: JSON.stringify(cancelledIds) }) as RecordRow[]).map(toRecord),
    getCursor: (key: string): string | null => (q.getCursor.get(key) as string | undefined) ?? null,
    setCursor: (key: string, value: string): void => {
      setCursorTx.immediate(key, value);
    },
    /** Persisted per-work-type counter for file names: 1, 2, 3... */
    nextFileSequence: (workType: string): number => sequenceTx.immediate(workType),
  };
}
