import { blockItemStatus, packedDocs } from '../core/blocks.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from '../core/rows.js';
import type { SqlDialect, SqlPort } from '../core/sql.js';
import type { ItemStatus, RequestStatus } from '../core/types.js';
import type { FailedRowCounts, RowPage, RowView, UncertainRowPage } from './console-types.js';

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

type ConsoleStatements = ReturnType<typeof consoleSql>;

/** A file's rows, the uncertain rows of every file and a file's failed rows: the console's row pages. */
export class ConsoleRows {
  readonly #resultMaps = new Map<number, Map<number, unknown>>();

  constructor(private readonly sql: SqlPort, private readonly q: ConsoleStatements) {}

  /** The results of one request by seq (the last 16 requests read are kept: a page's rows share few requests). */
  async #resultsOf(requestId: number): Promise<Map<number, unknown>> {
    let map = this.#resultMaps.get(requestId);
    if (!map) {
      const text = (await this.sql.get<{ results: string | null }>('SELECT results FROM requests WHERE id = ?', [requestId]))?.results;
      map = new Map(text ? (JSON.parse(text) as Array<[number, unknown]>) : []);
      if (this.#resultMaps.size >= 16) this.#resultMaps.delete(this.#resultMaps.keys().next().value as number);
      this.#resultMaps.set(requestId, map);
    }
    return map;
  }

  async #fromItems(rows: readonly ItemRow[]): Promise<RowView[]> {
    const views: RowView[] = [];
    for (const row of rows) {
      const { fileId: _f, ...item } = toItem(row);
      const results = item.status === 'ok' && item.requestId !== null ? await this.#resultsOf(item.requestId) : undefined;
      views.push({ ...item, result: results?.get(item.seq) ?? null });
    }
    return views;
  }

  /** Block entries with seq > after, in seq order: at least `limit` of them when there are that many. */
  async #blockEntries(fileId: number, after: number, limit: number): Promise<RowView[]> {
    const found: RowView[] = [];
    const take = async (block: BlockPageRow) => {
      const copied = block.exceptions > 0
        ? new Set((await this.sql.values<[number]>('SELECT seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ?', [fileId, block.first_seq, block.last_seq])).map((r) => r[0]))
        : undefined;
      const status = blockItemStatus(block.status);
      const results = status === 'ok' ? await this.#resultsOf(block.request_id) : undefined;
      for (const [seq, docKey, firstLine, lastLine, lines] of packedDocs(block)) {
        if (seq <= after || copied?.has(seq)) continue;
        found.push({
          seq, itemId: null, lines: lines ?? decodeLines(firstLine, lastLine, null), endpoint: block.endpoint, docKey, status, rejected: false,
          requestId: block.request_id, attempt: block.attempt, result: results?.get(seq) ?? null,
          messages: [], hint: null, resolution: null, resolutionNote: null, resolvedBy: null, resolvedAt: null,
        });
      }
    };
    for (const block of await this.sql.all<BlockPageRow>(this.q.straddling, [fileId, after, after])) await take(block);
    let from = after;
    for (;;) {
      const blocks = await this.sql.all<BlockPageRow>(this.q.blocksAfter, [fileId, from, 4]);
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
  async fileRows(fileId: number, options: { status?: ItemStatus; after?: number; through?: number; limit: number }): Promise<RowPage> {
    const { status, limit } = options;
    const through = options.through ?? Number.MAX_SAFE_INTEGER;
    let after = options.after ?? -1;
    const page = (found: RowView[]): RowPage => {
      const rows = found.filter((r) => r.seq <= through);
      return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1].seq : null };
    };
    if (status === 'error' || status === 'uncertain') return page(await this.#fromItems(await this.sql.all<ItemRow>(this.q.attention, [status, fileId, after, limit + 1])));
    // Mapping-rejected and skipped rows live in items only (blocks hold what was sent).
    if (status === 'skipped') return page(await this.#fromItems(await this.sql.all<ItemRow>(this.q.itemsOfStatus, [fileId, after, status, limit + 1])));
    const rows: RowView[] = [];
    let scanned = 0;
    for (;;) {
      const items = await this.#fromItems(await this.sql.all<ItemRow>(this.q.items, [fileId, after, limit + 1]));
      const merged = [...items, ...(await this.#blockEntries(fileId, after, limit + 1))].sort((a, b) => a.seq - b.seq).slice(0, limit + 1);
      if (merged.length === 0) break;
      for (const row of merged) if (!status || row.status === status) rows.push(row);
      scanned += merged.length;
      after = merged[merged.length - 1].seq;
      if (rows.length > limit || merged.length <= limit || after >= through) break;
      if (scanned >= SCAN_BUDGET) return { rows: rows.slice(0, limit), next: rows.length > limit ? rows[limit - 1].seq : after };
    }
    return page(rows);
  }

  /** Uncertain rows of every file with their hints, after (fileId, seq). */
  async uncertainRows(options: { afterFile?: number; afterSeq?: number; limit: number }): Promise<UncertainRowPage> {
    const rows = await this.sql.all<ItemRow>(this.q.uncertain, [options.afterFile ?? 0, options.afterSeq ?? -1, options.limit + 1]);
    const views = await this.#fromItems(rows.slice(0, options.limit));
    const names = new Map<number, string>();
    const page: Array<{ fileId: number; file: string } & RowView> = [];
    for (const [i, view] of views.entries()) {
      const fileId = rows[i].file_id;
      let file = names.get(fileId);
      if (file === undefined) {
        file = (await this.sql.get<{ name: string }>('SELECT name FROM files WHERE id = ?', [fileId]))!.name;
        names.set(fileId, file);
      }
      page.push({ fileId, file, ...view });
    }
    const last = rows.length > options.limit ? page[page.length - 1] : undefined;
    return { rows: page, next: last ? { fileId: last.fileId, seq: last.seq } : null };
  }

  /** A file's failed rows: those a re-drive sends again, and those it never can (rejected by the mapping). */
  async failedRows(fileId: number): Promise<FailedRowCounts> {
    const row = await this.sql.get<{ sendable: number; unsendable: number }>(this.q.failedRows, [fileId]);
    return { sendable: Number(row?.sendable ?? 0), unsendable: Number(row?.unsendable ?? 0) };
  }
}
