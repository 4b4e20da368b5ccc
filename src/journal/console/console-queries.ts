import { blockItemStatus, packedDocs } from '../core/blocks.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from '../core/rows.js';
import { sqlList, type SqlDialect, type SqlPort, type SqlValue } from '../core/sql.js';
import { toEvent, type EventRow } from '../admin/reads.js';
import type { ExportStatus, FileSummary, ItemStatus, RequestStatus } from '../core/types.js';
import type {
  FileFilter, FileListEntry, FileLineFilter, FileEventEntry, FileLine, FileLinePage, ExportFilter, RowView, RowPage, OperatorAction, NewOperatorAction, ExportListEntry, FailedRowCounts, StoredAlert, NewAlert, UncertainRowPage,
} from './console-types.js';

/**
 * Read queries of the operations console (src/console/): keyset pages that stay fast on a journal of
 * millions of rows (every page is an index range, never an OFFSET or a count of the whole table), plus the
 * operator-actions audit trail (schema migration 4).
 */

export type * from './console-types.js';

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

const FILE_COLUMNS = 'id, drop_name, name, mapping, size, status, reason, summary, redrive, claimed_at, finished_at, processed_at';
const BLOCK_COLUMNS = 'b.request_id, b.first_seq, b.last_seq, b.docs, b.exceptions, r.status, r.endpoint, r.attempt';
/** Rows of a page the merged read looks at before it gives up finding more rows of a status (ok/pending/sent). */
const SCAN_BUDGET = 20_000;

/** The statements of the console's pages (exported for the EXPLAIN QUERY PLAN checks in test/console). */
export function consoleSql(dialect: SqlDialect) {
  // SQLite picks these indexes only when told; PostgreSQL's planner chooses for itself.
  const indexedBy = (index: string) => (dialect === 'sqlite' ? `INDEXED BY ${index}` : '');
  return {
    attention: `SELECT ${ITEM_COLUMNS} FROM items ${indexedBy('items_attention')}
      WHERE status IN ('error', 'uncertain') AND status = ? AND file_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    itemsOfStatus: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq > ? AND status = ? ORDER BY seq LIMIT ?`,
    items: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    // A block holding seqs on both sides of `after` (usually none or one), then blocks starting after it.
    straddling: `SELECT ${BLOCK_COLUMNS} FROM item_blocks b JOIN requests r ON r.id = b.request_id
      WHERE b.file_id = ? AND b.last_seq > ? AND b.first_seq <= ?`,
    blocksAfter: `SELECT ${BLOCK_COLUMNS} FROM item_blocks b ${indexedBy('item_blocks_first_seq')} JOIN requests r ON r.id = b.request_id
      WHERE b.file_id = ? AND b.first_seq > ? ORDER BY b.first_seq LIMIT ?`,
    uncertain: `SELECT ${ITEM_COLUMNS} FROM items ${indexedBy('items_attention')}
      WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND (file_id, seq) > (?, ?) ORDER BY file_id, seq LIMIT ?`,
    // What re-drive (retryable) would send again, and the failed rows it never sends: those the mapping rejected.
    failedRows: `SELECT coalesce(sum(CASE WHEN rejected = 0 AND body IS NOT NULL THEN 1 ELSE 0 END), 0) AS sendable,
      coalesce(sum(CASE WHEN rejected = 0 AND body IS NOT NULL THEN 0 ELSE 1 END), 0) AS unsendable
      FROM items ${indexedBy('items_attention')} WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ?`,
  } as const;
}

/** A statement and its positional parameters. */
export interface SqlQuery {
  sql: string;
  params: SqlValue[];
}

/** A filtered list, newest first: one statement per combination of filters, so each uses the index that fits it. */
class ListQuery {
  readonly #where: string[] = [];
  readonly #params: SqlValue[] = [];

  add(term: string, ...params: SqlValue[]): this {
    this.#where.push(term);
    this.#params.push(...params);
    return this;
  }

  /** Rows whose `column` holds `part`, ignoring case: `%`, `_` and `\` in it match only themselves. */
  contains(column: string, part: string): this {
    return this.add(`lower(${column}) LIKE ? ESCAPE '\\'`, `%${part.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`);
  }

  build(columns: string, table: string, limit: number, id = 'id'): SqlQuery {
    const where = this.#where.length ? `WHERE ${this.#where.join(' AND ')}` : '';
    return { sql: `SELECT ${columns} FROM ${table} ${where} ORDER BY ${id} DESC LIMIT ?`, params: [...this.#params, limit] };
  }
}

/** The file list's statement for the filters given. */
export function fileListSql(dialect: SqlDialect, filter: FileFilter): SqlQuery {
  const list = new ListQuery();
  if (filter.before !== undefined) list.add('id < ?', filter.before);
  if (filter.status) list.add('status = ?', filter.status);
  if (filter.drop) list.add('drop_name = ?', filter.drop);
  if (filter.mappings) list.add(`mapping IN (${sqlList(dialect, 'text')})`, JSON.stringify(filter.mappings));
  if (filter.from) list.add('claimed_at >= ?', filter.from);
  if (filter.to) list.add('claimed_at < ?', filter.to);
  if (filter.name) list.contains('name', filter.name);
  return list.build(FILE_COLUMNS, 'files', filter.limit);
}

/**
 * The file events of the file list, newest first by id (the primary key). A duplicate belongs to a job when its
 * original was read under one of the job's mappings; a file refused before its claim has no mapping, so it belongs
 * to every job of its drop.
 */
export function fileEventListSql(dialect: SqlDialect, filter: FileLineFilter): SqlQuery {
  const list = new ListQuery();
  if (filter.beforeEvent !== undefined) list.add('e.id < ?', filter.beforeEvent);
  if (filter.status) list.add('e.kind = ?', filter.status);
  if (filter.drop) list.add('e.drop_name = ?', filter.drop);
  if (filter.mappings) list.add(`(e.kind = 'rejected' OR o.mapping IN (${sqlList(dialect, 'text')}))`, JSON.stringify(filter.mappings));
  if (filter.from) list.add('e.at >= ?', filter.from);
  if (filter.to) list.add('e.at < ?', filter.to);
  if (filter.name) list.contains('e.name', filter.name);
  return list.build(`${EVENT_COLUMNS}, o.name AS original_name`, 'file_events e LEFT JOIN files o ON o.id = e.original_file_id', filter.limit, 'e.id');
}

const EVENT_COLUMNS = 'e.id, e.drop_name, e.name, e.kind, e.original_file_id, e.reason, e.at, e.result_name, e.disposed_to';

function exportListSql(filter: ExportFilter): SqlQuery {
  const list = new ListQuery();
  if (filter.before !== undefined) list.add('id < ?', filter.before);
  if (filter.status) list.add('status = ?', filter.status);
  if (filter.workType) list.add('work_type = ?', filter.workType);
  if (filter.from) list.add('created_at >= ?', filter.from);
  if (filter.to) list.add('created_at < ?', filter.to);
  if (filter.name) list.contains('file_name', filter.name);
  return list.build('*', 'exports', filter.limit);
}

/** Files newest first, one keyset page (the file list's files; the test hooks' consoleFiles, testing.ts). */
export async function listFiles(sql: SqlPort, filter: FileFilter): Promise<FileListEntry[]> {
  const list = fileListSql(sql.dialect, filter);
  return (await sql.all<Record<string, never>>(list.sql, list.params)).map((r) => ({
    fileId: r.id, drop: r.drop_name, name: r.name, mapping: r.mapping, size: r.size, status: r.status, reason: r.reason,
    summary: r.summary === null ? null : (JSON.parse(r.summary) as FileSummary), redrives: r.redrive, claimedAt: r.claimed_at, finishedAt: r.finished_at, processedAt: r.processed_at,
  }));
}

/**
 * The console's queries over a SqlPort. `storage` is the engine's word on the journal's size (file and WAL for
 * SQLite, the database for PostgreSQL): it is not something SQL both engines share can tell.
 */
export function createConsoleQueries(sql: SqlPort, now: () => string, storage: () => Promise<{ bytes: number }>) {
  const q = consoleSql(sql.dialect);

  async function listFileEvents(filter: FileLineFilter): Promise<FileEventEntry[]> {
    const list = fileEventListSql(sql.dialect, filter);
    return (await sql.all<EventRow & { original_name: string | null }>(list.sql, list.params)).map((r) => ({ ...toEvent(r), originalName: r.original_name }));
  }

  /**
   * The console's file list: files and file events (duplicates, refusals before a claim) newest first, as one keyset
   * page. Each stream is read by its own id past its own cursor and the two are merged by time (a file's claim, an
   * event's time), so a line is never skipped nor shown twice whatever the other stream holds.
   */
  async function listFileLines(filter: FileLineFilter): Promise<FileLinePage> {
    const { status, beforeEvent: _e, ...rest } = filter;
    const files = status === 'duplicate' ? [] : await listFiles(sql, { ...rest, status, limit: filter.limit + 1 });
    const events = status && status !== 'rejected' && status !== 'duplicate' ? [] : await listFileEvents({ ...filter, limit: filter.limit + 1 });
    // A merge, not a sort: what a page takes of each stream is a prefix of it (in id order), so its cursor is exact.
    const lines: FileLine[] = [];
    let f = 0;
    let e = 0;
    while (lines.length <= filter.limit && (f < files.length || e < events.length)) {
      const file = files[f];
      const event = events[e];
      if (file && (!event || file.claimedAt >= event.at)) {
        lines.push({ file });
        f++;
      } else {
        lines.push({ event: event! });
        e++;
      }
    }
    if (lines.length <= filter.limit) return { lines, next: null };
    const page = lines.slice(0, filter.limit);
    const lastFile = page.findLast((line) => line.file)?.file;
    const lastEvent = page.findLast((line) => line.event)?.event;
    return { lines: page, next: { before: lastFile?.fileId ?? filter.before, beforeEvent: lastEvent?.eventId ?? filter.beforeEvent } };
  }

  async function listExports(filter: ExportFilter): Promise<ExportListEntry[]> {
    const list = exportListSql(filter);
    return (await sql.all<Record<string, never>>(list.sql, list.params)).map((r) => ({
      exportId: r.id as number, workType: r.work_type as string, fileName: r.file_name as string, kind: r.kind as string, policy: r.policy as string,
      status: r.status as ExportStatus, recordCount: r.record_count as number, createdAt: r.created_at as string,
      writtenAt: r.written_at as string | null, completedAt: r.completed_at as string | null,
    }));
  }

  const resultMaps = new Map<number, Map<number, unknown>>();
  /** The results of one request by seq (the last 16 requests read are kept: a page's rows share few requests). */
  async function resultsOf(requestId: number): Promise<Map<number, unknown>> {
    let map = resultMaps.get(requestId);
    if (!map) {
      const text = (await sql.get<{ results: string | null }>('SELECT results FROM requests WHERE id = ?', [requestId]))?.results;
      map = new Map(text ? (JSON.parse(text) as Array<[number, unknown]>) : []);
      if (resultMaps.size >= 16) resultMaps.delete(resultMaps.keys().next().value as number);
      resultMaps.set(requestId, map);
    }
    return map;
  }

  async function fromItems(rows: readonly ItemRow[]): Promise<RowView[]> {
    const views: RowView[] = [];
    for (const row of rows) {
      const { fileId: _f, ...item } = toItem(row);
      const results = item.status === 'ok' && item.requestId !== null ? await resultsOf(item.requestId) : undefined;
      views.push({ ...item, result: results?.get(item.seq) ?? null });
    }
    return views;
  }

  /** Block entries with seq > after, in seq order: at least `limit` of them when there are that many. */
  async function blockEntries(fileId: number, after: number, limit: number): Promise<RowView[]> {
    const found: RowView[] = [];
    const take = async (block: BlockPageRow) => {
      const copied = block.exceptions > 0
        ? new Set((await sql.values<[number]>('SELECT seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ?', [fileId, block.first_seq, block.last_seq])).map((r) => r[0]))
        : undefined;
      const status = blockItemStatus(block.status);
      const results = status === 'ok' ? await resultsOf(block.request_id) : undefined;
      for (const [seq, docKey, firstLine, lastLine, lines] of packedDocs(block)) {
        if (seq <= after || copied?.has(seq)) continue;
        found.push({
          seq, itemId: null, lines: lines ?? decodeLines(firstLine, lastLine, null), endpoint: block.endpoint, docKey, status, rejected: false,
          requestId: block.request_id, attempt: block.attempt, result: results?.get(seq) ?? null,
          messages: [], hint: null, resolution: null, resolutionNote: null, resolvedBy: null, resolvedAt: null,
        });
      }
    };
    for (const block of await sql.all<BlockPageRow>(q.straddling, [fileId, after, after])) await take(block);
    let from = after;
    for (;;) {
      const blocks = await sql.all<BlockPageRow>(q.blocksAfter, [fileId, from, 4]);
      if (blocks.length === 0) break;
      // Blocks are read by first seq: once `limit` entries are below the next block's first seq, none can come before them.
      found.sort((a, b) => a.seq - b.seq);
      if (found.length >= limit && found[limit - 1].seq < blocks[0].first_seq) break;
      for (const block of blocks) await take(block);
      from = blocks[blocks.length - 1].first_seq;
    }
    return found.sort((a, b) => a.seq - b.seq);
  }

  /** One page of a file's rows (one per document or rejected row, by first input line), optionally of one status. */
  async function fileRows(fileId: number, options: { status?: ItemStatus; after?: number; limit: number }): Promise<RowPage> {
    const { status, limit } = options;
    let after = options.after ?? -1;
    const page = (rows: RowView[]): RowPage => ({ rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1].seq : null });
    if (status === 'error' || status === 'uncertain') return page(await fromItems(await sql.all<ItemRow>(q.attention, [status, fileId, after, limit + 1])));
    // Mapping-rejected and skipped rows live in items only (blocks hold what was sent).
    if (status === 'skipped') return page(await fromItems(await sql.all<ItemRow>(q.itemsOfStatus, [fileId, after, status, limit + 1])));
    const rows: RowView[] = [];
    let scanned = 0;
    for (;;) {
      const items = await fromItems(await sql.all<ItemRow>(q.items, [fileId, after, limit + 1]));
      const merged = [...items, ...(await blockEntries(fileId, after, limit + 1))].sort((a, b) => a.seq - b.seq).slice(0, limit + 1);
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
  async function uncertainRows(options: { afterFile?: number; afterSeq?: number; limit: number }): Promise<UncertainRowPage> {
    const rows = await sql.all<ItemRow>(q.uncertain, [options.afterFile ?? 0, options.afterSeq ?? -1, options.limit + 1]);
    const views = await fromItems(rows.slice(0, options.limit));
    const names = new Map<number, string>();
    const page: Array<{ fileId: number; file: string } & RowView> = [];
    for (const [i, view] of views.entries()) {
      const fileId = rows[i].file_id;
      let file = names.get(fileId);
      if (file === undefined) {
        file = (await sql.get<{ name: string }>('SELECT name FROM files WHERE id = ?', [fileId]))!.name;
        names.set(fileId, file);
      }
      page.push({ fileId, file, ...view });
    }
    const last = rows.length > options.limit ? page[page.length - 1] : undefined;
    return { rows: page, next: last ? { fileId: last.fileId, seq: last.seq } : null };
  }

  /** A file's failed rows: those a re-drive sends again, and those it never can (rejected by the mapping). */
  async function failedRows(fileId: number): Promise<FailedRowCounts> {
    const row = await sql.get<{ sendable: number; unsendable: number }>(q.failedRows, [fileId]);
    return { sendable: Number(row?.sendable ?? 0), unsendable: Number(row?.unsendable ?? 0) };
  }

  const alertSql = {
    // One open alert per kind and subject (the partial unique index alerts_open): a repeat counts, it is not a new row.
    raise: `INSERT INTO alerts (kind, subject, job, file_id, message, times, first_seen, last_seen) VALUES (?, ?, ?, ?, ?, 1, ?, ?)
      ON CONFLICT (kind, subject) WHERE acknowledged_at IS NULL
      DO UPDATE SET times = alerts.times + 1, last_seen = excluded.last_seen, message = excluded.message RETURNING id`,
    open: 'SELECT * FROM alerts WHERE acknowledged_at IS NULL ORDER BY last_seen DESC, id DESC LIMIT ?',
    acknowledged: 'SELECT * FROM alerts WHERE acknowledged_at IS NOT NULL AND id < ? ORDER BY id DESC LIMIT ?',
    one: 'SELECT * FROM alerts WHERE id = ?',
    acknowledge: 'UPDATE alerts SET acknowledged_by = ?, acknowledged_at = ? WHERE id = ? AND acknowledged_at IS NULL',
  };
  const toAlert = (r: Record<string, never>): StoredAlert => ({
    id: r.id, kind: r.kind, subject: r.subject, job: r.job, fileId: r.file_id, message: r.message, times: Number(r.times),
    firstSeen: r.first_seen, lastSeen: r.last_seen, acknowledgedBy: r.acknowledged_by, acknowledgedAt: r.acknowledged_at,
  });

  /** Records an occurrence: a new open alert, or one more of the open alert of that kind and subject. Resolves its id. */
  async function raiseAlert(alert: NewAlert): Promise<number> {
    const at = now();
    const row = await sql.get<{ id: number }>(alertSql.raise, [alert.kind, alert.subject, alert.job ?? null, alert.fileId ?? null, alert.message, at, at]);
    return row!.id;
  }

  /** Open alerts (newest seen first), then the acknowledged ones newest first (`before`: the next page of those). */
  async function listAlerts(options: { before?: number; limit: number }): Promise<{ open: StoredAlert[]; acknowledged: StoredAlert[] }> {
    return {
      open: (await sql.all<Record<string, never>>(alertSql.open, [options.limit])).map(toAlert),
      acknowledged: (await sql.all<Record<string, never>>(alertSql.acknowledged, [options.before ?? Number.MAX_SAFE_INTEGER, options.limit])).map(toAlert),
    };
  }

  /** An operator saw to it: false when it was acknowledged already (or is not there). */
  async function acknowledgeAlert(id: number, by: string): Promise<boolean> {
    return (await sql.run(alertSql.acknowledge, [by, now(), id])) > 0;
  }

  async function getAlert(id: number): Promise<StoredAlert | undefined> {
    const row = await sql.get<Record<string, never>>(alertSql.one, [id]);
    return row && toAlert(row);
  }

  async function stats(path: string) {
    const oldest = async (column: string, table: string) => (await sql.get<{ at: string | null }>(`SELECT min(${column}) AS at FROM ${table}`))?.at ?? null;
    const entries = [await oldest('claimed_at', 'files'), await oldest('created_at', 'exports')];
    return { path, bytes: (await storage()).bytes, oldestEntry: entries.filter((v): v is string => v !== null).sort()[0] ?? null };
  }

  function toAction(r: Record<string, never>): OperatorAction {
    return { id: r.id, action: r.action, fileId: r.file_id, target: r.target, actor: r.actor, via: r.via, detail: r.detail, outcome: r.outcome, at: r.at };
  }

  return {
    listFileLines,
    listExports,
    fileRows,
    uncertainRows,
    failedRows,
    raiseAlert,
    listAlerts,
    acknowledgeAlert,
    getAlert,
    stats,
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
