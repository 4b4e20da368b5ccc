import { blockItemStatus, packedDocs, type PackedDoc } from './blocks.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from './rows.js';
import { IndexProbe } from './search-index.js';
import { elementsAt, elementsHolding, normalizeTerm, resultOf, TermProbe, termPart } from './search-terms.js';
import { sqlList, sqlPosition, type SqlDialect, type SqlPort } from './sql.js';
import type { FileStatus, ItemStatus, RequestStatus } from './types.js';

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
  /** Blocks recorded before the term index (Bloom filters only) may hold more rows than were counted. */
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
/** Bloom filters (blocks recorded before the term index) read per statement. */
const FILTER_PAGE = 2_000;

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
 * block — an exception of a block recorded before the search's index or filters, a row of a journal from before item
 * blocks. An exception of an indexed block is found through the block (once, and counted once).
 */
const outsideIndexed = `doc_key IS NOT NULL AND lower(doc_key) = ? AND (rejected = 1 OR NOT EXISTS (
    SELECT 1 FROM item_blocks b WHERE b.file_id = items.file_id AND b.first_seq <= items.seq AND b.last_seq >= items.seq
      AND (EXISTS (SELECT 1 FROM block_index x WHERE x.request_id = b.request_id)
        OR EXISTS (SELECT 1 FROM block_terms t WHERE t.request_id = b.request_id))))`;

const statements = (dialect: SqlDialect) => ({
  keyCount: `SELECT count(*) AS n FROM items WHERE ${outsideIndexed}`,
  keyRows: `SELECT ${ITEM_COLUMNS} FROM items WHERE ${outsideIndexed} AND (file_id < ? OR (file_id = ? AND seq > ?))
    ORDER BY file_id DESC, seq LIMIT ?`,
  // The database picks the blocks whose tokens hold the term's (a few of them at a misaligned place: checked here).
  tokens: `SELECT request_id, tokens FROM block_tokens WHERE part = ? AND ${sqlPosition(dialect, 'tokens')} > 0 ORDER BY request_id DESC`,
  index: `SELECT request_id, entries FROM block_index WHERE part = ? AND request_id IN (${sqlList(dialect, 'int')})`,
  anyFilter: 'SELECT request_id FROM block_terms LIMIT 1',
  filters: 'SELECT request_id, terms FROM block_terms WHERE part = ? AND request_id < ? ORDER BY request_id DESC LIMIT ?',
  block: `SELECT b.file_id, b.docs, b.exceptions, r.status, r.endpoint, r.results
    FROM item_blocks b JOIN requests r ON r.id = b.request_id WHERE b.request_id = ?`,
  bodies: 'SELECT bodies FROM item_blocks WHERE request_id = ?',
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

/**
 * "Where is SO-1011?": every row of every file whose document key or request body carried the term (whole value,
 * any case), a page at a time, with how many there are in all. First the rows outside the indexed blocks (found by
 * their document key, items_doc_key), newest file first; then the rows of item blocks, newest block first, found and
 * counted through the blocks' term index (block_index) — only the blocks a page shows are read; last the blocks
 * recorded before the index, through their Bloom filters (block_terms), which say only "maybe": those are opened
 * and scanned, and not counted ahead.
 */
export async function searchRows(sql: SqlPort, text: string, options: SearchOptions): Promise<SearchPage> {
  const term = normalizeTerm(text);
  if (term.length < 2) return { hits: [], total: 0, totalAtLeast: false, next: null, blocksOpened: 0 };
  const { limit } = options;
  const q = byDialect[sql.dialect];
  const after = parseAfter(options.after);
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const files = new Map<number, FileRow>();
  const fileOf = async (fileId: number): Promise<FileRow> => {
    let f = files.get(fileId);
    if (!f) files.set(fileId, (f = (await sql.get<FileRow>(q.file, [fileId]))!));
    return f;
  };
  const add = async (fileId: number, hit: Omit<SearchHit, 'fileId' | 'file' | 'drop' | 'fileStatus' | 'claimedAt'>) => {
    const key = `${fileId}:${hit.seq}`;
    if (seen.has(key)) return;
    seen.add(key);
    const f = await fileOf(fileId);
    hits.push({ fileId, file: f.name, drop: f.drop_name, fileStatus: f.status, claimedAt: f.claimed_at, ...hit });
  };
  const resultsOf = async (requestId: number | null, seq: number): Promise<unknown> => {
    if (requestId === null) return null;
    const results = (await sql.get<{ results: string | null }>(q.results, [requestId]))?.results;
    return results ? resultOf(results, seq) : null;
  };
  const fromItem = async (row: ItemRow, matched: SearchHit['matched']) => {
    const item = toItem(row);
    await add(item.fileId, {
      seq: item.seq, lines: item.lines, docKey: item.docKey, endpoint: item.endpoint, status: item.status, messages: item.messages, matched,
      result: item.status === 'ok' ? await resultsOf(item.requestId, item.seq) : null,
    });
  };
  /**
   * Adds the items of a block that carried the term: those at `indexes` of its docs (only they are parsed), or those
   * `holds` says did (every doc parsed).
   */
  let blocksOpened = 0;
  type Holds = (docIndex: number, docKey: string | null) => SearchHit['matched'] | undefined;
  const openBlock = async (requestId: number, pick: { indexes: number[] } | { holds: Holds }) => {
    const block = await sql.get<OpenedBlock>(q.block, [requestId]);
    if (!block) return;
    blocksOpened += 1;
    const docs: Iterable<[number, PackedDoc]> = 'indexes' in pick
      ? (elementsAt(block.docs, pick.indexes) as Map<number, PackedDoc>)
      : packedDocs(block).map((doc, i) => [i, doc] as [number, PackedDoc]);
    for (const [i, [seq, docKey, firstLine, lastLine, lines]] of docs) {
      const matched = 'indexes' in pick ? (byKey(docKey) ? 'document key' : 'body') : pick.holds(i, docKey);
      if (!matched) continue;
      // An item that did not come back ok was copied into items: its status and messages are there.
      const copied = block.exceptions > 0 ? await sql.get<ItemRow>(q.item, [block.file_id, seq]) : undefined;
      if (copied) {
        await fromItem(copied, matched);
        continue;
      }
      const status = blockItemStatus(block.status);
      await add(block.file_id, {
        seq, lines: lines ?? decodeLines(firstLine, lastLine, null), docKey, endpoint: block.endpoint, status, messages: [], matched,
        result: status === 'ok' && block.results ? resultOf(block.results, seq) : null,
      });
    }
  };
  const byKey = (docKey: string | null): boolean => docKey !== null && normalizeTerm(docKey) === term;

  // The indexed blocks that may hold the term, newest first; which of their items carried it, read by chunks.
  const probe = new IndexProbe(term);
  const candidates: number[] = [];
  for (const [requestId, tokens] of await sql.values<[number, string]>(q.tokens, [probe.part, probe.token])) {
    if (probe.mayHold(tokens)) candidates.push(Number(requestId));
  }
  const carried = new Map<number, number[]>();
  const readIndex = async (from: number, to: number) => {
    const ids = candidates.slice(from, to).filter((id) => !carried.has(id));
    for (let c = 0; c < ids.length; c += INDEX_CHUNK) {
      for (const id of ids.slice(c, c + INDEX_CHUNK)) carried.set(id, []);
      const rows = await sql.values<[number, string]>(q.index, [probe.part, JSON.stringify(ids.slice(c, c + INDEX_CHUNK))]);
      for (const [requestId, entries] of rows) carried.set(Number(requestId), probe.items(entries));
    }
  };
  await readIndex(0, COUNTED_BLOCKS);
  let inBlocks = 0;
  for (const items of carried.values()) inBlocks += items.length;
  const countedAll = candidates.length <= COUNTED_BLOCKS;
  const outside = (await sql.get<{ n: number }>(q.keyCount, [term]))?.n ?? 0;
  const filtered = (await sql.get(q.anyFilter)) !== undefined;
  let inFiltered = 0; // rows of this page from blocks recorded before the index: counted once found
  const page = (next: string | null): SearchPage => ({ hits, total: Number(outside) + inBlocks + inFiltered, totalAtLeast: filtered || !countedAll, next, blocksOpened });

  // Rows outside the indexed blocks.
  if (after === undefined || 'fileId' in after) {
    const from = after ?? { fileId: Number.MAX_SAFE_INTEGER, seq: -1 };
    const rows = await sql.all<ItemRow>(q.keyRows, [term, from.fileId, from.fileId, from.seq, limit + 1]);
    for (const row of rows.slice(0, limit)) await fromItem(row, 'document key');
    if (rows.length > limit) return page(`k${rows[limit - 1].file_id}.${rows[limit - 1].seq}`);
  }
  const before = after !== undefined && 'before' in after ? after.before : Number.MAX_SAFE_INTEGER;
  // Indexed blocks: a page ends after a whole block.
  const first = candidates.findIndex((id) => id < before);
  const shown = first < 0 ? [] : candidates.slice(first);
  for (let b = 0; b < shown.length; b++) {
    const requestId = shown[b];
    if (!carried.has(requestId)) await readIndex(first + b, first + b + INDEX_CHUNK);
    const items = carried.get(requestId)!;
    if (items.length === 0) continue;
    await openBlock(requestId, { indexes: items });
    if (hits.length >= limit && (b + 1 < shown.length || filtered)) return page(`b${requestId}`);
  }
  if (!filtered) return page(null);
  // Blocks recorded before the index: their Bloom filter, then a scan of the bodies' text of those it lets through.
  const filter = new TermProbe(term);
  const part = termPart(term);
  let scanFrom = Math.min(before, shown.length > 0 ? shown[shown.length - 1] : before);
  for (;;) {
    const rows = await sql.values<[number, string]>(q.filters, [part, scanFrom, FILTER_PAGE]);
    for (const [requestId, terms] of rows) {
      if (!filter.mayHold(terms)) continue;
      const bodies = (await sql.get<{ bodies: string }>(q.bodies, [requestId]))?.bodies ?? '[]';
      const inBodies = elementsHolding(bodies, term);
      const shownBefore = hits.length;
      await openBlock(requestId, { holds: (i, docKey) => (byKey(docKey) ? 'document key' : inBodies.has(i) ? 'body' : undefined) });
      inFiltered += hits.length - shownBefore;
      if (hits.length >= limit) return page(`b${requestId}`);
    }
    if (rows.length < FILTER_PAGE) return page(null);
    scanFrom = rows[rows.length - 1][0];
  }
}
