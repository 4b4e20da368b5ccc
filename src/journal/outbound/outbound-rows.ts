import { parseMessages, stateError } from '../core/rows.js';
import type { AckPolicy, AckStatus, ExportFile, ExportKind, ExportRecord, ExportStatus } from '../core/types.js';
import { sqlList, type SqlDialect, type SqlPort, type SqlValue } from '../core/sql.js';

/* The rows of exports and their records, the statements over them, and what the outbound functions share. */

export interface ExportRow {
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

export interface RecordRow {
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

export function toExport(row: ExportRow): ExportFile {
  return {
    exportId: row.id, workType: row.work_type, fileName: row.file_name, kind: row.kind, policy: row.policy,
    status: row.status, recordCount: row.record_count, createdAt: row.created_at, writtenAt: row.written_at,
    completedAt: row.completed_at,
  };
}

export function toRecord(row: RecordRow): ExportRecord {
  return {
    exportId: row.export_id, fileName: row.file_name, workType: row.work_type, id: row.record_id, number: row.number,
    updatedAt: row.updated_at, ackStatus: row.ack_status, acknowledgedAt: row.acknowledged_at,
    messages: parseMessages(row.messages),
  };
}

/**
 * Whether an export's file is in place is a fact of the export row alone (status `recorded` until the rename):
 * its records are inserted with the status they take once it is written, so marking a file of 25,000 records
 * written is one row, not 25,000. A record of a `recorded` export reads as `unwritten` (this SQL expression, over
 * `export_records r JOIN exports e`; the operator's backlog counts them from the export rows).
 */
const RECORD_ACK_STATUS = `CASE WHEN e.status = 'recorded' AND r.ack_status <> 'abandoned' THEN 'unwritten' ELSE r.ack_status END`;
export const RECORD_SELECT = `SELECT r.export_id, r.record_id, r.work_type, r.kind, r.number, r.updated_at,
    ${RECORD_ACK_STATUS} AS ack_status, r.acknowledged_at, r.messages, e.file_name
  FROM export_records r JOIN exports e ON e.id = r.export_id`;
export const WRITTEN_STATUS: Record<AckPolicy, AckStatus> = {
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

type OutboundStatements = ReturnType<typeof outboundSql>;

/** The statements as text, built once per dialect (the role is composed again for each unit of work). */
const STATEMENTS: { [D in SqlDialect]?: OutboundStatements } = {};

/** What a journal object knows of the exports it owns (export-lease.ts): shared by the journal and its units of work. */
export interface ExportOwnership {
  /** The instance this journal records exports as; null without an instance. */
  readonly owner: string | null;
  /** How long an owner stays live after its last heartbeat. */
  readonly leaseMs: number;
  /** Tests: how far this journal's lease clock is ahead of the database's. */
  readonly clockOffsetMs?: () => number;
  /** Export id → the token this journal holds it with (recorded or taken here; adopted for its own instance's). */
  readonly tokens: Map<number, number>;
}

export function exportOwnership(owner: string | null, leaseMs: number, clockOffsetMs?: () => number): ExportOwnership {
  return { owner, leaseMs, clockOffsetMs, tokens: new Map() };
}

/** What the outbound functions work on: the port (the journal's own, or a unit of work's), the clock, the statements. */
export interface OutboundContext {
  readonly sql: SqlPort;
  readonly now: () => string;
  readonly q: OutboundStatements;
  /** The exports this journal owns. */
  readonly own: ExportOwnership;
}

export function outboundContext(sql: SqlPort, now: () => string, own: ExportOwnership): OutboundContext {
  return { sql, now, own, q: (STATEMENTS[sql.dialect] ??= outboundSql(sql.dialect)) };
}

const SET_EXPORT_STATUS = 'UPDATE exports SET status = ?, written_at = coalesce(written_at, ?), completed_at = ? WHERE id = ?';

/** Sets an export's status; `completed_at` is set by the statuses that end it. */
export function setExportStatus(t: SqlPort, exportId: number, status: ExportStatus, at: string): Promise<number> {
  return t.run(SET_EXPORT_STATUS, [status, at, status === 'completed' || status === 'abandoned' ? at : null, exportId]);
}

export async function requireExport(t: SqlPort, exportId: number): Promise<ExportRow> {
  const row = await t.get<ExportRow>('SELECT * FROM exports WHERE id = ?', [exportId]);
  if (!row) throw stateError(`export ${exportId} is not in the journal`);
  return row;
}

export async function ids(t: SqlPort, text: string, params: SqlValue[]): Promise<number[]> {
  return (await t.values<[number]>(text, params)).map((row) => row[0]);
}

export async function records(c: OutboundContext, text: string, params: SqlValue[]): Promise<ExportRecord[]> {
  return (await c.sql.all<RecordRow>(text, params)).map(toRecord);
}

export async function exportFiles(c: OutboundContext, workType: string | null, status: ExportStatus | null, limit: number): Promise<ExportFile[]> {
  return (await c.sql.all<ExportRow>(
    `SELECT * FROM exports WHERE (CAST(? AS TEXT) IS NULL OR work_type = ?) AND (CAST(? AS TEXT) IS NULL OR status = ?)
     ORDER BY id DESC LIMIT ?`, [workType, workType, status, status, limit])).map(toExport);
}
