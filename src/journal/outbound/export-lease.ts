import { WisbridgeError } from '../../errors.js';
import { stateError } from '../core/rows.js';
import { NamedStatement, sqlNowPlusMsIso, type SqlDialect, type SqlPort } from '../core/sql.js';
import type { ExportStatus, ExportTake } from '../core/types.js';
import type { ExportOwnership, ExportRow } from './outbound-rows.js';

/*
 * An export is owned like a file. Its row carries the instance that recorded it (NULL: a process without an
 * instance) and a fencing token that grows with every new owner; every write of its recorded state (records added,
 * staged, marked written, abandoned) checks owner and token in its unit of work, its row locked. Another process takes
 * a recorded export over (to mark it written or abandon it) only when its owner is not live: no heartbeat within a
 * lease by the database's clock, or stopped, or it has no instance. Its own instance's process knows what it has in
 * flight (src/export/files.ts, exportsInFlight) and takes over only the rest. Liveness is the instance's, not a lease
 * per export: the heartbeat renews it whatever the export does, so a live owner's export is never taken, however long
 * its run lasts.
 */

const lockSql = (dialect: SqlDialect) => `SELECT * FROM exports WHERE id = ?${dialect === 'postgres' ? ' FOR UPDATE' : ''}`;

function exportLost(exportId: number, fileName: string, me: string | null, owner: string | null): WisbridgeError {
  const holder = owner === me ? 'it was taken over since' : owner === null ? 'a process without an instance holds it' : `instance ${owner} holds it now`;
  return new WisbridgeError('LEASE_LOST', `export ${exportId} (${fileName}): ${me === null ? 'this process' : `instance ${me}`} no longer owns it `
    + `(${holder}); nothing was written`);
}

/**
 * The export's row, locked, when this journal owns it with the token it holds (adopted when it holds none and the
 * row's owner is its own instance: an export recorded by a worker thread of the same process); LEASE_LOST otherwise.
 */
export async function ownedExport(o: ExportOwnership, t: SqlPort, exportId: number): Promise<ExportRow> {
  const row = await t.get<ExportRow & { lease_owner: string | null; lease_token: number }>(lockSql(t.dialect), [exportId]);
  if (!row) throw stateError(`export ${exportId} is not in the journal`);
  const token = o.tokens.get(exportId);
  if (token === undefined && row.lease_owner === o.owner) o.tokens.set(exportId, Number(row.lease_token));
  else if (row.lease_owner !== o.owner || Number(row.lease_token) !== token) throw exportLost(exportId, row.file_name, o.owner, row.lease_owner);
  return row;
}

/** Owner columns of a new export: this journal's instance, token 1. */
export function ownerOf(o: ExportOwnership): { owner: string | null; token: number } {
  return { owner: o.owner, token: 1 };
}

/**
 * Takes a recorded export over (token + 1, this journal its owner) when its owner is not live, or is this journal's
 * own instance (whose process checked it is not in flight); resolves the temporary name its work list was staged
 * under, if its owner got that far. Refused (`taken: false`) while a live instance owns it, or once it is no longer
 * recorded.
 */
export function takeExport(o: ExportOwnership, sql: SqlPort, exportId: number): Promise<ExportTake> {
  return sql.tx(async (t): Promise<ExportTake> => {
    const offset = o.clockOffsetMs?.() ?? 0;
    const take = new NamedStatement<{ me: string | null; leaseMs: number; id: number }>(
      `UPDATE exports SET lease_token = lease_token + 1, lease_owner = :me
       WHERE id = :id AND status = 'recorded' AND (lease_owner IS NULL OR lease_owner = :me
         OR NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = exports.lease_owner AND i.stopped_at IS NULL
           AND i.heartbeat_at > ${sqlNowPlusMsIso(t.dialect, ':leaseMs', offset)}))
       RETURNING lease_token, staged_name`);
    const before = await t.get<{ lease_owner: string | null; status: ExportStatus }>(lockSql(t.dialect), [exportId]);
    if (!before) throw stateError(`export ${exportId} is not in the journal`);
    const taken = await t.get<{ lease_token: number; staged_name: string | null }>(take.sql, take.params({ me: o.owner, leaseMs: -o.leaseMs, id: exportId }));
    if (!taken) return { taken: false, owner: before.lease_owner, status: before.status };
    o.tokens.set(exportId, Number(taken.lease_token));
    return { taken: true, from: before.lease_owner, stagedName: taken.staged_name };
  });
}
