import { bodiesJson, bodyValues, packBatch, type AllOkRequest, type BlockIndexOf, type PackedBatch, type PackedOkOutcomes } from '../core/block-pack.js';
import { blockItemStatus, createBlocks, refuseShared, type BlockRow, type Blocks } from '../core/blocks.js';
import { recordWithBlocks, type BatchToRecord } from '../core/record-blocks.js';
import { readResumeState } from '../core/resume-state.js';
import type { Fence } from '../leases/leases.js';
import {
  bodyJson, effectiveStatus, emptyCounts, encodeLines, inRanges, messagesJson, stateError, toItem, toRanges, toRequest,
  type ItemRow, type RequestRow,
} from '../core/rows.js';
import { finishOpenRequests, finishOpenRequestsParams, INBOUND_STATEMENTS as q, SENT_STATEMENTS } from './inbound-sql.js';
import { takeTurn, type SqlPort, type SqlValue } from '../core/sql.js';
import type {
  ClaimInput, ClaimResult, FileStatus, FileSummary, ItemOutcome, ItemWithBody, NewItem, RecordedRequest,
  RequestStatus, ResumeState, StatusCounts,
} from '../core/types.js';

const PAGE = 2000;

/** A request in one of these has its results stored for good. */
const FINISHED: ReadonlySet<RequestStatus> = new Set(['done', 'failed', 'uncertain']);
const NO_RESULTS: ReadonlyMap<number, unknown> = new Map();

type ItemRowWithBody = ItemRow & { body: string | null };

/** Refuses a write for a file that is not processing (`status` undefined: no such file). */
function processingRequired(fileId: number, status: string | undefined): void {
  if (status === undefined) throw stateError(`file ${fileId} is not in the journal`);
  if (status !== 'processing') throw stateError(`file ${fileId} is ${status}, not processing`);
}

/** Refuses a packed block for another endpoint than the request's. */
function requireEndpoint(packed: PackedBatch, endpoint: string): void {
  if (packed.endpoint !== endpoint) throw stateError(`the packed items are for ${packed.endpoint}, not ${endpoint}`);
}

/** `fence`: in lease mode (leases.ts), every write for a file checks that this journal still holds the file's lease. */
export function createInbound(sql: SqlPort, now: () => string, blocks: Blocks, fence?: Fence) {
  /** The block queries on the port `t` of a unit of work (the journal's own blocks when this journal is bound to it). */
  const blocksOn = (t: SqlPort): Blocks => (t === sql ? blocks : createBlocks(t));
  /** A write for a file, as a unit of work. */
  const write = <T>(fn: (t: SqlPort) => Promise<T>): Promise<T> => (fence ? fence.write(fn) : sql.tx(fn));

  async function insertedId(t: SqlPort, statement: string, params: readonly SqlValue[]): Promise<number> {
    return (await t.get<{ id: number }>(statement, params))!.id;
  }

  async function requireProcessing(t: SqlPort, fileId: number): Promise<void> {
    processingRequired(fileId, fence ? await fence.status(t, fileId) : (await t.get<{ status: FileStatus }>(q.fileStatus, [fileId]))?.status);
  }

  async function requireRequest(t: SqlPort, requestId: number): Promise<RequestRow> {
    const row = await t.get<RequestRow>(q.request, [requestId]);
    if (!row) throw stateError(`request ${requestId} is not in the journal`);
    return row;
  }

  /** Refuses a write for a request that is finished already (done, failed, uncertain, abandoned). */
  function requireOpen(row: RequestRow): void {
    if (row.status !== 'pending' && row.status !== 'sent') throw stateError(`request ${row.id} is already ${row.status}`);
  }

  async function abandonPendingRequests(t: SqlPort, fileId: number): Promise<void> {
    const at = now();
    for (const row of await t.all<RequestRow>(q.pendingRequests, [fileId])) await unlinkAndAbandon(t, row, at);
  }

  /** The request's items are free again (a block is dropped: its items were never recorded elsewhere). */
  async function unlinkAndAbandon(t: SqlPort, row: RequestRow, at: string): Promise<void> {
    if (!(await blocksOn(t).remove(row.id))) {
      for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) await t.run(q.unlinkRange, [row.file_id, from, to, row.id]);
    }
    await t.run(q.abandonRequest, [at, row.id]);
  }

  const claimTx = (input: ClaimInput) => sql.tx(async (t): Promise<ClaimResult> => {
    // Two bridges claiming the same bytes at once: the second finds the first's file (resume), never a second one.
    // The turn and both reads go out together (one round trip on a pipelining connection); the server takes the
    // turn before it reads. Locked (PostgreSQL): its owner finishing it meanwhile would otherwise turn the lease check
    // below into a take of a finished file (`status <> 'processing'` is free), and the owner's last writes into
    // LEASE_LOST.
    const [, processing, done] = await Promise.all([
      takeTurn(t, `claim:${input.checksum}`),
      t.get<{ id: number; generation: number }>(`${q.processingByChecksum}${t.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [input.checksum]),
      input.force ? undefined : t.get<{ id: number; name: string; status: FileStatus; finished_at: string | null }>(q.processedByChecksum, [input.checksum]),
    ]);
    if (processing) {
      // Lease mode: a file another instance works on is left alone; an expired lease is taken over, as after a crash.
      const owner = await fence?.take(t, processing.id);
      if (owner !== undefined) return { status: 'busy', fileId: processing.id, owner };
      // Requests recorded but never marked sent did not leave the process: they are sent again.
      await abandonPendingRequests(t, processing.id);
      return { status: 'resume', fileId: processing.id, generation: processing.generation };
    }
    if (done) return { status: 'duplicate', fileId: done.id, previousName: done.name, finishedAt: done.finished_at, previousStatus: done.status };
    // Lease mode: the lease taken in the insert's round trip (the server runs the take after it).
    const [inserted, leased] = await Promise.all([
      t.get<{ id: number; generation: number }>(q.insertFile, [input.drop, input.name, input.checksum, input.size, input.mapping, input.checksum, now()]),
      fence?.takeNew(t, input.checksum),
    ]);
    const { id: fileId, generation } = inserted!;
    if (fence && leased !== fileId) throw stateError(`the lease of file ${fileId} was not taken with its claim (took ${leased ?? 'none'})`, { fileId });
    return { status: 'new', fileId, generation };
  });

  const addItemsTx = (fileId: number, items: readonly NewItem[]) => write(async (t): Promise<number> => {
    await requireProcessing(t, fileId);
    let inserted = 0;
    for (const item of items) {
      const lines = encodeLines(item.lines);
      const status = item.status ?? 'pending';
      const body = bodyJson(item.body);
      if (status === 'pending' && (body === null || !item.endpoint)) {
        throw stateError(`item ${item.seq} of file ${fileId} is pending but has no endpoint or body`);
      }
      inserted += await t.run(q.insertItem, [fileId, item.seq, item.endpoint ?? null, item.docKey ?? null, lines.first, lines.last,
        lines.list, body, status, status === 'pending' ? 0 : 1, messagesJson(item.messages)]);
    }
    return inserted;
  });

  const recordRequestTx = (fileId: number, endpoint: string, seqs: readonly number[], attempt: number) => write(async (t): Promise<number> => {
    await requireProcessing(t, fileId);
    if (seqs.length === 0) throw stateError('a request needs at least one item');
    const ranges = toRanges(seqs);
    const at = now();
    const requestId = await insertedId(t, q.insertRequest, [fileId, endpoint, attempt, JSON.stringify(ranges), seqs.length, at]);
    let linked = 0;
    for (const [from, to] of ranges) {
      if (attempt === 1) {
        linked += await t.run(q.linkRange, [requestId, attempt, fileId, from, to, endpoint]);
      } else {
        await t.run(q.saveHistoryRange, [at, fileId, from, to, endpoint]);
        linked += await t.run(q.relinkRange, [requestId, attempt, fileId, from, to, endpoint]);
      }
    }
    if (linked !== seqs.length) {
      const expected = attempt === 1 ? `pending ${endpoint} items not yet in a request` : `failed ${endpoint} items`;
      throw stateError(`only ${linked} of the ${seqs.length} items are ${expected} (file ${fileId})`, { fileId, endpoint });
    }
    return requestId;
  });

  /** A commit's new requests with their item blocks (JournalContract.recordBatches); their ids in order. */
  const recordBatchesTx = (fileId: number, batches: readonly BatchToRecord[], sent: boolean) => write(async (t): Promise<number[]> => {
    const at = now();
    const itemBlocks = blocksOn(t);
    if (t.dialect === 'postgres') {
      // The file's status, the seqs' checks and the inserts in one statement: refused after it, the unit undoes it.
      refuseShared(fileId, batches.map((b) => b.packed.ranges));
      // The file's row locked and the statement sent together (one round trip on a pipelining connection): the
      // server runs them in order, and a lease found lost fails the unit, which undoes the statement.
      const [, found] = await Promise.all([fence?.hold(t, fileId), recordWithBlocks(t, fileId, { sent, at }, batches)]);
      processingRequired(fileId, found.fileStatus ?? undefined);
      for (const [i, { packed }] of batches.entries()) await itemBlocks.refuseRecorded(fileId, packed.ranges, found.firstItems[i], found.blockSeqs);
      const ids = found.requestIds as number[];
      for (const [i, { packed }] of batches.entries()) if (packed.index !== undefined) await itemBlocks.insertIndex(fileId, ids[i], packed.index);
      return ids;
    }
    await requireProcessing(t, fileId);
    const ids: number[] = [];
    for (const { packed, bodies } of batches) {
      const requestId = sent
        ? await insertedId(t, SENT_STATEMENTS.sqlite.insertSentRequest, [fileId, packed.endpoint, 1, JSON.stringify(packed.ranges), packed.count, at])
        : await insertedId(t, q.insertRequest, [fileId, packed.endpoint, 1, JSON.stringify(packed.ranges), packed.count, at]);
      await itemBlocks.insert(fileId, requestId, packed, bodies);
      ids.push(requestId);
    }
    return ids;
  });

  const indexBlocksTx = (fileId: number, indexes: readonly BlockIndexOf[]) => write(async (t): Promise<void> => {
    await blocksOn(t).insertIndexes(fileId, indexes);
  });

  const markSentTx = (requestId: number) => write(async (t): Promise<void> => {
    const row = await requireRequest(t, requestId);
    await fence?.hold(t, row.file_id);
    // Items stay `pending` in their rows: they read as `sent` through their request (no write per item).
    if ((await t.run(SENT_STATEMENTS[t.dialect].sendRequest, [requestId])) !== 1) throw stateError(`request ${requestId} is ${row.status}, not pending`);
  });

  // A request known not to have reached the service (refused before processing): its items are free again.
  const releaseTx = (requestId: number) => write(async (t): Promise<void> => {
    const row = await requireRequest(t, requestId);
    await fence?.hold(t, row.file_id);
    requireOpen(row);
    await unlinkAndAbandon(t, row, now());
  });

  /**
   * Requests whose items all came back ok, stored as `status` in one statement; like the ok items of completeTx,
   * nothing is written per item. The files' rows are locked before the requests', as every fenced write does (two
   * writers never wait for each other's row the other way round). A row is read only to say why one was refused.
   */
  async function finishAllOk(t: SqlPort, list: ReadonlyArray<AllOkRequest>, status: RequestStatus): Promise<void> {
    if (list.length === 0) return;
    const ids = list.map((r) => r.requestId);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw stateError(`request ${twice} is listed twice`);
    const rows = list.map(({ requestId, outcomes }) => ({ id: requestId, status, results: outcomes.results, count: outcomes.ok }));
    // Locked and stored in one round trip, as recordBatches does.
    const [, stored] = await Promise.all([fence?.holdRequests(t, ids), t.values<[number]>(finishOpenRequests(list.length), finishOpenRequestsParams(rows, now()))]);
    if (stored.length === list.length) return;
    const done = new Set(stored.map(([id]) => id));
    for (const { requestId, outcomes } of list) {
      if (done.has(requestId)) continue;
      const row = await requireRequest(t, requestId);
      requireOpen(row);
      throw stateError(`request ${requestId} has ${row.item_count} items but ${outcomes.ok} outcomes were given`);
    }
  }

  const completeTx = (requestId: number, given: readonly ItemOutcome[] | PackedOkOutcomes, forced?: RequestStatus) => write(async (t): Promise<RequestStatus> => {
    if (!Array.isArray(given)) {
      await finishAllOk(t, [{ requestId, outcomes: given as PackedOkOutcomes }], forced ?? 'done');
      return forced ?? 'done';
    }
    const outcomes = given as readonly ItemOutcome[];
    const itemBlocks = blocksOn(t);
    // What the checks and the exceptions' rows need, read in one round trip on a pipelining connection; the bodies
    // only when some item did not come back ok. With leases the file's row is then locked, unless the unit did or is
    // doing so (the next requests' record, started together: no statement more).
    const [row, block, bodies] = await Promise.all([
      requireRequest(t, requestId),
      itemBlocks.get(requestId),
      outcomes.some((o) => o.status !== 'ok') ? itemBlocks.bodiesOf(requestId) : undefined,
    ]);
    await fence?.hold(t, row.file_id);
    requireOpen(row);
    const ranges = JSON.parse(row.seqs) as Array<[number, number]>;
    if (outcomes.length !== row.item_count) {
      throw stateError(`request ${requestId} has ${row.item_count} items but ${outcomes.length} outcomes were given`);
    }
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
      const changed = await t.run(q.outcome, [o.status, messagesJson(o.messages), o.hint ?? null, row.file_id, o.seq, requestId]);
      if (changed !== 1) throw stateError(`seq ${o.seq} is not an open item of request ${requestId}`, { requestId, seq: o.seq });
    }
    // The ok items are not written: a pending item of a completed request reads as ok, so an
    // all-ok batch costs one row write (the request) instead of one per item.
    const status: RequestStatus = forced ?? (uncertain > 0 ? 'uncertain' : errors > 0 ? 'failed' : 'done');
    // The exceptions' rows and the request's row sent together (checked above, neither reads the other).
    await Promise.all([
      block && errors + uncertain > 0 ? itemBlocks.storeExceptions(block, outcomes, bodies!) : undefined,
      t.run(q.finishRequest, [status, results.length > 0 ? JSON.stringify(results) : null, now(), requestId]),
    ]);
    return status;
  });

  /**
   * A request's results by seq. Readers going through items in order hit the same few requests, so the last few are
   * kept (a hit costs no query), finished ones only: their results no longer change, so no entry goes stale when a
   * completion commits through another binding of the journal (each unit of work composes its own).
   */
  const resultCache = new Map<number, ReadonlyMap<number, unknown>>();
  async function resultsOf(requestId: number): Promise<ReadonlyMap<number, unknown>> {
    const cached = resultCache.get(requestId);
    if (cached) return cached;
    const row = await sql.get<{ status: RequestStatus; results: string | null }>(q.results, [requestId]);
    const results = new Map(row?.results ? (JSON.parse(row.results) as Array<[number, unknown]>) : []);
    if (row && FINISHED.has(row.status)) {
      if (resultCache.size >= 8) resultCache.delete(resultCache.keys().next().value as number);
      resultCache.set(requestId, results);
    }
    return results;
  }

  async function resultOf(requestId: number | null, seq: number): Promise<unknown> {
    return requestId === null ? null : (await resultsOf(requestId)).get(seq) ?? null;
  }

  /** A request's stored results as [seq, result] pairs in outcome order (usually its items' order). */
  async function resultList(requestId: number): Promise<ReadonlyArray<[number, unknown]>> {
    const text = (await sql.get<{ results: string | null }>(q.results, [requestId]))?.results;
    return text ? (JSON.parse(text) as Array<[number, unknown]>) : [];
  }

  /** The results of a block's items: only a finished request has any. */
  const blockResults = (block: BlockRow): Promise<ReadonlyMap<number, unknown>> =>
    FINISHED.has(block.status) ? resultsOf(block.request_id) : Promise.resolve(NO_RESULTS);

  /** An item row as read; only an ok item has a result (its request is finished: the lookup is cached). */
  async function withResult(row: ItemRowWithBody): Promise<ItemWithBody> {
    const ok = effectiveStatus(row.status, row.request_status) === 'ok';
    return { ...toItem(row, ok ? await resultOf(row.request_id, row.seq) : null), body: row.body };
  }

  async function summary(t: SqlPort, fileId: number): Promise<FileSummary> {
    const counts = emptyCounts();
    let total = 0;
    for (const { block, status, n } of await t.all<{ block: number; status: string; n: number }>(q.counts, [fileId, fileId])) {
      counts[block === 1 ? blockItemStatus(status as RequestStatus) : status as keyof StatusCounts] += n;
      total += n;
    }
    return { fileId, total, ...counts };
  }

  const finishTx = (fileId: number) => write(async (t): Promise<FileStatus> => {
    const [, s] = await Promise.all([requireProcessing(t, fileId), summary(t, fileId)]);
    if (s.pending + s.sent > 0) {
      throw stateError(`file ${fileId} still has ${s.pending} pending and ${s.sent} sent items`, { fileId });
    }
    const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
    const at = now();
    await t.run(q.finishFile, [status, JSON.stringify(s), at, at, fileId]);
    return status;
  });

  const rejectTx = (fileId: number, reason: string) => write(async (t): Promise<void> => {
    await requireProcessing(t, fileId);
    const at = now();
    await t.run(q.rejectFile, [reason, at, at, fileId]);
  });

  const resumeState = (fileId: number): Promise<ResumeState> => readResumeState(sql, blocks, fileId, () => summary(sql, fileId));

  /**
   * Items with seqs in [fromSeq, toSeq], in seq order (for tools and tests: the range is held in memory).
   * An item copied from a block into `items` is read from `items`.
   */
  async function itemsInRange(fileId: number, fromSeq: number, toSeq: number): Promise<ItemWithBody[]> {
    const found = new Map<number, ItemWithBody>();
    for (const block of await blocks.inSeqRange(fileId, fromSeq, toSeq)) {
      for (const item of await blocks.items(block, await blockResults(block))) {
        if (item.seq >= fromSeq && item.seq <= toSeq) found.set(item.seq, item);
      }
    }
    let next = fromSeq;
    for (;;) {
      const rows = await sql.all<ItemRowWithBody>(q.itemsInRange, [fileId, next, toSeq, PAGE]);
      for (const row of rows) found.set(row.seq, await withResult(row));
      if (rows.length < PAGE) break;
      next = rows[rows.length - 1].seq + 1;
    }
    return [...found.values()].sort((a, b) => a.seq - b.seq);
  }

  /** A request's items in seq order: its block (if any) plus its rows in `items`. */
  async function requestItems(requestId: number): Promise<ItemWithBody[]> {
    const row = await requireRequest(sql, requestId);
    // Only a finished request has results, for all of its items.
    const results = FINISHED.has(row.status) ? await resultsOf(requestId) : NO_RESULTS;
    const block = await blocks.get(requestId);
    const items: ItemWithBody[] = block ? await blocks.items(block, results) : [];
    for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) {
      for (const item of await sql.all<ItemRowWithBody>(q.itemsOfRequestRange, [row.file_id, from, to, requestId])) {
        items.push({ ...toItem(item, results.get(item.seq) ?? null), body: item.body });
      }
    }
    return block ? items.sort((a, b) => a.seq - b.seq) : items;
  }

  return {
    /** Claims a file by its content checksum: new, resume (a crash left it processing) or duplicate. */
    claimFile: (input: ClaimInput): Promise<ClaimResult> => claimTx(input),
    /** Records items (and rows the mapping rejected); seqs already recorded are left as they are. Returns how many were new. */
    addItems: (fileId: number, items: readonly NewItem[]): Promise<number> => addItemsTx(fileId, items),
    /**
     * Records a request before it is sent and links its items. attempt 1 takes pending items; a
     * re-drive (attempt from beginRedrive) takes failed items and keeps their earlier outcome in the history.
     */
    recordRequest: (fileId: number, endpoint: string, seqs: readonly number[], options: { attempt?: number } = {}): Promise<number> =>
      recordRequestTx(fileId, endpoint, seqs, options.attempt ?? 1),
    /**
     * The hot path: records a request of the items (or of items packed ahead with packBatch, then with their bodies'
     * JSON text in item order) as one item block (one row for the whole request); returns its id.
     * A seq already recorded for the file is refused. `sent: true` also marks the request sent in the same
     * commit (one fsync less per batch): call it only right before sending; a crash between this commit and
     * the send makes the batch look sent (reported uncertain / read back on resume), never applied twice.
     */
    recordBatch: async (fileId: number, endpoint: string, items: readonly NewItem[] | PackedBatch, options: { sent?: boolean; bodies?: string } = {}): Promise<number> => {
      const packed = Array.isArray(items) ? packBatch(endpoint, items as readonly NewItem[], bodyValues(items as readonly NewItem[], options.bodies)) : (items as PackedBatch);
      requireEndpoint(packed, endpoint);
      const bodies = options.bodies ?? (Array.isArray(items) ? bodiesJson(fileId, items as readonly NewItem[]) : undefined);
      if (bodies === undefined) throw stateError(`request of file ${fileId}: packed items need their bodies' JSON text`);
      return (await recordBatchesTx(fileId, [{ packed, bodies }], options.sent === true))[0];
    },
    /**
     * Records a commit's new requests, each as recordBatch records a packed one (`{ packed, bodies }`), in one unit of
     * work and on PostgreSQL in one statement; their ids in order. A seq two of them share is refused too.
     */
    recordBatches: async (fileId: number, batches: ReadonlyArray<BatchToRecord & { endpoint: string }>, options: { sent?: boolean } = {}): Promise<number[]> => {
      if (batches.length === 0) return [];
      for (const { endpoint, packed } of batches) requireEndpoint(packed, endpoint);
      return recordBatchesTx(fileId, batches, options.sent === true);
    },
    /** The console search's index of blocks recorded without it (their PackedBatch's `index` taken off). */
    indexBlocks: (fileId: number, indexes: readonly BlockIndexOf[]): Promise<void> => indexBlocksTx(fileId, indexes),
    /** Indexes the file's blocks a crash left without their index; how many. */
    indexMissingBlocks: (fileId: number): Promise<number> => write((t) => blocksOn(t).indexMissing(fileId)),
    /** Call just before the bytes go out: from here on the outcome is unknown until completeRequest. */
    markSent: (requestId: number): Promise<void> => markSentTx(requestId),
    /** The request did not reach the service after all (e.g. 503 until the retries ran out): abandoned, its items unsent again. */
    releaseRequest: (requestId: number): Promise<void> => releaseTx(requestId),
    /** Stores every item's outcome and the request status (derived unless given). */
    completeRequest: (requestId: number, outcomes: readonly ItemOutcome[] | PackedOkOutcomes, options: { status?: 'done' | 'failed' | 'uncertain' } = {}): Promise<RequestStatus> =>
      completeTx(requestId, outcomes, options.status),
    /** Requests whose items all came back ok (packOkOutcomes), stored `done` in one statement; all refused when one is. */
    completeRequests: (requests: ReadonlyArray<AllOkRequest>): Promise<void> => write((t) => finishAllOk(t, requests, 'done')),
    /** Ends a processing file: `done`, or `failed` when some items failed or are uncertain. */
    finishFile: (fileId: number): Promise<FileStatus> => finishTx(fileId),
    /** The file as a whole failed (unreadable, no header, unknown mapping...). */
    rejectFile: (fileId: number, reason: string): Promise<void> => rejectTx(fileId, reason),
    resumeState,
    itemsInRange,
    requestItems,
    getRequest: async (requestId: number): Promise<RecordedRequest> => toRequest(await requireRequest(sql, requestId)),
    fileSummary: (fileId: number): Promise<FileSummary> => summary(sql, fileId),
    /** What the service returned for an ok item (stored per request). */
    resultOf,
    resultList,
  };
}
