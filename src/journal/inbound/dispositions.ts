import type { Fence } from '../leases/leases.js';
import { stateError } from '../core/rows.js';
import type { SqlPort } from '../core/sql.js';

/** Where a file's result file and the file itself went (see migration 4 in schema.ts). In lease mode, the owner's only. */
export function createDispositions(sql: SqlPort, fence?: Fence) {
  const update = async (column: 'result_name' | 'disposed_to' | 'x12_ack', fileId: number, value: string): Promise<void> => {
    const statement = `UPDATE files SET ${column} = ? WHERE id = ?`;
    // One statement, fenced by its own condition when the token is known: a unit of work (BEGIN with the row locked,
    // checked, the update, COMMIT) is three round trips to a distant PostgreSQL. Changing nothing, it is made again
    // the checked way, which says why (LEASE_LOST, or no such file).
    if (!fence) {
      if ((await sql.run(statement, [value, fileId])) === 0) throw stateError(`file ${fileId} is not in the journal`);
      return;
    }
    const condition = fence.condition(fileId);
    if (condition && (await sql.run(`${statement}${condition.clause}`, [value, fileId, ...condition.params])) === 1) return;
    const changed = await fence.write(async (t) => {
      await fence.hold(t, fileId);
      return t.run(statement, [value, fileId]);
    });
    if (changed === 0) throw stateError(`file ${fileId} is not in the journal`);
  };
  return {
    /** Recorded before the result file is written, so that a crash in between rewrites that name, not a new one. */
    recordResultName: (fileId: number, name: string): Promise<void> => update('result_name', fileId, name),
    /** `archive/NAME` or `error/NAME`, once the file has left its inbox. */
    recordDisposition: (fileId: number, where: string): Promise<void> => update('disposed_to', fileId, where),
    /** Recorded before the acknowledgement is written: a later run writes the same one again. */
    recordX12Ack: (fileId: number, ack: string): Promise<void> => update('x12_ack', fileId, ack),
  };
}
