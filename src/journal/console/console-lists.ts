import { sqlList, type SqlDialect, type SqlPort, type SqlValue } from '../core/sql.js';
import { toEvent, type EventRow } from '../admin/reads.js';
import type { ExportStatus, FileSummary } from '../core/types.js';
import type {
  ExportFilter, ExportListEntry, FileEventEntry, FileFilter, FileLine, FileLineFilter, FileLinePage, FileListEntry,
} from './console-types.js';

/*
 * The console's lists: files, file events and exports newest first, each a keyset page (an index range, never an
 * OFFSET or a count of the whole table).
 */

const FILE_COLUMNS = 'id, drop_name, name, mapping, size, status, reason, summary, redrive, claimed_at, finished_at, processed_at, lease_owner';

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
    instance: r.lease_owner,
  }));
}

async function listFileEvents(sql: SqlPort, filter: FileLineFilter): Promise<FileEventEntry[]> {
  const list = fileEventListSql(sql.dialect, filter);
  return (await sql.all<EventRow & { original_name: string | null }>(list.sql, list.params)).map((r) => ({ ...toEvent(r), originalName: r.original_name }));
}

/**
 * The console's file list: files and file events (duplicates, refusals before a claim) newest first, as one keyset
 * page. Each stream is read by its own id past its own cursor and the two are merged by time (a file's claim, an
 * event's time), so a line is never skipped nor shown twice whatever the other stream holds.
 */
export async function listFileLines(sql: SqlPort, filter: FileLineFilter): Promise<FileLinePage> {
  const { status, beforeEvent: _e, ...rest } = filter;
  const files = status === 'duplicate' ? [] : await listFiles(sql, { ...rest, status, limit: filter.limit + 1 });
  const events = status && status !== 'rejected' && status !== 'duplicate' ? [] : await listFileEvents(sql, { ...filter, limit: filter.limit + 1 });
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

export async function listExports(sql: SqlPort, filter: ExportFilter): Promise<ExportListEntry[]> {
  const list = exportListSql(filter);
  return (await sql.all<Record<string, never>>(list.sql, list.params)).map((r) => ({
    exportId: r.id as number, workType: r.work_type as string, fileName: r.file_name as string, kind: r.kind as string, policy: r.policy as string,
    status: r.status as ExportStatus, recordCount: r.record_count as number, createdAt: r.created_at as string,
    writtenAt: r.written_at as string | null, completedAt: r.completed_at as string | null,
  }));
}
