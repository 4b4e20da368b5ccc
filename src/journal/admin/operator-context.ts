import type { Blocks } from '../core/blocks.js';
import type { Fence } from '../leases/leases.js';
import { ITEM_COLUMNS, stateError } from '../core/rows.js';
import type { SqlDialect, SqlPort } from '../core/sql.js';
import type { InboundReads } from '../inbound/inbound-reads.js';
import type { FileRecord, FileStatus, FileSummary } from '../core/types.js';

/** The statements of the operator's reads and actions (the dialect picks SQLite's index hints). */
function operatorStatements(dialect: SqlDialect) {
  // The partial index holds only the rows needing attention. SQLite's planner uses it only when the query repeats its
  // WHERE term verbatim; INDEXED BY makes a mistake fail at prepare time. PostgreSQL picks partial indexes itself.
  const sqlite = dialect === 'sqlite';
  const attention = sqlite ? 'INDEXED BY items_attention' : '';
  const openRecords = sqlite ? 'INDEXED BY export_records_open' : '';
  return {
    file: 'SELECT * FROM files WHERE id = ?',
    fileNamed: 'SELECT * FROM files WHERE name = ? ORDER BY id DESC LIMIT 1',
    listFiles: `SELECT * FROM files WHERE (CAST(? AS TEXT) IS NULL OR claimed_at >= ?) AND (CAST(? AS TEXT) IS NULL OR status = ?)
      ORDER BY id DESC LIMIT ?`,
    failed: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ? ORDER BY seq LIMIT ?`,
    uncertainOfFile: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND file_id = ? ORDER BY seq LIMIT ?`,
    uncertain: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'uncertain' ORDER BY file_id, seq LIMIT ?`,
    retryErrors: `SELECT ${ITEM_COLUMNS}, body FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ? AND seq > ? AND rejected = 0 ORDER BY seq LIMIT ?`,
    // Items of a re-drive request that was recorded but never sent before a crash.
    retryAbandoned: `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq > ? AND status = 'pending'
      AND request_id IS NULL AND attempt > 1 ORDER BY seq LIMIT ?`,
    startRedrive: `UPDATE files SET status = 'processing', redrive = redrive + 1, finished_at = NULL WHERE id = ?`,
    itemById: `SELECT ${ITEM_COLUMNS} FROM items WHERE id = ?`,
    itemBySeq: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq = ?`,
    saveHistory: `INSERT INTO item_history (item_id, request_id, attempt, status, messages, hint, recorded_at)
      SELECT id, request_id, attempt, status, messages, hint, CAST(? AS TEXT) FROM items WHERE id = ?`,
    resolve: `UPDATE items SET status = ?, messages = ?, hint = NULL, resolution = ?, resolution_note = ?, resolved_by = ?, resolved_at = ?
      WHERE id = ? AND status = 'uncertain'`,
    refreshFileStatus: `UPDATE files SET status = ?, summary = ? WHERE id = ? AND status IN ('done', 'failed')`,
    // Only the columns of a LineOutcome, as arrays (no object per row from the driver); the request status is
    // looked up once per request per page instead of by a subquery per row.
    linePage: `SELECT id, seq, endpoint, doc_key, first_line, last_line, lines, status, request_id, messages, hint, resolution
      FROM items WHERE file_id = ? AND (first_line, seq) > (?, ?) ORDER BY first_line, seq LIMIT ?`,
    requestStatus: 'SELECT status FROM requests WHERE id = ?',
    processingFiles: `SELECT count(*) AS n FROM files WHERE status = 'processing'`,
    openRequests: `SELECT status, count(*) AS requests, coalesce(sum(item_count), 0) AS items FROM requests
      WHERE status IN ('pending', 'sent') GROUP BY status`,
    uncertainCount: `SELECT count(*) AS n FROM items ${attention} WHERE status IN ('error', 'uncertain') AND status = 'uncertain'`,
    errorCount: `SELECT count(*) AS n FROM items ${attention} WHERE status IN ('error', 'uncertain') AND status = 'error'`,
    // Unwritten: the records of exports whose file is not in place yet, whatever status they will take (records
    // carry that status from the start, see outbound.ts); open: those of written exports still waiting.
    unwrittenRecords: `SELECT coalesce(sum(record_count), 0) AS n FROM exports WHERE status = 'recorded'`,
    openAcks: `SELECT r.ack_status, count(*) AS n FROM export_records r ${openRecords} JOIN exports e ON e.id = r.export_id
      WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND e.status = 'written' GROUP BY r.ack_status`,
  };
}

export type OperatorStatements = ReturnType<typeof operatorStatements>;

/** The statements as text, built once per dialect (the role is composed again for each unit of work). */
const STATEMENTS: { [D in SqlDialect]?: OperatorStatements } = {};

export function statementsOf(dialect: SqlDialect): OperatorStatements {
  return (STATEMENTS[dialect] ??= operatorStatements(dialect));
}

/**
 * What the operator's functions work on: the port, the clock, the statements, the results and blocks read on the
 * same port, and in lease mode (leases.ts) the fence: a re-drive takes the file's lease and a resolution waits for
 * its owner to finish.
 */
export interface OperatorContext {
  readonly sql: SqlPort;
  readonly now: () => string;
  readonly q: OperatorStatements;
  readonly results: Pick<InboundReads, 'resultOf' | 'resultList'>;
  readonly blocks: Blocks;
  readonly fence?: Fence;
}

export interface FileRow {
  id: number;
  drop_name: string;
  name: string;
  checksum: string;
  size: number;
  mapping: string;
  generation: number;
  status: FileStatus;
  reason: string | null;
  summary: string | null;
  redrive: number;
  claimed_at: string;
  finished_at: string | null;
  result_name: string | null;
  disposed_to: string | null;
  x12_ack?: string | null;
  pruned_at: string | null;
  processed_at: string | null;
  lease_owner: string | null;
  lease_token: number;
  lease_until: string | null;
}

export function toFile(row: FileRow): FileRecord {
  return {
    fileId: row.id,
    drop: row.drop_name,
    name: row.name,
    checksum: row.checksum,
    size: row.size,
    mapping: row.mapping,
    generation: row.generation,
    status: row.status,
    reason: row.reason,
    summary: row.summary === null ? null : (JSON.parse(row.summary) as FileSummary),
    redrives: row.redrive,
    claimedAt: row.claimed_at,
    finishedAt: row.finished_at,
    processedAt: row.processed_at ?? null,
    resultName: row.result_name,
    disposedTo: row.disposed_to,
    x12Ack: row.x12_ack ?? null,
    prunedAt: row.pruned_at,
    lease: row.lease_owner === null ? null : { owner: row.lease_owner, token: row.lease_token, until: row.lease_until },
  };
}

/** The file as `port` sees it: the journal's connection, or a unit of work on it. */
export async function fileIn(c: OperatorContext, port: SqlPort, fileId: number): Promise<FileRecord> {
  const row = await port.get<FileRow>(c.q.file, [fileId]);
  if (!row) throw stateError(`file ${fileId} is not in the journal`);
  return toFile(row);
}
