import { messagesJson, stateError } from '../core/rows.js';
import type { Acknowledgement, AckPolicy, AckStatus, BeginExportInput, ExportKind, ExportRecordInput } from '../core/types.js';
import { takeTurn, type SqlPort, type SqlValue } from '../core/sql.js';
import { ownedExport, ownerOf } from './export-lease.js';
import { ids, requireExport, setExportStatus, WRITTEN_STATUS, type OutboundContext, type RecordRow } from './outbound-rows.js';

/* The writes of exports: an export and its records, written, abandoned, acknowledged, confirmed. */

/** Records per multi-row INSERT of beginExport (7 parameters each, far below either engine's limit). */
const RECORD_CHUNK = 50;
const recordValues = (n: number) =>
  `INSERT INTO export_records (export_id, record_id, work_type, kind, number, updated_at, ack_status) VALUES `
  + Array.from({ length: n }, () => `(?, ?, ?, ?, ?, ?, ?)`).join(', ');
const INSERT_ONE = recordValues(1);
const INSERT_CHUNK = recordValues(RECORD_CHUNK);

/** exportedIds reads the id range min..max when it spans at most this many ids per id asked about. */
const DENSE_RANGE = 8;

/** Which of these ids were handed over in a work file before (written or possibly written). */
export async function exportedIds(c: OutboundContext, t: SqlPort, workType: string, wanted: readonly number[]): Promise<Set<number>> {
  if (wanted.length === 0) return new Set();
  let min = Infinity;
  let max = -Infinity;
  for (const id of wanted) {
    if (id < min) min = id;
    if (id > max) max = id;
  }
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max - min > wanted.length * DENSE_RANGE) {
    return new Set(await ids(t, c.q.exported, [workType, JSON.stringify(wanted)]));
  }
  // Listed pages hold ids close together: one index range instead of one lookup per id, far less CPU
  // (docs/performance.md, "Settings chosen by measurement").
  const set = new Set(wanted);
  const inRange = await ids(t,
    `SELECT record_id FROM export_records WHERE work_type = ? AND kind = 'work' AND record_id BETWEEN ? AND ?
       AND ack_status != 'abandoned'`, [workType, min, max]);
  return new Set(inRange.filter((id) => set.has(id)));
}

/** Of these exported ids, those not yet in a cancellation list. */
export function cancellable(c: OutboundContext, t: SqlPort, workType: string, recordIds: readonly number[]): Promise<RecordRow[]> {
  return t.all<RecordRow>(c.q.cancellable, [workType, JSON.stringify(recordIds), workType]);
}

/** The records' rows, one statement per RECORD_CHUNK records instead of per record. */
async function insertRows(t: SqlPort, exportId: number, input: BeginExportInput, kind: ExportKind, ackStatus: AckStatus): Promise<void> {
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

/** Checks records for an export (kind, taken ids) and inserts them; the export row exists already. */
async function insertRecords(
  c: OutboundContext, t: SqlPort, exportId: number, input: BeginExportInput & { repeatable?: boolean }, kind: ExportKind, ackStatus: AckStatus,
): Promise<void> {
  const recordIds = input.records.map((r) => r.id);
  if (new Set(recordIds).size !== recordIds.length) throw stateError(`export ${input.fileName} lists a record twice`);
  // Two bridges exporting a work type at once: the second sees the first's records as exported.
  await takeTurn(t, `export:${input.workType}`);
  if (kind === 'work' && !input.repeatable) {
    const before = await exportedIds(c, t, input.workType, recordIds);
    if (before.size > 0) {
      throw stateError(`records already exported for ${input.workType}: ${[...before].join(', ')}`, { ids: [...before] });
    }
  } else if (kind === 'cancellation') {
    const open = new Set((await cancellable(c, t, input.workType, recordIds)).map((r) => r.record_id));
    const wrong = recordIds.filter((id) => !open.has(id));
    if (wrong.length > 0) throw stateError(`records not exported or already cancelled: ${wrong.join(', ')}`, { ids: wrong });
  }
  await insertRows(t, exportId, input, kind, ackStatus);
}

/** Records an export file and its records before the file is written (state `recorded`). */
export function beginExport(c: OutboundContext, input: BeginExportInput & { repeatable?: boolean }): Promise<number> {
  return c.sql.tx(async (t) => {
    const kind = input.kind ?? 'work';
    const policy: AckPolicy = kind === 'cancellation' ? 'never' : input.policy ?? 'on-export';
    const { owner, token } = ownerOf(c.own);
    const row = await t.get<{ id: number }>(
      `INSERT INTO exports (work_type, file_name, kind, policy, status, record_count, created_at, lease_owner, lease_token)
       VALUES (?, ?, ?, ?, 'recorded', ?, ?, ?, ?) RETURNING id`, [input.workType, input.fileName, kind, policy, input.records.length, c.now(), owner, token]);
    const exportId = row!.id;
    await insertRecords(c, t, exportId, input, kind, WRITTEN_STATUS[policy]);
    return exportId;
  }).then((exportId) => {
    // Held once the insert committed, as a claim's token is.
    c.own.tokens.set(exportId, ownerOf(c.own).token);
    return exportId;
  });
}

/**
 * More records for a recorded export (one of many small transactions instead of one large one, so the caller
 * can serve other work in between). Checked like beginExport's; a crash in between leaves a recorded export
 * with part of its records, which is abandoned like any other whose file never reached the outbox.
 */
export function addExportRecords(c: OutboundContext, exportId: number, added: readonly ExportRecordInput[], repeatable: boolean): Promise<void> {
  return c.sql.tx(async (t) => {
    const row = await ownedExport(c.own, t, exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: records can only be added before it is written`);
    const input = { workType: row.work_type, fileName: row.file_name, records: added, repeatable };
    await insertRecords(c, t, exportId, input, row.kind, WRITTEN_STATUS[row.policy]);
    await t.run('UPDATE exports SET record_count = record_count + ? WHERE id = ?', [added.length, exportId]);
  });
}

/** The file is atomically in place: its records now wait for acknowledgement (or confirmation, per policy). */
export async function markExportWritten(c: OutboundContext, exportId: number): Promise<void> {
  await c.sql.tx(async (t) => {
    const row = await ownedExport(c.own, t, exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}, not recorded`);
    // The records have their status since they were recorded (RECORD_SELECT): only the export row changes.
    await setExportStatus(t, exportId, row.policy === 'never' || row.record_count === 0 ? 'completed' : 'written', c.now());
  });
  c.own.tokens.delete(exportId);
}

/**
 * The owner's last step before its work list is renamed into the outbox: the file is whole under `stagedName` (a
 * temporary name in the outbox). Once this committed, whoever takes the export over removes that file before it
 * decides (export-lease.ts): the rename and the removal exclude each other, so the list is in the outbox once or not at all.
 */
export function stageExport(c: OutboundContext, exportId: number, stagedName: string): Promise<void> {
  return c.sql.tx(async (t) => {
    const row = await ownedExport(c.own, t, exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}, not recorded`);
    await t.run('UPDATE exports SET staged_name = ? WHERE id = ?', [stagedName, exportId]);
  });
}

/** A recorded export whose file never reached the outbox (crash before the rename): its records are free again. */
export async function abandonExport(c: OutboundContext, exportId: number): Promise<void> {
  await c.sql.tx(async (t) => {
    const row = await ownedExport(c.own, t, exportId);
    if (row.status !== 'recorded') throw stateError(`export ${exportId} is ${row.status}: only an unwritten export can be abandoned`);
    await t.run('UPDATE export_records SET ack_status = ? WHERE export_id = ?', ['abandoned', exportId]);
    await setExportStatus(t, exportId, 'abandoned', c.now());
  });
  c.own.tokens.delete(exportId);
}

/** Stores acknowledgement outcomes; resolves true when the export has no open record left. */
export function recordAcknowledgements(c: OutboundContext, exportId: number, acks: readonly Acknowledgement[]): Promise<boolean> {
  return c.sql.tx(async (t) => {
    const row = await requireExport(t, exportId);
    if (row.status !== 'written') throw stateError(`export ${exportId} (${row.file_name}) is ${row.status}: its records are not waiting for an acknowledgement`);
    const at = c.now();
    for (const a of acks) {
      const acknowledgedAt = a.status === 'acknowledged' ? a.acknowledgedAt ?? at : null;
      const changed = await t.run(
        `UPDATE export_records SET ack_status = ?, acknowledged_at = ?, messages = ?
         WHERE export_id = ? AND record_id = ? AND ack_status = 'pending'`, [a.status, acknowledgedAt, messagesJson(a.messages), exportId, a.id]);
      if (changed !== 1) throw stateError(`record ${a.id} of export ${exportId} (${row.file_name}) is not waiting for an acknowledgement`);
    }
    const complete = (await t.get(c.q.anyOpenInExport, [row.work_type, exportId])) === undefined;
    if (complete) await setExportStatus(t, exportId, 'completed', at);
    return complete;
  });
}

/** The WMS confirmed records: they become due for acknowledgement. */
export function confirmRecords(c: OutboundContext, workType: string, confirmedIds: readonly number[]): Promise<{ confirmed: number[]; unknown: number[] }> {
  return c.sql.tx(async (t) => {
    const confirmed: number[] = [];
    const unknown: number[] = [];
    for (const id of confirmedIds) {
      const changed = await t.run(
        `UPDATE export_records SET ack_status = 'pending' WHERE work_type = ? AND record_id = ? AND kind = 'work'
           AND ack_status = 'awaiting-confirmation' AND export_id IN (SELECT id FROM exports WHERE status = 'written')`, [workType, id]);
      (changed > 0 ? confirmed : unknown).push(id);
    }
    return { confirmed, unknown };
  });
}
