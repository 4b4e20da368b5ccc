import { decodeLines, messagesJson, stateError } from './rows.js';
import { blockIndex, INDEX_PARTS, type BlockIndexPart } from './search-index.js';
import type { PackedBatch } from './block-pack.js';
import type { SqlPort } from './sql.js';
import type { ItemOutcome, ItemStatus, ItemWithBody, RequestStatus } from './types.js';

/**
 * Item blocks: the items of a pipeline request packed into one row of item_blocks (schema migration 2).
 * Only the items that did not come back ok are copied into `items` when the request completes, so a
 * 1,000,000-row file costs about a thousand row writes, not a million. Readers merge the two.
 */

/** One item of a block: [seq, doc_key, first_line, last_line, lines (only when not one ascending run)]. */
export type PackedDoc = [seq: number, docKey: string | null, firstLine: number, lastLine: number, lines: number[] | null];

export interface BlockRow {
  request_id: number;
  file_id: number;
  first_seq: number;
  last_seq: number;
  first_line: number;
  docs: string;
  exceptions: number;
  /** Of the request. */
  status: RequestStatus;
  endpoint: string;
  attempt: number;
}

/** An item of a block, as the readers see it. */
export interface BlockEntry {
  requestId: number;
  seq: number;
  docKey: string | null;
  firstLine: number;
  lastLine: number;
  lines: number[] | null;
}

/** Status of a block item that has no row in `items`: it follows its request. */
export function blockItemStatus(requestStatus: RequestStatus): ItemStatus {
  if (requestStatus === 'sent') return 'sent';
  return requestStatus === 'pending' || requestStatus === 'abandoned' ? 'pending' : 'ok';
}

/** A block's items as stored: [seq, docKey, firstLine, lastLine, lines (null: one ascending run)]. */
export function packedDocs(row: Pick<BlockRow, 'docs'>): readonly PackedDoc[] {
  return JSON.parse(row.docs) as PackedDoc[];
}

export function unpackDocs(row: Pick<BlockRow, 'request_id' | 'docs'>): BlockEntry[] {
  return packedDocs(row).map(([seq, docKey, firstLine, lastLine, lines]) => ({
    requestId: row.request_id, seq, docKey, firstLine, lastLine, lines,
  }));
}

export function entryLines(entry: BlockEntry): number[] {
  return entry.lines ?? decodeLines(entry.firstLine, entry.lastLine, null);
}

/** Sorted [from, to] ranges merged where they overlap or touch. */
export function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of ranges) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** The first seq in both lists of sorted, disjoint ranges, if any: one walk along both. */
function firstCommon(a: ReadonlyArray<readonly [number, number]>, b: ReadonlyArray<readonly [number, number]>): number | undefined {
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const [from, to] = a[i];
    const [f, t] = b[j];
    if (from <= t && f <= to) return Math.max(from, f);
    if (to < t) i++;
    else j++;
  }
  return undefined;
}

/**
 * Item rows read in a new request's seq span before its check needs the exact query (q.firstItemIn): the span holds
 * the gaps between its ranges too (a document of several lines is a range of its own), and item rows there (skipped
 * or refused rows between documents) are not the request's, but rarely are there more than a few.
 */
export const SPAN_ITEMS = 64;

/** block_tokens is keyed by (part, request_id): a block's rows are found by naming every part. */
export const TOKEN_PARTS = `part IN (${Array.from({ length: INDEX_PARTS }, (_, p) => p).join(', ')})`;

const BLOCK_COLUMNS = `b.request_id, b.file_id, b.first_seq, b.last_seq, b.first_line, b.docs, b.exceptions, r.status, r.endpoint, r.attempt
  FROM item_blocks b JOIN requests r ON r.id = b.request_id`;

/**
 * SQLite: `INSERT OR FAIL … VALUES` of 0 to INDEX_PARTS rows, by row count. OR FAIL: one that inserts several rows
 * and may abort half-way needs a statement journal (a copy of every page it changes, written to a temporary file past
 * 64 KiB: much of what a night of small files wrote, docs/performance.md, "Settings chosen by measurement"); one
 * that fails instead keeps the rows it inserted, and its error fails the whole unit of work anyway (SqlPort.tx).
 * PostgreSQL's: insertBothPostgres.
 */
function rowInserts(table: string, columns: readonly string[]): string[] {
  return Array.from({ length: INDEX_PARTS + 1 }, (_, n) =>
    `INSERT OR FAIL INTO ${table} (${columns.join(', ')}) VALUES ${Array(n).fill(`(${columns.map(() => '?').join(', ')})`).join(', ')}`);
}

/** The statements as text, built once (the factories are composed again for each unit of work); the port prepares each once. */
const q = {
  insert: `INSERT INTO item_blocks (request_id, file_id, first_seq, last_seq, first_line, docs, bodies) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  // Up to 16 rows (parts) per block and table: what the console's search reads instead of the blocks
  // (search-index.ts), each in one statement: one statement per row count, each prepared once.
  insertIndex: rowInserts('block_index', ['request_id', 'part', 'file_id', 'entries']),
  insertTokens: rowInserts('block_tokens', ['part', 'request_id', 'tokens']),
  remove: 'DELETE FROM item_blocks WHERE request_id = ?',
  removeIndex: ['DELETE FROM block_index WHERE request_id = ?', `DELETE FROM block_tokens WHERE ${TOKEN_PARTS} AND request_id = ?`],
  block: `SELECT ${BLOCK_COLUMNS} WHERE b.request_id = ?`,
  bodies: 'SELECT bodies FROM item_blocks WHERE request_id = ?',
  // The first SPAN_ITEMS item rows in a new request's seq span, then the seqs of the blocks whose span reaches it (few,
  // since blocks of a file mostly follow each other): one statement for both (recordedParams). PostgreSQL reads the
  // same in the statement that records the blocks (record-blocks.ts).
  recorded: `SELECT seq, NULL AS seqs FROM (SELECT seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ${SPAN_ITEMS})
     UNION ALL
     SELECT NULL, r.seqs FROM item_blocks b JOIN requests r ON r.id = b.request_id
     WHERE b.file_id = ? AND b.last_seq >= ? AND b.first_seq <= ?`,
  unindexed: `SELECT b.request_id, b.docs, b.bodies FROM item_blocks b WHERE b.file_id = ?
     AND NOT EXISTS (SELECT 1 FROM block_tokens t WHERE ${TOKEN_PARTS.replace('part', 't.part')} AND t.request_id = b.request_id)`,
  finishedSeqs: `SELECT r.seqs FROM item_blocks b JOIN requests r ON r.id = b.request_id
     WHERE b.file_id = ? AND r.status IN ('done', 'failed', 'uncertain')`,
  maxSeq: 'SELECT max(last_seq) AS seq FROM item_blocks WHERE file_id = ?',
  byLine: `SELECT ${BLOCK_COLUMNS}
     WHERE b.file_id = ? AND (b.first_line, b.request_id) > (?, ?) ORDER BY b.first_line, b.request_id LIMIT ?`,
  inSeqRange: `SELECT ${BLOCK_COLUMNS} WHERE b.file_id = ? AND b.last_seq >= ? AND b.first_seq <= ? ORDER BY b.first_seq`,
  itemSeqs: 'SELECT seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ?',
  // The first item row in any of a request's ranges (its `seqs` text), when its span holds more than SPAN_ITEMS item
  // rows. CROSS JOIN keeps SQLite from scanning the file's item rows for each range (the ranges first, then the index).
  firstItemIn: {
    sqlite: `SELECT min(i.seq) AS seq FROM json_each(?) r CROSS JOIN items i
      ON i.file_id = ? AND i.seq BETWEEN json_extract(r.value, '$[0]') AND json_extract(r.value, '$[1]')`,
    postgres: `SELECT min(i.seq) AS seq FROM json_array_elements(?::json) r JOIN items i
      ON i.file_id = ? AND i.seq BETWEEN (r.value->>0)::bigint AND (r.value->>1)::bigint`,
  },
  setExceptions: 'UPDATE item_blocks SET exceptions = ? WHERE request_id = ?',
  insertException: `INSERT INTO items (file_id, seq, endpoint, doc_key, first_line, last_line, lines, body, status, request_id, attempt, messages, hint)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
};

/** The most index rows (parts, of one block or several) a PostgreSQL statement inserts: 64 × 7 parameters. */
const ROWS_A_STATEMENT = 64;
const bothTexts: string[] = [];

/**
 * PostgreSQL: `n` rows in block_index and in block_tokens in one statement (a data-modifying WITH, which SQLite
 * lacks, runs whether or not the statement reads it): one round trip instead of two, and for the blocks of one commit
 * one instead of one a block.
 */
function insertBothPostgres(n: number): string {
  const values = (columns: number) => Array(n).fill(`(${Array(columns).fill('?').join(', ')})`).join(', ');
  bothTexts[n] ??= `WITH i AS (INSERT INTO block_index (request_id, part, file_id, entries) VALUES ${values(4)})
    INSERT INTO block_tokens (part, request_id, tokens) VALUES ${values(3)}`;
  return bothTexts[n];
}

/** A file's item blocks over a port (the journal's own, or a unit of work's): one row a request, its items packed. */
export class Blocks {
  constructor(private readonly sql: SqlPort) {}

  /** A request's bodies, in request order (undefined: the request has no block). */
  async bodiesOf(requestId: number): Promise<unknown[] | undefined> {
    const row = await this.sql.get<{ bodies: string }>(q.bodies, [requestId]);
    return row ? (JSON.parse(row.bodies) as unknown[]) : undefined;
  }

  /**
   * Stores the items of a new request, packed (inside the caller's unit of work). Refuses seqs already recorded for
   * the file, in a block or as an item row: a seq is sent at most once per claim.
   */
  async insert(fileId: number, requestId: number, packed: PackedBatch, bodies: string): Promise<void> {
    const { first, last } = span(packed);
    const rows = await this.sql.values<[number | null, string | null]>(q.recorded, recordedParams(fileId, packed));
    const spanItems = rows.flatMap(([seq]) => (seq === null ? [] : [seq]));
    const blockSeqs = rows.flatMap(([, seqs]) => (seqs === null ? [] : [JSON.parse(seqs) as Array<[number, number]>]));
    await this.refuseRecorded(fileId, packed.ranges, spanItems, blockSeqs);
    await this.sql.run(q.insert, [requestId, fileId, first, last, packed.firstLine, packed.docs, bodies]);
    if (packed.index !== undefined) await this.insertIndex(fileId, requestId, packed.index);
  }

  /**
   * Throws when a seq of `ranges` is recorded already: an item row of `spanItems` (the first SPAN_ITEMS item rows in
   * the ranges' span, in seq order; when there are that many, every one in the ranges is looked up) or a seq of
   * `blockSeqs` (the seqs of blocks that reach the span).
   */
  async refuseRecorded(fileId: number, ranges: ReadonlyArray<[number, number]>, spanItems: readonly number[], blockSeqs: ReadonlyArray<ReadonlyArray<[number, number]>>): Promise<void> {
    let item = firstCommon(ranges, spanItems.map((seq) => [seq, seq] as const));
    if (item === undefined && spanItems.length >= SPAN_ITEMS) {
      item = (await this.sql.get<{ seq: number | null }>(q.firstItemIn[this.sql.dialect], [JSON.stringify(ranges), fileId]))?.seq ?? undefined;
    }
    if (item !== undefined) throw alreadyRecorded(fileId, item);
    for (const seqs of blockSeqs) {
      const seq = firstCommon(ranges, seqs);
      if (seq !== undefined) throw alreadyRecorded(fileId, seq);
    }
  }

  /** The console search's index of blocks (their rows in block_index and block_tokens); on PostgreSQL several a statement. */
  async insertIndexes(fileId: number, indexes: ReadonlyArray<{ requestId: number; index: readonly BlockIndexPart[] }>): Promise<void> {
    if (this.sql.dialect !== 'postgres') {
      for (const { requestId, index } of indexes) await this.insertIndex(fileId, requestId, index);
      return;
    }
    const rows = indexes.flatMap(({ requestId, index }) => index.map((part) => ({ requestId, part })));
    // Sent together: one round trip for all of them on a pipelining connection.
    const statements: Promise<number>[] = [];
    for (let from = 0; from < rows.length; from += ROWS_A_STATEMENT) {
      const chunk = rows.slice(from, from + ROWS_A_STATEMENT);
      const indexRows = chunk.flatMap(({ requestId, part: p }) => [requestId, p.part, fileId, p.entries]);
      const tokenRows = chunk.flatMap(({ requestId, part: p }) => [p.part, requestId, p.tokens]);
      statements.push(this.sql.run(insertBothPostgres(chunk.length), [...indexRows, ...tokenRows]));
    }
    await Promise.all(statements);
  }

  /** The console search's index of one block (its rows in block_index and block_tokens). */
  async insertIndex(fileId: number, requestId: number, index: readonly BlockIndexPart[]): Promise<void> {
    if (index.length === 0) return;
    if (this.sql.dialect === 'postgres') {
      await this.insertIndexes(fileId, [{ requestId, index }]);
      return;
    }
    const indexRows = index.flatMap((p) => [requestId, p.part, fileId, p.entries]);
    const tokenRows = index.flatMap((p) => [p.part, requestId, p.tokens]);
    await this.sql.run(q.insertIndex[index.length], indexRows);
    await this.sql.run(q.insertTokens[index.length], tokenRows);
  }

  /**
   * Indexes the file's blocks that have no index: those whose index was to follow their record in a later commit,
   * which a crash prevented. Read from the
   * block's stored documents and bodies, as packBatch computed it. Returns how many.
   */
  async indexMissing(fileId: number): Promise<number> {
    const missing = await this.sql.all<Pick<BlockRow, 'request_id' | 'docs'> & { bodies: string }>(q.unindexed, [fileId]);
    for (const block of missing) {
      const entries = unpackDocs(block);
      await this.insertIndex(fileId, block.request_id, blockIndex(entries, JSON.parse(block.bodies) as unknown[]));
    }
    return missing.length;
  }

  get(requestId: number): Promise<BlockRow | undefined> {
    return this.sql.get<BlockRow>(q.block, [requestId]);
  }

  /** The items of a block with their bodies (JSON text each), in request order; `results`: of its ok items, by seq. */
  async items(block: BlockRow, results: ReadonlyMap<number, unknown>): Promise<ItemWithBody[]> {
    const bodies = (await this.bodiesOf(block.request_id))!;
    const skip = await this.copiedSeqs(block);
    const status = blockItemStatus(block.status);
    const out: ItemWithBody[] = [];
    unpackDocs(block).forEach((entry, i) => {
      if (skip?.has(entry.seq)) return;
      out.push({
        itemId: null, fileId: block.file_id, seq: entry.seq, endpoint: block.endpoint, docKey: entry.docKey, lines: entryLines(entry),
        status, rejected: false, requestId: block.request_id, attempt: block.attempt, result: status === 'ok' ? results.get(entry.seq) ?? null : null,
        messages: [], hint: null, resolution: null, resolutionNote: null, resolvedBy: null, resolvedAt: null,
        body: JSON.stringify(bodies[i]),
      });
    });
    return out;
  }

  /** Copies the items that did not come back ok into `items` (with their bodies, for retry and resolve: bodiesOf). */
  async storeExceptions(block: BlockRow, outcomes: readonly ItemOutcome[], bodies: readonly unknown[]): Promise<void> {
    const failed = outcomes.filter((o) => o.status !== 'ok');
    if (failed.length === 0) return;
    const entries = unpackDocs(block);
    const index = new Map(entries.map((e, i) => [e.seq, i]));
    // The rows and their count sent together: one round trip on a pipelining connection.
    await Promise.all([
      ...failed.map((o) => {
        const i = index.get(o.seq)!;
        const e = entries[i];
        return this.sql.run(q.insertException, [block.file_id, e.seq, block.endpoint, e.docKey, e.firstLine, e.lastLine,
          e.lines === null ? null : JSON.stringify(e.lines), JSON.stringify(bodies[i]), o.status, block.request_id, block.attempt,
          messagesJson(o.messages), o.hint ?? null]);
      }),
      this.sql.run(q.setExceptions, [failed.length, block.request_id]),
    ]);
  }

  async finishedRanges(fileId: number): Promise<Array<[number, number]>> {
    return (await this.sql.values<[string]>(q.finishedSeqs, [fileId])).flatMap(([seqs]) => JSON.parse(seqs) as Array<[number, number]>);
  }

  /** Pages of blocks in line order, after (firstLine, requestId). */
  pageByLine(fileId: number, afterLine: number, afterRequest: number, limit: number): Promise<BlockRow[]> {
    return this.sql.all<BlockRow>(q.byLine, [fileId, afterLine, afterRequest, limit]);
  }

  /** Seqs of `items` rows within a block's span: its items copied there (they win over the block). */
  async copiedSeqs(block: BlockRow): Promise<Set<number> | undefined> {
    if (block.exceptions === 0) return undefined;
    return new Set((await this.sql.values<[number]>(q.itemSeqs, [block.file_id, block.first_seq, block.last_seq])).map(([seq]) => seq));
  }

  inSeqRange(fileId: number, from: number, to: number): Promise<BlockRow[]> {
    return this.sql.all<BlockRow>(q.inSeqRange, [fileId, from, to]);
  }

  async maxSeq(fileId: number): Promise<number | null> {
    return (await this.sql.get<{ seq: number | null }>(q.maxSeq, [fileId]))?.seq ?? null;
  }

  /** A request that never left (or was refused before processing): its items are unrecorded again. */
  async remove(requestId: number): Promise<boolean> {
    for (const statement of q.removeIndex) await this.sql.run(statement, [requestId]);
    return (await this.sql.run(q.remove, [requestId])) === 1;
  }
}

export function createBlocks(sql: SqlPort): Blocks {
  return new Blocks(sql);
}


/** A block's first and last seq. */
function span(packed: PackedBatch): { first: number; last: number } {
  return { first: packed.ranges[0][0], last: packed.ranges[packed.ranges.length - 1][1] };
}

/** q.recorded's parameters for a new block: the item rows in its span, the blocks its span reaches. */
function recordedParams(fileId: number, packed: PackedBatch): number[] {
  const { first, last } = span(packed);
  return [fileId, first, last, fileId, first, last];
}

/** Refuses requests of one commit that share a seq (each would be refused by the next one's check, recorded one by one). */
export function refuseShared(fileId: number, ranges: ReadonlyArray<ReadonlyArray<[number, number]>>): void {
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      const seq = firstCommon(ranges[i], ranges[j]);
      if (seq !== undefined) throw alreadyRecorded(fileId, seq);
    }
  }
}

function alreadyRecorded(fileId: number, seq: number) {
  return stateError(`item ${seq} of file ${fileId} is already in a request or finished`, { fileId, seq });
}
