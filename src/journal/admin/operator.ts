import { blockItemStatus, packedDocs, type BlockRow, type Blocks } from '../core/blocks.js';
import { fileBusy, type Fence } from '../leases/leases.js';
import {
  decodeLines, effectiveStatus, ITEM_COLUMNS, parseMessages, stateError, toItem, type ItemRow,
} from '../core/rows.js';
import { LineHeap, Pager } from '../core/line-merge.js';
import type { SqlPort } from '../core/sql.js';
import type {
  Backlog, FileRecord, FileStatus, FileSummary, HistoryEntry, ItemStatus, StoredItem, ItemWithBody, LineOutcome,
  Resolution, ResolveOptions, ResolveTarget,
} from '../core/types.js';

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
  processed_at: string | null;
  lease_owner: string | null;
  lease_token: number;
  lease_until: string | null;
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
    processedAt: row.processed_at ?? null,
    resultName: row.result_name,
    disposedTo: row.disposed_to,
    prunedAt: row.pruned_at,
    lease: row.lease_owner === null ? null : { owner: row.lease_owner, token: row.lease_token, until: row.lease_until },
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
export interface InboundReads {
  fileSummary: (fileId: number) => Promise<FileSummary>;
  resultOf: (requestId: number | null, seq: number) => Promise<unknown>;
  resultList: (requestId: number) => Promise<ReadonlyArray<[number, unknown]>>;
}

/**
 * The inbound side over a given port: the journal's own, or that of a unit of work (inside one, every read goes
 * through its port; the journal's own would wait for the unit to end).
 */
export type InboundOn<T = InboundReads> = (sql: SqlPort) => T;

/** What resolveUncertain did: items resolved, and the status each of their files has now. */
export interface ResolveResult {
  resolved: number;
  files: Array<{ fileId: number; status: FileStatus }>;
}

/** Blocks read at a time for the result file (each holds up to a request's worth of items). */
const BLOCK_PAGE = 16;

/** An item's earlier outcomes, oldest first (the test hooks' itemHistory, testing.ts: the console shows the latest only). */
export async function itemHistory(sql: SqlPort, itemId: number): Promise<HistoryEntry[]> {
  return (await sql.all<Record<string, never>>('SELECT * FROM item_history WHERE item_id = ? ORDER BY id', [itemId])).map((row) => ({
    requestId: row.request_id, attempt: row.attempt, status: row.status,
    messages: parseMessages(row.messages), hint: row.hint, recordedAt: row.recorded_at,
  }));
}

/** `fence`: in lease mode (leases.ts), a re-drive takes the file's lease and a resolution waits for its owner to finish. */
export function createOperator(sql: SqlPort, now: () => string, inboundOn: InboundOn, itemBlocks: Blocks, fence?: Fence) {
  const inbound = inboundOn(sql);
  // The partial index holds only the rows needing attention. SQLite's planner uses it only when the query repeats its
  // WHERE term verbatim; INDEXED BY makes a mistake fail at prepare time. PostgreSQL picks partial indexes itself.
  const sqlite = sql.dialect === 'sqlite';
  const attention = sqlite ? 'INDEXED BY items_attention' : '';
  const openRecords = sqlite ? 'INDEXED BY export_records_open' : '';
  const q = {
    file: 'SELECT * FROM files WHERE id = ?',
    fileNamed: 'SELECT * FROM files WHERE name = ? ORDER BY id DESC LIMIT 1',
    listFiles: `SELECT * FROM files WHERE (CAST(? AS TEXT) IS NULL OR claimed_at >= ?) AND (CAST(? AS TEXT) IS NULL OR status = ?)
      ORDER BY id DESC LIMIT ?`,
    failed: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ? ORDER BY seq LIMIT ?`,
    uncertainOfFile: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'uncertain' AND file_id = ? ORDER BY seq LIMIT ?`,
    uncertain: `SELECT ${ITEM_COLUMNS} FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'uncertain' ORDER BY file_id, seq LIMIT ?`,
    retryErrors: `SELECT ${ITEM_COLUMNS}, body FROM items ${attention}
      WHERE status IN ('error', 'uncertain') AND status = 'error' AND file_id = ? AND seq > ? AND rejected = 0 ORDER BY seq LIMIT ?`,
    // Items of a re-drive request that was recorded but never sent before a crash.
    retryAbandoned: `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq > ? AND status = 'pending'
      AND request_id IS NULL AND attempt > 1 ORDER BY seq LIMIT ?`,
    startRedrive: `UPDATE files SET status = 'processing', redrive = redrive + 1, finished_at = NULL WHERE id = ?`,
    itemById: `SELECT ${ITEM_COLUMNS} FROM items WHERE id = ?`,
    itemBySeq: `SELECT ${ITEM_COLUMNS} FROM items WHERE file_id = ? AND seq = ?`,
    saveHistory: `INSERT INTO item_history (item_id, request_id, attempt, status, messages, hint, recorded_at)
      SELECT id, request_id, attempt, status, messages, hint, CAST(? AS TEXT) FROM items WHERE id = ?`,
    resolve: `UPDATE items SET status = ?, messages = ?, hint = NULL, resolution = ?, resolution_note = ?, resolved_by = ?, resolved_at = ?
      WHERE id = ? AND status = 'uncertain'`,
    refreshFileStatus: `UPDATE files SET status = ?, summary = ? WHERE id = ? AND status IN ('done', 'failed')`,
    // Only the columns of a LineOutcome, as arrays (no object per row from the driver); the request status is
    // looked up once per request per page instead of by a subquery per row.
    linePage: `SELECT id, seq, endpoint, doc_key, first_line, last_line, lines, status, request_id, messages, hint, resolution
      FROM items WHERE file_id = ? AND (first_line, seq) > (?, ?) ORDER BY first_line, seq LIMIT ?`,
    requestStatus: 'SELECT status FROM requests WHERE id = ?',
    processingFiles: `SELECT count(*) AS n FROM files WHERE status = 'processing'`,
    openRequests: `SELECT status, count(*) AS requests, coalesce(sum(item_count), 0) AS items FROM requests
      WHERE status IN ('pending', 'sent') GROUP BY status`,
    uncertainCount: `SELECT count(*) AS n FROM items ${attention} WHERE status IN ('error', 'uncertain') AND status = 'uncertain'`,
    errorCount: `SELECT count(*) AS n FROM items ${attention} WHERE status IN ('error', 'uncertain') AND status = 'error'`,
    // Unwritten: the records of exports whose file is not in place yet, whatever status they will take (records
    // carry that status from the start, see outbound.ts); open: those of written exports still waiting.
    unwrittenRecords: `SELECT coalesce(sum(record_count), 0) AS n FROM exports WHERE status = 'recorded'`,
    openAcks: `SELECT r.ack_status, count(*) AS n FROM export_records r ${openRecords} JOIN exports e ON e.id = r.export_id
      WHERE r.ack_status IN ('unwritten', 'pending', 'awaiting-confirmation') AND e.status = 'written' GROUP BY r.ack_status`,
  };

  const count = async (query: string): Promise<number> => (await sql.get<{ n: number }>(query))?.n ?? 0;

  /** The file as `port` sees it: the journal's connection, or a unit of work on it. */
  async function fileIn(port: SqlPort, fileId: number): Promise<FileRecord> {
    const row = await port.get<FileRow>(q.file, [fileId]);
    if (!row) throw stateError(`file ${fileId} is not in the journal`);
    return toFile(row);
  }

  async function* retryable(fileId: number): AsyncGenerator<ItemWithBody> {
    for (const query of [q.retryErrors, q.retryAbandoned]) {
      let after = -1;
      for (;;) {
        const rows = await sql.all<ItemRow & { body: string | null }>(query, [fileId, after, PAGE]);
        for (const row of rows) yield { ...toItem(row), body: row.body };
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1].seq;
      }
    }
  }

  /** Lease mode: the re-drive's writes are this instance's, unless another one works on the file. */
  async function takeLease(t: SqlPort, fileId: number): Promise<void> {
    const owner = await fence?.take(t, fileId);
    if (owner !== undefined) throw fileBusy(fileId, owner);
  }

  const beginRedrive = (fileId: number): Promise<number> => sql.tx(async (t) => {
    const file = await fileIn(t, fileId);
    if (file.status === 'processing') {
      if (file.redrives === 0) throw stateError(`file ${fileId} is still being processed`);
      await takeLease(t, fileId);
      return file.redrives + 1; // a re-drive interrupted by a crash goes on with the same attempt
    }
    if (file.status !== 'failed') throw stateError(`file ${fileId} is ${file.status}: nothing to retry`);
    if (file.prunedAt !== null) throw stateError(`file ${fileId}: its rows were pruned on ${file.prunedAt} (journal retention): nothing left to retry`);
    await takeLease(t, fileId);
    await t.run(q.startRedrive, [fileId]);
    return file.redrives + 2;
  });

  async function refreshFileStatus(t: SqlPort, fileId: number): Promise<FileStatus | null> {
    const s = await inboundOn(t).fileSummary(fileId);
    const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
    return (await t.run(q.refreshFileStatus, [status, JSON.stringify(s), fileId])) === 1 ? status : null;
  }

  const resolveUncertain = (target: ResolveTarget, options: ResolveOptions): Promise<ResolveResult> => sql.tx(async (t) => {
    const rows: ItemRow[] = [];
    const missing: Array<number | string> = [];
    if ('itemIds' in target) {
      for (const id of target.itemIds) {
        const row = await t.get<ItemRow>(q.itemById, [id]);
        if (row?.status === 'uncertain') rows.push(row);
        else missing.push(id);
      }
    } else {
      for (const seq of target.seqs) {
        const row = await t.get<ItemRow>(q.itemBySeq, [target.fileId, seq]);
        if (row?.status === 'uncertain') rows.push(row);
        else missing.push(`${target.fileId}#${seq}`);
      }
    }
    if (missing.length > 0) throw stateError(`not uncertain items: ${missing.join(', ')}`, { missing });
    // In id order, as a heartbeat renews them: two units of work never wait for each other's rows.
    if (fence) for (const fileId of [...new Set(rows.map((row) => row.file_id))].sort((x, y) => x - y)) await fence.unheld(t, fileId);
    const at = now();
    const status: ItemStatus = options.resolution === 'applied' ? 'ok' : 'error';
    // The note replaces the "outcome unknown" message and hint in the result file; item_history keeps them.
    const messages = JSON.stringify([`${options.resolution === 'applied' ? 'applied' : 'not applied'}: ${options.note}`]);
    const fileIds = new Set<number>();
    for (const row of rows) {
      await t.run(q.saveHistory, [at, row.id]);
      // Resolved since it was read, through another connection (PostgreSQL reads without waiting for its unit of work).
      if ((await t.run(q.resolve, [status, messages, options.resolution, options.note, options.by, at, row.id])) !== 1) {
        const taken = 'itemIds' in target ? row.id : `${row.file_id}#${row.seq}`;
        throw stateError(`not uncertain items: ${taken}`, { missing: [taken] });
      }
      fileIds.add(row.file_id);
    }
    const files: Array<{ fileId: number; status: FileStatus }> = [];
    for (const fileId of fileIds) files.push({ fileId, status: (await refreshFileStatus(t, fileId)) ?? (await fileIn(t, fileId)).status });
    return { resolved: rows.length, files };
  });

  /**
   * Line outcomes from two sources read in first-line order: item rows (paged by first_line, seq) and item
   * blocks (paged by their first line). Every line of what was read goes into a min-heap; a line leaves it
   * once nothing unread can start before it, so lines of interleaved documents still come out in order.
   */
  async function* iterateLineOutcomes(fileId: number): AsyncGenerator<LineOutcome> {
    const heap = new LineHeap();
    // Request statuses of the current page: other writes may run between two pages, so it is emptied per page.
    const requestStatuses = new Map<number, string | null>();
    const rows = new Pager<LinePageRow>((last) => {
      requestStatuses.clear();
      return sql.values<LinePageRow>(q.linePage, [fileId, last?.[4] ?? Number.MIN_SAFE_INTEGER, last?.[1] ?? Number.MIN_SAFE_INTEGER, PAGE]);
    }, (row) => row[4]);
    const blocks = new Pager<BlockRow>((last) => itemBlocks.pageByLine(fileId, last?.first_line ?? Number.MIN_SAFE_INTEGER, last?.request_id ?? 0, BLOCK_PAGE),
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
        const result = status === 'ok' ? await inbound.resultOf(requestId, seq) : null;
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
        const copied = await itemBlocks.copiedSeqs(block);
        const status = blockItemStatus(block.status);
        // Packed [seq, docKey, firstLine, lastLine, lines] entries, read as they are (no object per item).
        const entries = packedDocs(block);
        // Results are stored in the items' order: read in step with the entries, looked up only when they differ.
        const results = status === 'ok' ? await inbound.resultList(block.request_id) : [];
        if (blocks.empty) await blocks.fill();
        // The usual block: one line per item, ascending, before anything else unread. Its lines go straight out.
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
    }
  }

  async function backlog(): Promise<Backlog> {
    const result: Backlog = {
      processingFiles: await count(q.processingFiles),
      pendingRequests: 0, pendingItems: 0, sentRequests: 0, sentItems: 0,
      uncertainItems: await count(q.uncertainCount),
      errorItems: await count(q.errorCount),
      exportsUnwritten: await count(q.unwrittenRecords), acknowledgementsPending: 0, awaitingConfirmation: 0,
    };
    for (const row of await sql.all<{ status: string; requests: number; items: number }>(q.openRequests)) {
      if (row.status === 'pending') Object.assign(result, { pendingRequests: row.requests, pendingItems: row.items });
      else Object.assign(result, { sentRequests: row.requests, sentItems: row.items });
    }
    for (const row of await sql.all<{ ack_status: string; n: number }>(q.openAcks)) {
      if (row.ack_status === 'pending') result.acknowledgementsPending = row.n;
      else result.awaitingConfirmation = row.n;
    }
    return result;
  }

  const itemsOf = async (query: string, params: Array<number | string>): Promise<StoredItem[]> =>
    (await sql.all<ItemRow>(query, params)).map((row) => toItem(row));

  return {
    getFile: (fileId: number): Promise<FileRecord> => fileIn(sql, fileId),
    /** The most recent file of that name (any drop), if any. */
    latestFileNamed: async (name: string): Promise<FileRecord | undefined> => {
      const row = await sql.get<FileRow>(q.fileNamed, [name]);
      return row && toFile(row);
    },
    listFiles: async (options: { since?: string; status?: FileStatus; limit: number }): Promise<FileRecord[]> => {
      const since = options.since ?? null;
      const status = options.status ?? null;
      return (await sql.all<FileRow>(q.listFiles, [since, since, status, status, options.limit])).map(toFile);
    },
    failedItems: (fileId: number, options: { limit?: number } = {}): Promise<StoredItem[]> =>
      itemsOf(q.failed, [fileId, options.limit ?? 1000]),
    uncertainItems: (fileId?: number, options: { limit?: number } = {}): Promise<StoredItem[]> =>
      fileId === undefined ? itemsOf(q.uncertain, [options.limit ?? 1000]) : itemsOf(q.uncertainOfFile, [fileId, options.limit ?? 1000]),
    /** Failed items of a file that can be sent again (never ok, uncertain or mapping-rejected ones), with bodies. */
    retryable,
    /** Opens a re-drive of a failed file: returns the attempt number to pass to recordRequest. */
    beginRedrive,
    /** A person checked uncertain items: applied → ok, not-applied → error (so retry can re-drive them). */
    resolveUncertain,
    /** One outcome per input line, in line order, for the result file. Safe to interleave with journal writes. */
    iterateLineOutcomes,
    backlog,
  };
}
