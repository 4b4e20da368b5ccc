import { bodiesJson, mergeRanges, packBatch, type Blocks, type PackedBatch, type PackedOkOutcomes } from './blocks.js';
import type { Db } from './db.js';
import {
  bodyJson, emptyCounts, encodeLines, inRanges, ITEM_COLUMNS, messagesJson, stateError, toItem, toRanges, toRequest,
  type ItemRow, type RequestRow,
} from './rows.js';
import type {
  ClaimInput, ClaimResult, FileStatus, FileSummary, ItemOutcome, ItemWithBody, NewItem, RecordedRequest,
  RequestStatus, ResumeClass, ResumeState,
} from './types.js';

const PAGE = 2000;

/** An item row's status, reading `pending` rows through their request (see effectiveStatus in rows.ts). */
const EFFECTIVE_STATUS = `CASE WHEN i.status != 'pending' THEN i.status WHEN r.status = 'sent' THEN 'sent'
  WHEN r.status IN ('done', 'failed', 'uncertain') THEN 'ok' ELSE 'pending' END`;

export function createInbound(db: Db, now: () => string, blocks: Blocks) {
  const q = {
    fileStatus: db.prepare('SELECT status FROM files WHERE id = ?').pluck(),
    processingByChecksum: db.prepare(
      `SELECT id, generation FROM files WHERE checksum = ? AND status = 'processing' ORDER BY id DESC LIMIT 1`),
    // A rejected file counts as processed only when some of it reached the service.
    processedByChecksum: db.prepare(
      `SELECT id, name, status, finished_at FROM files f WHERE checksum = ? AND (status IN ('done', 'failed')
         OR (status = 'rejected' AND (pruned_requests > 0 OR EXISTS (SELECT 1 FROM requests r WHERE r.file_id = f.id))))
       ORDER BY id DESC LIMIT 1`),
    maxGeneration: db.prepare('SELECT coalesce(max(generation), 0) FROM files WHERE checksum = ?').pluck(),
    insertFile: db.prepare(
      `INSERT INTO files (drop_name, name, checksum, size, mapping, generation, status, claimed_at)
       VALUES (?, ?, ?, ?, ?, ?, 'processing', ?)`),
    pendingRequests: db.prepare(`SELECT * FROM requests WHERE file_id = ? AND status = 'pending'`),
    abandonRequest: db.prepare(`UPDATE requests SET status = 'abandoned', completed_at = ? WHERE id = ?`),
    unlinkRange: db.prepare(
      `UPDATE items SET request_id = NULL WHERE file_id = ? AND seq BETWEEN ? AND ? AND request_id = ? AND status = 'pending'`),
    insertItem: db.prepare(
      `INSERT INTO items (file_id, seq, endpoint, doc_key, first_line, last_line, lines, body, status, rejected, messages)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (file_id, seq) DO NOTHING`),
    insertRequest: db.prepare(
      `INSERT INTO requests (file_id, endpoint, attempt, seqs, item_count, status, created_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?)`),
    linkRange: db.prepare(
      `UPDATE items SET request_id = ?, attempt = ? WHERE file_id = ? AND seq BETWEEN ? AND ?
         AND status = 'pending' AND request_id IS NULL AND rejected = 0 AND endpoint = ?`),
    saveHistoryRange: db.prepare(
      `INSERT INTO item_history (item_id, request_id, attempt, status, messages, hint, recorded_at)
       SELECT id, request_id, attempt, status, messages, hint, ? FROM items
       WHERE file_id = ? AND seq BETWEEN ? AND ? AND status = 'error' AND rejected = 0 AND endpoint = ?`),
    relinkRange: db.prepare(
      `UPDATE items SET request_id = ?, attempt = ?, status = 'pending', messages = NULL, hint = NULL
       WHERE file_id = ? AND seq BETWEEN ? AND ? AND rejected = 0 AND endpoint = ?
         AND (status = 'error' OR (status = 'pending' AND request_id IS NULL))`),
    request: db.prepare('SELECT * FROM requests WHERE id = ?'),
    sendRequest: db.prepare(`UPDATE requests SET status = 'sent', sent_at = ? WHERE id = ? AND status = 'pending'`),
    outcome: db.prepare(
      `UPDATE items SET status = ?, messages = ?, hint = ?
       WHERE file_id = ? AND seq = ? AND request_id = ? AND status IN ('pending', 'sent')`),
    // Once the exceptions are stored, the rest of the request is ok: one range update, not one per item.
    finishRequest: db.prepare('UPDATE requests SET status = ?, results = ?, completed_at = ? WHERE id = ?'),
    results: db.prepare('SELECT results FROM requests WHERE id = ?').pluck(),
    counts: db.prepare(
      `SELECT ${EFFECTIVE_STATUS} AS status, count(*) AS n FROM items i LEFT JOIN requests r ON r.id = i.request_id
       WHERE i.file_id = ? GROUP BY 1`),
    finishFile: db.prepare(
      `UPDATE files SET status = ?, summary = ?, finished_at = ? WHERE id = ? AND status = 'processing'`),
    rejectFile: db.prepare(
      `UPDATE files SET status = 'rejected', reason = ?, finished_at = ? WHERE id = ? AND status = 'processing'`),
    maxSeq: db.prepare('SELECT max(seq) FROM items WHERE file_id = ?').pluck(),
    // Gaps and islands: the finished seqs as ranges, computed inside SQLite without shipping 1M rows to JS.
    finishedRanges: db.prepare(
      `SELECT min(seq), max(seq) FROM (SELECT i.seq, i.seq - row_number() OVER (ORDER BY i.seq) AS island
       FROM items i LEFT JOIN requests r ON r.id = i.request_id
       WHERE i.file_id = ? AND (i.status != 'pending' OR r.status IN ('done', 'failed', 'uncertain')))
       GROUP BY island ORDER BY 1`).raw(),
    sentRequests: db.prepare(`SELECT * FROM requests WHERE file_id = ? AND status = 'sent' ORDER BY id`),
    itemsInRange: db.prepare(
      `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?`),
    itemsOfRequestRange: db.prepare(
      `SELECT ${ITEM_COLUMNS}, body FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? AND request_id = ? ORDER BY seq`),
  };

  function requireProcessing(fileId: number): void {
    const status = q.fileStatus.get(fileId) as FileStatus | undefined;
    if (status === undefined) throw stateError(`file ${fileId} is not in the journal`);
    if (status !== 'processing') throw stateError(`file ${fileId} is ${status}, not processing`);
  }

  function requireRequest(requestId: number): RequestRow {
    const row = q.request.get(requestId) as RequestRow | undefined;
    if (!row) throw stateError(`request ${requestId} is not in the journal`);
    return row;
  }

  function abandonPendingRequests(fileId: number): void {
    const at = now();
    for (const row of q.pendingRequests.all(fileId) as RequestRow[]) unlinkAndAbandon(row, at);
  }

  /** The request's items are free again (a block is dropped: its items were never recorded elsewhere). */
  function unlinkAndAbandon(row: RequestRow, at: string): void {
    if (!blocks.remove(row.id)) {
      for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) q.unlinkRange.run(row.file_id, from, to, row.id);
    }
    q.abandonRequest.run(at, row.id);
  }

  const claimTx = db.transaction((input: ClaimInput): ClaimResult => {
    const processing = q.processingByChecksum.get(input.checksum) as { id: number; generation: number } | undefined;
    if (processing) {
      // Requests recorded but never marked sent did not leave the process: they are sent again.
      abandonPendingRequests(processing.id);
      return { status: 'resume', fileId: processing.id, generation: processing.generation };
    }
    if (!input.force) {
      const done = q.processedByChecksum.get(input.checksum) as
        | { id: number; name: string; status: FileStatus; finished_at: string | null } | undefined;
      if (done) {
        return { status: 'duplicate', fileId: done.id, previousName: done.name, finishedAt: done.finished_at, previousStatus: done.status };
      }
    }
    const generation = (q.maxGeneration.get(input.checksum) as number) + 1;
    const info = q.insertFile.run(input.drop, input.name, input.checksum, input.size, input.mapping, generation, now());
    return { status: 'new', fileId: Number(info.lastInsertRowid), generation };
  });

  const addItemsTx = db.transaction((fileId: number, items: readonly NewItem[]): number => {
    requireProcessing(fileId);
    let inserted = 0;
    for (const item of items) {
      const lines = encodeLines(item.lines);
      const status = item.status ?? 'pending';
      const body = bodyJson(item.body);
      if (status === 'pending' && (body === null || !item.endpoint)) {
        throw stateError(`item ${item.seq} of file ${fileId} is pending but has no endpoint or body`);
      }
      inserted += q.insertItem.run(fileId, item.seq, item.endpoint ?? null, item.docKey ?? null, lines.first, lines.last,
        lines.list, body, status, status === 'pending' ? 0 : 1, messagesJson(item.messages)).changes;
    }
    return inserted;
  });

  const recordRequestTx = db.transaction((fileId: number, endpoint: string, seqs: readonly number[], attempt: number) => {
    requireProcessing(fileId);
    if (seqs.length === 0) throw stateError('a request needs at least one item');
    const ranges = toRanges(seqs);
    const at = now();
    const requestId = Number(q.insertRequest.run(fileId, endpoint, attempt, JSON.stringify(ranges), seqs.length, at).lastInsertRowid);
    let linked = 0;
    for (const [from, to] of ranges) {
      if (attempt === 1) {
        linked += q.linkRange.run(requestId, attempt, fileId, from, to, endpoint).changes;
      } else {
        q.saveHistoryRange.run(at, fileId, from, to, endpoint);
        linked += q.relinkRange.run(requestId, attempt, fileId, from, to, endpoint).changes;
      }
    }
    if (linked !== seqs.length) {
      const expected = attempt === 1 ? `pending ${endpoint} items not yet in a request` : `failed ${endpoint} items`;
      throw stateError(`only ${linked} of the ${seqs.length} items are ${expected} (file ${fileId})`, { fileId, endpoint });
    }
    return requestId;
  });

  const recordBatchTx = db.transaction((fileId: number, packed: PackedBatch, sent: boolean, bodies: string) => {
    requireProcessing(fileId);
    const requestId = Number(q.insertRequest.run(fileId, packed.endpoint, 1, JSON.stringify(packed.ranges), packed.count, now()).lastInsertRowid);
    blocks.insert(fileId, requestId, packed, bodies);
    if (sent) q.sendRequest.run(now(), requestId);
    return requestId;
  });

  const markSentTx = db.transaction((requestId: number) => {
    const row = requireRequest(requestId);
    // Items stay `pending` in their rows: they read as `sent` through their request (no write per item).
    if (q.sendRequest.run(now(), requestId).changes !== 1) throw stateError(`request ${requestId} is ${row.status}, not pending`);
  });

  // A request known not to have reached the service (refused before processing): its items are free again.
  const releaseTx = db.transaction((requestId: number) => {
    const row = requireRequest(requestId);
    if (row.status !== 'pending' && row.status !== 'sent') throw stateError(`request ${requestId} is already ${row.status}`);
    unlinkAndAbandon(row, now());
  });

  const completeTx = db.transaction((requestId: number, given: readonly ItemOutcome[] | PackedOkOutcomes, forced?: RequestStatus) => {
    const row = requireRequest(requestId);
    if (row.status !== 'pending' && row.status !== 'sent') throw stateError(`request ${requestId} is already ${row.status}`);
    if (!Array.isArray(given)) {
      const packed = given as PackedOkOutcomes;
      if (packed.ok !== row.item_count) throw stateError(`request ${requestId} has ${row.item_count} items but ${packed.ok} outcomes were given`);
      // Like the ok items below: nothing written per item.
      q.finishRequest.run(forced ?? 'done', packed.results, now(), requestId);
      resultCache.delete(requestId);
      return forced ?? 'done';
    }
    const outcomes = given as readonly ItemOutcome[];
    const ranges = JSON.parse(row.seqs) as Array<[number, number]>;
    if (outcomes.length !== row.item_count) {
      throw stateError(`request ${requestId} has ${row.item_count} items but ${outcomes.length} outcomes were given`);
    }
    const block = blocks.get(requestId);
    const seen = new Set<number>();
    const results: Array<[number, unknown]> = [];
    let errors = 0;
    let uncertain = 0;
    for (const o of outcomes) {
      if (seen.has(o.seq) || !inRanges(ranges, o.seq)) {
        throw stateError(`seq ${o.seq} is not an item of request ${requestId} or is listed twice`, { requestId, seq: o.seq });
      }
      seen.add(o.seq);
      if (o.status === 'ok') {
        if (o.result !== undefined && o.result !== null) results.push([o.seq, o.result]);
        continue;
      }
      if (o.status === 'error') errors++;
      else uncertain++;
      if (block) continue;
      const changed = q.outcome.run(o.status, messagesJson(o.messages), o.hint ?? null, row.file_id, o.seq, requestId).changes;
      if (changed !== 1) throw stateError(`seq ${o.seq} is not an open item of request ${requestId}`, { requestId, seq: o.seq });
    }
    if (block && errors + uncertain > 0) blocks.storeExceptions(block, outcomes);
    // The ok items are not written: a pending item of a completed request reads as ok, so an
    // all-ok batch costs one row write (the request) instead of one per item.
    const status: RequestStatus = forced ?? (uncertain > 0 ? 'uncertain' : errors > 0 ? 'failed' : 'done');
    q.finishRequest.run(status, results.length > 0 ? JSON.stringify(results) : null, now(), requestId);
    resultCache.delete(requestId);
    return status;
  });

  // Results are stored per request; readers going through items in order hit the same few requests.
  const resultCache = new Map<number, Map<number, unknown>>();
  function resultOf(requestId: number | null, seq: number): unknown {
    if (requestId === null) return null;
    let map = resultCache.get(requestId);
    if (!map) {
      map = new Map(resultList(requestId));
      if (resultCache.size >= 8) resultCache.delete(resultCache.keys().next().value as number);
      resultCache.set(requestId, map);
    }
    return map.get(seq) ?? null;
  }

  /** A request's stored results as [seq, result] pairs in outcome order (usually its items' order). */
  function resultList(requestId: number): ReadonlyArray<[number, unknown]> {
    const text = q.results.get(requestId) as string | null | undefined;
    return text ? (JSON.parse(text) as Array<[number, unknown]>) : [];
  }

  function summary(fileId: number): FileSummary {
    const counts = emptyCounts();
    let total = 0;
    for (const { status, n } of [...(q.counts.all(fileId) as Array<{ status: keyof typeof counts; n: number }>), ...blocks.counts(fileId)]) {
      counts[status] += n;
      total += n;
    }
    return { fileId, total, ...counts };
  }

  const finishTx = db.transaction((fileId: number): FileStatus => {
    requireProcessing(fileId);
    const s = summary(fileId);
    if (s.pending + s.sent > 0) {
      throw stateError(`file ${fileId} still has ${s.pending} pending and ${s.sent} sent items`, { fileId });
    }
    const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
    q.finishFile.run(status, JSON.stringify(s), now(), fileId);
    return status;
  });

  const rejectTx = db.transaction((fileId: number, reason: string) => {
    requireProcessing(fileId);
    q.rejectFile.run(reason, now(), fileId);
  });

  function resumeState(fileId: number): ResumeState {
    const finished = mergeRanges([...(q.finishedRanges.all(fileId) as Array<[number, number]>), ...blocks.finishedRanges(fileId)]);
    const sentRequests = (q.sentRequests.all(fileId) as RequestRow[]).map(toRequest);
    const sent = new Set(sentRequests.flatMap((r) => r.seqs));
    const done = finished.reduce((n, [a, b]) => n + b - a + 1, 0);
    const starts = Float64Array.from(finished, (r) => r[0]);
    const classify = (seq: number): ResumeClass => {
      let lo = 0;
      let hi = starts.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid] <= seq) lo = mid + 1;
        else hi = mid - 1;
      }
      if (hi >= 0 && seq <= finished[hi][1]) return 'finished';
      return sent.has(seq) ? 'sent' : 'unsent';
    };
    const s = summary(fileId);
    return {
      fileId,
      maxSeq: Math.max((q.maxSeq.get(fileId) as number | null) ?? -1, blocks.maxSeq(fileId) ?? -1),
      counts: { finished: done, sent: sent.size, unsent: s.total - done - sent.size },
      sentRequests,
      classify,
    };
  }

  /**
   * Items with seqs in [fromSeq, toSeq], in seq order (for tools and tests: the range is held in memory).
   * An item copied from a block into `items` is read from `items`.
   */
  function itemsInRange(fileId: number, fromSeq: number, toSeq: number): ItemWithBody[] {
    const found = new Map<number, ItemWithBody>();
    for (const block of blocks.inSeqRange(fileId, fromSeq, toSeq)) {
      for (const item of blocks.items(block, (seq) => resultOf(block.request_id, seq))) {
        if (item.seq >= fromSeq && item.seq <= toSeq) found.set(item.seq, item);
      }
    }
    let next = fromSeq;
    for (;;) {
      const rows = q.itemsInRange.all(fileId, next, toSeq, PAGE) as Array<ItemRow & { body: string | null }>;
      for (const row of rows) found.set(row.seq, { ...toItem(row, resultOf(row.request_id, row.seq)), body: row.body });
      if (rows.length < PAGE) break;
      next = rows[rows.length - 1].seq + 1;
    }
    return [...found.values()].sort((a, b) => a.seq - b.seq);
  }

  /** A request's items in seq order: its block (if any) plus its rows in `items`. */
  function requestItems(requestId: number): ItemWithBody[] {
    const row = requireRequest(requestId);
    const block = blocks.get(requestId);
    const items: ItemWithBody[] = block ? blocks.items(block, (seq) => resultOf(requestId, seq)) : [];
    for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) {
      for (const item of q.itemsOfRequestRange.all(row.file_id, from, to, requestId) as Array<ItemRow & { body: string | null }>) {
        items.push({ ...toItem(item, resultOf(requestId, item.seq)), body: item.body });
      }
    }
    return block ? items.sort((a, b) => a.seq - b.seq) : items;
  }

  return {
    /** Claims a file by its content checksum: new, resume (a crash left it processing) or duplicate. */
    claimFile: (input: ClaimInput): ClaimResult => claimTx.immediate(input),
    /** Records items (and rows the mapping rejected); seqs already recorded are left as they are. Returns how many were new. */
    addItems: (fileId: number, items: readonly NewItem[]): number => addItemsTx.immediate(fileId, items),
    /**
     * Records a request before it is sent and links its items. attempt 1 takes pending items; a
     * re-drive (attempt from beginRedrive) takes failed items and keeps their earlier outcome in the history.
     */
    recordRequest: (fileId: number, endpoint: string, seqs: readonly number[], options: { attempt?: number } = {}): number =>
      recordRequestTx.immediate(fileId, endpoint, seqs, options.attempt ?? 1),
    /**
     * The hot path: records a request and its new items as one item block (one row for the whole request).
     * A seq already recorded for the file is refused. `sent: true` also marks the request sent in the same
     * commit (one fsync less per batch): call it only right before sending; a crash between this commit and
     * the send makes the batch look sent (reported uncertain / read back on resume), never applied twice.
     * `bodies`: the items' bodies as one JSON array text in item order (the items then carry none).
     */
    /**
     * Records a request of the items (or of items packed ahead with packBatch, then with their bodies' JSON text),
     * marked sent when `sent`; returns its id.
     */
    recordBatch: (fileId: number, endpoint: string, items: readonly NewItem[] | PackedBatch, options: { sent?: boolean; bodies?: string } = {}): number => {
      const packed = Array.isArray(items) ? packBatch(endpoint, items as readonly NewItem[]) : (items as PackedBatch);
      if (packed.endpoint !== endpoint) throw stateError(`the packed items are for ${packed.endpoint}, not ${endpoint}`);
      const bodies = options.bodies ?? (Array.isArray(items) ? bodiesJson(fileId, items as readonly NewItem[]) : undefined);
      if (bodies === undefined) throw stateError(`request of file ${fileId}: packed items need their bodies' JSON text`);
      return recordBatchTx.immediate(fileId, packed, options.sent === true, bodies);
    },
    /** Call just before the bytes go out: from here on the outcome is unknown until completeRequest. */
    markSent: (requestId: number): void => markSentTx.immediate(requestId),
    /** The request did not reach the service after all (e.g. 503 until the retries ran out): abandoned, its items unsent again. */
    releaseRequest: (requestId: number): void => releaseTx.immediate(requestId),
    /** Stores every item's outcome and the request status (derived unless given). */
    completeRequest: (requestId: number, outcomes: readonly ItemOutcome[] | PackedOkOutcomes, options: { status?: 'done' | 'failed' | 'uncertain' } = {}): RequestStatus =>
      completeTx.immediate(requestId, outcomes, options.status),
    /** Ends a processing file: `done`, or `failed` when some items failed or are uncertain. */
    finishFile: (fileId: number): FileStatus => finishTx.immediate(fileId),
    /** The file as a whole failed (unreadable, no header, unknown mapping...). */
    rejectFile: (fileId: number, reason: string): void => rejectTx.immediate(fileId, reason),
    resumeState,
    itemsInRange,
    requestItems,
    getRequest: (requestId: number): RecordedRequest => toRequest(requireRequest(requestId)),
    fileSummary: summary,
    /** What the service returned for an ok item (stored per request). */
    resultOf,
    resultList,
  };
}
