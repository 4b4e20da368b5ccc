import type { Fence } from './leases.js';
import { stateError } from './rows.js';
import type { SqlPort } from './sql.js';

/** Where a file's result file and the file itself went (see migration 4 in schema.ts). In lease mode, the owner's only. */
export function createDispositions(sql: SqlPort, fence?: Fence) {
  const update = async (column: 'result_name' | 'disposed_to', fileId: number, value: string): Promise<void> => {
    const statement = `UPDATE files SET ${column} = ? WHERE id = ?`;
    const changed = fence
      ? await fence.write(async (t) => {
        await fence.hold(t, fileId);
        return t.run(statement, [value, fileId]);
      })
      : await sql.run(statement, [value, fileId]);
    if (changed === 0) throw stateError(`file ${fileId} is not in the journal`);
  };
  return {
    /** Recorded before the result file is written, so that a crash in between rewrites that name, not a new one. */
    recordResultName: (fileId: number, name: string): Promise<void> => update('result_name', fileId, name),
    /** `archive/NAME` or `error/NAME`, once the file has left its inbox. */
    recordDisposition: (fileId: number, where: string): Promise<void> => update('disposed_to', fileId, where),
  };
}
