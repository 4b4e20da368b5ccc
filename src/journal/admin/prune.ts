import { setImmediate as nextTurn } from 'node:timers/promises';
import { TOKEN_PARTS } from '../core/blocks.js';
import { fileSummaryOn } from '../inbound/inbound-reads.js';
import type { SqlDialect, SqlPort } from '../core/sql.js';
import type { PruneOptions, PruneReport } from '../core/types.js';

/** Rows deleted per transaction: each commit is short, and the event loop gets a turn between two. */
const ROW_CHUNK = 5000;
/** Item blocks hold a whole request's bodies each: fewer per transaction. */
const BLOCK_CHUNK = 10;
const FILE_PAGE = 200;
const DRAINING = 'prune:draining';

/** The statements of retention (the dialect picks SQLite's index hint). */
function pruneStatements(dialect: SqlDialect) {
  const attention = dialect === 'sqlite' ? 'INDEXED BY items_attention' : '';
  return {
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
}

type Table = 'items' | 'blocks' | 'requests' | 'events';

/**
 * Journal retention: a finished file without open rows loses its items, item blocks, history and requests
 * (bodies and results) but keeps its row in `files` — checksum, name, status, summary — so the same content
 * dropped again is still a duplicate. Deletes run in bounded chunks, one unit of work each; the file is marked
 * first (a re-drive of it is refused from then on), and a prune cut short finishes the file next time.
 */
class Pruner {
  readonly #q: ReturnType<typeof pruneStatements>;

  constructor(private readonly sql: SqlPort, private readonly now: () => string) {
    this.#q = pruneStatements(sql.dialect);
  }

  /** Marks the file pruned unless it has open rows; 'prune' when its detail is to be dropped. */
  mark(fileId: number): Promise<'prune' | 'open'> {
    const q = this.#q;
    return this.sql.tx(async (t) => {
      if ((await t.get<{ pruned_at: string | null }>(q.prunedAt, [fileId]))?.pruned_at !== null) return 'prune';
      if ((await t.get<{ open: number }>(q.open, [fileId, fileId]))?.open === 1) return 'open';
      const at = this.now();
      await t.run(q.mark, [at, fileId, JSON.stringify(await fileSummaryOn(t, fileId)), fileId]);
      await t.run(q.setDraining, [String(fileId), at]);
      return 'prune';
    });
  }

  /** One chunk of deletes as one unit of work: how many rows of `table` went. */
  chunk(table: Table, key: number | string): Promise<number> {
    const q = this.#q;
    return this.sql.tx(async (t) => {
      if (table === 'items') await t.run(q.history, [key, ROW_CHUNK]);
      if (table === 'blocks') for (const statement of q.blockSearch) await t.run(statement, [key, BLOCK_CHUNK]);
      return t.run(q[table], [key, table === 'blocks' ? BLOCK_CHUNK : ROW_CHUNK]);
    });
  }

  async drain(table: Table, key: number | string, signal?: AbortSignal): Promise<number> {
    let total = 0;
    for (;;) {
      if (signal?.aborted) return total;
      const n = await this.chunk(table, key);
      total += n;
      await nextTurn();
      if (n === 0) return total;
    }
  }

  /** A marked file's rows drained; false when the run was cut short (it is finished next time). */
  async drainFile(fileId: number, report: PruneReport, signal?: AbortSignal): Promise<boolean> {
    report.items += await this.drain('items', fileId, signal);
    report.blocks += await this.drain('blocks', fileId, signal);
    report.requests += await this.drain('requests', fileId, signal);
    if (signal?.aborted) return false;
    await this.sql.run(this.#q.clearDraining);
    return true;
  }

  async prune(options: PruneOptions): Promise<PruneReport> {
    const { sql } = this;
    const q = this.#q;
    const report: PruneReport = { files: 0, keptOpen: 0, items: 0, blocks: 0, requests: 0, events: 0 };
    const { signal } = options;
    const leftover = (await sql.get<{ value: string }>(q.getDraining))?.value;
    if (leftover !== undefined && !(await this.drainFile(Number(leftover), report, signal))) return report;
    let after = 0;
    for (;;) {
      const ids = (await sql.values<[number]>(q.candidates, [after, options.olderThan, FILE_PAGE])).map(([id]) => id);
      for (const fileId of ids) {
        if (signal?.aborted) return report;
        after = fileId;
        if ((await this.mark(fileId)) === 'open') {
          report.keptOpen++;
          continue;
        }
        if (!(await this.drainFile(fileId, report, signal))) return report;
        report.files++;
      }
      if (ids.length < FILE_PAGE) break;
    }
    report.events = await this.drain('events', options.olderThan, signal);
    return report;
  }
}

export function createPrune(sql: SqlPort, now: () => string) {
  const pruner = new Pruner(sql, now);
  return {
    /** Drops the rows of finished files older than `olderThan` (see Pruner); it yields between chunks. */
    pruneJournal: (options: PruneOptions): Promise<PruneReport> => pruner.prune(options),
  };
}
