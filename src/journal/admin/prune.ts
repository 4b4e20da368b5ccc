import { setImmediate as nextTurn } from 'node:timers/promises';
import { TOKEN_PARTS } from '../core/blocks.js';
import { fileSummaryOn } from '../inbound/inbound-reads.js';
import type { SqlPort } from '../core/sql.js';
import type { PruneOptions, PruneReport } from '../core/types.js';

/** Rows deleted per transaction: each commit is short, and the event loop gets a turn between two. */
const ROW_CHUNK = 5000;
/** Item blocks hold a whole request's bodies each: fewer per transaction. */
const BLOCK_CHUNK = 10;
const FILE_PAGE = 200;
const DRAINING = 'prune:draining';

/**
 * Journal retention: a finished file without open rows loses its items, item blocks, history and requests
 * (bodies and results) but keeps its row in `files` — checksum, name, status, summary — so the same content
 * dropped again is still a duplicate. Deletes run in bounded chunks, one unit of work each; the file is marked
 * first (a re-drive of it is refused from then on), and a prune cut short finishes the file next time.
 */
export function createPrune(sql: SqlPort, now: () => string) {
  const attention = sql.dialect === 'sqlite' ? 'INDEXED BY items_attention' : '';
  const q = {
    candidates: `SELECT f.id FROM files f WHERE f.id > ? AND f.status IN ('done', 'failed', 'rejected') AND f.finished_at < ?
      AND f.pruned_at IS NULL ORDER BY f.id LIMIT ?`,
    // The file being drained, so a prune cut short (shutdown, crash) finishes it first next time.
    getDraining: `SELECT value FROM cursors WHERE key = '${DRAINING}'`,
    setDraining: `INSERT INTO cursors (key, value, updated_at) VALUES ('${DRAINING}', ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    clearDraining: `DELETE FROM cursors WHERE key = '${DRAINING}'`,
    open: `SELECT CASE WHEN EXISTS (SELECT 1 FROM items ${attention} WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND file_id = ?)
      OR EXISTS (SELECT 1 FROM requests WHERE file_id = ? AND status IN ('pending', 'sent')) THEN 1 ELSE 0 END AS open`,
    prunedAt: 'SELECT pruned_at FROM files WHERE id = ?',
    mark: `UPDATE files SET pruned_at = ?, pruned_requests = (SELECT count(*) FROM requests WHERE file_id = ?), summary = coalesce(summary, ?)
      WHERE id = ? AND pruned_at IS NULL AND status IN ('done', 'failed', 'rejected')`,
    history: 'DELETE FROM item_history WHERE item_id IN (SELECT id FROM items WHERE file_id = ? ORDER BY seq LIMIT ?)',
    items: 'DELETE FROM items WHERE id IN (SELECT id FROM items WHERE file_id = ? ORDER BY seq LIMIT ?)',
    blocks: 'DELETE FROM item_blocks WHERE request_id IN (SELECT request_id FROM item_blocks WHERE file_id = ? ORDER BY last_seq LIMIT ?)',
    // The search's index and filters of the blocks about to go (the same chunk: the same first blocks by last_seq).
    blockSearch: ['block_index', 'block_tokens'].map((table) => `DELETE FROM ${table} WHERE ${table === 'block_tokens' ? `${TOKEN_PARTS} AND ` : ''}request_id IN (SELECT request_id FROM item_blocks WHERE file_id = ? ORDER BY last_seq LIMIT ?)`),
    requests: 'DELETE FROM requests WHERE id IN (SELECT id FROM requests WHERE file_id = ? ORDER BY id LIMIT ?)',
    events: 'DELETE FROM file_events WHERE id IN (SELECT id FROM file_events WHERE at < ? ORDER BY at LIMIT ?)',
  };

  /** Marks the file pruned unless it has open rows; 'prune' when its detail is to be dropped. */
  const mark = (fileId: number): Promise<'prune' | 'open'> => sql.tx(async (t) => {
    if ((await t.get<{ pruned_at: string | null }>(q.prunedAt, [fileId]))?.pruned_at !== null) return 'prune';
    if ((await t.get<{ open: number }>(q.open, [fileId, fileId]))?.open === 1) return 'open';
    const at = now();
    await t.run(q.mark, [at, fileId, JSON.stringify(await fileSummaryOn(t, fileId)), fileId]);
    await t.run(q.setDraining, [String(fileId), at]);
    return 'prune';
  });

  type Table = 'items' | 'blocks' | 'requests' | 'events';
  /** One chunk of deletes as one unit of work: how many rows of `table` went. */
  const chunk = (table: Table, key: number | string): Promise<number> => sql.tx(async (t) => {
    if (table === 'items') await t.run(q.history, [key, ROW_CHUNK]);
    if (table === 'blocks') for (const statement of q.blockSearch) await t.run(statement, [key, BLOCK_CHUNK]);
    return t.run(q[table], [key, table === 'blocks' ? BLOCK_CHUNK : ROW_CHUNK]);
  });

  async function drain(table: Table, key: number | string, signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const n = await chunk(table, key);
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
      await sql.run(q.clearDraining);
      return true;
    };
    const leftover = (await sql.get<{ value: string }>(q.getDraining))?.value;
    if (leftover !== undefined && !(await drainFile(Number(leftover)))) return report;
    let after = 0;
    for (;;) {
      const ids = (await sql.values<[number]>(q.candidates, [after, options.olderThan, FILE_PAGE])).map(([id]) => id);
      for (const fileId of ids) {
        if (signal?.aborted) return report;
        after = fileId;
        if ((await mark(fileId)) === 'open') {
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
    /** Drops the rows of finished files older than `olderThan` (see createPrune); it yields between chunks. */
    pruneJournal: prune,
  };
}
