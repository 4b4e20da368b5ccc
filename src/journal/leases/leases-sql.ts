import { NamedStatement, sqlList, sqlNowIso, sqlNowPlusMsIso, type SqlDialect } from '../core/sql.js';

// The leases' statements (leases.ts) as text, per dialect; every time in them is the database's clock.

function leaseSql(dialect: SqlDialect, offsetMs = 0) {
  const now = sqlNowIso(dialect, offsetMs);
  const plus = sqlNowPlusMsIso(dialect, '?', offsetMs);
  const plusLease = sqlNowPlusMsIso(dialect, ':leaseMs', offsetMs);
  // SQLite has no row locks (a unit of work holds the whole journal); PostgreSQL locks the row until the commit.
  const forUpdate = dialect === 'postgres' ? ' FOR UPDATE' : '';
  // Same owner: same token; a new owner: one more. Free: never leased, given up, expired, or the file not processing.
  const takeWhere = (id: string) => `UPDATE files SET lease_token = CASE WHEN lease_owner = :owner THEN lease_token ELSE lease_token + 1 END,
        lease_owner = :owner, lease_until = ${plusLease}
      WHERE id = ${id} AND (lease_owner IS NULL OR lease_owner = :owner OR status <> 'processing' OR lease_until IS NULL OR lease_until <= ${now})
      RETURNING id, lease_token`;
  return {
    lockFile: `SELECT status, lease_owner, lease_token FROM files WHERE id = ?${forUpdate}`,
    lockFilesOfRequests: `SELECT id, status, lease_owner, lease_token FROM files
      WHERE id IN (SELECT file_id FROM requests WHERE id IN (${sqlList(dialect, 'int')})) ORDER BY id${forUpdate}`,
    fileStatus: 'SELECT status FROM files WHERE id = ?',
    take: new NamedStatement<{ owner: string; leaseMs: number; fileId: number }>(takeWhere(':fileId')),
    // A claim's new file, by its checksum: sent with the insert, before the insert's id is known. The claim holds its
    // checksum's turn and found no other processing file of it, so the newest is the one the insert made.
    takeNewest: new NamedStatement<{ owner: string; leaseMs: number; checksum: string }>(
      takeWhere(`(SELECT max(id) FROM files WHERE checksum = :checksum AND status = 'processing')`)),
    liveOwner: `SELECT lease_owner, CASE WHEN status = 'processing' AND lease_until > ${now} THEN 1 ELSE 0 END AS live
      FROM files WHERE id = ?${forUpdate}`,
    // An instance holds the file while its lease is live and it works on it, or finishes it (its move not yet recorded:
    // its result file and move are still to come).
    holder: `SELECT lease_owner, CASE WHEN status = 'processing' THEN 0 ELSE 1 END AS finishing FROM files
      WHERE id = ? AND lease_owner IS NOT NULL AND lease_until > ${now} AND (status = 'processing' OR disposed_to IS NULL)${forUpdate}`,
    rivals: `SELECT id, host, pid, started_at FROM instances WHERE id <> ? AND stopped_at IS NULL AND heartbeat_at > ${plus}
      ORDER BY heartbeat_at DESC`,
    forgetInstances: `DELETE FROM instances WHERE id <> ? AND heartbeat_at < ${plus}`,
    register: `INSERT INTO instances (id, host, pid, version, started_at, heartbeat_at, stopped_at) VALUES (?, ?, ?, ?, ${now}, ${now}, NULL)
      ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
        heartbeat_at = excluded.heartbeat_at, stopped_at = NULL`,
    beat: `INSERT INTO instances (id, host, pid, version, started_at, heartbeat_at, stopped_at) VALUES (?, ?, ?, ?, ${now}, ${now}, NULL)
      ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    // Only the files this journal still works on: a file whose run ended unfinished (releaseFile) is not kept busy.
    renewFiles: `UPDATE files SET lease_until = ${plus} WHERE status = 'processing' AND lease_owner = ? AND id IN (${sqlList(dialect, 'int')})`,
    releaseFile: `UPDATE files SET lease_until = NULL WHERE id = ? AND status = 'processing' AND lease_owner = ? AND lease_token = ?`,
    // Processing files of a drop nobody works on: a dead owner's lease ran out, or its owner gave the file up.
    toTakeOver: `SELECT id, name, lease_owner FROM files WHERE status = 'processing' AND drop_name = ? AND lease_owner IS NOT NULL
      AND (lease_until IS NULL OR lease_until <= ${now}) ORDER BY id LIMIT 100`,
    // A re-drive (redrive > 0: the file was finished and moved before) that its run left processing: a crash, a stop.
    redrivesToTakeUp: `SELECT id, name, lease_owner FROM files WHERE status = 'processing' AND redrive > 0 AND lease_owner IS NOT NULL
      AND (lease_until IS NULL OR lease_until <= ${now}) ORDER BY id LIMIT 100`,
    // A re-drop's duplicate event: one unfinished per drop, name and original file (file_events_unfinished).
    insertDuplicate: `INSERT INTO file_events (drop_name, name, kind, original_file_id, reason, at, result_name, disposed_to, lease_owner, lease_token, lease_until)
      VALUES (?, ?, 'duplicate', ?, ?, ?, ?, NULL, NULL, 0, NULL) ON CONFLICT DO NOTHING RETURNING *`,
    insertLeasedDuplicate: `INSERT INTO file_events (drop_name, name, kind, original_file_id, reason, at, result_name, disposed_to, lease_owner, lease_token, lease_until)
      VALUES (?, ?, 'duplicate', ?, ?, ?, ?, NULL, ?, 1, ${plus}) ON CONFLICT DO NOTHING RETURNING *`,
    unfinishedEvent: `SELECT * FROM file_events WHERE drop_name = ? AND name = ? AND original_file_id = ? AND kind = 'duplicate' AND disposed_to IS NULL`,
    takeEvent: new NamedStatement<{ owner: string; leaseMs: number; drop: string; name: string; originalFileId: number }>(
      `UPDATE file_events SET lease_token = CASE WHEN lease_owner = :owner THEN lease_token ELSE lease_token + 1 END,
        lease_owner = :owner, lease_until = ${plusLease}
      WHERE drop_name = :drop AND name = :name AND original_file_id = :originalFileId AND kind = 'duplicate' AND disposed_to IS NULL
        AND (lease_owner IS NULL OR lease_owner = :owner OR lease_until IS NULL OR lease_until <= ${now})
      RETURNING *`),
    renewEvents: `UPDATE file_events SET lease_until = ${plus} WHERE lease_owner = ? AND disposed_to IS NULL AND id IN (${sqlList(dialect, 'int')})`,
    releaseEvent: `UPDATE file_events SET lease_until = NULL WHERE id = ? AND disposed_to IS NULL AND lease_owner = ? AND lease_token = ?`,
    eventDisposedToUnfenced: 'UPDATE file_events SET disposed_to = ? WHERE id = ?',
    // The move of a re-drop recorded only by the handler that still holds its event's lease.
    eventDisposedTo: 'UPDATE file_events SET disposed_to = ? WHERE id = ? AND lease_owner = ? AND lease_token = ?',
    forgetEvent: 'DELETE FROM file_events WHERE id = ? AND disposed_to IS NULL AND (lease_owner IS NULL OR (lease_owner = ? AND lease_token = ?))',
    // A tick held here whose owner or token changed was taken over: no row is renewed, and the tick is lost.
    renewHeldTick: `UPDATE job_ticks SET lease_until = ${plus} WHERE job = ? AND tick = ? AND owner = ? AND token = ? AND done_at IS NULL`,
    heldFiles: `SELECT id, status, lease_owner, lease_token, disposed_to FROM files WHERE id IN (${sqlList(dialect, 'int')})`,
    stop: `UPDATE instances SET stopped_at = ${now} WHERE id = ?`,
    // Every file the instance holds, finished ones included: one finished but not moved (a file of \`process\`, which
    // stays where it is, or a move a stop cut short) would otherwise read as still being finished by it.
    releaseFiles: `UPDATE files SET lease_until = NULL WHERE lease_owner = ? AND lease_until IS NOT NULL`,
    releaseTicks: `UPDATE job_ticks SET lease_until = ${now} WHERE owner = ? AND done_at IS NULL`,
    releaseEvents: 'UPDATE file_events SET lease_until = NULL WHERE lease_owner = ? AND disposed_to IS NULL AND lease_until IS NOT NULL',
    // A finished file's lease is not renewed (heartbeats renew processing files): while its owner heartbeats, the
    // owner is still writing its result file or moving it. Free once the owner stopped, or once both ran out.
    // Its owner is silent when its heartbeat is older than a lease: heartbeat_at > now - leaseMs says it is not.
    takeFinished: new NamedStatement<{ owner: string; leaseMs: number; fileId: number; silentMs: number }>(
      `UPDATE files SET lease_token = CASE WHEN lease_owner = :owner THEN lease_token ELSE lease_token + 1 END,
        lease_owner = :owner, lease_until = ${plusLease}
      WHERE id = :fileId AND (lease_owner IS NULL OR lease_owner = :owner
        OR EXISTS (SELECT 1 FROM instances i WHERE i.id = files.lease_owner AND i.stopped_at IS NOT NULL)
        OR ((lease_until IS NULL OR lease_until <= ${now})
          AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = files.lease_owner AND i.stopped_at IS NULL
            AND i.heartbeat_at > ${sqlNowPlusMsIso(dialect, ':silentMs', offsetMs)})))
      RETURNING lease_token`),
    fileOwner: 'SELECT lease_owner FROM files WHERE id = ?',
    instances: `SELECT i.id, i.host, i.pid, i.version, i.started_at, i.heartbeat_at, i.stopped_at,
        (SELECT count(*) FROM files f WHERE f.status = 'processing' AND f.lease_owner = i.id AND f.lease_until > ${now}) AS files,
        (SELECT count(*) FROM job_ticks j WHERE j.owner = i.id AND j.done_at IS NULL AND j.lease_until > ${now}) AS jobs
      FROM instances i ORDER BY i.started_at, i.id`,
    insertTick: `INSERT INTO job_ticks (job, tick, owner, token, lease_until, done_at) VALUES (?, ?, ?, 1, ${plus}, NULL)
      ON CONFLICT (job, tick) DO NOTHING RETURNING token`,
    tick: `SELECT owner, token, done_at, CASE WHEN lease_until <= ${now} THEN 1 ELSE 0 END AS expired
      FROM job_ticks WHERE job = ? AND tick = ?${forUpdate}`,
    renewTick: `UPDATE job_ticks SET lease_until = ${plus} WHERE job = ? AND tick = ?`,
    takeTick: new NamedStatement<{ owner: string; leaseMs: number; job: string; tick: string }>(
      `UPDATE job_ticks SET owner = :owner, token = token + 1, lease_until = ${plusLease} WHERE job = :job AND tick = :tick RETURNING token`),
    forgetTicks: 'DELETE FROM job_ticks WHERE job = ? AND tick < ?',
    finishTick: `UPDATE job_ticks SET done_at = coalesce(done_at, ${now}) WHERE job = ? AND tick = ? AND owner = ? AND token = ?`,
    tickOwner: 'SELECT owner FROM job_ticks WHERE job = ? AND tick = ?',
    releaseTick: `UPDATE job_ticks SET lease_until = ${now} WHERE job = ? AND tick = ? AND owner = ? AND token = ? AND done_at IS NULL`,
  };
}

export type LeaseStatements = ReturnType<typeof leaseSql>;

/** The statements of each dialect, built once: the factories are composed again for every unit of work. */
export const LEASE_STATEMENTS = { sqlite: leaseSql('sqlite'), postgres: leaseSql('postgres') };

const shifted = new Map<string, LeaseStatements>();

/**
 * The statements of a journal whose lease clock is the database's moved by `offsetMs` (tests: a lease passes at once),
 * built once per offset.
 */
export function leaseStatements(dialect: SqlDialect, offsetMs: number): LeaseStatements {
  if (offsetMs === 0) return LEASE_STATEMENTS[dialect];
  const key = `${dialect} ${offsetMs}`;
  let statements = shifted.get(key);
  if (!statements) shifted.set(key, (statements = leaseSql(dialect, offsetMs)));
  return statements;
}
