import { ITEM_COLUMNS } from '../core/rows.js';
import { sqlNowIso, type SqlDialect, type SqlValue } from '../core/sql.js';

/** An item row's status, reading `pending` rows through their request (see effectiveStatus in rows.ts). */
const EFFECTIVE_STATUS = `CASE WHEN i.status != 'pending' THEN i.status WHEN r.status = 'sent' THEN 'sent'
  WHEN r.status IN ('done', 'failed', 'uncertain') THEN 'ok' ELSE 'pending' END`;

/** The statements as text, built once (the factories are composed again for each unit of work); the port prepares each once. */
export const INBOUND_STATEMENTS = {
  fileStatus: 'SELECT status FROM files WHERE id = ?',
  processingByChecksum: `SELECT id, generation FROM files WHERE checksum = ? AND status = 'processing' ORDER BY id DESC LIMIT 1`,
  // A rejected file counts as processed only when some of it reached the service.
  processedByChecksum: `SELECT id, name, status, finished_at FROM files f WHERE checksum = ? AND (status IN ('done', 'failed')
       OR (status = 'rejected' AND (pruned_requests > 0 OR EXISTS (SELECT 1 FROM requests r WHERE r.file_id = f.id))))
     ORDER BY id DESC LIMIT 1`,
  // The next generation of these bytes, counted in the insert (the claim holds its checksum's turn: takeTurn).
  insertFile: `INSERT INTO files (drop_name, name, checksum, size, mapping, generation, status, claimed_at)
     VALUES (?, ?, ?, ?, ?, (SELECT coalesce(max(generation), 0) + 1 FROM files WHERE checksum = ?), 'processing', ?) RETURNING id, generation`,
  pendingRequests: `SELECT * FROM requests WHERE file_id = ? AND status = 'pending'`,
  abandonRequest: `UPDATE requests SET status = 'abandoned', completed_at = ? WHERE id = ?`,
  unlinkRange: `UPDATE items SET request_id = NULL WHERE file_id = ? AND seq BETWEEN ? AND ? AND request_id = ? AND status = 'pending'`,
  insertItem: `INSERT INTO items (file_id, seq, endpoint, doc_key, first_line, last_line, lines, body, status, rejected, messages)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (file_id, seq) DO NOTHING`,
  insertRequest: `INSERT INTO requests (file_id, endpoint, attempt, seqs, item_count, status, created_at)
     VALUES (?, ?, ?, ?, ?, 'pending', ?) RETURNING id`,
  linkRange: `UPDATE items SET request_id = ?, attempt = ? WHERE file_id = ? AND seq BETWEEN ? AND ?
       AND status = 'pending' AND request_id IS NULL AND rejected = 0 AND endpoint = ?`,
  saveHistoryRange: `INSERT INTO item_history (item_id, request_id, attempt, status, messages, hint, recorded_at)
     SELECT id, request_id, attempt, status, messages, hint, CAST(? AS TEXT) FROM items
     WHERE file_id = ? AND seq BETWEEN ? AND ? AND status = 'error' AND rejected = 0 AND endpoint = ?`,
  relinkRange: `UPDATE items SET request_id = ?, attempt = ?, status = 'pending', messages = NULL, hint = NULL
     WHERE file_id = ? AND seq BETWEEN ? AND ? AND rejected = 0 AND endpoint = ?
       AND (status = 'error' OR (status = 'pending' AND request_id IS NULL))`,
  request: 'SELECT * FROM requests WHERE id = ?',
  outcome: `UPDATE items SET status = ?, messages = ?, hint = ?
     WHERE file_id = ? AND seq = ? AND request_id = ? AND status IN ('pending', 'sent')`,
  // Once the exceptions are stored, the rest of the request is ok: one range update, not one per item.
  finishRequest: 'UPDATE requests SET status = ?, results = ?, completed_at = ? WHERE id = ?',
  results: 'SELECT status, results FROM requests WHERE id = ?',
  // A file's items per status: its item rows (block 0), then its blocks' items by their request's status (block 1;
  // the items copied out of a block into `items` are counted there), in one round trip.
  counts: `SELECT 0 AS block, ${EFFECTIVE_STATUS} AS status, count(*) AS n FROM items i LEFT JOIN requests r ON r.id = i.request_id
     WHERE i.file_id = ? GROUP BY 2
     UNION ALL
     SELECT 1, r.status, coalesce(sum(r.item_count - b.exceptions), 0) FROM item_blocks b JOIN requests r ON r.id = b.request_id
     WHERE b.file_id = ? GROUP BY r.status`,
  // processed_at: the first finish, kept when a re-drive finishes the file again (the console's processing time).
  finishFile: `UPDATE files SET status = ?, summary = ?, finished_at = ?, processed_at = coalesce(processed_at, ?) WHERE id = ? AND status = 'processing'`,
  rejectFile: `UPDATE files SET status = 'rejected', reason = ?, finished_at = ?, processed_at = coalesce(processed_at, ?) WHERE id = ? AND status = 'processing'`,
  maxSeq: 'SELECT max(seq) AS seq FROM items WHERE file_id = ?',
  // Gaps and islands: the finished seqs as ranges, computed in the database without shipping 1M rows to JS.
  finishedRanges: `SELECT min(seq), max(seq) FROM (SELECT i.seq, i.seq - row_number() OVER (ORDER BY i.seq) AS island
     FROM items i LEFT JOIN requests r ON r.id = i.request_id
     WHERE i.file_id = ? AND (i.status != 'pending' OR r.status IN ('done', 'failed', 'uncertain'))) AS finished
     GROUP BY island ORDER BY 1`,
  sentRequests: `SELECT * FROM requests WHERE file_id = ? AND status = 'sent' ORDER BY id`,
  itemsInRange: `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?`,
  itemsOfRequestRange: `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? AND request_id = ? ORDER BY seq`,
};

/**
 * A request marked sent, stamped by the database's clock: `sent_at` is compared with the service's `updated_at` when
 * a write's outcome is unknown (pipeline/untouched.ts), and the instance that compares may not be the one that sent,
 * nor have its clock. The commit comes before the bytes go out, so the stamp is never later than the send.
 */
function sentStatements(dialect: SqlDialect) {
  const now = sqlNowIso(dialect);
  return {
    // Recorded and marked sent in one statement (SQLite; PostgreSQL records a commit's requests in record-blocks.ts).
    insertSentRequest: `INSERT INTO requests (file_id, endpoint, attempt, seqs, item_count, status, created_at, sent_at)
       VALUES (?, ?, ?, ?, ?, 'sent', ?, ${now}) RETURNING id`,
    sendRequest: `UPDATE requests SET status = 'sent', sent_at = ${now} WHERE id = ? AND status = 'pending'`,
  };
}

export const SENT_STATEMENTS = { sqlite: sentStatements('sqlite'), postgres: sentStatements('postgres') };

/**
 * The instance whose lease on a processing file is live (the database's clock), for a claim that takes no lease (a
 * journal opened without an instance: `batch`, `process`): such a claim leaves the file to that instance.
 */
const liveLeaseHolder = (dialect: SqlDialect) =>
  `SELECT lease_owner FROM files WHERE id = ? AND status = 'processing' AND lease_owner IS NOT NULL AND lease_until > ${sqlNowIso(dialect)}`;

export const LIVE_LEASE_HOLDER = { sqlite: liveLeaseHolder('sqlite'), postgres: liveLeaseHolder('postgres') };

const finishTexts: string[] = [];

/**
 * Requests whose items all came back ok, each stored unless it is finished already or has another number of items:
 * one statement for `n` of them (parameters: finishOpenRequestsParams; returns the ids it stored): reading each row
 * and then updating it would be two round trips a request on a distant PostgreSQL. The values are picked by CASE, not
 * joined from a VALUES list, which SQLite would copy into a temporary table first: a cost on every commit that CASE
 * does not have (docs/performance.md, "Settings chosen by measurement").
 */
export function finishOpenRequests(n: number): string {
  const pick = (value: string) => `CASE id ${Array(n).fill(`WHEN ? THEN ${value}`).join(' ')} END`;
  finishTexts[n] ??= `UPDATE requests SET status = ${pick('?')}, results = ${pick('?')}, completed_at = ?
     WHERE id IN (${Array(n).fill('?').join(', ')}) AND status IN ('pending', 'sent') AND item_count = ${pick('CAST(? AS BIGINT)')}
     RETURNING id`;
  return finishTexts[n];
}

/** finishOpenRequests' parameters. */
export function finishOpenRequestsParams(requests: ReadonlyArray<{ id: number; status: string; results: string | null; count: number }>, at: string): SqlValue[] {
  const params: SqlValue[] = [];
  for (const r of requests) params.push(r.id, r.status);
  for (const r of requests) params.push(r.id, r.results);
  params.push(at);
  for (const r of requests) params.push(r.id);
  for (const r of requests) params.push(r.id, r.count);
  return params;
}
