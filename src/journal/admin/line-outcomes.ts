import { blockItemStatus, packedDocs, type BlockRow } from '../core/blocks.js';
import { decodeLines, effectiveStatus, parseMessages } from '../core/rows.js';
import { LineHeap, Pager } from '../core/line-merge.js';
import type { ItemStatus, LineOutcome, Resolution } from '../core/types.js';
import type { OperatorContext } from './operator-context.js';

const PAGE = 2000;

/** Blocks read at a time for the result file (each holds up to a request's worth of items). */
const BLOCK_PAGE = 16;

/** A row of the linePage query (raw). */
type LinePageRow = [
  id: number, seq: number, endpoint: string | null, docKey: string | null, firstLine: number, lastLine: number,
  lines: string | null, status: ItemStatus, requestId: number | null, messages: string | null, hint: string | null,
  resolution: Resolution | null,
];

/**
 * Line outcomes from two sources read in first-line order: item rows (paged by first_line, seq) and item
 * blocks (paged by their first line). Every line of what was read goes into a min-heap; a line leaves it
 * once nothing unread can start before it, so lines of interleaved documents still come out in order.
 */
export async function* iterateLineOutcomes(c: OperatorContext, fileId: number): AsyncGenerator<LineOutcome> {
  const { sql, q } = c;
  const heap = new LineHeap();
  // Request statuses of the current page: other writes may run between two pages, so it is emptied per page.
  const requestStatuses = new Map<number, string | null>();
  const rows = new Pager<LinePageRow>((last) => {
    requestStatuses.clear();
    return sql.values<LinePageRow>(q.linePage, [fileId, last?.[4] ?? Number.MIN_SAFE_INTEGER, last?.[1] ?? Number.MIN_SAFE_INTEGER, PAGE]);
  }, (row) => row[4]);
  const blocks = new Pager<BlockRow>((last) => c.blocks.pageByLine(fileId, last?.first_line ?? Number.MIN_SAFE_INTEGER, last?.request_id ?? 0, BLOCK_PAGE),
    (block) => block.first_line);
  for (;;) {
    if (rows.empty) await rows.fill();
    if (blocks.empty) await blocks.fill();
    const frontier = Math.min(rows.peekLine(), blocks.peekLine());
    while (heap.size > 0 && heap.top.line < frontier) yield heap.pop();
    if (frontier === Number.POSITIVE_INFINITY) break;
    if (rows.peekLine() <= blocks.peekLine()) {
      const [id, seq, endpoint, docKey, firstLine, lastLine, lines, itemStatus, requestId, messagesText, hint, resolution] = rows.take();
      let status = itemStatus;
      if (itemStatus === 'pending' && requestId !== null) {
        let requestStatus = requestStatuses.get(requestId);
        if (requestStatus === undefined) {
          requestStatus = (await sql.get<{ status: string }>(q.requestStatus, [requestId]))?.status ?? null;
          requestStatuses.set(requestId, requestStatus);
        }
        status = effectiveStatus(itemStatus, requestStatus);
      }
      const result = status === 'ok' ? await c.results.resultOf(requestId, seq) : null;
      const messages = parseMessages(messagesText);
      if (lines === null && firstLine === lastLine && (heap.size === 0 || heap.top.line > firstLine) && firstLine < blocks.peekLine()) {
        yield { line: firstLine, seq, itemId: id, endpoint, docKey, status, result, messages, hint, resolution };
        continue;
      }
      for (const line of decodeLines(firstLine, lastLine, lines)) {
        heap.push({ line, seq, itemId: id, endpoint, docKey, status, result, messages, hint, resolution });
      }
    } else {
      yield* blockLines(c, blocks.take(), heap, rows, blocks);
    }
  }
}

/**
 * A block's lines: straight out when they are the usual block (one line per item, ascending, before anything else
 * unread), into the heap otherwise. One generator per block, never per row.
 */
async function* blockLines(c: OperatorContext, block: BlockRow, heap: LineHeap, rows: Pager<LinePageRow>, blocks: Pager<BlockRow>): AsyncGenerator<LineOutcome> {
  const copied = await c.blocks.copiedSeqs(block);
  const status = blockItemStatus(block.status);
  // Packed [seq, docKey, firstLine, lastLine, lines] entries, read as they are (no object per item).
  const entries = packedDocs(block);
  // Results are stored in the items' order: read in step with the entries, looked up only when they differ.
  const results = status === 'ok' ? await c.results.resultList(block.request_id) : [];
  if (blocks.empty) await blocks.fill();
  const frontierAfter = Math.min(rows.peekLine(), blocks.peekLine());
  let direct = heap.size === 0 && entries[entries.length - 1][3] < frontierAfter;
  for (let i = 0; direct && i < entries.length; i++) {
    direct = entries[i][4] === null && entries[i][2] === entries[i][3] && (i === 0 || entries[i][2] > entries[i - 1][2]);
  }
  let resultById: Map<number, unknown> | undefined;
  const noMessages: string[] = [];
  let next = 0;
  for (const [seq, docKey, firstLine, lastLine, lines] of entries) {
    if (copied?.has(seq)) continue;
    let result: unknown = null;
    if (next < results.length && results[next][0] === seq) result = results[next++][1];
    else if (results.length > 0) result = (resultById ??= new Map(results)).get(seq) ?? null;
    if (direct) {
      yield { line: firstLine, seq, itemId: null, endpoint: block.endpoint, docKey, status, result, messages: noMessages, hint: null, resolution: null };
      continue;
    }
    for (const line of lines ?? decodeLines(firstLine, lastLine, null)) {
      heap.push({ line, seq, itemId: null, endpoint: block.endpoint, docKey, status, result, messages: noMessages, hint: null, resolution: null });
    }
  }
}
