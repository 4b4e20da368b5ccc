import { blockItemStatus, packedDocs } from './blocks.js';
import { decodeLines, ITEM_COLUMNS, toItem, type ItemRow } from './rows.js';
import { elementsHolding, normalizeTerm, TermProbe, termPart } from './search-terms.js';
import type { SqlPort } from './sql.js';
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
  /** More hits than the limit: the search stopped there. */
  more: boolean;
  /** Blocks whose filter said "maybe", and how many of them did hold the term (the filter's false positives show). */
  blocksOpened: number;
}

/** Filters read per statement, newest block first. */
const FILTER_PAGE = 2_000;

interface BlockRow {
  request_id: number;
  file_id: number;
  docs: string;
  bodies: string;
  exceptions: number;
  status: RequestStatus;
  endpoint: string;
  results: string | null;
}

const q = {
  itemsByKey: `SELECT ${ITEM_COLUMNS} FROM items WHERE doc_key IS NOT NULL AND lower(doc_key) = ? ORDER BY file_id DESC, seq LIMIT ?`,
  filters: 'SELECT request_id, terms FROM block_terms WHERE part = ? AND request_id < ? ORDER BY request_id DESC LIMIT ?',
  block: `SELECT b.request_id, b.file_id, b.docs, b.bodies, b.exceptions, r.status, r.endpoint, r.results
    FROM item_blocks b JOIN requests r ON r.id = b.request_id WHERE b.request_id = ?`,
  item: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq = ?`,
  file: 'SELECT name, drop_name, status, claimed_at FROM files WHERE id = ?',
  results: 'SELECT results FROM requests WHERE id = ?',
} as const;

/**
 * "Where is SO-1011?": every row of every file whose document key or request body carried the term (whole value,
 * any case), newest file first, at most `limit`. Rows of item blocks are found through the blocks' term filters
 * (block_terms); rows recorded one by one (mapping rejections) through the index on their document key.
 */
export async function searchRows(sql: SqlPort, text: string, limit: number): Promise<SearchPage> {
  const term = normalizeTerm(text);
  const hits = new Map<string, SearchHit>();
  if (term.length < 2) return { hits: [], more: false, blocksOpened: 0 };
  const files = new Map<number, { name: string; drop_name: string; status: FileStatus; claimed_at: string }>();
  const fileOf = async (fileId: number) => {
    let f = files.get(fileId);
    if (!f) {
      f = (await sql.get<{ name: string; drop_name: string; status: FileStatus; claimed_at: string }>(q.file, [fileId]))!;
      files.set(fileId, f);
    }
    return f;
  };
  const resultsOf = async (requestId: number | null, seq: number): Promise<unknown> => {
    if (requestId === null) return null;
    const text = (await sql.get<{ results: string | null }>(q.results, [requestId]))?.results;
    return text ? ((JSON.parse(text) as Array<[number, unknown]>).find(([s]) => s === seq)?.[1] ?? null) : null;
  };
  const add = async (fileId: number, hit: Omit<SearchHit, 'fileId' | 'file' | 'drop' | 'fileStatus' | 'claimedAt'>) => {
    const key = `${fileId}:${hit.seq}`;
    if (hits.has(key)) return;
    const f = await fileOf(fileId);
    hits.set(key, { fileId, file: f.name, drop: f.drop_name, fileStatus: f.status, claimedAt: f.claimed_at, ...hit });
  };
  const fromItem = async (row: ItemRow, matched: SearchHit['matched']) => {
    const item = toItem(row);
    await add(item.fileId, {
      seq: item.seq, lines: item.lines, docKey: item.docKey, endpoint: item.endpoint, status: item.status, messages: item.messages, matched,
      result: item.status === 'ok' ? await resultsOf(item.requestId, item.seq) : null,
    });
  };

  for (const row of await sql.all<ItemRow>(q.itemsByKey, [term, limit + 1])) await fromItem(row, 'document key');

  const probe = new TermProbe(term);
  const part = termPart(term);
  let before = Number.MAX_SAFE_INTEGER;
  let blocksOpened = 0;
  while (hits.size <= limit) {
    const filters = await sql.values<[number, string]>(q.filters, [part, before, FILTER_PAGE]);
    if (filters.length === 0) break;
    before = filters[filters.length - 1][0];
    for (const [requestId, terms] of filters) {
      if (!probe.mayHold(terms)) continue;
      const block = await sql.get<BlockRow>(q.block, [requestId]);
      if (!block) continue;
      blocksOpened += 1;
      const docs = packedDocs(block);
      // The bodies are not parsed: the term's places in their text say which items hold it.
      const inBodies = elementsHolding(block.bodies, term);
      const results = block.results ? new Map(JSON.parse(block.results) as Array<[number, unknown]>) : undefined;
      for (let i = 0; i < docs.length; i++) {
        const [seq, docKey, firstLine, lastLine, lines] = docs[i];
        const matched: SearchHit['matched'] | undefined = docKey !== null && normalizeTerm(docKey) === term ? 'document key' : inBodies.has(i) ? 'body' : undefined;
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
          result: status === 'ok' ? (results?.get(seq) ?? null) : null,
        });
      }
    }
  }
  const sorted = [...hits.values()].sort((a, b) => b.fileId - a.fileId || a.seq - b.seq);
  return { hits: sorted.slice(0, limit), more: sorted.length > limit, blocksOpened };
}
