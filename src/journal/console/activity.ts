import { sqlList, type SqlPort } from '../core/sql.js';
import type { FileSummary } from '../core/types.js';

/** One bucket (an hour, or a day) of what the bridge did. */
export interface ActivityBucket {
  /** Its start, ISO (UTC). */
  start: string;
  files: { done: number; failed: number; rejected: number; processing: number };
  rows: { ok: number; error: number; uncertain: number; skipped: number };
  /** Export records handed over (written to work lists). */
  exportRecords: number;
  /** Uncertain rows still open at the bucket's end (from the open ones now, back through new and resolved ones). */
  uncertainBacklog: number;
}

export interface ActivityQuery {
  /** The first bucket's start (ISO, on a bucket boundary) and the bucket count. */
  from: string;
  buckets: number;
  unit: 'hour' | 'day';
  /** A job's files: its drop and mappings; its export work type. */
  drop?: string;
  mappings?: readonly string[];
  workType?: string;
}

const UNIT_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/**
 * What the charts draw, from the journal: files and rows by status per bucket (files counted when claimed, rows
 * from each file's summary), export records per bucket, and the uncertain backlog. Grouped by the first 13 (hour)
 * or 10 (day) characters of the ISO timestamps, which both engines store as text: the same SQL on SQLite and
 * PostgreSQL, each an index range (files_claimed, exports by created_at).
 */
export async function activity(sql: SqlPort, query: ActivityQuery): Promise<ActivityBucket[]> {
  const width = query.unit === 'hour' ? 13 : 10;
  const step = UNIT_MS[query.unit];
  const start = Date.parse(query.from);
  const buckets: ActivityBucket[] = Array.from({ length: query.buckets }, (_, i) => ({
    start: new Date(start + i * step).toISOString(),
    files: { done: 0, failed: 0, rejected: 0, processing: 0 },
    rows: { ok: 0, error: 0, uncertain: 0, skipped: 0 },
    exportRecords: 0,
    uncertainBacklog: 0,
  }));
  const index = new Map(buckets.map((b, i) => [b.start.slice(0, width), i]));
  const params: Array<string | number> = [query.from];
  let where = 'claimed_at >= ?';
  if (query.drop !== undefined) {
    where += ' AND drop_name = ?';
    params.push(query.drop);
  }
  if (query.mappings !== undefined) {
    where += ` AND mapping IN (${sqlList(sql.dialect, 'text')})`;
    params.push(JSON.stringify(query.mappings));
  }
  const files = await sql.values<[string, string, string | null]>(
    `SELECT substr(claimed_at, 1, ${width}) AS bucket, status, summary FROM files WHERE ${where}`, params);
  for (const [bucket, status, summary] of files) {
    const b = buckets[index.get(bucket) ?? -1];
    if (!b) continue;
    if (status in b.files) b.files[status as keyof ActivityBucket['files']] += 1;
    if (summary === null) continue;
    const s = JSON.parse(summary) as FileSummary;
    b.rows.ok += s.ok ?? 0;
    b.rows.error += s.error ?? 0;
    b.rows.uncertain += s.uncertain ?? 0;
    b.rows.skipped += s.skipped ?? 0;
  }
  const exportParams: Array<string | number> = [query.from];
  let exportWhere = 'created_at >= ?';
  if (query.workType !== undefined) {
    exportWhere += ' AND work_type = ?';
    exportParams.push(query.workType);
  } else if (query.drop !== undefined) {
    exportWhere += ' AND 1 = 0'; // an inbound job hands over no export records
  }
  const exports = await sql.values<[string, number]>(
    `SELECT substr(created_at, 1, ${width}) AS bucket, coalesce(sum(record_count), 0) AS n FROM exports WHERE ${exportWhere} GROUP BY substr(created_at, 1, ${width})`,
    exportParams);
  for (const [bucket, n] of exports) {
    const b = buckets[index.get(bucket) ?? -1];
    if (b) b.exportRecords += Number(n);
  }
  // The backlog now, walked back: at the start of a bucket it was its end's less the rows that became uncertain in
  // it (files claimed in it: rows uncertain still, and rows resolved since) plus the rows resolved in it.
  const fileFilter = where.replace('claimed_at >= ?', '1 = 1').replace(/\b(drop_name|mapping)\b/g, 'f.$1');
  const jobParams = params.slice(1);
  // Two statements, not an OR: SQLite uses the partial index items_attention only for the plain condition.
  const attention = `SELECT count(*) AS n FROM items i WHERE i.status IN ('error', 'uncertain') AND i.status = 'uncertain'`;
  const open = Number((await (jobParams.length === 0
    ? sql.get<{ n: number }>(attention)
    : sql.get<{ n: number }>(`${attention} AND i.file_id IN (SELECT f.id FROM files f WHERE ${fileFilter})`, jobParams)))?.n ?? 0);
  const resolved = await sql.values<[string, number]>(
    `SELECT substr(i.resolved_at, 1, ${width}) AS bucket, count(*) AS n FROM items i JOIN files f ON f.id = i.file_id
      WHERE i.resolved_at IS NOT NULL AND i.resolved_at >= ? AND ${fileFilter} GROUP BY substr(i.resolved_at, 1, ${width})`, [query.from, ...jobParams]);
  const resolvedLater = await sql.values<[string, number]>(
    `SELECT substr(f.claimed_at, 1, ${width}) AS bucket, count(*) AS n FROM files f JOIN items i ON i.file_id = f.id
      WHERE f.claimed_at >= ? AND ${fileFilter} AND i.resolved_at IS NOT NULL GROUP BY substr(f.claimed_at, 1, ${width})`, [query.from, ...jobParams]);
  const resolvedIn = new Map(resolved.map(([bucket, n]) => [bucket, Number(n)]));
  const enteredLater = new Map(resolvedLater.map(([bucket, n]) => [bucket, Number(n)]));
  let backlog = open;
  for (let i = buckets.length - 1; i >= 0; i--) {
    const key = buckets[i].start.slice(0, width);
    buckets[i].uncertainBacklog = Math.max(0, backlog);
    backlog = backlog - buckets[i].rows.uncertain - (enteredLater.get(key) ?? 0) + (resolvedIn.get(key) ?? 0);
  }
  return buckets;
}
