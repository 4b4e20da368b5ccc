import type { Db } from './db.js';
import { stateError } from './rows.js';

/** Where a file's result file and the file itself went (see migration 4 in schema.ts). */
export function createDispositions(db: Db) {
  const q = {
    resultName: db.prepare('UPDATE files SET result_name = ? WHERE id = ?'),
    disposedTo: db.prepare('UPDATE files SET disposed_to = ? WHERE id = ?'),
  };
  const changed = (result: { changes: number }, fileId: number) => {
    if (result.changes === 0) throw stateError(`file ${fileId} is not in the journal`);
  };
  return {
    /** Recorded before the result file is written, so that a crash in between rewrites that name, not a new one. */
    recordResultName(fileId: number, name: string): void {
      changed(q.resultName.run(name, fileId), fileId);
    },
    /** `archive/NAME` or `error/NAME`, once the file has left its inbox. */
    recordDisposition(fileId: number, where: string): void {
      changed(q.disposedTo.run(where, fileId), fileId);
    },
  };
}
