import type { Statement } from 'better-sqlite3';
import { blockItemStatus, packedDocs } from './blocks.js';
import type { Db } from './db.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from './rows.js';
import type { ExportStatus, FileRecord, FileStatus, FileSummary, ItemRecord, ItemStatus, RequestStatus } from './types.js';

/**
 * Read queries of the operations console (src/console/): keyset pages that stay fast on a journal of
 * millions of rows (every page is an index range, never an OFFSET or a count of the whole table), plus the
 * operator-actions audit trail (schema migration 4).
 */

export interface FileFilter {
  status?: FileStatus;
  /** Drop names (a job reads one drop). */
  drop?: string;
  /** Mappings the job may use (files of the drop under other mappings belong to other jobs). */
  mappings?: readonly string[];
  /** Claimed at or after / before (ISO timestamps). */
  from?: string;
  to?: string;
  /** Part of the file name (case-insensitive). */
  name?: string;
  /** Files with an id below this one (the next page). */
  before?: number;
  limit: number;
}

/** One file of the console's list: the journal's file record without what only one file's page shows. */
export type FileListEntry = Pick<FileRecord,
  'fileId' | 'drop' | 'name' | 'mapping' | 'size' | 'status' | 'reason' | 'summary' | 'redrives' | 'claimedAt' | 'finishedAt'>;

export interface ExportFilter {
  workType?: string;
  status?: ExportStatus;
  from?: string;
  to?: string;
  name?: string;
  before?: number;
  limit: number;
}

/** One row of a file as the console lists it: the journal's item record, the file being the page's. */
export type RowView = Omit<ItemRecord, 'fileId'>;

export interface RowPage {
  rows: RowView[];
  /** The seq to pass as `after` for the next page; null when this was the last one. */
  next: number | null;
}

export interface OperatorAction {
  id: number;
  action: string;
  fileId: number | null;
  target: string | null;
  actor: string;
  via: string;
  detail: string | null;
  outcome: string;
  at: string;
}

export type NewOperatorAction = Omit<OperatorAction, 'id' | 'at'>;

interface BlockPageRow {
  request_id: number;
  first_seq: number;
  last_seq: number;
  docs: string;
  exceptions: number;
  status: RequestStatus;
  endpoint: string;
  attempt: number;
}

const FILE_COLUMNS = 'id, drop_name, name, mapping, size, status, reason, summary, redrive, claimed_at, finished_at';
const BLOCK_COLUMNS = 'b.request_id, b.first_seq, b.last_seq, b.docs, b.exceptions, r.status, r.endpoint, r.attempt';
/** Rows of a page the merged read looks at before it gives up finding more rows of a status (ok/pending/sent). */
const SCAN_BUDGET = 20_000;

/** The statements of the console's pages (exported for the EXPLAIN QUERY PLAN checks in test/console). */
export const CONSOLE_SQL = {
  attention: `SELECT ${ITEM_COLUMNS} FROM items INDEXED BY items_attention
    WHERE status IN ('error', 'uncertain') AND status = ? AND file_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  itemsOfStatus: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq > ? AND status = ? ORDER BY seq LIMIT ?`,
  items: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  // A block holding seqs on both sides of `after` (usually none or one), then blocks starting after it.
  straddling: `SELECT ${BLOCK_COLUMNS} FROM item_blocks b JOIN requests r ON r.id = b.request_id
    WHERE b.file_id = ? AND b.last_seq > ? AND b.first_seq <= ?`,
  blocksAfter: `SELECT ${BLOCK_COLUMNS} FROM item_blocks b INDEXED BY item_blocks_first_seq JOIN requests r ON r.id = b.request_id
    WHERE b.file_id = ? AND b.first_seq > ? ORDER BY b.first_seq LIMIT ?`,
  uncertain: `SELECT ${ITEM_COLUMNS} FROM items INDEXED BY items_attention
    WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND (file_id, seq) > (?, ?) ORDER BY file_id, seq LIMIT ?`,
} as const;

/** The file list's statement for the filters given: one per combination, so each uses the index that fits it. */
export function fileListSql(filter: Omit<FileFilter, 'limit'>): string {
  const where: string[] = [];
  if (filter.before !== undefined) where.push('id < @before');
  if (filter.status) where.push('status = @status');
  if (filter.drop) where.push('drop_name = @drop');
  if (filter.mappings) where.push('mapping IN (SELECT value FROM json_each(@mappings))');
  if (filter.from) where.push('claimed_at >= @from');
  if (filter.to) where.push('claimed_at < @to');
  if (filter.name) where.push('instr(lower(name), @name) > 0');
  return `SELECT ${FILE_COLUMNS} FROM files ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`;
}

export function createConsoleQueries(db: Db, now: () => string = () => new Date().toISOString()) {
  const cache = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
  const q = {
    attention: db.prepare(CONSOLE_SQL.attention),
    itemsOfStatus: db.prepare(CONSOLE_SQL.itemsOfStatus),
    items: db.prepare(CONSOLE_SQL.items),
    straddling: db.prepare(CONSOLE_SQL.straddling),
    blocksAfter: db.prepare(CONSOLE_SQL.blocksAfter),
    copied: db.prepare('SELECT seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ?').pluck(),
    results: db.prepare('SELECT results FROM requests WHERE id = ?').pluck(),
    uncertain: db.prepare(CONSOLE_SQL.uncertain),
    fileNames: db.prepare('SELECT name FROM files WHERE id = ?').pluck(),
    oldestFile: db.prepare('SELECT min(claimed_at) FROM files').pluck(),
    oldestExport: db.prepare('SELECT min(created_at) FROM exports').pluck(),
    insertAction: db.prepare(
      `INSERT INTO operator_actions (action, file_id, target, actor, via, detail, outcome, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    actions: db.prepare(`SELECT * FROM operator_actions WHERE id < ? ORDER BY id DESC LIMIT ?`),
    actionsOfFile: db.prepare(`SELECT * FROM operator_actions WHERE file_id = ? ORDER BY id DESC LIMIT ?`),
  };


  function listFiles(filter: FileFilter): FileListEntry[] {
    const params = {
      limit: filter.limit, before: filter.before, status: filter.status, drop: filter.drop, from: filter.from, to: filter.to,
      mappings: filter.mappings ? JSON.stringify(filter.mappings) : undefined, name: filter.name?.toLowerCase(),
    };
    const sql = fileListSql(filter);
    const used = Object.fromEntries(Object.entries(params).filter(([k, v]) => v !== undefined && sql.includes(`@${k}`)));
    return (prepared(sql).all(used) as Array<Record<string, never>>).map((r) => ({
      fileId: r.id, drop: r.drop_name, name: r.name, mapping: r.mapping, size: r.size, status: r.status, reason: r.reason,
      summary: r.summary === null ? null : (JSON.parse(r.summary) as FileSummary), redrives: r.redrive, claimedAt: r.claimed_at, finishedAt: r.finished_at,
    }));
  }

  function listExports(filter: ExportFilter) {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: filter.limit };
    const add = (sql: string, key: string, value: unknown) => {
      where.push(sql);
      params[key] = value;
    };
    if (filter.before !== undefined) add('id < @before', 'before', filter.before);
    if (filter.status) add('status = @status', 'status', filter.status);
    if (filter.workType) add('work_type = @workType', 'workType', filter.workType);
    if (filter.from) add('created_at >= @from', 'from', filter.from);
    if (filter.to) add('created_at < @to', 'to', filter.to);
    if (filter.name) add('instr(lower(file_name), @name) > 0', 'name', filter.name.toLowerCase());
    const sql = `SELECT * FROM exports ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT @limit`;
    return (prepared(sql).all(params) as Array<Record<string, never>>).map((r) => ({
      exportId: r.id as number, workType: r.work_type as string, fileName: r.file_name as string, kind: r.kind as string, policy: r.policy as string,
      status: r.status as ExportStatus, recordCount: r.record_count as number, createdAt: r.created_at as string,
      writtenAt: r.written_at as string | null, completedAt: r.completed_at as string | null,
    }));
  }

  const resultMaps = new Map<number, Map<number, unknown>>();
  function resultOf(requestId: number | null, seq: number): unknown {
    if (requestId === null) return null;
    let map = resultMaps.get(requestId);
    if (!map) {
      const text = q.results.get(requestId) as string | null | undefined;
      map = new Map(text ? (JSON.parse(text) as Array<[number, unknown]>) : []);
      if (resultMaps.size >= 16) resultMaps.delete(resultMaps.keys().next().value as number);
      resultMaps.set(requestId, map);
    }
    return map.get(seq) ?? null;
  }

  function fromItem(row: ItemRow): RowView {
    const item = toItem(row);
    const { fileId: _f, ...rest } = item;
    return { ...rest, result: item.status === 'ok' ? resultOf(item.requestId, item.seq) : null };
  }

  /** Block entries with seq > after, in seq order: at least `limit` of them when there are that many. */
  function blockEntries(fileId: number, after: number, limit: number): RowView[] {
    const found: RowView[] = [];
    const take = (block: BlockPageRow) => {
      const copied = block.exceptions > 0 ? new Set(q.copied.all(fileId, block.first_seq, block.last_seq) as number[]) : undefined;
      const status = blockItemStatus(block.status);
      for (const [seq, docKey, firstLine, lastLine, lines] of packedDocs(block)) {
        if (seq <= after || copied?.has(seq)) continue;
        found.push({
          seq, itemId: null, lines: lines ?? decodeLines(firstLine, lastLine, null), endpoint: block.endpoint, docKey, status, rejected: false,
          requestId: block.request_id, attempt: block.attempt, result: status === 'ok' ? resultOf(block.request_id, seq) : null,
          messages: [], hint: null, resolution: null, resolutionNote: null, resolvedBy: null, resolvedAt: null,
        });
      }
    };
    for (const block of q.straddling.all(fileId, after, after) as BlockPageRow[]) take(block);
    let from = after;
    for (;;) {
      const blocks = q.blocksAfter.all(fileId, from, 4) as BlockPageRow[];
      if (blocks.length === 0) break;
      // Blocks are read by first seq: once `limit` entries are below the next block's first seq, none can come before them.
      found.sort((a, b) => a.seq - b.seq);
      if (found.length >= limit && found[limit - 1].seq < blocks[0].first_seq) break;
      for (const block of blocks) take(block);
      from = blocks[blocks.length - 1].first_seq;
    }
    return found.sort((a, b) => a.seq - b.seq);
  }

  /** One page of a file's rows (one per document or rejected row, by first input line), optionally of one status. */
  function fileRows(fileId: number, options: { status?: ItemStatus; after?: number; limit: number }): RowPage {
    const { status, limit } = options;
    let after = options.after ?? -1;
    const page = (rows: RowView[]): RowPage => ({ rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1].seq : null });
    if (status === 'error' || status === 'uncertain') return page((q.attention.all(status, fileId, after, limit + 1) as ItemRow[]).map(fromItem));
    // Mapping-rejected and skipped rows live in items only (blocks hold what was sent).
    if (status === 'skipped') return page((q.itemsOfStatus.all(fileId, after, status, limit + 1) as ItemRow[]).map(fromItem));
    const rows: RowView[] = [];
    let scanned = 0;
    for (;;) {
      const items = (q.items.all(fileId, after, limit + 1) as ItemRow[]).map(fromItem);
      const merged = [...items, ...blockEntries(fileId, after, limit + 1)].sort((a, b) => a.seq - b.seq).slice(0, limit + 1);
      if (merged.length === 0) break;
      for (const row of merged) if (!status || row.status === status) rows.push(row);
      scanned += merged.length;
      after = merged[merged.length - 1].seq;
      if (rows.length > limit || merged.length <= limit) break;
      if (scanned >= SCAN_BUDGET) return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1].seq : after };
    }
    return page(rows);
  }

  /** Uncertain rows of every file with their hints, after (fileId, seq). */
  function uncertainRows(options: { afterFile?: number; afterSeq?: number; limit: number }) {
    const rows = (q.uncertain.all(options.afterFile ?? 0, options.afterSeq ?? -1, options.limit + 1) as ItemRow[]);
    const page = rows.slice(0, options.limit).map((row) => ({ fileId: row.file_id, file: q.fileNames.get(row.file_id) as string, ...fromItem(row) }));
    const last = rows.length > options.limit ? page[page.length - 1] : undefined;
    return { rows: page, next: last ? { fileId: last.fileId, seq: last.seq } : null };
  }

  function stats(path: string) {
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const oldest = [q.oldestFile.get() as string | null, q.oldestExport.get() as string | null].filter((v): v is string => v !== null).sort()[0] ?? null;
    return { path, bytes: pageCount * pageSize, oldestEntry: oldest };
  }

  function toAction(r: Record<string, never>): OperatorAction {
    return { id: r.id, action: r.action, fileId: r.file_id, target: r.target, actor: r.actor, via: r.via, detail: r.detail, outcome: r.outcome, at: r.at };
  }

  return {
    listFiles,
    listExports,
    fileRows,
    uncertainRows,
    stats,
    /** Records what an operator did (who, when, what came of it) in the audit trail. */
    recordAction: (action: NewOperatorAction): number =>
      Number(q.insertAction.run(action.action, action.fileId, action.target, action.actor, action.via, action.detail, action.outcome, now()).lastInsertRowid),
    listActions: (options: { before?: number; fileId?: number; limit: number }): OperatorAction[] =>
      ((options.fileId === undefined
        ? q.actions.all(options.before ?? Number.MAX_SAFE_INTEGER, options.limit)
        : q.actionsOfFile.all(options.fileId, options.limit)) as Array<Record<string, never>>).map(toAction),
  };
}

export type ConsoleQueries = ReturnType<typeof createConsoleQueries>;
