import { blockItemStatus, type PackedDoc } from '../core/blocks.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from '../core/rows.js';
import { IndexProbe } from '../core/search-index.js';
import { elementsAt, normalizeTerm, resultOf } from './search-terms.js';
import { sqlList, sqlPosition, type SqlDialect, type SqlPort } from '../core/sql.js';
import type { FileStatus, ItemStatus, RequestStatus } from '../core/types.js';

/** One row of one file that carried the term. */
export interface SearchHit {
  fileId: number;
  file: string;
  drop: string;
  fileStatus: FileStatus;
  claimedAt: string;
  seq: number;
  lines: number[];
  docKey: string | null;
  endpoint: string | null;
  status: ItemStatus;
  /** What the service returned (ok rows). */
  result: unknown;
  messages: string[];
  /** Where the term was: the document key, or a value of the request body. */
  matched: 'document key' | 'body';
}

export interface SearchPage {
  hits: SearchHit[];
  /** Rows that carried the term, on every page: exact, or a lower bound when `totalAtLeast`. */
  total: number;
  /** Only the newest COUNTED_BLOCKS blocks that may hold the term were counted: later pages may show more. */
  totalAtLeast: boolean;
  /** Where the next page starts (`after` of the next search), or null: this is the last page. */
  next: string | null;
  /** Blocks read to show this page. */
  blocksOpened: number;
}

export interface SearchOptions {
  /** Rows a page shows (a page ends after a whole block, so it may show a few more). */
  limit: number;
  /** The `next` of the page before. */
  after?: string;
}

/**
 * Blocks whose index a search reads to count the rows (newest first; each is a row of about 1 KB for a block of 1,000
 * rows): beyond them the count is "at least". A page reads the index of the blocks it shows in any case.
 */
const COUNTED_BLOCKS = 1_000;
/** Blocks whose index is read per statement. */
const INDEX_CHUNK = 500;

interface OpenedBlock {
  file_id: number;
  docs: string;
  exceptions: number;
  status: RequestStatus;
  endpoint: string;
  results: string | null;
}

/**
 * A row found by its document key: one the mapping rejected (never in a block), or a row of `items` in no indexed
 * block (a row of a journal from before item blocks). An exception of an indexed block is found through the block (once, and counted once).
 */
const outsideIndexed = `doc_key IS NOT NULL AND lower(doc_key) = ? AND (rejected = 1 OR NOT EXISTS (
    SELECT 1 FROM item_blocks b WHERE b.file_id = items.file_id AND b.first_seq <= items.seq AND b.last_seq >= items.seq
      AND EXISTS (SELECT 1 FROM block_index x WHERE x.request_id = b.request_id)))`;

const statements = (dialect: SqlDialect) => ({
  keyCount: `SELECT count(*) AS n FROM items WHERE ${outsideIndexed}`,
  keyRows: `SELECT ${ITEM_COLUMNS} FROM items WHERE ${outsideIndexed} AND (file_id < ? OR (file_id = ? AND seq > ?))
    ORDER BY file_id DESC, seq LIMIT ?`,
  // The database picks the blocks whose tokens hold the term's (a few of them at a misaligned place: checked here).
  tokens: `SELECT request_id, tokens FROM block_tokens WHERE part = ? AND ${sqlPosition(dialect, 'tokens')} > 0 ORDER BY request_id DESC`,
  index: `SELECT request_id, entries FROM block_index WHERE part = ? AND request_id IN (${sqlList(dialect, 'int')})`,
  block: `SELECT b.file_id, b.docs, b.exceptions, r.status, r.endpoint, r.results
    FROM item_blocks b JOIN requests r ON r.id = b.request_id WHERE b.request_id = ?`,
  item: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq = ?`,
  file: 'SELECT name, drop_name, status, claimed_at FROM files WHERE id = ?',
  results: 'SELECT results FROM requests WHERE id = ?',
});
const byDialect = { sqlite: statements('sqlite'), postgres: statements('postgres') };

type FileRow = { name: string; drop_name: string; status: FileStatus; claimed_at: string };

/** A page's cursor: after a row outside the blocks (k<file>.<seq>) or before a block (b<request>). */
function parseAfter(after: string | undefined): { fileId: number; seq: number } | { before: number } | undefined {
  const key = /^k(\d+)\.(-?\d+)$/.exec(after ?? '');
  if (key) return { fileId: Number(key[1]), seq: Number(key[2]) };
  const block = /^b(\d+)$/.exec(after ?? '');
  return block ? { before: Number(block[1]) } : undefined;
}

type SearchHitFields = Omit<SearchHit, 'fileId' | 'file' | 'drop' | 'fileStatus' | 'claimedAt'>;

/** One search's page: the hits it has gathered, the files they are in, and the blocks it has read. */
class SearchPageBuilder {
  readonly hits: SearchHit[] = [];
  blocksOpened = 0;
  readonly #seen = new Set<string>();
  readonly #files = new Map<number, FileRow>();
  readonly #q: ReturnType<typeof statements>;

  constructor(private readonly sql: SqlPort, readonly term: string) {
    this.#q = byDialect[sql.dialect];
  }

  async #fileOf(fileId: number): Promise<FileRow> {
    let f = this.#files.get(fileId);
    if (!f) this.#files.set(fileId, (f = (await this.sql.get<FileRow>(this.#q.file, [fileId]))!));
    return f;
  }

  async add(fileId: number, hit: SearchHitFields): Promise<void> {
    const key = `${fileId}:${hit.seq}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const f = await this.#fileOf(fileId);
    this.hits.push({ fileId, file: f.name, drop: f.drop_name, fileStatus: f.status, claimedAt: f.claimed_at, ...hit });
  }

  async #resultOf(requestId: number | null, seq: number): Promise<unknown> {
    if (requestId === null) return null;
    const results = (await this.sql.get<{ results: string | null }>(this.#q.results, [requestId]))?.results;
    return results ? resultOf(results, seq) : null;
  }

  /** A row of `items` that carried the term. */
  async fromItem(row: ItemRow, matched: SearchHit['matched']): Promise<void> {
    const item = toItem(row);
    await this.add(item.fileId, {
      seq: item.seq, lines: item.lines, docKey: item.docKey, endpoint: item.endpoint, status: item.status, messages: item.messages, matched,
      result: item.status === 'ok' ? await this.#resultOf(item.requestId, item.seq) : null,
    });
  }

  /** Adds the items of a block at `indexes` of its docs, those that carried the term (only they are parsed). */
  async openBlock(requestId: number, indexes: readonly number[]): Promise<void> {
    const block = await this.sql.get<OpenedBlock>(this.#q.block, [requestId]);
    if (!block) return;
    this.blocksOpened += 1;
    for (const [, [seq, docKey, firstLine, lastLine, lines]] of elementsAt(block.docs, indexes) as Map<number, PackedDoc>) {
      const matched = docKey !== null && normalizeTerm(docKey) === this.term ? 'document key' : 'body';
      // An item that did not come back ok was copied into items: its status and messages are there.
      const copied = block.exceptions > 0 ? await this.sql.get<ItemRow>(this.#q.item, [block.file_id, seq]) : undefined;
      if (copied) {
        await this.fromItem(copied, matched);
        continue;
      }
      const status = blockItemStatus(block.status);
      await this.add(block.file_id, {
        seq, lines: lines ?? decodeLines(firstLine, lastLine, null), docKey, endpoint: block.endpoint, status, messages: [], matched,
        result: status === 'ok' && block.results ? resultOf(block.results, seq) : null,
      });
    }
  }
}

/**
 * The indexed blocks that may hold a term, newest first, and which of their items carried it (read from
 * block_index by chunks, on demand).
 */
class IndexedBlocks {
  readonly candidates: number[] = [];
  readonly carried = new Map<number, number[]>();
  readonly #probe: IndexProbe;

  private constructor(private readonly sql: SqlPort, term: string) {
    this.#probe = new IndexProbe(term);
  }

  /** The database picks the blocks whose tokens hold the term's (a few of them at a misaligned place: checked here). */
  static async of(sql: SqlPort, term: string): Promise<IndexedBlocks> {
    const blocks = new IndexedBlocks(sql, term);
    const rows = await sql.values<[number, string]>(byDialect[sql.dialect].tokens, [blocks.#probe.part, blocks.#probe.token]);
    for (const [requestId, tokens] of rows) if (blocks.#probe.mayHold(tokens)) blocks.candidates.push(Number(requestId));
    return blocks;
  }

  /** Reads which items carried the term for the candidates from..to not read yet. */
  async read(from: number, to: number): Promise<void> {
    const ids = this.candidates.slice(from, to).filter((id) => !this.carried.has(id));
    for (let c = 0; c < ids.length; c += INDEX_CHUNK) {
      const chunk = ids.slice(c, c + INDEX_CHUNK);
      for (const id of chunk) this.carried.set(id, []);
      const rows = await this.sql.values<[number, string]>(byDialect[this.sql.dialect].index, [this.#probe.part, JSON.stringify(chunk)]);
      for (const [requestId, entries] of rows) this.carried.set(Number(requestId), this.#probe.items(entries));
    }
  }

  /** Rows of the blocks read so far that carried the term. */
  counted(): number {
    let rows = 0;
    for (const items of this.carried.values()) rows += items.length;
    return rows;
  }
}

/**
 * "Where is SO-1011?": every row of every file whose document key or request body carried the term (whole value,
 * any case), a page at a time, with how many there are in all. First the rows outside the indexed blocks (found by
 * their document key, items_doc_key), newest file first; then the rows of item blocks, newest block first, found and
 * counted through the blocks' term index (block_index) — only the blocks a page shows are read.
 */
export async function searchRows(sql: SqlPort, text: string, options: SearchOptions): Promise<SearchPage> {
  const term = normalizeTerm(text);
  if (term.length < 2) return { hits: [], total: 0, totalAtLeast: false, next: null, blocksOpened: 0 };
  const { limit } = options;
  const q = byDialect[sql.dialect];
  const after = parseAfter(options.after);
  const found = new SearchPageBuilder(sql, term);
  const blocks = await IndexedBlocks.of(sql, term);
  await blocks.read(0, COUNTED_BLOCKS);
  const inBlocks = blocks.counted();
  const outside = Number((await sql.get<{ n: number }>(q.keyCount, [term]))?.n ?? 0);
  const page = (next: string | null): SearchPage => ({
    hits: found.hits, total: outside + inBlocks, totalAtLeast: blocks.candidates.length > COUNTED_BLOCKS, next, blocksOpened: found.blocksOpened,
  });

  // Rows outside the indexed blocks.
  if (after === undefined || 'fileId' in after) {
    const from = after ?? { fileId: Number.MAX_SAFE_INTEGER, seq: -1 };
    const rows = await sql.all<ItemRow>(q.keyRows, [term, from.fileId, from.fileId, from.seq, limit + 1]);
    for (const row of rows.slice(0, limit)) await found.fromItem(row, 'document key');
    if (rows.length > limit) return page(`k${rows[limit - 1].file_id}.${rows[limit - 1].seq}`);
  }
  const before = after !== undefined && 'before' in after ? after.before : Number.MAX_SAFE_INTEGER;
  // Indexed blocks: a page ends after a whole block.
  const first = blocks.candidates.findIndex((id) => id < before);
  const shown = first < 0 ? [] : blocks.candidates.slice(first);
  for (let b = 0; b < shown.length; b++) {
    const requestId = shown[b];
    if (!blocks.carried.has(requestId)) await blocks.read(first + b, first + b + INDEX_CHUNK);
    const items = blocks.carried.get(requestId)!;
    if (items.length === 0) continue;
    await found.openBlock(requestId, items);
    if (found.hits.length >= limit && b + 1 < shown.length) return page(`b${requestId}`);
  }
  return page(null);
}
