import type { SqlPort } from '../core/sql.js';
import type { ExportStatus } from '../core/types.js';

/*
 * The 997/999 a partner sent for an X12 work list the bridge wrote (docs/x12.md, "Acknowledgements received"): one
 * row per export, the latest received; per set its AK5 code and its AK3/AK4 errors, so that which sets were
 * rejected and why can be shown (status, console) and alerted.
 */

/** What a partner found wrong in one set: AK3 (the segment) with its AK4s (elements). */
export interface ExportAckSegmentError {
  segmentId: string;
  position: number;
  loop?: string;
  code: string;
  elements: Array<{ element: number; component?: number; reference?: string; code: string; copy?: string }>;
}

/** One set's acknowledgement: its ST01/ST02, AK501 and AK502…, its errors, and the reason as a person reads it. */
export interface ExportSetAck {
  id: string;
  control: string;
  state: ExportAckState;
  code: string;
  reasons: string[];
  errors: ExportAckSegmentError[];
  text: string;
}

export type ExportAckState = 'accepted' | 'accepted-with-errors' | 'rejected';

export interface ExportAckInput {
  exportId: number;
  /** The inbound file the 997/999 came in. */
  fileId: number;
  kind: '997' | '999';
  /** The group's verdict (AK901 A accepted; E, P accepted with errors; R rejected) and the code itself. */
  state: ExportAckState;
  code: string;
  /** The group's verdict as a person reads it (`AK9 P: partially accepted, 2 of 3 sets accepted`). */
  text: string;
  /** The sets the acknowledgement names (a 997 may name only the sets in error). */
  sets: ExportSetAck[];
}

export interface ExportAck extends ExportAckInput {
  receivedAt: string;
}

/** A written X12 work list, its control numbers and what its partner acknowledged (undefined: awaiting). */
export interface X12ExportState {
  exportId: number;
  fileName: string;
  workType: string;
  status: ExportStatus;
  writtenAt: string;
  partner: string;
  interchange: number;
  group: number;
  firstSet: number;
  sets: number;
  ack: ExportAck | undefined;
}

interface AckRow { export_id: number | string; file_id: number | string; kind: string; state: string; code: string; detail: string; received_at: string }

function toAck(row: AckRow): ExportAck {
  const detail = JSON.parse(row.detail) as { text: string; sets: ExportSetAck[] };
  return {
    exportId: Number(row.export_id), fileId: Number(row.file_id), kind: row.kind as ExportAck['kind'], state: row.state as ExportAckState, code: row.code,
    text: detail.text, sets: detail.sets, receivedAt: row.received_at,
  };
}

/**
 * Records a partner's acknowledgement of an export (the latest replaces an earlier one). Resolves whether it is news:
 * false when the same file recorded it before (a run resumed after a crash), so it is alerted once.
 */
export function recordExportAck(sql: SqlPort, now: () => string, ack: ExportAckInput): Promise<boolean> {
  return sql.tx(async (t) => {
    const had = await t.get<{ file_id: number | string }>('SELECT file_id FROM export_acks WHERE export_id = ?', [ack.exportId]);
    const detail = JSON.stringify({ text: ack.text, sets: ack.sets });
    const rejected = ack.sets.filter((s) => s.state === 'rejected').length;
    await t.run(
      `INSERT INTO export_acks (export_id, file_id, kind, state, code, sets_rejected, detail, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (export_id) DO UPDATE SET file_id = excluded.file_id, kind = excluded.kind, state = excluded.state, code = excluded.code,
         sets_rejected = excluded.sets_rejected, detail = excluded.detail, received_at = excluded.received_at`,
      [ack.exportId, ack.fileId, ack.kind, ack.state, ack.code, rejected, detail, now()]);
    return had === undefined || Number(had.file_id) !== ack.fileId;
  });
}

export async function exportAck(sql: SqlPort, exportId: number): Promise<ExportAck | undefined> {
  const row = await sql.get<AckRow>('SELECT * FROM export_acks WHERE export_id = ?', [exportId]);
  return row && toAck(row);
}

export interface X12ExportFilter {
  limit: number;
  partner?: string;
  /** Only those no acknowledgement arrived for, written before this instant (the overdue ones). */
  awaitingSince?: string;
  /** Only these exports. */
  exportIds?: readonly number[];
}

type StateRow = { id: number | string; file_name: string; work_type: string; status: ExportStatus; written_at: string; partner: string; interchange: number | string;
  group_control: number | string; first_set: number | string; sets: number | string } & Partial<Omit<AckRow, 'export_id'>> & { ack_export: number | string | null };

/** Written X12 work lists, newest first, each with its control numbers and its partner's acknowledgement. */
export async function x12Exports(sql: SqlPort, filter: X12ExportFilter): Promise<X12ExportState[]> {
  const where = ["e.status IN ('written', 'completed')", 'e.written_at IS NOT NULL'];
  const params: Array<string | number> = [];
  if (filter.partner !== undefined) {
    where.push('c.partner = ?');
    params.push(filter.partner);
  }
  if (filter.awaitingSince !== undefined) {
    where.push('a.export_id IS NULL', 'e.written_at < ?');
    params.push(filter.awaitingSince);
  }
  if (filter.exportIds !== undefined) {
    if (filter.exportIds.length === 0) return [];
    where.push(`e.id IN (${filter.exportIds.map(() => '?').join(', ')})`);
    params.push(...filter.exportIds);
  }
  const rows = await sql.all<StateRow>(
    `SELECT e.id, e.file_name, e.work_type, e.status, e.written_at, c.partner, c.interchange, c.group_control, c.first_set, c.sets,
       a.export_id AS ack_export, a.file_id, a.kind, a.state, a.code, a.detail, a.received_at
     FROM exports e JOIN export_controls c ON c.export_id = e.id LEFT JOIN export_acks a ON a.export_id = e.id
     WHERE ${where.join(' AND ')} ORDER BY e.id DESC LIMIT ?`, [...params, filter.limit]);
  return rows.map((r) => ({
    exportId: Number(r.id), fileName: r.file_name, workType: r.work_type, status: r.status, writtenAt: r.written_at, partner: r.partner,
    interchange: Number(r.interchange), group: Number(r.group_control), firstSet: Number(r.first_set), sets: Number(r.sets),
    ack: r.ack_export === null ? undefined : toAck({ ...(r as unknown as AckRow), export_id: r.ack_export }),
  }));
}
