import { NamedStatement, type SqlPort } from '../core/sql.js';

/** Which envelope a control number closes: ISA13/IEA02, GS06/GE02 or ST02/SE02. */
export type ControlNumberKind = 'interchange' | 'group' | 'set';

export const CONTROL_NUMBER_KINDS: readonly ControlNumberKind[] = ['interchange', 'group', 'set'];

/**
 * The largest control number: ISA13 is exactly nine digits, GS06 one to nine, ST02 four to nine. After it the
 * numbers of a partner and kind start again at 1 (a range is never split across the wrap: it starts at 1 instead).
 */
export const MAX_CONTROL_NUMBER = 999_999_999;

/**
 * Hands out control numbers, unique and increasing per partner and kind until they wrap at MAX_CONTROL_NUMBER. Each
 * call commits its numbers before it resolves, so a crash after it leaves a gap, never a number handed out twice;
 * two instances on one journal never get the same number.
 */
export interface ControlNumberAllocator {
  /** The first of `count` (default 1) consecutive numbers now allocated to `partner` and `kind`. */
  nextControlNumber(partner: string, kind: ControlNumberKind, count?: number): Promise<number>;
}

// One statement, atomic on both engines: the row's update takes its lock (PostgreSQL) or the write lock (SQLite), so
// two connections allocating at once each see the other's committed value.
const ALLOCATE = new NamedStatement<{ partner: string; kind: string; count: number; max: number }>(
  `INSERT INTO control_numbers (partner, kind, value) VALUES (:partner, :kind, :count)
   ON CONFLICT (partner, kind) DO UPDATE SET value = CASE
     WHEN control_numbers.value + CAST(:count AS BIGINT) > :max THEN CAST(:count AS BIGINT)
     ELSE control_numbers.value + CAST(:count AS BIGINT) END
   RETURNING value`);

export async function nextControlNumber(sql: SqlPort, partner: string, kind: ControlNumberKind, count = 1): Promise<number> {
  if (partner === '') throw new RangeError('a control number is allocated for a partner: give its name');
  if (!CONTROL_NUMBER_KINDS.includes(kind)) throw new RangeError(`control numbers are of kind ${CONTROL_NUMBER_KINDS.join(', ')}, not ${String(kind)}`);
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_CONTROL_NUMBER) {
    throw new RangeError(`control numbers are allocated 1 to ${MAX_CONTROL_NUMBER} at a time, not ${count}`);
  }
  const row = await sql.get<{ value: number | string }>(ALLOCATE.sql, ALLOCATE.params({ partner, kind, count, max: MAX_CONTROL_NUMBER }));
  return Number(row!.value) - count + 1;
}

/** The control numbers of an X12 work list: its interchange's, its one group's, and its sets' (`firstSet` on). */
export interface ExportControls {
  partner: string;
  interchange: number;
  group: number;
  firstSet: number;
  sets: number;
}

interface ControlsRow { partner: string; interchange: number | string; group_control: number | string; first_set: number | string; sets: number | string }

const toControls = (r: ControlsRow): ExportControls => ({
  partner: r.partner, interchange: Number(r.interchange), group: Number(r.group_control), firstSet: Number(r.first_set), sets: Number(r.sets),
});

const CONTROLS_SELECT = 'SELECT partner, interchange, group_control, first_set, sets FROM export_controls WHERE export_id = ?';

export async function exportControls(sql: SqlPort, exportId: number): Promise<ExportControls | undefined> {
  const row = await sql.get<ControlsRow>(CONTROLS_SELECT, [exportId]);
  return row && toControls(row);
}

/** The export whose interchange's group had this GS06 for this partner (what a 997's AK102 names): the latest one. */
export async function exportOfGroup(sql: SqlPort, partner: string, group: number): Promise<(ExportControls & { exportId: number }) | undefined> {
  const row = await sql.get<ControlsRow & { export_id: number | string }>(
    `SELECT export_id, partner, interchange, group_control, first_set, sets FROM export_controls
     WHERE partner = ? AND group_control = ? ORDER BY export_id DESC LIMIT 1`, [partner, group]);
  return row && { exportId: Number(row.export_id), ...toControls(row) };
}

/**
 * The control numbers of an export's interchange: allocated and recorded with the export in one unit of work, or
 * those recorded before (the same export written again gets the same numbers; its records in another export, new ones).
 */
export function allocateExportControls(sql: SqlPort, exportId: number, partner: string, sets: number): Promise<ExportControls> {
  return sql.tx(async (t) => {
    const had = await exportControls(t, exportId);
    if (had) return had;
    const controls: ExportControls = {
      partner,
      interchange: await nextControlNumber(t, partner, 'interchange'),
      group: await nextControlNumber(t, partner, 'group'),
      firstSet: await nextControlNumber(t, partner, 'set', sets),
      sets,
    };
    await t.run('INSERT INTO export_controls (export_id, partner, interchange, group_control, first_set, sets) VALUES (?, ?, ?, ?, ?, ?)',
      [exportId, partner, controls.interchange, controls.group, controls.firstSet, sets]);
    return controls;
  });
}
