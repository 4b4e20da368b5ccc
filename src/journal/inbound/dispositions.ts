import type { Fence } from '../leases/leases.js';
import { stateError } from '../core/rows.js';
import { sqlNowIso, type SqlPort } from '../core/sql.js';
import type { X12EnvelopeEntry } from '../core/types.js';

/** Entries written per statement (four parameters each: well under either engine's limit). */
const ENVELOPE_CHUNK = 200;

/** Writes a file's X12 envelopes, each entry replacing the one of its ord. */
async function writeEnvelopes(t: SqlPort, fileId: number, entries: readonly X12EnvelopeEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += ENVELOPE_CHUNK) {
    const chunk = entries.slice(i, i + ENVELOPE_CHUNK);
    await t.run(`INSERT INTO x12_envelopes (file_id, ord, level, detail) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}
      ON CONFLICT (file_id, ord) DO UPDATE SET level = excluded.level, detail = excluded.detail`, chunk.flatMap((e) => [fileId, e.ord, e.level, e.detail]));
  }
}

/** The file holding a sender's ISA13: one statement (the upsert returns the row there was, or the one it made). */
function receivedInterchange(t: SqlPort, fileId: number, sender: string, control: string): Promise<number> {
  return t.get<{ file_id: number | string }>(`INSERT INTO received_interchanges (sender, control, file_id, received_at)
    VALUES (?, ?, ?, ${sqlNowIso(t.dialect)})
    ON CONFLICT (sender, control) DO UPDATE SET sender = received_interchanges.sender RETURNING file_id`, [sender, control, fileId])
    .then((row) => Number(row!.file_id));
}

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
    /** An X12 file's envelopes, in one unit of work: each entry replaces the one of its ord (a later run records the same ones again). */
    recordX12Envelopes: (fileId: number, entries: readonly X12EnvelopeEntry[]): Promise<void> => (fence
      ? fence.write(async (t) => {
        await fence.hold(t, fileId);
        await writeEnvelopes(t, fileId, entries);
      })
      : sql.tx((t) => writeEnvelopes(t, fileId, entries))),
    recordReceivedInterchange: (fileId: number, sender: string, control: string): Promise<number> => (fence
      ? fence.write(async (t) => {
        await fence.hold(t, fileId);
        return receivedInterchange(t, fileId, sender, control);
      })
      : receivedInterchange(sql, fileId, sender, control)),
  };
}
