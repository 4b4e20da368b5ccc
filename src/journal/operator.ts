import { blockItemStatus, packedDocs, type BlockRow, type Blocks } from './blocks.js';
import type { Db } from './db.js';
import {
  decodeLines, effectiveStatus, ITEM_COLUMNS, parseMessages, stateError, toItem, type ItemRow,
} from './rows.js';
import type {
  Backlog, FileRecord, FileStatus, FileSummary, HistoryEntry, ItemStatus, StoredItem, ItemWithBody, LineOutcome,
  Resolution, ResolveOptions, ResolveTarget,
} from './types.js';

interface FileRow {
  id: number;
  drop_name: string;
  name: string;
  checksum: string;
  size: number;
  mapping: string;
  generation: number;
  status: FileStatus;
  reason: string | null;
  summary: string | null;
  redrive: number;
  claimed_at: string;
  finished_at: string | null;
  result_name: string | null;
  disposed_to: string | null;
  pruned_at: string | null;
}

function toFile(row: FileRow): FileRecord {
  return {
    fileId: row.id,
    drop: row.drop_name,
    name: row.name,
    checksum: row.checksum,
    size: row.size,
    mapping: row.mapping,
    generation: row.generation,
    status: row.status,
    reason: row.reason,
    summary: row.summary === null ? null : (JSON.parse(row.summary) as FileSummary),
    redrives: row.redrive,
    claimedAt: row.claimed_at,
    finishedAt: row.finished_at,
    resultName: row.result_name,
    disposedTo: row.disposed_to,
    prunedAt: row.pruned_at,
  };
}

const PAGE = 2000;

/** A row of the linePage query (raw). */
type LinePageRow = [
  id: number, seq: number, endpoint: string | null, docKey: string | null, firstLine: number, lastLine: number,
  lines: string | null, status: ItemStatus, requestId: number | null, messages: string | null, hint: string | null,
  resolution: Resolution | null,
];

/** What the operator reads through the inbound side of the journal. */
interface InboundReads {
  fileSummary: (fileId: number) => FileSummary;
  resultOf: (requestId: number | null, seq: number) => unknown;
  resultList: (requestId: number) => ReadonlyArray<[number, unknown]>;
}

/** Blocks read at a time for the result file (each holds up to a request's worth of items). */
const BLOCK_PAGE = 16;

/** Reads pages on demand and hands out their entries one at a time, with the first line of the next one. */
function pager<T>(load: (last: T | undefined) => T[], lineOf: (entry: T) => number) {
  let page: T[] = [];
  let index = 0;
  let done = false;
  let last: T | undefined;
  const fill = () => {
    if (index < page.length || done) return;
    page = load(last);
    index = 0;
    if (page.length === 0) done = true;
  };
  return {
    peekLine(): number {
      fill();
      return index < page.length ? lineOf(page[index]) : Number.POSITIVE_INFINITY;
    },
    take(): T {
      fill();
      last = page[index++];
      return last;
    },
  };
}

/** A min-heap of line outcomes by line. */
class LineHeap {
  private readonly items: LineOutcome[] = [];
  get size(): number {
    return this.items.length;
  }
  get top(): LineOutcome {
    return this.items[0];
  }
  push(o: LineOutcome): void {
    const heap = this.items;
    heap.push(o);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent].line <= heap[i].line) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }
  pop(): LineOutcome {
    const heap = this.items;
    const top = heap[0];
    const last = heap.pop() as LineOutcome;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l].line < heap[m].line) m = l;
        if (r < heap.length && heap[r].line < heap[m].line) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  }
}

export function createOperator(db: Db, now: () => string, inbound: InboundReads, itemBlocks: Blocks) {
  const summary = inbound.fileSummary;
  const q = {
    file: db.prepare('SELECT * FROM files WHERE id = ?'),
    fileNamed: db.prepare('SELECT * FROM files WHERE name = ? ORDER BY id DESC LIMIT 1'),
    listFiles: db.prepare(
      `SELECT * FROM files WHERE (@since IS NULL OR claimed_at >= @since) AND (@status IS NULL OR status = @status) ORDER BY id DESC LIMIT @limit`),
    // The partial index holds only the rows needing attention. The planner uses it only when the
    // query repeats its WHERE term verbatim; INDEXED BY makes a mistake fail at prepare time.
    failed: db.prepare(
      `SELECT ${ITEM_COLUMNS} FROM items INDEXED BY items_attention
       WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ?
       ORDER BY seq LIMIT ?`),
    uncertainOfFile: db.prepare(
      `SELECT ${ITEM_COLUMNS} FROM items INDEXED BY items_attention
       WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND file_id = ?
       ORDER BY seq LIMIT ?`),
    uncertain: db.prepare(
      `SELECT ${ITEM_COLUMNS} FROM items INDEXED BY items_attention
       WHERE status IN ('error', 'uncertain') AND status = 'uncertain'
       ORDER BY file_id, seq LIMIT ?`),
    retryErrors: db.prepare(
      `SELECT ${ITEM_COLUMNS}, body FROM items INDEXED BY items_attention
       WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ? AND seq > ? AND rejected = 0
       ORDER BY seq LIMIT ?`),
    // Items of a re-drive request that was recorded but never sent before a crash.
    retryAbandoned: db.prepare(
      `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq > ? AND status = 'pending'
         AND request_id IS NULL AND attempt > 1 ORDER BY seq LIMIT ?`),
    startRedrive: db.prepare(
      `UPDATE files SET status = 'processing', redrive = redrive + 1, finished_at = NULL WHERE id = ?`),
    itemById: db.prepare(`SELECT ${ITEM_COLUMNS} FROM items WHERE id = ?`),
    itemBySeq: db.prepare(`SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq = ?`),
    saveHistory: db.prepare(
      `INSERT INTO item_history (item_id, request_id, attempt, status, messages, hint, recorded_at)
       SELECT id, request_id, attempt, status, messages, hint, ? FROM items WHERE id = ?`),
    resolve: db.prepare(
      `UPDATE items SET status = ?, messages = ?, hint = NULL, resolution = ?, resolution_note = ?, resolved_by = ?, resolved_at = ?
       WHERE id = ? AND status = 'uncertain'`),
    settleFile: db.prepare(`UPDATE files SET status = ?, summary = ? WHERE id = ? AND status IN ('done', 'failed')`),
    history: db.prepare('SELECT * FROM item_history WHERE item_id = ? ORDER BY id'),
    // Only the columns of a LineOutcome, as arrays (no object per row from the driver); the request status is
    // looked up once per request per page instead of by a subquery per row.
    linePage: db.prepare(
      `SELECT id, seq, endpoint, doc_key, first_line, last_line, lines, status, request_id, messages, hint, resolution
       FROM items WHERE file_id = ? AND (first_line, seq) > (?, ?) ORDER BY first_line, seq LIMIT ?`).raw(),
    requestStatus: db.prepare('SELECT status FROM requests WHERE id = ?').pluck(),
    processingFiles: db.prepare(`SELECT count(*) FROM files WHERE status = 'processing'`).pluck(),
    openRequests: db.prepare(
      `SELECT status, count(*) AS requests, coalesce(sum(item_count), 0) AS items FROM requests
       WHERE status IN ('pending', 'sent') GROUP BY status`),
    uncertainCount: db.prepare(
      `SELECT count(*) FROM items INDEXED BY items_attention WHERE status IN ('error', 'uncertain') AND status = 'uncertain'`).pluck(),
    errorCount: db.prepare(
      `SELECT count(*) FROM items INDEXED BY items_attention WHERE status IN ('error', 'uncertain') AND status = 'error'`).pluck(),
    // Unwritten: the records of exports whose file is not in place yet, whatever status they will take (records
    // carry that status from the start, see outbound.ts); open: those of written exports still waiting.
    unwrittenRecords: db.prepare(`SELECT coalesce(sum(record_count), 0) FROM exports WHERE status = 'recorded'`).pluck(),
    openAcks: db.prepare(
      `SELECT r.ack_status, count(*) AS n FROM export_records r INDEXED BY export_records_open JOIN exports e ON e.id = r.export_id
       WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND e.status = 'written' GROUP BY r.ack_status`),
  };

  function getFile(fileId: number): FileRecord {
    const row = q.file.get(fileId) as FileRow | undefined;
    if (!row) throw stateError(`file ${fileId} is not in the journal`);
    return toFile(row);
  }

  function* retryable(fileId: number): Generator<ItemWithBody> {
    for (const stmt of [q.retryErrors, q.retryAbandoned]) {
      let after = -1;
      for (;;) {
        const rows = stmt.all(fileId, after, PAGE) as Array<ItemRow & { body: string | null }>;
        for (const row of rows) yield { ...toItem(row), body: row.body };
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1].seq;
      }
    }
  }

  const redriveTx = db.transaction((fileId: number): number => {
    const file = getFile(fileId);
    if (file.status === 'processing') {
      if (file.redrives === 0) throw stateError(`file ${fileId} is still being processed`);
      return file.redrives + 1; // a re-drive interrupted by a crash goes on with the same attempt
    }
    if (file.status !== 'failed') throw stateError(`file ${fileId} is ${file.status}: nothing to retry`);
    if (file.prunedAt !== null) throw stateError(`file ${fileId}: its rows were pruned on ${file.prunedAt} (journal retention): nothing left to retry`);
    q.startRedrive.run(fileId);
    return file.redrives + 2;
  });

  function settle(fileId: number): FileStatus | null {
    const s = summary(fileId);
    const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
    return q.settleFile.run(status, JSON.stringify(s), fileId).changes === 1 ? status : null;
  }

  const resolveTx = db.transaction((target: ResolveTarget, options: ResolveOptions) => {
    const rows: ItemRow[] = [];
    const missing: Array<number | string> = [];
    if ('itemIds' in target) {
      for (const id of target.itemIds) {
        const row = q.itemById.get(id) as ItemRow | undefined;
        if (row?.status === 'uncertain') rows.push(row);
        else missing.push(id);
      }
    } else {
      for (const seq of target.seqs) {
        const row = q.itemBySeq.get(target.fileId, seq) as ItemRow | undefined;
        if (row?.status === 'uncertain') rows.push(row);
        else missing.push(`${target.fileId}#${seq}`);
      }
    }
    if (missing.length > 0) throw stateError(`not uncertain items: ${missing.join(', ')}`, { missing });
    const at = now();
    const status: ItemStatus = options.resolution === 'applied' ? 'ok' : 'error';
    const files = new Set<number>();
    for (const row of rows) {
      q.saveHistory.run(at, row.id);
      // The note replaces the "outcome unknown" message and hint in the result file; item_history keeps them.
      const messages = JSON.stringify([`${options.resolution === 'applied' ? 'applied' : 'not applied'}: ${options.note}`]);
      q.resolve.run(status, messages, options.resolution, options.note, options.by, at, row.id);
      files.add(row.file_id);
    }
    return { resolved: rows.length, files: [...files].map((fileId) => ({ fileId, status: settle(fileId) ?? getFile(fileId).status })) };
  });

  /**
   * Line outcomes from two sources read in first-line order: item rows (paged by first_line, seq) and item
   * blocks (paged by their first line). Every line of what was read goes into a min-heap; a line leaves it
   * once nothing unread can start before it, so lines of interleaved documents still come out in order.
   */
  function* iterateLineOutcomes(fileId: number): Generator<LineOutcome> {
    const heap = new LineHeap();
    // Request statuses of the current page: other writes may run between two pages, so it is emptied per page.
    const requestStatuses = new Map<number, string | null>();
    const requestStatus = (id: number): string | null => {
      let status = requestStatuses.get(id);
      if (status === undefined) requestStatuses.set(id, (status = (q.requestStatus.get(id) as string | undefined) ?? null));
      return status;
    };
    const rows = pager<LinePageRow>((last) => {
      requestStatuses.clear();
      return q.linePage.all(fileId, last?.[4] ?? Number.MIN_SAFE_INTEGER, last?.[1] ?? Number.MIN_SAFE_INTEGER, PAGE) as LinePageRow[];
    }, (row) => row[4]);
    const blocks = pager<BlockRow>((last) => itemBlocks.pageByLine(fileId, last?.first_line ?? Number.MIN_SAFE_INTEGER, last?.request_id ?? 0, BLOCK_PAGE),
      (block) => block.first_line);

    for (;;) {
      const frontier = Math.min(rows.peekLine(), blocks.peekLine());
      while (heap.size > 0 && heap.top.line < frontier) yield heap.pop();
      if (frontier === Number.POSITIVE_INFINITY) break;
      if (rows.peekLine() <= blocks.peekLine()) {
        const [id, seq, endpoint, docKey, firstLine, lastLine, lines, itemStatus, requestId, messagesText, hint, resolution] = rows.take();
        const status = itemStatus === 'pending' && requestId !== null ? effectiveStatus(itemStatus, requestStatus(requestId)) : itemStatus;
        const result = status === 'ok' ? inbound.resultOf(requestId, seq) : null;
        const messages = parseMessages(messagesText);
        if (lines === null && firstLine === lastLine && (heap.size === 0 || heap.top.line > firstLine) && firstLine < blocks.peekLine()) {
          yield { line: firstLine, seq, itemId: id, endpoint, docKey, status, result, messages, hint, resolution };
          continue;
        }
        for (const line of decodeLines(firstLine, lastLine, lines)) {
          heap.push({ line, seq, itemId: id, endpoint, docKey, status, result, messages, hint, resolution });
        }
      } else {
        const block = blocks.take();
        const copied = itemBlocks.copiedSeqs(block);
        const status = blockItemStatus(block.status);
        // Packed [seq, docKey, firstLine, lastLine, lines] entries, read as they are (no object per item).
        const entries = packedDocs(block);
        // The usual block: one line per item, ascending, before anything else unread. Its lines go straight out.
        const frontierAfter = Math.min(rows.peekLine(), blocks.peekLine());
        let direct = heap.size === 0 && entries[entries.length - 1][3] < frontierAfter;
        for (let i = 0; direct && i < entries.length; i++) {
          direct = entries[i][4] === null && entries[i][2] === entries[i][3] && (i === 0 || entries[i][2] > entries[i - 1][2]);
        }
        // Results are stored in the items' order: read in step with the entries, looked up only when they differ.
        const results = status === 'ok' ? inbound.resultList(block.request_id) : [];
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
    }
  }

  function backlog(): Backlog {
    const result: Backlog = {
      processingFiles: q.processingFiles.get() as number,
      pendingRequests: 0, pendingItems: 0, sentRequests: 0, sentItems: 0,
      uncertainItems: q.uncertainCount.get() as number,
      errorItems: q.errorCount.get() as number,
      exportsUnwritten: q.unwrittenRecords.get() as number, acknowledgementsPending: 0, awaitingConfirmation: 0,
    };
    for (const row of q.openRequests.all() as Array<{ status: string; requests: number; items: number }>) {
      if (row.status === 'pending') Object.assign(result, { pendingRequests: row.requests, pendingItems: row.items });
      else Object.assign(result, { sentRequests: row.requests, sentItems: row.items });
    }
    for (const row of q.openAcks.all() as Array<{ ack_status: string; n: number }>) {
      if (row.ack_status === 'pending') result.acknowledgementsPending = row.n;
      else result.awaitingConfirmation = row.n;
    }
    return result;
  }

  return {
    getFile,
    /** The most recent file of that name (any drop), if any. */
    latestFileNamed: (name: string): FileRecord | undefined => {
      const row = q.fileNamed.get(name) as FileRow | undefined;
      return row && toFile(row);
    },
    listFiles: (options: { since?: string; status?: FileStatus; limit: number }): FileRecord[] =>
      (q.listFiles.all({ since: options.since ?? null, status: options.status ?? null, limit: options.limit }) as FileRow[]).map(toFile),
    failedItems: (fileId: number, options: { limit?: number } = {}): StoredItem[] =>
      (q.failed.all(fileId, options.limit ?? 1000) as ItemRow[]).map((row) => toItem(row)),
    uncertainItems: (fileId?: number, options: { limit?: number } = {}): StoredItem[] =>
      ((fileId === undefined ? q.uncertain.all(options.limit ?? 1000) : q.uncertainOfFile.all(fileId, options.limit ?? 1000)) as ItemRow[])
        .map((row) => toItem(row)),
    /** Failed items of a file that can be sent again (never ok, uncertain or mapping-rejected ones), with bodies. */
    retryable,
    /** Opens a re-drive of a failed file: returns the attempt number to pass to recordRequest. */
    beginRedrive: (fileId: number): number => redriveTx.immediate(fileId),
    /** A person checked uncertain items: applied → ok, not-applied → error (so retry can re-drive them). */
    resolveUncertain: (target: ResolveTarget, options: ResolveOptions): { resolved: number; files: Array<{ fileId: number; status: FileStatus }> } =>
      resolveTx.immediate(target, options),
    itemHistory: (itemId: number): HistoryEntry[] =>
      (q.history.all(itemId) as Array<Record<string, never>>).map((row) => ({
        requestId: row.request_id, attempt: row.attempt, status: row.status,
        messages: parseMessages(row.messages), hint: row.hint, recordedAt: row.recorded_at,
      })),
    /** One outcome per input line, in line order, for the result file. Safe to interleave with journal writes. */
    iterateLineOutcomes,
    backlog,
  };
}
