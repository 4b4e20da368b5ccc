import { blockItemStatus, type BlockRow, type Blocks } from '../core/blocks.js';
import { readResumeState } from '../core/resume-state.js';
import { effectiveStatus, emptyCounts, stateError, toItem, toRequest, type ItemRow, type RequestRow } from '../core/rows.js';
import { INBOUND_STATEMENTS as q } from './inbound-sql.js';
import type { SqlPort } from '../core/sql.js';
import type { FileSummary, ItemWithBody, RecordedRequest, RequestStatus, ResumeState, StatusCounts } from '../core/types.js';

const PAGE = 2000;

/** A request in one of these has its results stored for good. */
export const FINISHED: ReadonlySet<RequestStatus> = new Set(['done', 'failed', 'uncertain']);
const NO_RESULTS: ReadonlyMap<number, unknown> = new Map();

type ItemRowWithBody = ItemRow & { body: string | null };

/** The request's row as `t` sees it; refused when there is none. */
export async function requireRequest(t: SqlPort, requestId: number): Promise<RequestRow> {
  const row = await t.get<RequestRow>(q.request, [requestId]);
  if (!row) throw stateError(`request ${requestId} is not in the journal`);
  return row;
}

/** A file's items counted by status, as `t` sees them (a unit of work reads its own writes). */
export async function fileSummaryOn(t: SqlPort, fileId: number): Promise<FileSummary> {
  const counts = emptyCounts();
  let total = 0;
  for (const { block, status, n } of await t.all<{ block: number; status: string; n: number }>(q.counts, [fileId, fileId])) {
    counts[block === 1 ? blockItemStatus(status as RequestStatus) : status as keyof StatusCounts] += n;
    total += n;
  }
  return { fileId, total, ...counts };
}

/**
 * What the inbound side reads back: where a crash left a file, a request and its items, and what the service returned.
 * The operator's result file and re-drive read results and summaries through it too (admin/operator.ts).
 */
export class InboundReads {
  /**
   * A request's results by seq. Readers going through items in order hit the same few requests, so the last few are
   * kept (a hit costs no query), finished ones only: their results no longer change, so no entry goes stale when a
   * completion commits through another binding of the journal (each unit of work composes its own).
   */
  readonly #resultCache = new Map<number, ReadonlyMap<number, unknown>>();

  constructor(private readonly sql: SqlPort, private readonly blocks: Blocks) {}

  async resultsOf(requestId: number): Promise<ReadonlyMap<number, unknown>> {
    const cached = this.#resultCache.get(requestId);
    if (cached) return cached;
    const row = await this.sql.get<{ status: RequestStatus; results: string | null }>(q.results, [requestId]);
    const results = new Map(row?.results ? (JSON.parse(row.results) as Array<[number, unknown]>) : []);
    if (row && FINISHED.has(row.status)) {
      if (this.#resultCache.size >= 8) this.#resultCache.delete(this.#resultCache.keys().next().value as number);
      this.#resultCache.set(requestId, results);
    }
    return results;
  }

  /** What the service returned for an ok item (stored per request). */
  async resultOf(requestId: number | null, seq: number): Promise<unknown> {
    return requestId === null ? null : (await this.resultsOf(requestId)).get(seq) ?? null;
  }

  /** A request's stored results as [seq, result] pairs in outcome order (usually its items' order). */
  async resultList(requestId: number): Promise<ReadonlyArray<[number, unknown]>> {
    const text = (await this.sql.get<{ results: string | null }>(q.results, [requestId]))?.results;
    return text ? (JSON.parse(text) as Array<[number, unknown]>) : [];
  }

  fileSummary(fileId: number): Promise<FileSummary> {
    return fileSummaryOn(this.sql, fileId);
  }

  resumeState(fileId: number): Promise<ResumeState> {
    return readResumeState(this.sql, this.blocks, fileId, () => fileSummaryOn(this.sql, fileId));
  }

  async getRequest(requestId: number): Promise<RecordedRequest> {
    return toRequest(await requireRequest(this.sql, requestId));
  }

  /** A request's items in seq order: its block (if any) plus its rows in `items`. */
  async requestItems(requestId: number): Promise<ItemWithBody[]> {
    const row = await requireRequest(this.sql, requestId);
    // Only a finished request has results, for all of its items.
    const results = FINISHED.has(row.status) ? await this.resultsOf(requestId) : NO_RESULTS;
    const block = await this.blocks.get(requestId);
    const items: ItemWithBody[] = block ? await this.blocks.items(block, results) : [];
    for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) {
      for (const item of await this.sql.all<ItemRowWithBody>(q.itemsOfRequestRange, [row.file_id, from, to, requestId])) {
        items.push({ ...toItem(item, results.get(item.seq) ?? null), body: item.body });
      }
    }
    return block ? items.sort((a, b) => a.seq - b.seq) : items;
  }

  /**
   * Items with seqs in [fromSeq, toSeq], in seq order (for tests, through src/journal/testing.ts: the range is held in
   * memory). An item copied from a block into `items` is read from `items`.
   */
  async itemsInRange(fileId: number, fromSeq: number, toSeq: number): Promise<ItemWithBody[]> {
    const found = new Map<number, ItemWithBody>();
    for (const block of await this.blocks.inSeqRange(fileId, fromSeq, toSeq)) {
      for (const item of await this.blocks.items(block, await this.#blockResults(block))) {
        if (item.seq >= fromSeq && item.seq <= toSeq) found.set(item.seq, item);
      }
    }
    let next = fromSeq;
    for (;;) {
      const rows = await this.sql.all<ItemRowWithBody>(q.itemsInRange, [fileId, next, toSeq, PAGE]);
      for (const row of rows) found.set(row.seq, await this.#withResult(row));
      if (rows.length < PAGE) break;
      next = rows[rows.length - 1].seq + 1;
    }
    return [...found.values()].sort((a, b) => a.seq - b.seq);
  }

  /** The results of a block's items: only a finished request has any. */
  #blockResults(block: BlockRow): Promise<ReadonlyMap<number, unknown>> {
    return FINISHED.has(block.status) ? this.resultsOf(block.request_id) : Promise.resolve(NO_RESULTS);
  }

  /** An item row as read; only an ok item has a result (its request is finished: the lookup is cached). */
  async #withResult(row: ItemRowWithBody): Promise<ItemWithBody> {
    const ok = effectiveStatus(row.status, row.request_status) === 'ok';
    return { ...toItem(row, ok ? await this.resultOf(row.request_id, row.seq) : null), body: row.body };
  }
}
