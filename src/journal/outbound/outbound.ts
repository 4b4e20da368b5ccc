import { messagesJson, parseMessages, stateError } from '../core/rows.js';
import type {
  Acknowledgement, AckPolicy, AckStatus, BeginExportInput, ExportFile, ExportKind, ExportRecord, ExportRecordInput, ExportStatus,
} from '../core/types.js';
import { sqlList, takeTurn, type SqlDialect, type SqlPort, type SqlValue } from '../core/sql.js';

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

/** Records per multi-row INSERT of beginExport (7 parameters each, far below either engine's limit). */
const RECORD_CHUNK = 50;
const recordValues = (n: number) =>
  `INSERT INTO export_records (export_id, record_id, work_type, kind, number, updated_at, ack_status) VALUES `
  + Array.from({ length: n }, () => `(?, ?, ?, ?, ?, ?, ?)`).join(', ');
const INSERT_ONE = recordValues(1);
const INSERT_CHUNK = recordValues(RECORD_CHUNK);

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

/** The statements whose text depends on the engine (the others are written once, inline). */
function outboundSql(dialect: SqlDialect) {
  // Through the partial index, whose entries end with the primary key (export_id, record_id): a seek, not a scan of
  // an export's records. SQLite uses a partial index only when the query repeats its WHERE term verbatim.
  const open = dialect === 'sqlite' ? 'INDEXED BY export_records_open' : '';
  const OPEN_TERM = `ack_status IN ('unwritten', 'pending', 'awaiting-confirmation')`;
  return {
    exported: `SELECT DISTINCT record_id FROM export_records WHERE work_type = ? AND kind = 'work' AND ack_status != 'abandoned'
      AND record_id IN (${sqlList(dialect, 'int')})`,
    cancellable: `${RECORD_SELECT} WHERE r.work_type = ? AND r.kind = 'work' AND e.status IN ('written', 'completed') AND r.ack_status <> 'abandoned'
        AND r.record_id IN (${sqlList(dialect, 'int')})
        AND NOT EXISTS (SELECT 1 FROM export_records c WHERE c.work_type = ? AND c.kind = 'cancellation'
                        AND c.record_id = r.record_id AND c.ack_status != 'abandoned')
      ORDER BY r.record_id, r.export_id`,
    anyOpenInExport: `SELECT 1 AS one FROM export_records ${open}
      WHERE ${OPEN_TERM} AND work_type = ? AND ack_status IN ('pending', 'awaiting-confirmation') AND export_id = ? LIMIT 1`,
    dueForAck: `SELECT r.*, e.file_name FROM export_records r ${open} JOIN exports e ON e.id = r.export_id
      WHERE r.${OPEN_TERM} AND r.work_type = ? AND r.ack_status = 'pending' AND e.status = 'written' ORDER BY r.export_id, r.record_id`,
    exportsDueForAck: `SELECT DISTINCT r.export_id FROM export_records r ${open} JOIN exports e ON e.id = r.export_id
      WHERE r.${OPEN_TERM} AND r.work_type = ? AND r.ack_status = 'pending' AND e.status = 'written' ORDER BY r.export_id`,
    awaiting: `SELECT r.*, e.file_name FROM export_records r ${open} JOIN exports e ON e.id = r.export_id
      WHERE r.${OPEN_TERM} AND r.work_type = ? AND r.ack_status = 'awaiting-confirmation' AND e.status = 'written'
      ORDER BY r.export_id, r.record_id`,
  };
}

const SET_EXPORT_STATUS = 'UPDATE exports SET status = ?, written_at = coalesce(written_at, ?), completed_at = ? WHERE id = ?';

/** Sets an export's status; `completed_at` is set by the statuses that end it. */
function setExportStatus(t: SqlPort, exportId: number, status: ExportStatus, at: string): Promise<number> {
  return t.run(SET_EXPORT_STATUS, [status, at, status === 'completed' || status === 'abandoned' ? at : null, exportId]);
}

async function requireExport(t: SqlPort, exportId: number): Promise<ExportRow> {
  const row = await t.get<ExportRow>('SELECT * FROM exports WHERE id = ?', [exportId]);
  if (!row) throw stateError(`export ${exportId} is not in the journal`);
  return row;
}

/** An export's records in record order (the test hooks' exportRecords, testing.ts: no production code reads a whole export). */
export async function recordsOfExport(sql: SqlPort, exportId: number): Promise<ExportRecord[]> {
  return (await sql.all<RecordRow>(`${RECORD_SELECT} WHERE r.export_id = ? ORDER BY r.record_id`, [exportId])).map(toRecord);
}

export function createOutbound(sql: SqlPort, now: () => string) {
  const q = outboundSql(sql.dialect);
  const ids = async (t: SqlPort, text: string, params: SqlValue[]): Promise<number[]> =>
    (await t.values<[number]>(text, params)).map((row) => row[0]);
  const records = async (text: string, params: SqlValue[]): Promise<ExportRecord[]> =>
    (await sql.all<RecordRow>(text, params)).map(toRecord);
  const exports = async (workType: string | null, status: ExportStatus | null, limit: number): Promise<ExportFile[]> =>
    (await sql.all<ExportRow>(
      `SELECT * FROM exports WHERE (CAST(? AS TEXT) IS NULL OR work_type = ?) AND (CAST(? AS TEXT) IS NULL OR status = ?)
       ORDER BY id DESC LIMIT ?`, [workType, workType, status, status, limit])).map(toExport);

  async function exportedIds(t: SqlPort, workType: string, wanted: readonly number[]): Promise<Set<number>> {
    if (wanted.length === 0) return new Set();
    let min = Infinity;
    let max = -Infinity;
    for (const id of wanted) {
      if (id < min) min = id;
      if (id > max) max = id;
    }
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max - min > wanted.length * DENSE_RANGE) {
      return new Set(await ids(t, q.exported, [workType, JSON.stringify(wanted)]));
    }
    // Listed pages hold ids close together: one index range instead of one lookup per id, far less CPU
    // (docs/performance.md, "Settings chosen by measurement").
    const set = new Set(wanted);
    const inRange = await ids(t,
      `SELECT record_id FROM export_records WHERE work_type = ? AND kind = 'work' AND record_id BETWEEN ? AND ?
         AND ack_status != 'abandoned'`, [workType, min, max]);
    return new Set(inRange.filter((id) => set.has(id)));
  }

  const cancellable = (t: SqlPort, workType: string, recordIds: readonly number[]): Promise<RecordRow[]> =>
    t.all<RecordRow>(q.cancellable, [workType, JSON.stringify(recordIds), workType]);

  /** Checks records for an export (kind, taken ids) and inserts them; the export row exists already. */
  async function insertRecords(
    t: SqlPort, exportId: number, input: BeginExportInput & { repeatable?: boolean }, kind: ExportKind, ackStatus: AckStatus,
  ): Promise<void> {
    const recordIds = input.records.map((r) => r.id);
    if (new Set(recordIds).size !== recordIds.length) throw stateError(`export ${input.fileName} lists a record twice`);
    // Two bridges exporting a work type at once: the second sees the first's records as exported.
    await takeTurn(t, `export:${input.workType}`);
    if (kind === 'work' && !input.repeatable) {
      const before = await exportedIds(t, input.workType, recordIds);
      if (before.size > 0) {
        throw stateError(`records already exported for ${input.workType}: ${[...before].join(', ')}`, { ids: [...before] });
      }
    } else if (kind === 'cancellation') {
      const open = new Set((await cancellable(t, input.workType, recordIds)).map((r) => r.record_id));
      const wrong = recordIds.filter((id) => !open.has(id));
      if (wrong.length > 0) throw stateError(`records not exported or already cancelled: ${wrong.join(', ')}`, { ids: wrong });
    }
    // One statement per RECORD_CHUNK records instead of per record.
    const all = input.records;
    const full = all.length - (all.length % RECORD_CHUNK);
    const params: SqlValue[] = new Array<SqlValue>(RECORD_CHUNK * 7);
    const put = (r: ExportRecordInput, k: number) => {
      params[k] = exportId; params[k + 1] = r.id; params[k + 2] = input.workType; params[k + 3] = kind;
      params[k + 4] = r.number; params[k + 5] = r.updatedAt ?? null; params[k + 6] = ackStatus;
    };
    for (let start = 0; start < full; start += RECORD_CHUNK) {
      for (let i = 0; i < RECORD_CHUNK; i++) put(all[start + i]!, i * 7);
      await t.run(INSERT_CHUNK, params);
    }
    for (let i = full; i < all.length; i++) {
      put(all[i]!, 0);
      await t.run(INSERT_ONE, params.slice(0, 7));
    }
  }

  const begin = (input: BeginExportInput & { repeatable?: boolean }): Promise<number> => sql.tx(async (t) => {
    const kind = input.kind ?? 'work';
    const policy: AckPolicy = kind === 'cancellation' ? 'never' : input.policy ?? 'on-export';
    const row = await t.get<{ id: number }>(
      `INSERT INTO exports (work_type, file_name, kind, policy, status, record_count, created_at)
       VALUES (?, ?, ?, ?, 'recorded', ?, ?) RETURNING id`, [input.workType, input.fileName, kind, policy, input.records.length, now()]);
    const exportId = row!.id;
    await insertRecords(t, exportId, input, kind, WRITTEN_STATUS[policy]);
    return exportId;
  });

  const markWritten = (exportId: number): Promise<void> => sql.tx(async (t) => {
    const row = await requireExport(t, exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}, not recorded`);
    // The records have their status since they were recorded (RECORD_SELECT): only the export row changes.
    await setExportStatus(t, exportId, row.policy === 'never' || row.record_count === 0 ? 'completed' : 'written', now());
  });

  return {
    /** Records an export file and its records before the file is written (state `recorded`). */
    beginExport: begin,
    /**
     * More records for a recorded export (one of many small transactions instead of one large one, so the caller
     * can serve other work in between). Checked like beginExport's; a crash in between leaves a recorded export
     * with part of its records, which is abandoned like any other whose file never reached the outbox.
     */
    addExportRecords: (exportId: number, added: readonly ExportRecordInput[], options: { repeatable?: boolean } = {}): Promise<void> =>
      sql.tx(async (t) => {
        const row = await requireExport(t, exportId);
        if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: records can only be added before it is written`);
        const input = { workType: row.work_type, fileName: row.file_name, records: added, repeatable: options.repeatable ?? false };
        await insertRecords(t, exportId, input, row.kind, WRITTEN_STATUS[row.policy]);
        await t.run('UPDATE exports SET record_count = record_count + ? WHERE id = ?', [added.length, exportId]);
      }),
    /** The file is atomically in place: its records now wait for acknowledgement (or confirmation, per policy). */
    markExportWritten: markWritten,
    /** A recorded export whose file never reached the outbox (crash before the rename): its records are free again. */
    abandonExport: (exportId: number): Promise<void> => sql.tx(async (t) => {
      const row = await requireExport(t, exportId);
      if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: only an unwritten export can be abandoned`);
      await t.run('UPDATE export_records SET ack_status = ? WHERE export_id = ?', ['abandoned', exportId]);
      await setExportStatus(t, exportId, 'abandoned', now());
    }),
    unwrittenExports: (workType?: string): Promise<ExportFile[]> => exports(workType ?? null, 'recorded', 1_000_000),
    listExports: (options: { workType?: string; status?: ExportStatus; limit: number }): Promise<ExportFile[]> =>
      exports(options.workType ?? null, options.status ?? null, options.limit),
    getExport: async (exportId: number): Promise<ExportFile> => toExport(await requireExport(sql, exportId)),
    /** An export's records after record id `afterId`, at most `limit`, in id order (to read a large one in parts). */
    exportRecordsAfter: (exportId: number, afterId: number, limit: number): Promise<ExportRecord[]> =>
      records(`${RECORD_SELECT} WHERE r.export_id = ? AND r.record_id > ? ORDER BY r.record_id LIMIT ?`, [exportId, afterId, limit]),
    /** Records in written files whose acknowledgement is due and not yet recorded. */
    pendingAcknowledgements: (workType: string): Promise<ExportRecord[]> => records(q.dueForAck, [workType]),
    /** The written exports of a work type with records due for acknowledgement, oldest first. */
    exportsDueForAcknowledgement: (workType: string): Promise<number[]> => ids(sql, q.exportsDueForAck, [workType]),
    /** pendingAcknowledgements of one export (a large backlog is read export by export, not all at once). */
    pendingAcknowledgementsOf: (exportId: number): Promise<ExportRecord[]> => records(
      `SELECT r.*, e.file_name FROM export_records r JOIN exports e ON e.id = r.export_id
       WHERE r.export_id = ? AND r.ack_status = 'pending' AND e.status = 'written' ORDER BY r.record_id`, [exportId]),
    /** The ids of an export's records waiting for an acknowledgement (its file written or not). */
    pendingIdsOf: async (exportId: number): Promise<Set<number>> =>
      new Set(await ids(sql, `SELECT record_id FROM export_records WHERE export_id = ? AND ack_status = 'pending'`, [exportId])),
    /** Stores acknowledgement outcomes; returns true when the export has no open record left. */
    recordAcknowledgements: (exportId: number, acks: readonly Acknowledgement[]): Promise<boolean> => sql.tx(async (t) => {
      const row = await requireExport(t, exportId);
      if (row.status !== 'written') throw stateError(`export ${exportId} (${row.file_name}) is ${row.status}: its records are not waiting for an acknowledgement`);
      const at = now();
      for (const a of acks) {
        const acknowledgedAt = a.status === 'acknowledged' ? a.acknowledgedAt ?? at : null;
        const changed = await t.run(
          `UPDATE export_records SET ack_status = ?, acknowledged_at = ?, messages = ?
           WHERE export_id = ? AND record_id = ? AND ack_status = 'pending'`, [a.status, acknowledgedAt, messagesJson(a.messages), exportId, a.id]);
        if (changed !== 1) throw stateError(`record ${a.id} of export ${exportId} (${row.file_name}) is not waiting for an acknowledgement`);
      }
      const complete = (await t.get(q.anyOpenInExport, [row.work_type, exportId])) === undefined;
      if (complete) await setExportStatus(t, exportId, 'completed', at);
      return complete;
    }),
    awaitingConfirmation: (workType: string): Promise<ExportRecord[]> => records(q.awaiting, [workType]),
    /** The WMS confirmed records: they become due for acknowledgement. */
    confirmRecords: (workType: string, confirmedIds: readonly number[]): Promise<{ confirmed: number[]; unknown: number[] }> =>
      sql.tx(async (t) => {
        const confirmed: number[] = [];
        const unknown: number[] = [];
        for (const id of confirmedIds) {
          const changed = await t.run(
            `UPDATE export_records SET ack_status = 'pending' WHERE work_type = ? AND record_id = ? AND kind = 'work'
               AND ack_status = 'awaiting-confirmation' AND export_id IN (SELECT id FROM exports WHERE status = 'written')`, [workType, id]);
          (changed > 0 ? confirmed : unknown).push(id);
        }
        return { confirmed, unknown };
      }),
    /** Which of these ids were handed over in a work file before (written or possibly written). */
    alreadyExported: (workType: string, wanted: readonly number[]): Promise<Set<number>> => exportedIds(sql, workType, wanted),
    /** Of these ids now cancelled, the exported ones not yet in a cancellation list. */
    cancelledNotYetExported: async (workType: string, cancelledIds: readonly number[]): Promise<ExportRecord[]> =>
      (await cancellable(sql, workType, cancelledIds)).map(toRecord),
    getCursor: async (key: string): Promise<string | null> =>
      (await sql.get<{ value: string }>('SELECT value FROM cursors WHERE key = ?', [key]))?.value ?? null,
    setCursor: async (key: string, value: string): Promise<void> => {
      await sql.run(
        `INSERT INTO cursors (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, [key, value, now()]);
    },
    /** Persisted per-work-type counter for file names: 1, 2, 3... */
    nextFileSequence: async (workType: string): Promise<number> => {
      // The table name qualifies the old value: PostgreSQL would find `value` ambiguous with excluded's.
      const row = await sql.get<{ value: number }>(
        `INSERT INTO file_sequences (work_type, value) VALUES (?, 1)
         ON CONFLICT (work_type) DO UPDATE SET value = file_sequences.value + 1 RETURNING value`, [workType]);
      return row!.value;
    },
  };
}
