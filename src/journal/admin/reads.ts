import type { SqlPort } from '../core/sql.js';

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

/** A re-drop met by an instance: the duplicate event its handling claims (ClaimsAndRequests.claimDuplicate). */
export interface NewDuplicate {
  drop: string;
  name: string;
  originalFileId: number;
  reason: string;
  /** A free result file name, taken when this claim records the event (an unfinished event keeps its own). */
  resultName: string;
}

/**
 * new: this instance recorded the event and handles the re-drop; resume: an unfinished event of that re-drop (its
 * handler stopped before the file left the inbox) is finished here under its names; busy: another instance handles it now.
 */
export type DuplicateClaim = { status: 'new' | 'resume'; event: FileEvent } | { status: 'busy'; eventId: number; owner: string };

/** Where the journal's engine keeps it, and how much room it takes: the engine measures it. */
export interface StorageStats {
  /** The database file (SQLite), or which database of which server (PostgreSQL). */
  location: string;
  bytes: number;
  /** Room inside that storage that later writes reuse (left by a prune). */
  freeBytes: number;
}

/** Size and age of the journal: for metrics, `wisbridge status` and the console. */
export interface JournalStats {
  /** StorageStats.location. */
  path: string;
  /** What the journal takes in storage, in bytes (SQLite: the database file plus its WAL). */
  bytes: number;
  /** Room free inside that storage (left by a prune; reused by later writes, the file does not shrink). */
  freeBytes: number;
  files: number;
  prunedFiles: number;
  /** The oldest thing the journal remembers: a file claimed, an export recorded, a file event. */
  oldestEntry: string | null;
  /** The oldest file whose rows are still kept (not pruned). */
  oldestDetail: string | null;
}

export interface EventRow {
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

export const toEvent = (row: EventRow): FileEvent => ({
  eventId: row.id, drop: row.drop_name, name: row.name, kind: row.kind, originalFileId: row.original_file_id, reason: row.reason, at: row.at,
  resultName: row.result_name, disposedTo: row.disposed_to,
});

/** Reads for operators that the hot path never needs: file events, counts, the journal's size and age. */
export function createReads(sql: SqlPort, now: () => string, storage: () => Promise<StorageStats>) {
  const q = {
    insertEvent: `INSERT INTO file_events (drop_name, name, kind, original_file_id, reason, at, result_name, disposed_to)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    recentEvents: 'SELECT * FROM file_events ORDER BY at DESC, id DESC LIMIT ?',
    eventsNamed: 'SELECT * FROM file_events WHERE name = ? ORDER BY at DESC, id DESC LIMIT ?',
    countEvents: 'SELECT count(*) AS n FROM file_events',
    countFiles: 'SELECT count(*) AS n FROM files',
    countPruned: 'SELECT count(*) AS n FROM files WHERE pruned_at IS NOT NULL',
    countExports: 'SELECT count(*) AS n FROM exports',
    oldest: `SELECT min(at) AS at FROM (SELECT min(claimed_at) AS at FROM files UNION ALL SELECT min(created_at) FROM exports
      UNION ALL SELECT min(at) FROM file_events) AS firsts`,
    // Walks files_claimed from the oldest: stops at the first file that still has its rows.
    oldestDetail: 'SELECT claimed_at AS at FROM files WHERE pruned_at IS NULL ORDER BY claimed_at LIMIT 1',
  };
  const count = async (query: string): Promise<number> => (await sql.get<{ n: number }>(query))?.n ?? 0;
  const instant = async (query: string): Promise<string | null> => (await sql.get<{ at: string | null }>(query))?.at ?? null;

  return {
    /** Records a file met but not claimed (duplicate, or rejected before a claim), for the recent list. */
    recordFileEvent: async (event: NewFileEvent): Promise<FileEvent> => {
      const at = now();
      // Only a duplicate leaves the inbox after its event is recorded; a file rejected unread is recorded once moved.
      const disposedTo = event.kind === 'duplicate' ? null : 'unknown';
      const row = await sql.get<{ id: number }>(q.insertEvent, [
        event.drop, event.name, event.kind, event.originalFileId ?? null, event.reason ?? null, at, event.resultName ?? null, disposedTo,
      ]);
      return {
        eventId: row!.id, drop: event.drop, name: event.name, kind: event.kind, originalFileId: event.originalFileId ?? null,
        reason: event.reason ?? null, at, resultName: event.resultName ?? null, disposedTo,
      };
    },
    recentFileEvents: async (limit: number): Promise<FileEvent[]> => (await sql.all<EventRow>(q.recentEvents, [limit])).map(toEvent),
    /** The latest events of files of that name (an operator asking after a file that was never claimed). */
    fileEventsNamed: async (name: string, limit = 1): Promise<FileEvent[]> =>
      (await sql.all<EventRow>(q.eventsNamed, [name, limit])).map(toEvent),
    countFileEvents: (): Promise<number> => count(q.countEvents),
    countFiles: (): Promise<number> => count(q.countFiles),
    countExports: (): Promise<number> => count(q.countExports),
    journalStats: async (): Promise<JournalStats> => {
      const { location, bytes, freeBytes } = await storage();
      return {
        path: location,
        bytes,
        freeBytes,
        files: await count(q.countFiles),
        prunedFiles: await count(q.countPruned),
        oldestEntry: await instant(q.oldest),
        oldestDetail: await instant(q.oldestDetail),
      };
    },
  };
}
