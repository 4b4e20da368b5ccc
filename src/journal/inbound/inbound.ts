import type { AllOkRequest, BlockIndexOf, PackedBatch, PackedOkOutcomes } from '../core/block-pack.js';
import { refuseShared, type Blocks } from '../core/blocks.js';
import { recordWithBlocks, type BatchToRecord } from '../core/record-blocks.js';
import type { Fence } from '../leases/leases.js';
import { bodyJson, encodeLines, messagesJson, stateError, toRanges, type RequestRow } from '../core/rows.js';
import { INBOUND_STATEMENTS as q, LIVE_LEASE_HOLDER, SENT_STATEMENTS } from './inbound-sql.js';
import { blocksOn, requireOpen, write, type InboundContext } from './inbound-context.js';
import { completeRequest, finishAllOk } from './inbound-outcomes.js';
import { fileSummaryOn, requireRequest, type InboundReads } from './inbound-reads.js';
import { takeTurn, type SqlPort, type SqlValue } from '../core/sql.js';
import type { ClaimInput, ClaimResult, FileStatus, ItemOutcome, NewItem, RequestStatus } from '../core/types.js';

/*
 * The crash-safe path of an inbound file (JournalContract's ClaimsAndRequests): a claim, its items and requests, their
 * outcomes (inbound-outcomes.ts), the file's end. What it reads back is inbound-reads.ts.
 */

/** Refuses a write for a file that is not processing (`status` undefined: no such file). */
function processingRequired(fileId: number, status: string | undefined): void {
  if (status === undefined) throw stateError(`file ${fileId} is not in the journal`);
  if (status !== 'processing') throw stateError(`file ${fileId} is ${status}, not processing`);
}

/** Refuses a packed block for another endpoint than the request's. */
function requireEndpoint(packed: PackedBatch, endpoint: string): void {
  if (packed.endpoint !== endpoint) throw stateError(`the packed items are for ${packed.endpoint}, not ${endpoint}`);
}

async function insertedId(t: SqlPort, statement: string, params: readonly SqlValue[]): Promise<number> {
  return (await t.get<{ id: number }>(statement, params))!.id;
}

async function requireProcessing(c: InboundContext, t: SqlPort, fileId: number): Promise<void> {
  processingRequired(fileId, c.fence ? await c.fence.status(t, fileId) : (await t.get<{ status: FileStatus }>(q.fileStatus, [fileId]))?.status);
}

/** The request's items are free again (a block is dropped: its items were never recorded elsewhere). */
async function unlinkAndAbandon(c: InboundContext, t: SqlPort, row: RequestRow, at: string): Promise<void> {
  if (!(await blocksOn(c, t).remove(row.id))) {
    for (const [from, to] of JSON.parse(row.seqs) as Array<[number, number]>) await t.run(q.unlinkRange, [row.file_id, from, to, row.id]);
  }
  await t.run(q.abandonRequest, [at, row.id]);
}

async function abandonPendingRequests(c: InboundContext, t: SqlPort, fileId: number): Promise<void> {
  const at = c.now();
  for (const row of await t.all<RequestRow>(q.pendingRequests, [fileId])) await unlinkAndAbandon(c, t, row, at);
}

/** Claims a file by its content checksum: new, resume (a crash left it processing), duplicate, or busy (lease mode). */
function claimFile(c: InboundContext, input: ClaimInput): Promise<ClaimResult> {
  return c.sql.tx(async (t): Promise<ClaimResult> => {
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
      if (!c.fence) {
        // No lease of its own (a one-shot command beside running instances): a file a live instance holds is its alone.
        const holder = await t.get<{ lease_owner: string }>(LIVE_LEASE_HOLDER[t.dialect], [processing.id]);
        if (holder) return { status: 'busy', fileId: processing.id, owner: holder.lease_owner };
      }
      // Lease mode: a file another instance works on is left alone; an expired lease is taken over, as after a crash.
      const taken = await c.fence?.take(t, processing.id);
      if (taken && 'busy' in taken) return { status: 'busy', fileId: processing.id, owner: taken.busy };
      // Requests recorded but never marked sent did not leave the process: they are sent again.
      await abandonPendingRequests(c, t, processing.id);
      return { status: 'resume', fileId: processing.id, generation: processing.generation, ...(taken ? { from: taken.from, token: taken.token, ...(taken.reason ? { reason: taken.reason } : {}) } : {}) };
    }
    if (done) return { status: 'duplicate', fileId: done.id, previousName: done.name, finishedAt: done.finished_at, previousStatus: done.status };
    // Lease mode: the lease taken in the insert's round trip (the server runs the take after it).
    const [inserted, leased] = await Promise.all([
      t.get<{ id: number; generation: number }>(q.insertFile, [input.drop, input.name, input.checksum, input.size, input.mapping, input.checksum, c.now()]),
      c.fence?.takeNew(t, input.checksum),
    ]);
    const { id: fileId, generation } = inserted!;
    if (c.fence && leased !== fileId) throw stateError(`the lease of file ${fileId} was not taken with its claim (took ${leased ?? 'none'})`, { fileId });
    return { status: 'new', fileId, generation };
  });
}

/** Records items (and rows the mapping rejected); seqs already recorded are left as they are. Returns how many were new. */
function addItems(c: InboundContext, fileId: number, items: readonly NewItem[]): Promise<number> {
  return write(c, async (t): Promise<number> => {
    await requireProcessing(c, t, fileId);
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
}

/**
 * Records a request before it is sent and links its items. attempt 1 takes pending items; a re-drive (attempt from
 * beginRedrive) takes failed items and keeps their earlier outcome in the history.
 */
function recordRequest(c: InboundContext, fileId: number, endpoint: string, seqs: readonly number[], attempt: number): Promise<number> {
  return write(c, async (t): Promise<number> => {
    await requireProcessing(c, t, fileId);
    if (seqs.length === 0) throw stateError('a request needs at least one item');
    const ranges = toRanges(seqs);
    const at = c.now();
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
}

/** PostgreSQL: the file's status, the seqs' checks and the inserts in one statement; refused after it, the unit undoes it. */
async function recordBatchesInOne(c: InboundContext, t: SqlPort, fileId: number, batches: readonly BatchToRecord[], sent: boolean, at: string): Promise<number[]> {
  const itemBlocks = blocksOn(c, t);
  refuseShared(fileId, batches.map((b) => b.packed.ranges));
  // The file's row locked and the statement sent together (one round trip on a pipelining connection): the
  // server runs them in order, and a lease found lost fails the unit, which undoes the statement.
  const [, found] = await Promise.all([c.fence?.hold(t, fileId), recordWithBlocks(t, fileId, { sent, at }, batches)]);
  processingRequired(fileId, found.fileStatus ?? undefined);
  for (const [i, { packed }] of batches.entries()) await itemBlocks.refuseRecorded(fileId, packed.ranges, found.spanItems[i], found.blockSeqs);
  const ids = found.requestIds as number[];
  for (const [i, { packed }] of batches.entries()) if (packed.index !== undefined) await itemBlocks.insertIndex(fileId, ids[i], packed.index);
  return ids;
}

/** A commit's new requests with their item blocks (JournalContract.recordBatches); their ids in order. */
function recordBatches(c: InboundContext, fileId: number, batches: readonly BatchToRecord[], sent: boolean): Promise<number[]> {
  return write(c, async (t): Promise<number[]> => {
    const at = c.now();
    if (t.dialect === 'postgres') return recordBatchesInOne(c, t, fileId, batches, sent, at);
    const itemBlocks = blocksOn(c, t);
    await requireProcessing(c, t, fileId);
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
}

/** Call just before the bytes go out: from here on the outcome is unknown until completeRequest. */
function markSent(c: InboundContext, requestId: number): Promise<void> {
  return write(c, async (t): Promise<void> => {
    const row = await requireRequest(t, requestId);
    await c.fence?.hold(t, row.file_id);
    // Items stay `pending` in their rows: they read as `sent` through their request (no write per item).
    if ((await t.run(SENT_STATEMENTS[t.dialect].sendRequest, [requestId])) !== 1) throw stateError(`request ${requestId} is ${row.status}, not pending`);
  });
}

/** A request known not to have reached the service (refused before processing): its items are free again. */
function releaseRequest(c: InboundContext, requestId: number): Promise<void> {
  return write(c, async (t): Promise<void> => {
    const row = await requireRequest(t, requestId);
    await c.fence?.hold(t, row.file_id);
    requireOpen(row);
    await unlinkAndAbandon(c, t, row, c.now());
  });
}

/** Ends a processing file: `done`, or `failed` when some items failed or are uncertain. */
function finishFile(c: InboundContext, fileId: number): Promise<FileStatus> {
  return write(c, async (t): Promise<FileStatus> => {
    const [, s] = await Promise.all([requireProcessing(c, t, fileId), fileSummaryOn(t, fileId)]);
    if (s.pending + s.sent > 0) {
      throw stateError(`file ${fileId} still has ${s.pending} pending and ${s.sent} sent items`, { fileId });
    }
    const status: FileStatus = s.error + s.uncertain > 0 ? 'failed' : 'done';
    const at = c.now();
    await t.run(q.finishFile, [status, JSON.stringify(s), at, at, fileId]);
    return status;
  });
}

/** The file as a whole failed (unreadable, no header, unknown mapping...). */
function rejectFile(c: InboundContext, fileId: number, reason: string): Promise<void> {
  return write(c, async (t): Promise<void> => {
    await requireProcessing(c, t, fileId);
    const at = c.now();
    await t.run(q.rejectFile, [reason, at, at, fileId]);
  });
}

/** The inbound role over `sql`: its writes (fenced in lease mode, `fence`) and, through `reads`, what it reads back. */
export function createInbound(sql: SqlPort, now: () => string, blocks: Blocks, reads: InboundReads, fence?: Fence) {
  const c: InboundContext = { sql, now, blocks, fence };
  return {
    claimFile: (input: ClaimInput): Promise<ClaimResult> => claimFile(c, input),
    addItems: (fileId: number, items: readonly NewItem[]): Promise<number> => addItems(c, fileId, items),
    recordRequest: (fileId: number, endpoint: string, seqs: readonly number[], options: { attempt?: number } = {}): Promise<number> =>
      recordRequest(c, fileId, endpoint, seqs, options.attempt ?? 1),
    /**
     * Records a commit's new requests, each a packed block (`{ packed, bodies }`), in one unit of work and on
     * PostgreSQL in one statement; their ids in order. A seq two of them share is refused too.
     */
    recordBatches: async (fileId: number, batches: ReadonlyArray<BatchToRecord & { endpoint: string }>, options: { sent?: boolean } = {}): Promise<number[]> => {
      if (batches.length === 0) return [];
      for (const { endpoint, packed } of batches) requireEndpoint(packed, endpoint);
      return recordBatches(c, fileId, batches, options.sent === true);
    },
    /** The console search's index of blocks recorded without it (their PackedBatch's `index` taken off). */
    indexBlocks: (fileId: number, indexes: readonly BlockIndexOf[]): Promise<void> => write(c, (t) => blocksOn(c, t).insertIndexes(fileId, indexes)),
    /** Indexes the file's blocks a crash left without their index; how many. */
    indexMissingBlocks: (fileId: number): Promise<number> => write(c, (t) => blocksOn(c, t).indexMissing(fileId)),
    markSent: (requestId: number): Promise<void> => markSent(c, requestId),
    /** The request did not reach the service after all (e.g. 503 until the retries ran out): abandoned, its items unsent again. */
    releaseRequest: (requestId: number): Promise<void> => releaseRequest(c, requestId),
    completeRequest: (requestId: number, outcomes: readonly ItemOutcome[] | PackedOkOutcomes, options: { status?: 'done' | 'failed' | 'uncertain' } = {}): Promise<RequestStatus> =>
      completeRequest(c, requestId, outcomes, options.status),
    /** Requests whose items all came back ok (packOkOutcomes), stored `done` in one statement; all refused when one is. */
    completeRequests: (requests: ReadonlyArray<AllOkRequest>): Promise<void> => write(c, (t) => finishAllOk(c, t, requests, 'done')),
    finishFile: (fileId: number): Promise<FileStatus> => finishFile(c, fileId),
    rejectFile: (fileId: number, reason: string): Promise<void> => rejectFile(c, fileId, reason),
    resumeState: (fileId: number) => reads.resumeState(fileId),
    requestItems: (requestId: number) => reads.requestItems(requestId),
    getRequest: (requestId: number) => reads.getRequest(requestId),
    fileSummary: (fileId: number) => reads.fileSummary(fileId),
  };
}
