import type { SqlPort } from '../core/sql.js';
import { listExports, listFileLines } from './console-lists.js';
import { ConsoleRows, consoleSql } from './console-rows.js';
import type { ItemStatus, X12EnvelopeEntry, X12EnvelopePage } from '../core/types.js';
import type { NewAlert, NewOperatorAction, OperatorAction, StoredAlert, UncertainRequest } from './console-types.js';
import { alertSeverity, severityRankSql } from './alert-severity.js';

/**
 * Read queries of the operations console (src/console/): keyset pages that stay fast on a journal of
 * millions of rows (every page is an index range, never an OFFSET or a count of the whole table), plus the
 * operator-actions audit trail (schema migration 4).
 */

export type * from './console-types.js';
export { fileEventListSql, fileListSql, listFiles, type SqlQuery } from './console-lists.js';
export { consoleSql } from './console-rows.js';

const ALERT_SQL = {
  // One open alert per kind and subject (the partial unique index alerts_open): a repeat counts, it is not a new row.
  raise: `INSERT INTO alerts (kind, subject, job, file_id, message, times, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
    ON CONFLICT (kind, subject) WHERE acknowledged_at IS NULL
    DO UPDATE SET times = alerts.times + 1, last_seen = excluded.last_seen, message = excluded.message RETURNING id`,
  // The most severe first, so that a long list of warnings never hides a critical alert behind the limit.
  open: `SELECT * FROM alerts WHERE acknowledged_at IS NULL ORDER BY ${severityRankSql()}, last_seen DESC, id DESC LIMIT ?`,
  acknowledged: 'SELECT * FROM alerts WHERE acknowledged_at IS NOT NULL AND id < ? ORDER BY id DESC LIMIT ?',
  one: 'SELECT * FROM alerts WHERE id = ?',
  acknowledge: 'UPDATE alerts SET acknowledged_by = ?, acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL',
};
/** A page of a file's X12 envelopes by ord (the primary key's range). */
async function x12Envelopes(sql: SqlPort, fileId: number, options: { after?: number; limit: number }): Promise<X12EnvelopePage> {
  const rows = await sql.all<{ ord: number; level: X12EnvelopeEntry['level']; detail: string }>(
    'SELECT ord, level, detail FROM x12_envelopes WHERE file_id = ? AND ord > ? ORDER BY ord LIMIT ?', [fileId, options.after ?? -1, options.limit + 1]);
  const entries = rows.slice(0, options.limit).map((r) => ({ ord: Number(r.ord), level: r.level, detail: r.detail }));
  return { entries, next: rows.length > options.limit ? entries[entries.length - 1].ord : null };
}

/** Uncertain requests listed at most (a kill -9 leaves one per request in flight: far fewer). */
const UNCERTAIN_REQUESTS = 1000;

/** The uncertain rows counted by file and request: a range of the partial index of rows that need attention. */
function uncertainRequestsSql(dialect: SqlPort['dialect']): string {
  const indexed = dialect === 'sqlite' ? 'INDEXED BY items_attention' : '';
  return `SELECT i.file_id, f.name, i.request_id, min(i.endpoint) AS endpoint, count(*) AS rows
    FROM items i ${indexed} JOIN files f ON f.id = i.file_id
    WHERE i.status IN ('error', 'uncertain') AND i.status = 'uncertain'
    GROUP BY i.file_id, f.name, i.request_id ORDER BY i.file_id, i.request_id LIMIT ${UNCERTAIN_REQUESTS}`;
}

async function uncertainRequests(sql: SqlPort): Promise<UncertainRequest[]> {
  const rows = await sql.all<{ file_id: number; name: string; request_id: number | null; endpoint: string | null; rows: number }>(uncertainRequestsSql(sql.dialect));
  return rows.map((r) => ({
    fileId: Number(r.file_id), file: r.name, requestId: r.request_id === null ? null : Number(r.request_id), endpoint: r.endpoint, rows: Number(r.rows),
  }));
}

const toAlert = (r: Record<string, never>): StoredAlert => ({
  id: r.id, kind: r.kind, severity: alertSeverity(r.kind), subject: r.subject, job: r.job, fileId: r.file_id, message: r.message, times: Number(r.times),
  firstSeen: r.first_seen, lastSeen: r.last_seen, acknowledgedBy: r.acknowledged_by, acknowledgedAt: r.acknowledged_at,
});

/** Records an occurrence: a new open alert, or one more of the open alert of that kind and subject. Resolves its id. */
async function raiseAlert(sql: SqlPort, now: () => string, alert: NewAlert): Promise<number> {
  const at = now();
  const row = await sql.get<{ id: number }>(ALERT_SQL.raise, [alert.kind, alert.subject, alert.job ?? null, alert.fileId ?? null, alert.message, at, at]);
  return row!.id;
}

/** Open alerts (the most severe first, then newest seen first), then the acknowledged ones newest first (`before`: the next page of those). */
async function listAlerts(sql: SqlPort, options: { before?: number; limit: number }): Promise<{ open: StoredAlert[]; acknowledged: StoredAlert[] }> {
  return {
    open: (await sql.all<Record<string, never>>(ALERT_SQL.open, [options.limit])).map(toAlert),
    acknowledged: (await sql.all<Record<string, never>>(ALERT_SQL.acknowledged, [options.before ?? Number.MAX_SAFE_INTEGER, options.limit])).map(toAlert),
  };
}

/** An operator saw to it: false when it was acknowledged already (or is not there). */
async function acknowledgeAlert(sql: SqlPort, now: () => string, id: number, by: string): Promise<boolean> {
  return (await sql.run(ALERT_SQL.acknowledge, [by, now(), id])) > 0;
}

/** Several alerts seen to at once, in one unit of work: the ids acknowledged here (not those acknowledged already or not there). */
async function acknowledgeAlerts(sql: SqlPort, now: () => string, ids: readonly number[], by: string): Promise<number[]> {
  return sql.tx(async (t) => {
    const at = now();
    const done: number[] = [];
    for (const id of ids) if ((await t.run(ALERT_SQL.acknowledge, [by, at, id])) > 0) done.push(id);
    return done;
  });
}

async function getAlert(sql: SqlPort, id: number): Promise<StoredAlert | undefined> {
  const row = await sql.get<Record<string, never>>(ALERT_SQL.one, [id]);
  return row && toAlert(row);
}

async function stats(sql: SqlPort, storage: () => Promise<{ bytes: number }>, path: string) {
  const oldest = async (column: string, table: string) => (await sql.get<{ at: string | null }>(`SELECT min(${column}) AS at FROM ${table}`))?.at ?? null;
  const entries = [await oldest('claimed_at', 'files'), await oldest('created_at', 'exports')];
  return { path, bytes: (await storage()).bytes, oldestEntry: entries.filter((v): v is string => v !== null).sort()[0] ?? null };
}

function toAction(r: Record<string, never>): OperatorAction {
  return { id: r.id, action: r.action, fileId: r.file_id, target: r.target, actor: r.actor, via: r.via, detail: r.detail, outcome: r.outcome, at: r.at };
}

/**
 * The console's queries over a SqlPort. `storage` is the engine's word on the journal's size (file and WAL for
 * SQLite, the database for PostgreSQL): it is not something SQL both engines share can tell.
 */
export function createConsoleQueries(sql: SqlPort, now: () => string, storage: () => Promise<{ bytes: number }>) {
  const rows = new ConsoleRows(sql, consoleSql(sql.dialect));
  return {
    listFileLines: (filter: Parameters<typeof listFileLines>[1]) => listFileLines(sql, filter),
    listExports: (filter: Parameters<typeof listExports>[1]) => listExports(sql, filter),
    fileRows: (fileId: number, options: { status?: ItemStatus; after?: number; through?: number; limit: number }) => rows.fileRows(fileId, options),
    x12Envelopes: (fileId: number, options: { after?: number; limit: number }) => x12Envelopes(sql, fileId, options),
    uncertainRows: (options: { afterFile?: number; afterSeq?: number; limit: number }) => rows.uncertainRows(options),
    failedRows: (fileId: number) => rows.failedRows(fileId),
    uncertainRequests: () => uncertainRequests(sql),
    raiseAlert: (alert: NewAlert) => raiseAlert(sql, now, alert),
    listAlerts: (options: { before?: number; limit: number }) => listAlerts(sql, options),
    acknowledgeAlert: (id: number, by: string) => acknowledgeAlert(sql, now, id, by),
    acknowledgeAlerts: (ids: readonly number[], by: string) => acknowledgeAlerts(sql, now, ids, by),
    getAlert: (id: number) => getAlert(sql, id),
    stats: (path: string) => stats(sql, storage, path),
    /** Records what an operator did (who, when, what came of it) in the audit trail. */
    recordAction: async (action: NewOperatorAction): Promise<number> => {
      const row = await sql.get<{ id: number }>(
        `INSERT INTO operator_actions (action, file_id, target, actor, via, detail, outcome, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [action.action, action.fileId, action.target, action.actor, action.via, action.detail, action.outcome, now()]);
      return row!.id;
    },
    listActions: async (options: { before?: number; fileId?: number; limit: number }): Promise<OperatorAction[]> =>
      (await (options.fileId === undefined
        ? sql.all<Record<string, never>>('SELECT * FROM operator_actions WHERE id < ? ORDER BY id DESC LIMIT ?', [options.before ?? Number.MAX_SAFE_INTEGER, options.limit])
        : sql.all<Record<string, never>>('SELECT * FROM operator_actions WHERE file_id = ? ORDER BY id DESC LIMIT ?', [options.fileId, options.limit]))).map(toAction),
  };
}
