import type { SqlDialect, SqlPort } from '../core/sql.js';
import type { FileOwnerReason, FileStatus } from '../core/types.js';

/*
 * The history of a file's lease (table file_owners): every instance that took it, from whom, when, why and with which
 * fencing token. A row is written in the unit of work of the take itself (leases.ts, instances.ts), so the history
 * holds exactly the takes that happened; an instance taking its own file again (same token) adds none.
 */

export type { FileOwnerReason };

/** One take of a file's lease. */
export interface FileOwnerChange {
  /** When it was taken (the journal's clock, as claimedAt). */
  at: string;
  instance: string;
  /** The instance it was taken from; null for a first claim and for a file nobody held. */
  from: string | null;
  /** The fencing token taken: one more than the previous owner's. */
  token: number;
  reason: FileOwnerReason;
}

/** The file's row before a take, read under its lock: its owner, and whether that owner stopped or gave the file up. */
export interface OwnerBefore {
  status: FileStatus;
  lease_owner: string | null;
  lease_token: number;
  /** 1 when its lease was given up (lease_until NULL): a release or its owner's stop. */
  released: number;
  /** 1 when its owner is listed as stopped; null when it is not listed (forgotten) or there is none. */
  stopped: number | null;
}

export const FILE_OWNER_STATEMENTS = {
  // The owner before a take with what tells why it goes: read under the row's lock (PostgreSQL) like the fence's own.
  before: (dialect: SqlDialect) => `SELECT status, lease_owner, lease_token, CASE WHEN lease_until IS NULL THEN 1 ELSE 0 END AS released,
      (SELECT CASE WHEN i.stopped_at IS NULL THEN 0 ELSE 1 END FROM instances i WHERE i.id = files.lease_owner) AS stopped
    FROM files WHERE id = ?${dialect === 'postgres' ? ' FOR UPDATE OF files' : ''}`,
  record: 'INSERT INTO file_owners (file_id, at, instance, from_instance, token, reason) VALUES (?, ?, ?, ?, ?, ?)',
  // A new claim's row, sent with the claim's insert and take (the newest processing file of the checksum, as takeNewest).
  recordNew: `INSERT INTO file_owners (file_id, at, instance, from_instance, token, reason)
    SELECT id, ?, lease_owner, NULL, lease_token, 'claim' FROM files
    WHERE id = (SELECT max(id) FROM files WHERE checksum = ? AND status = 'processing') AND lease_owner = ?`,
  history: 'SELECT at, instance, from_instance, token, reason FROM file_owners WHERE file_id = ? ORDER BY id',
};

/** Why the lease goes from its owner before to a new one (`redrive`: the take opens an operator's re-drive). */
export function takeReason(before: OwnerBefore | undefined, redrive: boolean): FileOwnerReason {
  if (redrive) return 'redrive';
  if (!before || before.lease_owner === null) return 'unowned';
  if (before.stopped === 1) return 'handover';
  return before.released === 1 ? 'released' : 'lost';
}

/** Records a take by another instance than the owner before (an owner taking its own file again keeps its token). */
export async function recordTake(t: SqlPort, take: { fileId: number; at: string; instance: string; before: OwnerBefore | undefined; token: number; redrive: boolean }): Promise<FileOwnerReason | undefined> {
  const from = take.before?.lease_owner ?? null;
  if (from === take.instance) return undefined;
  const reason = takeReason(take.before, take.redrive);
  await t.run(FILE_OWNER_STATEMENTS.record, [take.fileId, take.at, take.instance, from, take.token, reason]);
  return reason;
}

/** Every take of the file's lease, oldest first. */
export async function fileOwners(sql: SqlPort, fileId: number): Promise<FileOwnerChange[]> {
  const rows = await sql.all<{ at: string; instance: string; from_instance: string | null; token: number | string; reason: FileOwnerReason }>(
    FILE_OWNER_STATEMENTS.history, [fileId]);
  return rows.map((r) => ({ at: r.at, instance: r.instance, from: r.from_instance, token: Number(r.token), reason: r.reason }));
}
