import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Db } from './db.js';
import type { FileSummary } from './types.js';

export interface PruneOptions {
  /** Files finished before this instant (ISO 8601) are pruned; file events before it are dropped. */
  olderThan: string;
  /** Stops between two chunks (shutdown); what was pruned stays pruned, the rest waits for the next prune. */
  signal?: AbortSignal;
}

export interface PruneReport {
  /** Files whose rows, blocks and requests were dropped. */
  files: number;
  /** Old finished files kept because they still have open rows (uncertain, or a request pending or sent). */
  keptOpen: number;
  items: number;
  blocks: number;
  requests: number;
  events: number;
}

/** Rows deleted per transaction: each commit is short, and the event loop gets a turn between two. */
const ROW_CHUNK = 5000;
/** Item blocks hold a whole request's bodies each: fewer per transaction. */
const BLOCK_CHUNK = 10;
const FILE_PAGE = 200;
const DRAINING = 'prune:draining';

/**
 * Journal retention: a finished file without open rows loses its items, item blocks, history and requests
 * (bodies and results) but keeps its row in `files` — checksum, name, status, summary — so the same content
 * dropped again is still a duplicate. Deletes run in bounded chunks, one transaction each; the file is marked
 * first (a re-drive of it is refused from then on), and a prune cut short finishes the file next time.
 */
export function createPrune(db: Db, now: () => string, fileSummary: (fileId: number) => FileSummary) {
  const q = {
    candidates: db.prepare(
      `SELECT f.id FROM files f WHERE f.id > ? AND f.status IN ('done', 'failed', 'rejected') AND f.finished_at < ?
         AND f.pruned_at IS NULL ORDER BY f.id LIMIT ?`).pluck(),
    // The file being drained, so a prune cut short (shutdown, crash) finishes it first next time.
    getDraining: db.prepare(`SELECT value FROM cursors WHERE key = '${DRAINING}'`).pluck(),
    setDraining: db.prepare(
      `INSERT INTO cursors (key, value, updated_at) VALUES ('${DRAINING}', ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`),
    clearDraining: db.prepare(`DELETE FROM cursors WHERE key = '${DRAINING}'`),
    open: db.prepare(
      `SELECT EXISTS (SELECT 1 FROM items INDEXED BY items_attention WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND file_id = ?)
         OR EXISTS (SELECT 1 FROM requests WHERE file_id = ? AND status IN ('pending', 'sent'))`).pluck(),
    prunedAt: db.prepare('SELECT pruned_at FROM files WHERE id = ?').pluck(),
    requestCount: db.prepare('SELECT count(*) FROM requests WHERE file_id = ?').pluck(),
    mark: db.prepare(
      `UPDATE files SET pruned_at = ?, pruned_requests = ?, summary = coalesce(summary, ?) WHERE id = ? AND pruned_at IS NULL
         AND status IN ('done', 'failed', 'rejected')`),
    history: db.prepare(
      `DELETE FROM item_history WHERE item_id IN (SELECT id FROM items WHERE file_id = ? ORDER BY seq LIMIT ?)`),
    items: db.prepare(`DELETE FROM items WHERE id IN (SELECT id FROM items WHERE file_id = ? ORDER BY seq LIMIT ?)`),
    blocks: db.prepare(
      `DELETE FROM item_blocks WHERE request_id IN (SELECT request_id FROM item_blocks WHERE file_id = ? ORDER BY last_seq LIMIT ?)`),
    requests: db.prepare(`DELETE FROM requests WHERE id IN (SELECT id FROM requests WHERE file_id = ? ORDER BY id LIMIT ?)`),
    events: db.prepare(`DELETE FROM file_events WHERE id IN (SELECT id FROM file_events WHERE at < ? ORDER BY at LIMIT ?)`),
  };

  /** Marks the file pruned unless it has open rows; true when its detail is to be dropped. */
  const markTx = db.transaction((fileId: number): 'prune' | 'open' => {
    if (q.prunedAt.get(fileId) !== null) return 'prune';
    if (q.open.get(fileId, fileId) === 1) return 'open';
    const at = now();
    q.mark.run(at, q.requestCount.get(fileId), JSON.stringify(fileSummary(fileId)), fileId);
    q.setDraining.run(String(fileId), at);
    return 'prune';
  });

  const chunk = db.transaction((stmt: 'items' | 'blocks' | 'requests' | 'events', key: number | string): number => {
    if (stmt === 'items') {
      q.history.run(key, ROW_CHUNK);
      return q.items.run(key, ROW_CHUNK).changes;
    }
    if (stmt === 'blocks') return q.blocks.run(key, BLOCK_CHUNK).changes;
    if (stmt === 'requests') return q.requests.run(key, ROW_CHUNK).changes;
    return q.events.run(key, ROW_CHUNK).changes;
  });

  async function drain(stmt: 'items' | 'blocks' | 'requests' | 'events', key: number | string, signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const n = chunk.immediate(stmt, key);
      total += n;
      await nextTurn();
      if (n === 0) return total;
    }
  }

  async function prune(options: PruneOptions): Promise<PruneReport> {
    const report: PruneReport = { files: 0, keptOpen: 0, items: 0, blocks: 0, requests: 0, events: 0 };
    const { signal } = options;
    const drainFile = async (fileId: number): Promise<boolean> => {
      report.items += await drain('items', fileId, signal);
      report.blocks += await drain('blocks', fileId, signal);
      report.requests += await drain('requests', fileId, signal);
      if (signal?.aborted) return false;
      q.clearDraining.run();
      return true;
    };
    const leftover = q.getDraining.get() as string | undefined;
    if (leftover !== undefined && !(await drainFile(Number(leftover)))) return report;
    let after = 0;
    for (;;) {
      const ids = q.candidates.all(after, options.olderThan, FILE_PAGE) as number[];
      for (const fileId of ids) {
        if (signal?.aborted) return report;
        after = fileId;
        if (markTx.immediate(fileId) === 'open') {
          report.keptOpen++;
          continue;
        }
        if (!(await drainFile(fileId))) return report;
        report.files++;
      }
      if (ids.length < FILE_PAGE) break;
    }
    report.events = await drain('events', options.olderThan, signal);
    return report;
  }

  return {
    /** Drops the rows of finished files older than `olderThan` (see createPrune); async: it yields between chunks. */
    pruneJournal: prune,
  };
}
