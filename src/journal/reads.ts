import { statSync } from 'node:fs';
import type { Db } from './db.js';

export type FileEventKind = 'duplicate' | 'rejected';

/** A file the bridge met but did not claim: a re-drop of content processed before, or a file rejected before a claim. */
export interface FileEvent {
  eventId: number;
  drop: string;
  name: string;
  kind: FileEventKind;
  /** The journal file whose content this one repeats (duplicates). */
  originalFileId: number | null;
  reason: string | null;
  at: string;
  /** A duplicate's own result file (`skipped` rows saying so). */
  resultName: string | null;
  /** Where the re-dropped file went; null while it has not left the inbox (a crash stopped its move). */
  disposedTo: string | null;
}

export interface NewFileEvent {
  drop: string;
  name: string;
  kind: FileEventKind;
  originalFileId?: number | null;
  reason?: string | null;
  resultName?: string | null;
}

/** Size and age of the journal: for metrics, `wisbridge status` and the console. */
export interface JournalStats {
  path: string;
  /** The database file plus its WAL, in bytes. */
  bytes: number;
  /** Pages free inside the file (left by a prune; reused by later writes, the file does not shrink). */
  freeBytes: number;
  files: number;
  prunedFiles: number;
  /** The oldest thing the journal remembers: a file claimed, an export recorded, a file event. */
  oldestEntry: string | null;
  /** The oldest file whose rows are still kept (not pruned). */
  oldestDetail: string | null;
}

interface EventRow {
  id: number;
  drop_name: string;
  name: string;
  kind: FileEventKind;
  original_file_id: number | null;
  reason: string | null;
  at: string;
  result_name: string | null;
  disposed_to: string | null;
}

const toEvent = (row: EventRow): FileEvent => ({
  eventId: row.id, drop: row.drop_name, name: row.name, kind: row.kind, originalFileId: row.original_file_id, reason: row.reason, at: row.at,
  resultName: row.result_name, disposedTo: row.disposed_to,
});

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Reads for operators that the hot path never needs: file events, counts, the journal's size and age. */
export function createReads(db: Db, now: () => string, path: string) {
  const q = {
    insertEvent: db.prepare(
      `INSERT INTO file_events (drop_name, name, kind, original_file_id, reason, at, result_name, disposed_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    unfinishedDuplicate: db.prepare(
      `SELECT * FROM file_events WHERE name = ? AND drop_name = ? AND kind = 'duplicate' AND original_file_id IS ? AND disposed_to IS NULL
       ORDER BY id DESC LIMIT 1`),
    eventDisposedTo: db.prepare('UPDATE file_events SET disposed_to = ? WHERE id = ?'),
    recentEvents: db.prepare('SELECT * FROM file_events ORDER BY at DESC, id DESC LIMIT ?'),
    eventsNamed: db.prepare('SELECT * FROM file_events WHERE name = ? ORDER BY at DESC, id DESC LIMIT ?'),
    countEvents: db.prepare('SELECT count(*) FROM file_events').pluck(),
    countFiles: db.prepare('SELECT count(*) FROM files').pluck(),
    countPruned: db.prepare('SELECT count(*) FROM files WHERE pruned_at IS NOT NULL').pluck(),
    countExports: db.prepare('SELECT count(*) FROM exports').pluck(),
    oldest: db.prepare(
      `SELECT min(at) FROM (SELECT min(claimed_at) AS at FROM files UNION ALL SELECT min(created_at) FROM exports
       UNION ALL SELECT min(at) FROM file_events)`).pluck(),
    // Walks files_claimed from the oldest: stops at the first file that still has its rows.
    oldestDetail: db.prepare('SELECT claimed_at FROM files WHERE pruned_at IS NULL ORDER BY claimed_at LIMIT 1').pluck(),
    pageSize: db.prepare('PRAGMA page_size').pluck(),
    freePages: db.prepare('PRAGMA freelist_count').pluck(),
  };

  return {
    /** Records a file met but not claimed (duplicate, or rejected before a claim), for the recent list. */
    recordFileEvent: (event: NewFileEvent): FileEvent => {
      const at = now();
      // Only a duplicate leaves the inbox after its event is recorded; a file rejected unread is recorded once moved.
      const disposedTo = event.kind === 'duplicate' ? null : 'unknown';
      const eventId = Number(q.insertEvent.run(
        event.drop, event.name, event.kind, event.originalFileId ?? null, event.reason ?? null, at, event.resultName ?? null, disposedTo,
      ).lastInsertRowid);
      return {
        eventId, drop: event.drop, name: event.name, kind: event.kind, originalFileId: event.originalFileId ?? null,
        reason: event.reason ?? null, at, resultName: event.resultName ?? null, disposedTo,
      };
    },
    /** A duplicate of that name on that drop whose file never left the inbox (a crash in its move): finished, not repeated. */
    unfinishedDuplicate: (drop: string, name: string, originalFileId: number): FileEvent | undefined => {
      const row = q.unfinishedDuplicate.get(name, drop, originalFileId) as EventRow | undefined;
      return row && toEvent(row);
    },
    /** `archive/NAME` once a duplicate has left its inbox. */
    recordEventDisposition: (eventId: number, where: string): void => {
      q.eventDisposedTo.run(where, eventId);
    },
    recentFileEvents: (limit: number): FileEvent[] => (q.recentEvents.all(limit) as EventRow[]).map(toEvent),
    /** The latest events of files of that name (an operator asking after a file that was never claimed). */
    fileEventsNamed: (name: string, limit = 1): FileEvent[] => (q.eventsNamed.all(name, limit) as EventRow[]).map(toEvent),
    countFileEvents: (): number => q.countEvents.get() as number,
    countFiles: (): number => q.countFiles.get() as number,
    countExports: (): number => q.countExports.get() as number,
    journalStats: (): JournalStats => ({
      path,
      bytes: fileBytes(path) + fileBytes(`${path}-wal`),
      freeBytes: (q.freePages.get() as number) * (q.pageSize.get() as number),
      files: q.countFiles.get() as number,
      prunedFiles: q.countPruned.get() as number,
      oldestEntry: (q.oldest.get() as string | null) ?? null,
      oldestDetail: (q.oldestDetail.get() as string | undefined) ?? null,
    }),
  };
}
